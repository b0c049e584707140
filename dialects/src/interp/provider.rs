//! Language-model providers for `xcs.llm`: the small [`LlmProvider`] trait (the Python frontend
//! implements real ones later), the built-in deterministic `echo` provider, and the
//! [`ProviderRegistry`] that maps the op's `provider = "..."` attribute to an implementation.

use std::collections::BTreeMap;
use std::sync::Arc;

/// Completes a prompt with a model. Called from `xcs.llm`, possibly from several threads at
/// once (`xcs.parallel_map`), hence `Send + Sync`. An `Err` is reported as a run-time error of
/// the op, naming the provider.
pub trait LlmProvider: Send + Sync {
    fn complete(&self, model: &str, prompt: &str) -> Result<String, String>;
}

/// The built-in `echo` provider: returns the prompt unchanged, whatever the model. Deterministic,
/// so programs with LLM calls can be run before and after a pass and compared.
#[derive(Copy, Clone, Debug, Default)]
pub struct EchoProvider;

impl LlmProvider for EchoProvider {
    fn complete(&self, _model: &str, prompt: &str) -> Result<String, String> {
        Ok(prompt.to_string())
    }
}

/// Any `Fn(model, prompt)` closure is a provider (handy in tests and embeddings).
impl<F> LlmProvider for F
where
    F: Fn(&str, &str) -> Result<String, String> + Send + Sync,
{
    fn complete(&self, model: &str, prompt: &str) -> Result<String, String> {
        self(model, prompt)
    }
}

/// Providers by name, and optionally a fallback for every name that is not registered.
#[derive(Clone)]
pub struct ProviderRegistry {
    providers: BTreeMap<String, Arc<dyn LlmProvider>>,
    fallback: Option<Arc<dyn LlmProvider>>,
}

impl Default for ProviderRegistry {
    /// A registry with the built-in providers (`echo`).
    fn default() -> Self {
        let mut r = ProviderRegistry::empty();
        r.register("echo", Arc::new(EchoProvider));
        r
    }
}

impl ProviderRegistry {
    /// A registry without any provider.
    pub fn empty() -> Self {
        ProviderRegistry { providers: BTreeMap::new(), fallback: None }
    }
    /// Adds (or replaces) the provider called `name`.
    pub fn register(&mut self, name: &str, provider: Arc<dyn LlmProvider>) {
        self.providers.insert(name.to_string(), provider);
    }
    /// Answers the calls whose provider is not registered with `provider` (with an empty
    /// registry: every call; `xcs-run --provider echo` runs any program on the echo provider).
    pub fn set_fallback(&mut self, provider: Arc<dyn LlmProvider>) {
        self.fallback = Some(provider);
    }
    /// The provider called `name`, else the fallback.
    pub fn get(&self, name: &str) -> Option<&Arc<dyn LlmProvider>> {
        self.providers.get(name).or(self.fallback.as_ref())
    }
    /// The registered names, sorted.
    pub fn names(&self) -> Vec<&str> {
        self.providers.keys().map(|s| s.as_str()).collect()
    }
}

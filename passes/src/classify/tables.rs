//! The classification tables of seed 000 (`shared/seeds/000_d7e753949770ab0a.txt`), verbatim,
//! and the [`Matcher`] that applies them: module-prefix matching of `xcs.module` values,
//! the seed's module-aware name matching (prefixes first, then keywords), and its type rule.
//! User extensions (the `classify` pass options) are appended after the seed's entries.

/// Seed §4.2 `_TENSOR_MODULE_PREFIXES`.
pub const TENSOR_MODULE_PREFIXES: &[&str] = &["jax.", "jaxlib.", "numpy.", "torch.", "tensorflow.", "scipy."];

/// Seed §4.2 `_ORCHESTRATION_MODULE_PREFIXES`.
pub const ORCHESTRATION_MODULE_PREFIXES: &[&str] = &[
    "anthropic.",
    "openai.",
    "langchain.",
    "litellm.",
    "ember.gateway.",
    "ember.operators.",
];

/// Seed §4.3 `_TENSOR_KEYWORDS` (and Appendix A.1).
pub const TENSOR_KEYWORDS: &[&str] = &[
    "jax",
    "jnp",
    "numpy",
    "ndarray",
    "tensor",
    "array",
    "matmul",
    "einsum",
    "lax",
    "grad",
    "vmap",
    "pmap",
    "scan",
    "torch",
    "pytorch",
    "tensorflow",
    "tf",
];

/// Seed §4.3 `_ORCHESTRATION_KEYWORDS` (and Appendix A.2).
pub const ORCHESTRATION_KEYWORDS: &[&str] = &[
    "llm",
    "anthropic",
    "openai",
    "prompt",
    "completion",
    "chat",
    "mcp",
    "langchain",
    "litellm",
    "gemini",
    "cohere",
];

/// Seed §4.3 "Intentionally Excluded Keywords" and Appendix A.3: never in the default keyword
/// sets (a test checks it). A user may still add one through the pass options.
pub const EXCLUDED_KEYWORDS: &[&str] = &["model", "call", "api", "router", "tool", "dot"];

/// Seed §4.4: a type annotation is a tensor signal when its text contains one of these.
/// (`str`, `model` and `operator` were removed from the seed's list as too ambiguous.)
pub const TYPE_TOKENS: &[&str] = &["array", "tensor", "ndarray", "jax"];

/// Seed §7.1: the name recorded in both sets when a function cannot be analyzed.
pub const UNKNOWN: &str = "unknown";

/// Which side a signal is on; a [`Bits`] set of them.
pub type Bits = u8;
pub const TENSOR: Bits = 1;
pub const ORCHESTRATION: Bits = 2;
pub const HYBRID: Bits = TENSOR | ORCHESTRATION;

/// How a name was recognized by [`Matcher::match_name`].
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum NameMatch {
    /// Not recognized.
    None,
    /// By a module prefix (module-aware matching): one side, keywords skipped.
    Prefix(Bits),
    /// By the keyword sets: one side or both.
    Keyword(Bits),
}

impl NameMatch {
    pub fn bits(self) -> Bits {
        match self {
            NameMatch::None => 0,
            NameMatch::Prefix(b) | NameMatch::Keyword(b) => b,
        }
    }
}

/// The seed's tables plus the user's extensions, prepared for matching.
#[derive(Clone, Debug)]
pub struct Matcher {
    /// Module prefixes without their trailing dot (`torch`, `ember.gateway`), as written.
    tensor_prefixes: Vec<String>,
    orchestration_prefixes: Vec<String>,
    /// The same, lowercased, for name matching.
    tensor_prefixes_lower: Vec<String>,
    orchestration_prefixes_lower: Vec<String>,
    tensor_keywords: Vec<String>,
    orchestration_keywords: Vec<String>,
}

impl Default for Matcher {
    fn default() -> Self {
        Matcher::new(&[], &[], &[], &[])
    }
}

fn strip_dot(p: &str) -> String {
    p.trim().trim_end_matches('.').to_string()
}

impl Matcher {
    /// The seed's tables followed by the extra prefixes and keywords (empty entries are
    /// ignored; a trailing `.` on a prefix is optional; keywords are lowercased).
    pub fn new(
        extra_tensor_prefixes: &[String],
        extra_orchestration_prefixes: &[String],
        extra_tensor_keywords: &[String],
        extra_orchestration_keywords: &[String],
    ) -> Self {
        let prefixes = |seed: &[&str], extra: &[String]| -> Vec<String> {
            seed.iter()
                .map(|p| strip_dot(p))
                .chain(extra.iter().map(|p| strip_dot(p)))
                .filter(|p| !p.is_empty())
                .collect()
        };
        let keywords = |seed: &[&str], extra: &[String]| -> Vec<String> {
            let mut v: Vec<String> = seed.iter().map(|k| k.to_string()).collect();
            for k in extra {
                let k = k.trim().to_lowercase();
                if !k.is_empty() && !v.contains(&k) {
                    v.push(k);
                }
            }
            v
        };
        let tensor_prefixes = prefixes(TENSOR_MODULE_PREFIXES, extra_tensor_prefixes);
        let orchestration_prefixes = prefixes(ORCHESTRATION_MODULE_PREFIXES, extra_orchestration_prefixes);
        Matcher {
            tensor_prefixes_lower: tensor_prefixes.iter().map(|p| p.to_lowercase()).collect(),
            orchestration_prefixes_lower: orchestration_prefixes.iter().map(|p| p.to_lowercase()).collect(),
            tensor_prefixes,
            orchestration_prefixes,
            tensor_keywords: keywords(TENSOR_KEYWORDS, extra_tensor_keywords),
            orchestration_keywords: keywords(ORCHESTRATION_KEYWORDS, extra_orchestration_keywords),
        }
    }

    /// Priority 2 (seed §4.2, Appendix B): a module path (`xcs.module`) against the module
    /// prefixes, tensor prefixes first. A prefix `torch.` matches the package `torch` itself
    /// and every module under it (`torch.nn.functional`), not `torchvision`. Case-sensitive,
    /// as Python module names are.
    pub fn match_module(&self, module: &str) -> Bits {
        let under = |p: &String| module == p || (module.starts_with(p.as_str()) && module[p.len()..].starts_with('.'));
        if self.tensor_prefixes.iter().any(under) {
            TENSOR
        } else if self.orchestration_prefixes.iter().any(under) {
            ORCHESTRATION
        } else {
            0
        }
    }

    /// Priority 3 (seed §4.3 `_record_name`, Appendix B): a dotted name, lowercased; if it
    /// starts with a tensor module prefix (without its dot, so `torch` also matches
    /// `torchvision`) it is a tensor name, else with an orchestration prefix an orchestration
    /// name, and keywords are not looked at; otherwise each keyword set is checked for a
    /// substring (a name may hit both).
    pub fn match_name(&self, name: &str) -> NameMatch {
        let lowered = name.to_lowercase();
        if self
            .tensor_prefixes_lower
            .iter()
            .any(|p| lowered.starts_with(p.as_str()))
        {
            return NameMatch::Prefix(TENSOR);
        }
        if self
            .orchestration_prefixes_lower
            .iter()
            .any(|p| lowered.starts_with(p.as_str()))
        {
            return NameMatch::Prefix(ORCHESTRATION);
        }
        let mut bits = 0;
        if self.tensor_keywords.iter().any(|k| lowered.contains(k.as_str())) {
            bits |= TENSOR;
        }
        if self.orchestration_keywords.iter().any(|k| lowered.contains(k.as_str())) {
            bits |= ORCHESTRATION;
        }
        if bits == 0 {
            NameMatch::None
        } else {
            NameMatch::Keyword(bits)
        }
    }
}

/// Priority 4 (seed §4.4): whether a type's text (`tensor<4xf32>`, `!foo.ndarray`) is a
/// tensor signal. Every ranked or unranked tensor type is, by its `tensor` token.
pub fn is_tensor_type_text(text: &str) -> bool {
    let lowered = text.to_lowercase();
    TYPE_TOKENS.iter().any(|t| lowered.contains(t))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn excluded_keywords_are_in_no_set() {
        for k in EXCLUDED_KEYWORDS {
            assert!(
                !TENSOR_KEYWORDS.contains(k) && !ORCHESTRATION_KEYWORDS.contains(k),
                "{k}"
            );
        }
        let m = Matcher::default();
        for k in EXCLUDED_KEYWORDS {
            assert_eq!(m.match_name(k), NameMatch::None, "{k}");
        }
        assert_eq!(m.match_name("get_model_api_router_tool.call"), NameMatch::None);
    }

    #[test]
    fn seed_tables_sizes() {
        // Appendix A: 17 tensor keywords, 11 orchestration keywords, 6 removed ones.
        assert_eq!(TENSOR_KEYWORDS.len(), 17);
        assert_eq!(ORCHESTRATION_KEYWORDS.len(), 11);
        assert_eq!(EXCLUDED_KEYWORDS.len(), 6);
        assert_eq!(TENSOR_MODULE_PREFIXES.len(), 6);
        assert_eq!(ORCHESTRATION_MODULE_PREFIXES.len(), 6);
    }

    #[test]
    fn module_aware_names() {
        let m = Matcher::default();
        // seed §2.3: the prefix decides, keywords are skipped
        assert_eq!(m.match_name("torch.nn.Module"), NameMatch::Prefix(TENSOR));
        assert_eq!(m.match_name("openai.Model"), NameMatch::Prefix(ORCHESTRATION));
        assert_eq!(m.match_name("torch.llm_chat"), NameMatch::Prefix(TENSOR));
        assert_eq!(m.match_name("openai.tensor"), NameMatch::Prefix(ORCHESTRATION));
        assert_eq!(m.match_name("Ember.Gateway.complete"), NameMatch::Prefix(ORCHESTRATION));
        // the prefix without its dot: `torch` covers `torchvision`, `jax` covers `jaxlib`
        assert_eq!(m.match_name("torchvision.ops.nms"), NameMatch::Prefix(TENSOR));
        assert_eq!(m.match_name("ember.operators_x"), NameMatch::Prefix(ORCHESTRATION));
        assert_eq!(m.match_name("ember.api"), NameMatch::None);
        // keywords: substrings, both sides possible
        assert_eq!(m.match_name("my_matmul"), NameMatch::Keyword(TENSOR));
        assert_eq!(m.match_name("build_prompt"), NameMatch::Keyword(ORCHESTRATION));
        assert_eq!(m.match_name("tensor_chat"), NameMatch::Keyword(HYBRID));
        assert_eq!(m.match_name("JNP.sum"), NameMatch::Keyword(TENSOR));
    }

    #[test]
    fn modules() {
        let m = Matcher::default();
        assert_eq!(m.match_module("torch.nn.functional"), TENSOR);
        assert_eq!(m.match_module("torch"), TENSOR);
        assert_eq!(m.match_module("torchvision"), 0);
        assert_eq!(m.match_module("openai.resources"), ORCHESTRATION);
        assert_eq!(m.match_module("ember.gateway.providers"), ORCHESTRATION);
        assert_eq!(m.match_module("ember.core"), 0);
        assert_eq!(m.match_module("Torch.nn"), 0);
        assert_eq!(m.match_module(""), 0);
    }

    #[test]
    fn extensions() {
        let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        let m = Matcher::new(
            &s(&["mylib.nn.", "mylib.ops"]),
            &s(&["agents"]),
            &s(&["Conv"]),
            &s(&["agent", ""]),
        );
        assert_eq!(m.match_module("mylib.nn.layers"), TENSOR);
        assert_eq!(m.match_module("mylib.ops"), TENSOR);
        assert_eq!(m.match_module("mylib.other"), 0);
        assert_eq!(m.match_module("agents.run"), ORCHESTRATION);
        assert_eq!(m.match_name("mylib.ops.fast_thing"), NameMatch::Prefix(TENSOR));
        assert_eq!(m.match_name("my_conv2d"), NameMatch::Keyword(TENSOR));
        assert_eq!(m.match_name("run_agent"), NameMatch::Keyword(ORCHESTRATION));
        // the seed's entries stay
        assert_eq!(m.match_name("torch.add"), NameMatch::Prefix(TENSOR));
    }

    #[test]
    fn type_rule() {
        assert!(is_tensor_type_text("tensor<4x8xf32>"));
        assert!(is_tensor_type_text("tensor<*xf32>"));
        assert!(is_tensor_type_text("!foo.NDArray"));
        assert!(is_tensor_type_text("!jax.Array"));
        assert!(!is_tensor_type_text("!xcs.str"));
        assert!(!is_tensor_type_text("f32"));
        assert!(!is_tensor_type_text("memref<4xf32>"));
    }
}

//! XCS passes: the classic cleanups (`canonicalize`, `cse`, `dce`, `inline`, `symbol-dce`),
//! one file per pass, each exposing its pass type and its registry entry `INFO`.
//! [`register_all`] adds them to a [`PassRegistry`].

pub mod canonicalize;
pub mod cse;
pub mod dce;
pub mod inline;
pub mod region_simplify;
pub mod symbol_dce;
pub mod util;

use xcs_ir::pass::PassRegistry;

/// Registers every XCS pass.
pub fn register_all(registry: &mut PassRegistry) {
    registry.register(canonicalize::INFO);
    registry.register(cse::INFO);
    registry.register(dce::INFO);
    registry.register(inline::INFO);
    registry.register(symbol_dce::INFO);
}

/// A registry with every XCS pass.
pub fn registry() -> PassRegistry {
    let mut r = PassRegistry::new();
    register_all(&mut r);
    r
}

#[cfg(test)]
pub mod testing;

#[cfg(test)]
mod tests;

//! XCS passes: the classic cleanups (`canonicalize`, `cse`, `dce`, `inline`, `symbol-dce`),
//! the seed passes (`classify`, `vmap-batch`, `auto-shard`, `fuse`, `cost-annotate`), `shard-partition`,
//! one file per pass, each exposing its pass type and its registry entry `INFO`.
//! [`register_all`] adds them to a [`PassRegistry`]. (The `test-*` passes for testing the pass
//! infrastructure live with the tests, in `xcs-test-support`.)

pub mod auto_shard;
pub mod canonicalize;
pub mod classify;
pub mod convert_stablehlo_to_tensor;
pub mod cost_annotate;
pub mod cse;
pub mod dce;
pub mod fuse;
pub mod inline;
pub mod region_simplify;
pub mod shard_partition;
pub mod symbol_dce;
pub mod util;
pub mod vmap_batch;

use xcs_ir::pass::PassRegistry;

/// Registers every XCS pass.
pub fn register_all(registry: &mut PassRegistry) {
    registry.register(auto_shard::INFO);
    registry.register(canonicalize::INFO);
    registry.register(classify::INFO);
    registry.register(convert_stablehlo_to_tensor::INFO);
    registry.register(cost_annotate::INFO);
    registry.register(cse::INFO);
    registry.register(dce::INFO);
    registry.register(fuse::INFO);
    registry.register(inline::INFO);
    registry.register(shard_partition::INFO);
    registry.register(symbol_dce::INFO);
    registry.register(vmap_batch::INFO);
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

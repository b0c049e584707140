//! `xcs-run`: run a function of an XCS module through the LLVM JIT, the reference interpreter or
//! (the `mlir` feature) upstream MLIR's pipeline and ExecutionEngine (see `xcs::run`).
use std::time::Instant;

xcs::tool_allocator!();

/// `--backend=mlir` through xcs-mlir: compiled by MLIR, timed as the LLVM JIT is.
#[cfg(feature = "mlir")]
fn run_mlir(p: &xcs::run::Prepared) -> Result<(Vec<xcs_dialects::interp::RtValue>, Option<xcs::run::Timing>), String> {
    let t0 = Instant::now();
    let compiled = xcs_mlir::engine::compile(&p.xcs.ctx, &p.module, &p.entry).map_err(|d| p.xcs.error(vec![d]).to_string())?;
    let compile = t0.elapsed();
    let call = || compiled.run(&p.xcs.ctx, &p.args).map_err(|e| format!("error: {e}"));
    let timing = match p.bench {
        Some(n) => {
            let mut t = xcs::run::time_calls(n, || call().map(|_| ()))?;
            t.compile = Some(compile);
            Some(t)
        }
        None => None,
    };
    Ok((call()?, timing))
}

fn main() {
    #[cfg(feature = "mlir")]
    std::process::exit(xcs::run::main_with_mlir(std::env::args_os(), run_mlir));
    #[cfg(not(feature = "mlir"))]
    std::process::exit(xcs::run::main(std::env::args_os()));
}

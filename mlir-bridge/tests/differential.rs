//! The MLIR backend against the LLVM JIT and the reference interpreter: every program of
//! `COVERED` (lit and example programs whose ops the MLIR export covers; the list docs/interop.md
//! documents) runs on all three with seeded random inputs and the results must agree. Also: the
//! export is verified by MLIR and located errors name what it does not cover. This binary links
//! MLIR (melior) and LLVM (inkwell) into one process: both use the one shared libLLVM.so.

use std::path::Path;

use xcs_dialects::interp::{random_tensor, ElemType, Interpreter, RtValue};
use xcs_ir::parser::{parse_module, ParseOptions};
use xcs_ir::{Context, Module, TypeKind};
use xcs_lowering::{Jit, Options};

/// The programs the MLIR backend covers: (file under the repository root, entry).
const COVERED: &[(&str, &str)] = &[
    ("examples/mlp.mlir", "main"),
    ("test/Lowering/jit.mlir", "ieee"),
    ("test/Lowering/jit.mlir", "work"),
    ("test/Lowering/softmax-short-rows.mlir", "f32_8"),
    ("test/Dialect/tensor/math-ops.mlir", "math"),
    ("test/Run/upstream-cf-func-ops.mlir", "double"),
    ("test/Transforms/fuse/matmul.mlir", "mlp"),
    ("test/Transforms/fuse/matmul.mlir", "bias_relu_residual"),
    ("test/Transforms/fuse/matmul.mlir", "broadcast_consumer"),
    ("test/Transforms/fuse/recompute.mlir", "long_chain"),
    ("test/Transforms/fuse/reduction.mlir", "reduce"),
    ("test/Transforms/fuse/reduction.mlir", "softmax"),
    ("test/Transforms/fuse/elementwise.mlir", "chain"),
    ("test/Transforms/fuse/elementwise.mlir", "broadcast_producer"),
    ("test/Transforms/cost-annotate/ops.mlir", "elementwise"),
    ("test/Transforms/cost-annotate/ops.mlir", "contractions"),
    ("test/Transforms/auto-shard/residual-attention.mlir", "attention"),
    ("test/Transforms/auto-shard/mesh-2d.mlir", "mlp_2d"),
    ("test/Transforms/auto-shard/mlp.mlir", "mlp_batch"),
    ("test/Transforms/vmap-batch/calls.mlir", "norm"),
    ("test/Interop/export-mlir-ops.mlir", "shapes"),
    ("test/Interop/export-mlir-ops.mlir", "indexing"),
    ("test/Interop/export-mlir-ops.mlir", "norm"),
    ("test/Interop/export-mlir-ops.mlir", "branches"),
];

fn context() -> Context {
    let mut ctx = Context::new();
    xcs_dialects::register_all(&mut ctx);
    xcs_lowering::attach_interfaces(&mut ctx);
    ctx
}

fn load(ctx: &Context, file: &str) -> Module {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(file);
    let src = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{file}: {e}"));
    let m = parse_module(ctx, &src, file, &ParseOptions::default()).unwrap_or_else(|d| panic!("{file}: {}", d.message));
    xcs_ir::verifier::verify_module(ctx, &m, false).unwrap_or_else(|ds| panic!("{file}: {}", ds[0].message));
    m
}

/// Seeded random tensors of the entry's argument types.
fn inputs(ctx: &Context, m: &Module, entry: &str) -> Vec<RtValue> {
    let op = m.lookup_symbol(ctx, entry).expect("entry");
    let ft = m.body.attr(ctx, op, "function_type").expect("function type");
    let (args, _) = xcs_dialects::func::signature(ctx, ft).expect("signature");
    args.iter()
        .enumerate()
        .map(|(i, &t)| match ctx.type_kind(t) {
            TypeKind::RankedTensor { shape, elem, .. } => {
                let shape: Vec<usize> = shape.iter().map(|&d| d as usize).collect();
                RtValue::Tensor(random_tensor(ElemType::from_type(ctx, *elem).expect("elem"), &shape, 7 + i as u64))
            }
            _ => panic!("{entry}: argument #{i} is not a tensor"),
        })
        .collect()
}

/// Within `rtol` of the expected result's largest magnitude (the backends sum in other orders
/// and use other exp/tanh/erf approximations than the interpreter's libm).
fn agree(got: &RtValue, want: &RtValue, what: &str) {
    agree_within(got, want, 2e-5, what)
}

fn agree_within(got: &RtValue, want: &RtValue, rtol: f64, what: &str) {
    let (RtValue::Tensor(a), RtValue::Tensor(b)) = (got, want) else { panic!("{what}: not tensors") };
    let largest = b.data.to_f64s().map_or(0.0, |v| v.iter().filter(|x| x.is_finite()).fold(0.0f64, |m, x| m.max(x.abs())));
    if let Err(e) = a.allclose(b, rtol, 1e-6f64.max(rtol * largest)) {
        panic!("{what}: {e}\n  got:  {a}\n  want: {b}");
    }
}

#[test]
fn covered_programs_agree_on_three_backends() {
    for &(file, entry) in COVERED {
        let ctx = context();
        let m = load(&ctx, file);
        let args = inputs(&ctx, &m, entry);
        let want = Interpreter::new(&ctx, &m).call(entry, args.clone()).unwrap_or_else(|e| panic!("{file} @{entry}: interp: {}", e.message));
        let mut opts = Options::host();
        opts.threads = 1;
        let jit = Jit::new(&ctx, &m, opts).call(entry, &args).unwrap_or_else(|e| panic!("{file} @{entry}: jit: {e}"));
        if let Ok(dir) = std::env::var("XCS_MLIR_DUMP") {
            let text = xcs_mlir::engine::module_text(&ctx, &m, entry).unwrap_or_else(|e| panic!("{file} @{entry}: {}", e.message));
            std::fs::write(Path::new(&dir).join(format!("{entry}.mlir")), text).expect("dump");
        }
        let compiled = xcs_mlir::engine::compile(&ctx, &m, entry).unwrap_or_else(|e| panic!("{file} @{entry}: {}", e.message));
        let got = compiled.run(&ctx, &args).unwrap_or_else(|e| panic!("{file} @{entry}: {e}"));
        assert_eq!(got.len(), want.len(), "{file} @{entry}: result count");
        for (j, w) in want.iter().enumerate() {
            agree(&got[j], w, &format!("{file} @{entry} result #{j}: mlir vs interp"));
            agree(&jit[j], w, &format!("{file} @{entry} result #{j}: llvm vs interp"));
        }
        // Twice: the compiled entry owns no state between calls.
        let again = compiled.run(&ctx, &args).expect("second call");
        for (j, w) in want.iter().enumerate() {
            agree(&again[j], w, &format!("{file} @{entry} result #{j}: second mlir call"));
        }
    }
}


/// The StableHLO suite (test/Interop/Inputs/jax/: the seven JAX programs of
/// frontend/tests/test_py_from_jax.py, exported by jax 0.10 with their inputs and JAX's outputs),
/// after `from_jax`'s pipeline: every program agrees with JAX on the MLIR backend, the LLVM JIT
/// and the interpreter.
const STABLEHLO_SUITE: &[&str] =
    &["mlp", "attention", "layernorm_gelu", "cross_entropy", "scan_rnn", "cond_true", "cond_false", "gpt2_block"];

/// `xcs._jax.JAX_PIPELINE`.
const JAX_PIPELINE: &str = "builtin.module(convert-stablehlo-to-tensor,inline,func.func(canonicalize,cse,fuse),symbol-dce)";

fn suite_file(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../test/Interop/Inputs/jax").join(name)
}

/// The `.npy` files `NAME.<kind><i>.npy` for i = 0, 1, ... as long as they exist.
fn suite_tensors(name: &str, kind: &str) -> Vec<RtValue> {
    (0..)
        .map(|i| suite_file(&format!("{name}.{kind}{i}.npy")))
        .take_while(|p| p.exists())
        .map(|p| RtValue::Tensor(xcs_dialects::interp::read_npy(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))))
        .collect()
}

#[test]
fn stablehlo_suite_agrees_with_jax_on_three_backends() {
    for &name in STABLEHLO_SUITE {
        let ctx = context();
        let file = format!("test/Interop/Inputs/jax/{name}.mlir");
        let mut m = load(&ctx, &file);
        let registry = xcs_passes::registry();
        let pm = xcs_ir::pass::PassManager::parse(JAX_PIPELINE, &registry).expect("pipeline");
        let mut sink = xcs_ir::diag::DiagBuffer::default();
        let ran = pm.run_with(&ctx, &mut m, &mut sink, &mut std::io::sink(), None);
        assert!(ran.is_ok() && !sink.has_errors(), "{name}: {:?}", sink.diags.iter().map(|d| &d.message).collect::<Vec<_>>());
        let (args, jax) = (suite_tensors(name, "in"), suite_tensors(name, "out"));
        assert!(!args.is_empty() && !jax.is_empty(), "{name}: no inputs or outputs");
        let interp = Interpreter::new(&ctx, &m).call("main", args.clone()).unwrap_or_else(|e| panic!("{name}: interp: {}", e.message));
        let mut opts = Options::host();
        opts.threads = 1;
        let jit = Jit::new(&ctx, &m, opts).call("main", &args).unwrap_or_else(|e| panic!("{name}: jit: {e}"));
        if let Ok(dir) = std::env::var("XCS_MLIR_DUMP") {
            let text = xcs_mlir::engine::module_text(&ctx, &m, "main").unwrap_or_else(|e| panic!("{name}: {}", e.message));
            std::fs::write(Path::new(&dir).join(format!("jax_{name}.mlir")), text).expect("dump");
        }
        let compiled = xcs_mlir::engine::compile(&ctx, &m, "main").unwrap_or_else(|e| panic!("{name}: {}", e.message));
        let mlir = compiled.run(&ctx, &args).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!((mlir.len(), jit.len(), interp.len()), (jax.len(), jax.len(), jax.len()), "{name}: result count");
        for (j, want) in jax.iter().enumerate() {
            // JAX (XLA) computes in f32 with its own approximations: 2e-4 of the largest magnitude,
            // as frontend/tests/test_py_from_jax.py compares.
            agree_within(&interp[j], want, 2e-4, &format!("{name} result #{j}: interp vs jax"));
            agree(&mlir[j], &interp[j], &format!("{name} result #{j}: mlir vs interp"));
            agree(&jit[j], &interp[j], &format!("{name} result #{j}: llvm vs interp"));
        }
    }
}

/// The export is MLIR-verified text of upstream dialects only; an op outside the covered set is
/// an error located at it.
#[test]
fn export_is_upstream_and_uncovered_ops_are_located_errors() {
    let ctx = context();
    let m = load(&ctx, "examples/mlp.mlir");
    let text = xcs_mlir::export_module(&ctx, &m).expect("export");
    assert!(text.contains("linalg.matmul") && text.contains("linalg.generic"), "{text}");
    assert!(!text.contains("tensor.matmul") && !text.contains("xcs.name"), "{text}");
    let m = load(&ctx, "test/Interop/Inputs/not-covered.mlir");
    let d = xcs_mlir::export_module(&ctx, &m).expect_err("xcs.str_const is not covered");
    assert!(d.message.contains("'xcs.str_const' op is not covered"), "{}", d.message);
    assert_ne!(d.loc, xcs_ir::Location::UNKNOWN);
}

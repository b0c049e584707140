//! Crate-level tests: the registry (every pass's options and defaults) and pipeline dumps next
//! to mlir-opt's. (Deterministic parallel runs and IR dumps of the real passes, written with the
//! test dialect, are in `tests/transforms/pipelines.rs`.)

use xcs_ir::pass::PassManager;

#[test]
fn dump_matches_mlir_opt() {
    // mlir-opt --dump-pass-pipeline --pass-pipeline='builtin.module(func.func(cse,canonicalize),symbol-dce,inline)'
    let expected = "Pass Manager with 3 passes:
builtin.module(
  func.func(
    cse,
    canonicalize{  max-iterations=10 max-num-rewrites=-1 region-simplify=normal test-convergence=false top-down=true}
  ),
  symbol-dce,
  inline{default-pipeline=canonicalize inlining-threshold=4294967295 max-iterations=4 }
)

";
    let pm = PassManager::parse(
        "builtin.module(func.func(cse,canonicalize),symbol-dce,inline)",
        &crate::registry(),
    )
    .unwrap();
    assert_eq!(pm.dump_pipeline(), expected);
    // options as mlir-opt prints them back
    let pm = PassManager::parse(
        "builtin.module(canonicalize{max-iterations=3 region-simplify=disabled disable-patterns=a,b})",
        &crate::registry(),
    )
    .unwrap();
    assert_eq!(
        pm.root.to_text(false),
        "builtin.module(canonicalize{disable-patterns={a,b}  max-iterations=3 max-num-rewrites=-1 region-simplify=disabled test-convergence=false top-down=true})"
    );
    let e = PassManager::parse("builtin.module(canonicalize{foo=1})", &crate::registry())
        .err()
        .unwrap();
    assert_eq!(
        e.message,
        "failed to add `canonicalize` with options `foo=1`: no such option foo"
    );
    let e = PassManager::parse("builtin.module(cse{a=1})", &crate::registry())
        .err()
        .unwrap();
    assert_eq!(e.message, "failed to add `cse` with options `a=1`: no such option a");
}

#[test]
fn list_passes() {
    insta::assert_snapshot!(crate::registry().list_passes());
}

#[test]
fn every_pass_builds_with_its_defaults() {
    let r = crate::registry();
    let args: Vec<&str> = r.passes().map(|p| p.argument).collect();
    assert_eq!(
        args,
        [
            "auto-shard",
            "canonicalize",
            "classify",
            "convert-stablehlo-to-tensor",
            "cost-annotate",
            "cse",
            "dce",
            "fuse",
            "inline",
            "shard-partition",
            "symbol-dce",
            "vmap-batch"
        ]
    );
    for p in r.passes() {
        let (pass, _) = r.create(p.argument, "").unwrap();
        assert_eq!(pass.argument(), p.argument);
    }
}


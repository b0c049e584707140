//! What the interpreter-oracle tests of the passes (`fuse`, `vmap_batch`, `shard_partition`)
//! share: reading a pass's lit programs, making random inputs for a function's arguments, and
//! putting a generated function into a module. Each test crate uses part of it.

#![allow(dead_code)]

use xcs::Compiler;
use xcs_dialects::interp::{random_input, random_tensor, ElemType, RtValue};
use xcs_ir::{Block, Body, Context, Location, Module, OperationState, Type, TypeKind, DYNAMIC};

/// The lit test programs under `test/<dir>`: (file name, text) of every `.mlir` file, sorted.
pub fn lit_files(dir: &str) -> Vec<(String, String)> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../test").join(dir);
    let mut out: Vec<(String, String)> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "mlir"))
        .map(|p| {
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                std::fs::read_to_string(&p).unwrap(),
            )
        })
        .collect();
    out.sort();
    out
}

/// A random value of `ty`: a tensor's `?` dims have size `dynamic` (`None`: no value for a
/// dynamically shaped tensor); `None` also for a type the interpreter cannot make.
pub fn input(xcs: &Compiler, ty: Type, seed: u64, dynamic: Option<usize>) -> Option<RtValue> {
    let ctx = &xcs.ctx;
    match ctx.type_kind(ty) {
        TypeKind::RankedTensor { shape, elem, .. } => {
            let dims: Vec<usize> = shape
                .iter()
                .map(|&d| if d == DYNAMIC { dynamic } else { usize::try_from(d).ok() })
                .collect::<Option<_>>()?;
            let elem = ElemType::from_type(ctx, *elem)?;
            Some(RtValue::Tensor(random_tensor(elem, &dims, seed)))
        }
        _ => random_input(ctx, ty, seed).ok(),
    }
}

/// Appends the function whose body is `func` (its attributes are the function's) to `block`
/// of `module`.
pub fn append_func(ctx: &Context, module: &mut Module, block: Block, func: Box<Body>) {
    let mut st = OperationState::new(ctx, "func.func", Location::UNKNOWN);
    st.attrs = func.self_attrs();
    st.nested = Some(func);
    let op = module.body.create_op(st);
    module.body.append_op(block, op);
}

/// Arguments for a function taking `types`: argument `i` is `input(type, seed + i)`; `None`
/// if one of them cannot be made.
pub fn arguments(types: &[Type], seed: u64, input: impl Fn(Type, u64) -> Option<RtValue>) -> Option<Vec<RtValue>> {
    types.iter().enumerate().map(|(i, &t)| input(t, seed + i as u64)).collect()
}

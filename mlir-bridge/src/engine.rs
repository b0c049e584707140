//! The MLIR backend (`xcs-run --backend=mlir`): the exported module, plus a wrapper that takes
//! every argument and result as a caller-owned memref (`bufferization.to_tensor` /
//! `materialize_in_destination`, `llvm.emit_c_interface`), compiled by MLIR's own pipeline
//! (one-shot bufferization, linalg to affine loops, lowering to the LLVM dialect) and run by
//! MLIR's ExecutionEngine: a second backend that shares nothing with ours past the export.

use melior::ir::Module as MlirModule;
use melior::pass::PassManager;
use melior::utility::parse_pass_pipeline;
use melior::ExecutionEngine;
use xcs_dialects::func::signature;
use xcs_dialects::interp::{RtValue, Tensor, TensorData};
use xcs_ir::printer::type_to_string;
use xcs_ir::{Context, Diagnostic, Module, Type, TypeKind};

use crate::{export, mlir_context, parse_verified};

/// MLIR's pipeline from the exported tensor program to the LLVM dialect (as `mlir-opt` takes it).
pub const PIPELINE: &str = "builtin.module(\
    one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map},\
    buffer-deallocation-pipeline,convert-bufferization-to-memref,\
    func.func(convert-linalg-to-affine-loops),\
    lower-affine,convert-scf-to-cf,expand-strided-metadata,lower-affine,\
    convert-math-to-llvm,convert-math-to-libm,convert-arith-to-llvm,\
    finalize-memref-to-llvm,convert-func-to-llvm,convert-cf-to-llvm,convert-index-to-llvm,\
    reconcile-unrealized-casts)";

/// [`PIPELINE`] without `buffer-deallocation-pipeline`, for modules whose functions loop
/// through `cf` blocks (`lax.scan`, `while`): upstream's ownership-based deallocation takes
/// structured loops only, so there the buffers a call allocates are not freed.
pub fn pipeline_without_deallocation() -> String {
    PIPELINE.replacen("buffer-deallocation-pipeline,", "", 1)
}

/// Whether a function among `functions` of `module` has a cycle of blocks: some branch goes to
/// its own block or an earlier one (every cycle has such an edge in any order of the blocks).
fn has_block_cycles(ctx: &Context, module: &Module, functions: &[String]) -> bool {
    functions.iter().filter_map(|f| module.lookup_symbol(ctx, f).and_then(|op| module.body.nested(op))).any(|body| {
        body.root_regions().iter().any(|&r| {
            let blocks: Vec<_> = body.region_blocks(r).collect();
            blocks.iter().enumerate().any(|(i, &b)| {
                let succ = body.last_op(b).map(|t| body.successors(t)).unwrap_or(&[]);
                succ.iter().any(|s| blocks.iter().position(|x| x == s).is_some_and(|j| j <= i))
            })
        })
    })
}

/// The name of the wrapper function the backend adds around the entry.
const WRAPPER: &str = "xcs_mlir_entry";

/// An entry compiled by MLIR, ready to be called.
pub struct Compiled {
    engine: ExecutionEngine,
    args: Vec<(Vec<i64>, Type)>,
    results: Vec<(Vec<i64>, Type)>,
}

/// The static shape of a tensor type the backend passes as a memref (static shapes only).
fn memref_shape(ctx: &Context, t: Type) -> Result<Vec<i64>, String> {
    match ctx.type_kind(t) {
        TypeKind::RankedTensor { shape, encoding: None, .. } if shape.iter().all(|&d| d >= 0) => Ok(shape.to_vec()),
        _ => Err(format!("the MLIR backend takes static tensors only, not '{}'", type_to_string(ctx, t))),
    }
}

/// The wrapper: memref arguments to tensors, the call, the results stored into the result memrefs.
fn wrapper_text(ctx: &Context, entry: &str, inputs: &[Type], results: &[Type]) -> Result<String, String> {
    let ty = |t: Type| type_to_string(ctx, t);
    let memref = |t: Type| -> Result<String, String> {
        memref_shape(ctx, t)?;
        Ok(ty(t).replacen("tensor<", "memref<", 1))
    };
    let mut params = Vec::new();
    let mut body = String::new();
    let mut call_args = Vec::new();
    for (i, &t) in inputs.iter().enumerate() {
        params.push(format!("%a{i}: {}", memref(t)?));
        body.push_str(&format!("    %t{i} = bufferization.to_tensor %a{i} restrict : {} to {}\n", memref(t)?, ty(t)));
        call_args.push(format!("%t{i}"));
    }
    for (j, &t) in results.iter().enumerate() {
        params.push(format!("%o{j}: {}", memref(t)?));
    }
    let in_types: Vec<String> = inputs.iter().map(|&t| ty(t)).collect();
    let res_types: Vec<String> = results.iter().map(|&t| ty(t)).collect();
    let lhs = if results.is_empty() { String::new() } else { format!("%r:{} = ", results.len()) };
    body.push_str(&format!(
        "    {lhs}func.call @{entry}({}) : ({}) -> ({})\n",
        call_args.join(", "),
        in_types.join(", "),
        res_types.join(", ")
    ));
    for (j, &t) in results.iter().enumerate() {
        body.push_str(&format!(
            "    bufferization.materialize_in_destination %r#{j} in restrict writable %o{j} : ({}, {}) -> ()\n",
            ty(t),
            memref(t)?
        ));
    }
    Ok(format!(
        "  func.func @{WRAPPER}({}) attributes {{llvm.emit_c_interface}} {{\n{body}    return\n  }}\n",
        params.join(", ")
    ))
}

/// The argument and result types of function `entry`.
fn entry_signature(ctx: &Context, module: &Module, entry: &str) -> Result<(Vec<Type>, Vec<Type>), String> {
    let op = module.lookup_symbol(ctx, entry).ok_or_else(|| format!("no function @{entry}"))?;
    let ft = module.body.attr(ctx, op, "function_type").and_then(|a| signature(ctx, a));
    ft.ok_or_else(|| format!("@{entry} is not a function"))
}

/// The exported module with the memref wrapper of `entry` (what [`compile`] hands to MLIR's
/// pipeline; `mlir-opt --pass-pipeline=<PIPELINE>` takes it too). An op the export does not
/// cover (or a `shard` op: the backend runs unsharded programs) is an error located at it.
pub fn module_text(ctx: &Context, module: &Module, entry: &str) -> Result<String, Diagnostic> {
    let (inputs, results) = entry_signature(ctx, module, entry).map_err(unlocated)?;
    let reachable = export::reachable_functions(ctx, module, entry);
    let mut text = export::export_functions(ctx, module, true, |f| reachable.iter().any(|r| r == f))?;
    let wrapper = wrapper_text(ctx, entry, &inputs, &results).map_err(unlocated)?;
    text.truncate(text.rfind('}').unwrap_or(text.len()));
    text.push_str(&wrapper);
    text.push_str("}\n");
    Ok(text)
}

fn unlocated(message: String) -> Diagnostic {
    Diagnostic::error(xcs_ir::Location::UNKNOWN, message)
}

/// Exports `module`, adds the wrapper of `entry`, compiles it with MLIR's pipeline and makes
/// the ExecutionEngine (optimization level 3). Errors of the export are located at the op.
pub fn compile(ctx: &Context, module: &Module, entry: &str) -> Result<Compiled, Diagnostic> {
    let text = module_text(ctx, module, entry)?;
    compile_text(ctx, module, entry, &text).map_err(unlocated)
}

/// [`compile`] past the export: `text` is [`module_text`]'s.
fn compile_text(ctx: &Context, module: &Module, entry: &str, text: &str) -> Result<Compiled, String> {
    let (inputs, results) = entry_signature(ctx, module, entry)?;
    let context = mlir_context();
    let mut m: MlirModule = parse_verified(&context, text)?;
    let pm = PassManager::new(&context);
    let pipeline = if has_block_cycles(ctx, module, &export::reachable_functions(ctx, module, entry)) {
        pipeline_without_deallocation()
    } else {
        PIPELINE.to_string()
    };
    parse_pass_pipeline(pm.as_operation_pass_manager(), &pipeline).map_err(|e| e.to_string())?;
    crate::with_diagnostics(&context, || pm.run(&mut m)).map_err(|(e, why)| format!("MLIR's pipeline failed: {e}: {why}"))?;
    // The ExecutionEngine cannot translate a module left with casts between type systems (and
    // melior does not report its failure): check first.
    // (Upstream's cast op has XCS's name.)
    if m.as_operation().to_string().contains(xcs_ir::builtin::UnrealizedConversionCastOp::DEF.name) {
        return Err("MLIR's pipeline left unrealized conversion casts (an op it could not lower to LLVM)".into());
    }
    // Copies between strided memrefs (slices, inserted slices) call MLIR's `memrefCopy`, which
    // its C runner-utils library defines. (MLIR's C API reads each path's `data` as a C string,
    // not its length: the trailing NUL is needed.)
    let runtime = concat!(env!("XCS_MLIR_LIBDIR"), "/libmlir_c_runner_utils.so\0");
    let engine = ExecutionEngine::new(&m, 3, &[runtime], false, false);
    let shapes = |ts: &[Type]| ts.iter().map(|&t| Ok((memref_shape(ctx, t)?, elem_of(ctx, t)))).collect::<Result<Vec<_>, String>>();
    Ok(Compiled { engine, args: shapes(&inputs)?, results: shapes(&results)? })
}

fn elem_of(ctx: &Context, t: Type) -> Type {
    match ctx.type_kind(t) {
        TypeKind::RankedTensor { elem, .. } => *elem,
        _ => t,
    }
}

/// A memref descriptor (`{ptr, ptr, offset, sizes[r], strides[r]}`) of a row-major buffer.
fn descriptor(ptr: *mut u8, shape: &[i64]) -> Vec<i64> {
    let mut d = vec![ptr as i64, ptr as i64, 0];
    d.extend_from_slice(shape);
    let mut strides = vec![1i64; shape.len()];
    for i in (0..shape.len().saturating_sub(1)).rev() {
        strides[i] = strides[i + 1] * shape[i + 1];
    }
    d.extend(strides);
    d
}

/// The base pointer of a tensor's elements.
fn data_ptr(data: &mut TensorData) -> Result<*mut u8, String> {
    Ok(match data {
        TensorData::F32(v) => v.as_mut_ptr() as *mut u8,
        TensorData::F64(v) => v.as_mut_ptr() as *mut u8,
        TensorData::I1(v) => v.as_mut_ptr() as *mut u8,
        TensorData::I8(v) => v.as_mut_ptr() as *mut u8,
        TensorData::I16(v) => v.as_mut_ptr() as *mut u8,
        TensorData::I32(v) => v.as_mut_ptr() as *mut u8,
        TensorData::I64(v) => v.as_mut_ptr() as *mut u8,
        _ => return Err("the MLIR backend takes f32, f64, i1, i8, i16, i32 and i64 tensors".into()),
    })
}

/// A zero tensor of `shape` with element type `elem`.
fn zeros(ctx: &Context, shape: &[i64], elem: Type) -> Result<Tensor, String> {
    let n = shape.iter().product::<i64>() as usize;
    let data = match type_to_string(ctx, elem).as_str() {
        "f32" => TensorData::F32(vec![0.0; n]),
        "f64" => TensorData::F64(vec![0.0; n]),
        "i1" => TensorData::I1(vec![false; n]),
        "i8" => TensorData::I8(vec![0; n]),
        "i16" => TensorData::I16(vec![0; n]),
        "i32" => TensorData::I32(vec![0; n]),
        "i64" => TensorData::I64(vec![0; n]),
        t => return Err(format!("the MLIR backend does not take {t} results")),
    };
    Tensor::new(shape.iter().map(|&d| d as usize).collect(), data)
}

impl Compiled {
    /// Calls the entry with `args` (tensors of the argument types); returns its results.
    pub fn run(&self, ctx: &Context, args: &[RtValue]) -> Result<Vec<RtValue>, String> {
        if args.len() != self.args.len() {
            return Err(format!("the entry takes {} arguments, {} given", self.args.len(), args.len()));
        }
        let mut inputs: Vec<Tensor> = Vec::with_capacity(args.len());
        for (i, (a, (shape, _))) in args.iter().zip(&self.args).enumerate() {
            let RtValue::Tensor(t) = a else {
                return Err(format!("argument #{i}: the MLIR backend takes tensors only"));
            };
            if t.shape.iter().map(|&d| d as i64).ne(shape.iter().copied()) {
                return Err(format!("argument #{i}: shape {:?}, expected {:?}", t.shape, shape));
            }
            inputs.push(t.clone());
        }
        let mut outputs: Vec<Tensor> =
            self.results.iter().map(|(shape, elem)| zeros(ctx, shape, *elem)).collect::<Result<_, _>>()?;
        let mut descriptors = Vec::new();
        for (t, (shape, _)) in inputs.iter_mut().zip(&self.args).chain(outputs.iter_mut().zip(&self.results)) {
            descriptors.push(descriptor(data_ptr(&mut t.data)?, shape));
        }
        // The C interface (`_mlir_ciface_<name>`, which the C API calls) takes a pointer to each
        // descriptor; the packed call a pointer to each argument.
        let mut pointers: Vec<*mut i64> = descriptors.iter_mut().map(|d| d.as_mut_ptr()).collect();
        let mut packed: Vec<*mut ()> = pointers.iter_mut().map(|p| p as *mut *mut i64 as *mut ()).collect();
        // SAFETY: every descriptor describes a live, row-major buffer of its memref's shape and
        // element type, which the compiled wrapper reads (arguments) or writes (results) only.
        unsafe { self.engine.invoke_packed(WRAPPER, &mut packed) }
            .map_err(|e| format!("the MLIR ExecutionEngine could not call the entry: {e}"))?;
        Ok(outputs.into_iter().map(RtValue::Tensor).collect())
    }
}

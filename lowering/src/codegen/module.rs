//! Module-wide lowering state ([`ModuleLowering`]): the LLVM module being built, the
//! `func.func`s of the source module and their signatures ([`Port`]s), the functions requested
//! for lowering (exported or called), and the run-time error sites ([`Site`]) of the ops. An
//! `xcs.kernel` with a body is a function too: its parameters in, the new values of its out
//! and inout tensors out (what its `xcs.yield` returns), called by the workloads that launch it.

use rustc_hash::FxHashMap;
use xcs_dialects::func::FuncOp;
use xcs_dialects::xcs::kernel::{KernelOp, KernelSignature};
use xcs_dialects::interp::ElemType;
use xcs_ir::{Body, Context, Location, Module, Op, Type, TypeKind};

use super::buffers::PlanStats;
use super::function::lower_function;
use super::llvm_ir::ModuleBuilder;
use super::{LowerError, Options, R};

/// A run-time error site: the op's location and name.
#[derive(Clone, Debug)]
pub struct Site {
    pub loc: Location,
    pub op: String,
}

/// The signature of a lowered function: per argument and result, the element type and static
/// sizes (`None` for a scalar).
#[derive(Clone, Debug)]
pub struct Port {
    pub elem: ElemType,
    /// Sizes (`DYNAMIC` for `?`), `None` for an integer scalar.
    pub dims: Option<Vec<i64>>,
}

impl Port {
    pub fn rank(&self) -> usize {
        self.dims.as_ref().map_or(0, |d| d.len())
    }
}

/// Reads an argument or result type.
pub fn port_of(ctx: &Context, t: Type) -> Result<Port, String> {
    match ctx.type_kind(t) {
        TypeKind::RankedTensor { shape, elem, .. } => {
            let e = ElemType::from_type(ctx, *elem)
                .filter(|e| *e != ElemType::Str)
                .ok_or_else(|| {
                    format!(
                        "element type '{}' is not supported by the LLVM backend",
                        xcs_ir::printer::type_to_string(ctx, *elem)
                    )
                })?;
            crate::codegen::types::check_addressable(shape, e)?;
            Ok(Port {
                elem: e,
                dims: Some(shape.to_vec()),
            })
        }
        // an `index` (the device queries of the shard dialect give them) is an i64
        TypeKind::Index => Ok(Port { elem: ElemType::I64, dims: None }),
        TypeKind::Integer { .. } => match ElemType::from_type(ctx, t) {
            Some(e) => Ok(Port { elem: e, dims: None }),
            None => Err(format!(
                "type '{}' is not supported by the LLVM backend",
                xcs_ir::printer::type_to_string(ctx, t)
            )),
        },
        _ => Err(format!(
            "type '{}' is not supported by the LLVM backend",
            xcs_ir::printer::type_to_string(ctx, t)
        )),
    }
}

/// Module-wide lowering state.
pub struct ModuleLowering<'m> {
    pub ctx: &'m Context,
    /// The module being lowered.
    pub source: &'m Module,
    /// The LLVM module being built.
    pub m: ModuleBuilder,
    pub opts: Options,
    pub sites: Vec<Site>,
    funcs: FxHashMap<String, Op>,
    /// Functions requested (called or exported) and whether they are lowered yet.
    requested: Vec<String>,
    lowered: usize,
    pub signatures: FxHashMap<String, (Vec<Port>, Vec<Port>)>,
    pub stats: PlanStats,
}

/// The LLVM name of the internal function for `func.func @name`.
pub fn internal_name(name: &str) -> String {
    format!("xcs.f.{name}")
}

impl<'m> ModuleLowering<'m> {
    pub fn new(ctx: &'m Context, module: &'m Module, opts: Options) -> ModuleLowering<'m> {
        let mut funcs = FxHashMap::default();
        for op in module.ops() {
            let name = module.body.op_name(op);
            if FuncOp::matches(ctx, name) || KernelOp::matches(ctx, name) {
                if let Some(n) = module.body.attr(ctx, op, "sym_name").and_then(|a| ctx.as_str(a)) {
                    funcs.entry(n.to_string()).or_insert(op);
                }
            }
        }
        let mut m = ModuleBuilder::default();
        m.fn_attrs = format!(
            "\"target-cpu\"=\"{}\" \"target-features\"=\"{}\"",
            opts.cpu, opts.features
        );
        // With AVX-512, loops vectorize to 512-bit vectors (LLVM prefers 256 bits on these CPUs):
        // the inline math of `ops::math` is compute-bound at 256 bits.
        if opts.features.contains("+avx512f") {
            m.fn_attrs.push_str(" \"prefer-vector-width\"=\"512\"");
            m.avx512 = opts.features.contains("+avx512dq");
        }
        declare_runtime(&mut m);
        ModuleLowering {
            ctx,
            source: module,
            m,
            opts,
            sites: Vec::new(),
            funcs,
            requested: Vec::new(),
            lowered: 0,
            signatures: FxHashMap::default(),
            stats: PlanStats::default(),
        }
    }

    /// The `func.func` (or `xcs.kernel`) op named `name`.
    pub fn func_op(&self, name: &str) -> Option<Op> {
        self.funcs.get(name).copied()
    }

    /// Public functions with a body (the exported ones), in module order.
    pub fn public_functions(&self) -> Vec<String> {
        let ctx = self.ctx;
        let b = &self.source.body;
        let mut out = Vec::new();
        for op in self.source.ops() {
            if !FuncOp::matches(ctx, b.op_name(op)) {
                continue;
            }
            let private = b
                .attr(ctx, op, "sym_visibility")
                .and_then(|a| ctx.as_str(a))
                .is_some_and(|v| v != "public");
            let has_body = b
                .nested(op)
                .is_some_and(|n| n.root_regions().iter().any(|&r| !n.region_is_empty(r)));
            if let Some(n) = b.attr(ctx, op, "sym_name").and_then(|a| ctx.as_str(a)) {
                if !private && has_body && !out.iter().any(|x| x == n) {
                    out.push(n.to_string());
                }
            }
        }
        out
    }

    /// The signature of function `name`.
    pub fn signature(&mut self, name: &str) -> R<(Vec<Port>, Vec<Port>)> {
        if let Some(s) = self.signatures.get(name) {
            return Ok(s.clone());
        }
        let op = self
            .func_op(name)
            .ok_or_else(|| LowerError::new(Location::UNKNOWN, format!("no function @{name}")))?;
        let b = &self.source.body;
        let loc = b.op_loc(op);
        let (ins, outs) = if KernelOp::matches(self.ctx, b.op_name(op)) {
            let sig = KernelSignature::from_attrs(self.ctx, b.attrs(op))
                .map_err(|e| LowerError::new(loc, format!("kernel @{name} {e}")))?;
            let ins: Vec<Type> = sig.params.iter().map(|p| p.ty).collect();
            let outs: Vec<Type> = sig.params.iter().filter(|p| p.kind.writes()).map(|p| p.ty).collect();
            (ins, outs)
        } else {
            b.attr(self.ctx, op, "function_type")
                .and_then(|a| xcs_dialects::func::signature(self.ctx, a))
                .ok_or_else(|| LowerError::new(loc, format!("@{name} has no valid function_type")))?
        };
        let conv = |ts: &[Type]| -> R<Vec<Port>> {
            ts.iter()
                .map(|&t| port_of(self.ctx, t).map_err(|e| LowerError::new(loc, format!("@{name}: {e}"))))
                .collect()
        };
        let sig = (conv(&ins)?, conv(&outs)?);
        self.signatures.insert(name.to_string(), sig.clone());
        Ok(sig)
    }

    /// Asks for function `name` to be lowered; returns its internal LLVM name.
    pub fn request(&mut self, name: &str) -> String {
        if !self.requested.iter().any(|n| n == name) {
            self.requested.push(name.to_string());
        }
        internal_name(name)
    }

    /// Lowers every requested function (and those they call).
    pub fn lower_requested(&mut self) -> R<()> {
        while self.lowered < self.requested.len() {
            let name = self.requested[self.lowered].clone();
            self.lowered += 1;
            lower_function(self, &name, &internal_name(&name), None)?;
        }
        Ok(())
    }

    /// A new error site for `op` of `body`.
    pub fn site(&mut self, body: &Body, op: Op) -> i32 {
        let name = self.ctx.op_name_str(body.op_name(op)).to_string();
        self.sites.push(Site {
            loc: body.op_loc(op),
            op: name,
        });
        (self.sites.len() - 1) as i32
    }

    /// The message of a run-time error at `site`: `'tensor.div' op integer division by zero`,
    /// prefixed with `file:line:col: ` when the options ask for locations in messages.
    pub fn msg(&self, site: i32, text: &str) -> String {
        let Some(s) = self.sites.get(site as usize) else {
            return text.to_string();
        };
        let m = format!("'{}' op {text}", s.op);
        if self.opts.locations_in_messages {
            if let Some((file, line, col)) = self.ctx.loc_file_line_col(s.loc) {
                return format!("{}:{line}:{col}: {m}", self.ctx.str(file));
            }
        }
        m
    }
}

fn declare_runtime(m: &mut ModuleBuilder) {
    for (name, decl) in [
        ("xcs_rt_alloc", "declare noalias ptr @xcs_rt_alloc(i64)"),
        ("xcs_rt_free", "declare void @xcs_rt_free(ptr)"),
        ("xcs_rt_fail", "declare i32 @xcs_rt_fail(i32, ptr)"),
        ("xcs_rt_fail2", "declare i32 @xcs_rt_fail2(i32, ptr, i64, i64)"),
        (
            "xcs_rt_parallel_for",
            "declare i32 @xcs_rt_parallel_for(ptr, ptr, i64, i64)",
        ),
        (
            "xcs_rt_matmul_f32",
            "declare i32 @xcs_rt_matmul_f32(ptr, ptr, ptr, i64, i64, i64, i64, i64, i64, i64, i64, ptr, ptr, ptr, i64, i32, ptr)",
        ),
        ("xcs_rt_call_enter", "declare i32 @xcs_rt_call_enter()"),
        ("xcs_rt_call_leave", "declare void @xcs_rt_call_leave()"),
        ("xcs_rt_frame_push", "declare i32 @xcs_rt_frame_push(ptr, ptr)"),
        ("xcs_rt_frame_release", "declare void @xcs_rt_frame_release(ptr)"),
        (
            "xcs_rt_arg",
            "declare i32 @xcs_rt_arg(ptr, i32, i32, i64, ptr, ptr, ptr, ptr)",
        ),
        ("xcs_rt_result", "declare i32 @xcs_rt_result(ptr, ptr, i64, ptr, i32)"),
        ("xcs_tensor_release", "declare void @xcs_tensor_release(ptr)"),
    ] {
        m.declare(name, decl);
    }
}

//! Typed builders of the `tensor` ops (re-exported from [`crate::tensor`]): one function per op,
//! `tensor::add(&mut b, lhs, rhs)`, `tensor::reduce(&mut b, x, "sum", &[1], false)`, each
//! returning the op's result with its type inferred by the op's `infer` hook (through
//! [`Builder::create`]). The functions are generated from the table below; `constant`, `cast`,
//! `reshape` and `broadcast_to` (whose result type is not a function of operands and
//! attributes) are written out.

use xcs_ir::{Attr, AttrKind, Builder, Diagnostic, Type, Value};

use crate::shape::ranked;

/// A built value or the located error of the failed build.
pub type BuildResult = Result<Value, Diagnostic>;

/// The Rust parameter type of an operand or attribute kind in the table.
macro_rules! param_ty {
    (Value) => {
        Value
    };
    (Values) => {
        &[Value]
    };
    (Str) => {
        &str
    };
    (I64) => {
        i64
    };
    (I64s) => {
        &[i64]
    };
    (Bool) => {
        bool
    };
    (F32) => {
        f32
    };
}

/// The attribute of a parameter of kind `$k`.
macro_rules! to_attr {
    ($ctx:expr, Str, $v:expr) => {
        $ctx.str_attr($v)
    };
    ($ctx:expr, I64, $v:expr) => {
        $ctx.i64_attr($v)
    };
    ($ctx:expr, I64s, $v:expr) => {
        $ctx.dense_i64_array($v)
    };
    ($ctx:expr, Bool, $v:expr) => {
        $ctx.bool_attr($v)
    };
    ($ctx:expr, F32, $v:expr) => {
        $ctx.float_attr($v as f64, $ctx.f32_type())
    };
}

/// Appends operand parameter `$v` of kind `$k` to `$ops`.
macro_rules! push_operand {
    ($ops:ident, Value, $v:expr) => {
        $ops.push($v)
    };
    ($ops:ident, Values, $v:expr) => {
        $ops.extend_from_slice($v)
    };
}

/// `fn name = SomeOp (operand: Kind, ...; attribute: Kind, ...);` becomes
/// `pub fn name(b, operands..., attributes...) -> BuildResult`.
macro_rules! tensor_builders {
    ($(
        $(#[doc = $doc:literal])*
        fn $name:ident = $op:ident ( $($o:ident : $ok:ident),* $(; $($a:ident : $ak:ident),*)? );
    )*) => {$(
        $(#[doc = $doc])*
        #[allow(clippy::too_many_arguments)]
        pub fn $name(builder: &mut Builder<'_>, $($o: param_ty!($ok)),* $($(, $a: param_ty!($ak))*)?) -> BuildResult {
            let mut operands: smallvec::SmallVec<[Value; 4]> = smallvec::SmallVec::new();
            $( push_operand!(operands, $ok, $o); )*
            let attrs: &[(&str, Attr)] = &[$($( (stringify!($a), to_attr!(builder.ctx, $ak, $a)) ),*)?];
            builder.create1(super::$op::DEF.name, &operands, attrs)
        }
    )*};
}

tensor_builders! {
    /// `tensor.gelu` with `approximate` = `"none"` or `"tanh"`.
    fn gelu = GeluOp (x: Value; approximate: Str);
    /// `tensor.cmp` with `predicate` = `"eq"`, `"ne"`, `"lt"`, `"le"`, `"gt"` or `"ge"`.
    fn cmp = CmpOp (lhs: Value, rhs: Value; predicate: Str);
    /// `tensor.select`: `cond ? a : b`, broadcast.
    fn select = SelectOp (cond: Value, a: Value, b: Value);
    /// `tensor.matmul`: `[..., M, K] x [..., K, N] -> [..., M, N]`.
    fn matmul = MatmulOp (lhs: Value, rhs: Value);
    /// `tensor.einsum` over `inputs` with `equation`, e.g. `"bij,bjk->bik"`.
    fn einsum = EinsumOp (inputs: Values; equation: Str);
    /// `tensor.reduce` of `axes` with `kind` = `"sum"`, `"max"`, `"min"`, `"mean"` or `"prod"`.
    fn reduce = ReduceOp (x: Value; kind: Str, axes: I64s, keepdims: Bool);
    /// `tensor.softmax` along `axis`.
    fn softmax = SoftmaxOp (x: Value; axis: I64);
    /// `tensor.layer_norm` over the dims from `axis` on.
    fn layer_norm = LayerNormOp (x: Value, gamma: Value, beta: Value; axis: I64, epsilon: F32);
    /// `tensor.transpose`: result dim `i` is operand dim `perm[i]`.
    fn transpose = TransposeOp (x: Value; perm: I64s);
    /// `tensor.slice` of `start <= i < limit` with `stride` in each dim.
    fn slice = SliceOp (x: Value; start: I64s, limit: I64s, stride: I64s);
    /// `tensor.concat` of `inputs` along `axis`.
    fn concat = ConcatOp (inputs: Values; axis: I64);
    /// `tensor.gather` of `table` along `axis` at `indices`.
    fn gather = GatherOp (table: Value, indices: Value; axis: I64);
}

/// `tensor.constant` holding `value` (a `dense<...>` attribute; the result has its type).
pub fn constant(b: &mut Builder<'_>, value: Attr) -> BuildResult {
    b.create1(super::ConstantOp::DEF.name, &[], &[("value", value)])
}

/// The shape and element type of `x`'s type, or a located error for op `name`.
fn parts(b: &Builder<'_>, name: &str, x: Value) -> Result<(Vec<i64>, Type), Diagnostic> {
    if !b.body.contains_value(x) {
        return Err(Diagnostic::error(
            b.loc(),
            format!("'{name}' op operand #0 is not a value of the body being built"),
        ));
    }
    let t = b.body.value_type(x);
    ranked(b.ctx, t).map(|(s, e)| (s.to_vec(), e)).ok_or_else(|| {
        Diagnostic::error(
            b.loc(),
            format!(
                "'{name}' op operand #0 must be a ranked tensor, but got '{}'",
                xcs_ir::printer::type_to_string(b.ctx, t)
            ),
        )
    })
}

/// `tensor.cast` of `x` to element type `elem` (same shape).
pub fn cast(b: &mut Builder<'_>, x: Value, elem: Type) -> BuildResult {
    let (shape, _) = parts(b, super::CastOp::DEF.name, x)?;
    let ty = b.ctx.tensor_type(&shape, elem);
    b.create1_with_types(super::CastOp::DEF.name, &[x], ty, &[])
}

/// `tensor.reshape` of `x` to `shape` (`xcs_ir::DYNAMIC` for a `?` dim), same element type.
pub fn reshape(b: &mut Builder<'_>, x: Value, shape: &[i64]) -> BuildResult {
    let (_, elem) = parts(b, super::ReshapeOp::DEF.name, x)?;
    let ty = b.ctx.tensor_type(shape, elem);
    b.create1_with_types(super::ReshapeOp::DEF.name, &[x], ty, &[])
}

/// `tensor.broadcast_to` of `x` to `shape` (`xcs_ir::DYNAMIC` for a `?` dim).
pub fn broadcast_to(b: &mut Builder<'_>, x: Value, shape: &[i64]) -> BuildResult {
    let (_, elem) = parts(b, super::BroadcastToOp::DEF.name, x)?;
    let ty = b.ctx.tensor_type(shape, elem);
    b.create1_with_types(super::BroadcastToOp::DEF.name, &[x], ty, &[])
}

/// A splat `dense<value>` constant of `ty` for an integer element type.
pub fn splat_int(b: &mut Builder<'_>, ty: Type, value: i64) -> BuildResult {
    let attr = dense_splat(b, ty, |ctx, e| {
        ctx.int_width(e)
            .map(|w| (value as i128).to_le_bytes()[..w.div_ceil(8) as usize].to_vec())
    })?;
    constant(b, attr)
}

/// A splat `dense<value>` constant of `ty` for a float element type.
pub fn splat_float(b: &mut Builder<'_>, ty: Type, value: f64) -> BuildResult {
    let attr = dense_splat(b, ty, |ctx, e| {
        let kind = ctx.float_kind(e)?;
        let bits = xcs_ir::attrs::float_to_bits(kind, value);
        let n = xcs_ir::attrs::dense_elem_bytes(ctx, e);
        Some(bits.to_le_bytes()[..n].to_vec())
    })?;
    constant(b, attr)
}

fn dense_splat(
    b: &Builder<'_>,
    ty: Type,
    bytes: impl Fn(&xcs_ir::Context, Type) -> Option<Vec<u8>>,
) -> Result<Attr, Diagnostic> {
    let ctx = b.ctx;
    let data = ranked(ctx, ty)
        .filter(|(s, _)| s.iter().all(|&d| d >= 0))
        .and_then(|(_, e)| bytes(ctx, e))
        .ok_or_else(|| {
            Diagnostic::error(
                b.loc(),
                format!(
                    "'tensor.constant' op cannot make a splat of type '{}' (a static tensor of the value's kind is needed)",
                    xcs_ir::printer::type_to_string(ctx, ty)
                ),
            )
        })?;
    Ok(ctx.attr(AttrKind::DenseElements {
        ty,
        data: xcs_ir::attrs::DenseData::Splat(data.into()),
    }))
}

//! The custom syntax of the `shard` ops, byte for byte as MLIR 22's `mlir-opt` parses and prints
//! it (the `assemblyFormat`s of upstream's `ShardOps.td`):
//!
//! ```mlir
//! shard.grid @mesh(shape = 2x?x4) {attrs}
//! %s = shard.sharding @mesh split_axes = [[0], []] halo_sizes = [1, %h] sharded_dims_offsets = [0, 2, 4] : !shard.sharding
//! %a = shard.shard %x to %s annotate_for_users : tensor<4x8xf32>
//! %g = shard.all_gather %x on @mesh grid_axes = [1] gather_axis = 1 : tensor<4x2xf32> -> tensor<4x8xf32>
//! %r = shard.all_reduce %x on @mesh grid_axes = [0] reduction =  max : tensor<4xf32> -> tensor<4xf32>
//! %b = shard.broadcast %x on @mesh grid_axes = [0] root = [1, %i] : (tensor<2xf32>, index) -> tensor<2xf32>
//! %i:2 = shard.process_multi_index on @mesh axes = [0, 1] : index, index
//! ```
//!
//! Optional parts with a default are left out when they hold it (`grid_axes = []`,
//! `reduction = sum`, empty halo sizes and offsets); the parsers set every default explicitly,
//! as MLIR's properties do, so the generic form prints them (`grid_axes = array<i16>`).
//! `reduction =  max` has two spaces because MLIR prints the attribute's own leading space.

use xcs_ir::lexer::Tok;
use xcs_ir::parser::{OpAsmParser, PResult, UnresolvedOperand};
use xcs_ir::printer::OpAsmPrinter;
use xcs_ir::{Attr, OperationState, Type, DYNAMIC};

use super::attrs::{grid_axes_attr, grid_axes_of, i32_array_attr, split_axes_attr, split_axes_of, ReductionKind};

// ---------------------------------------------------------------------------- pieces

/// `@name` as a flat symbol reference (MLIR's `FlatSymbolRefAttr` parameter).
fn parse_grid_ref(p: &mut OpAsmParser<'_, '_>) -> PResult<Attr> {
    let off = p.offset();
    let a = p.parse_attribute()?;
    if p.ctx().as_symbol(a).is_none() {
        return Err(p.emit_error_at(off, "invalid kind of attribute specified"));
    }
    Ok(a)
}

/// Keyword `kw`, or MLIR's custom-parser error at the current token ("custom op 'name'
/// expected 'kw'").
fn keyword(p: &mut OpAsmParser<'_, '_>, kw: &str) -> PResult<()> {
    if p.parse_optional_keyword(kw) {
        Ok(())
    } else {
        Err(p.emit_error(format!("expected '{kw}'")))
    }
}

/// A (possibly negative) integer that fits `i16` when `small`, with MLIR's custom-parser
/// errors at the current token.
fn integer(p: &mut OpAsmParser<'_, '_>, small: bool) -> PResult<i64> {
    let off = p.offset();
    if !p.peek(Tok::Integer) && !p.peek(Tok::Minus) {
        return Err(p.emit_error("expected integer value"));
    }
    let v = p.parse_integer().map_err(|_| p.emit_error_at(off, "integer value too large"))?;
    if small && i16::try_from(v).is_err() {
        return Err(p.emit_error_at(off, "integer value too large"));
    }
    Ok(v)
}

/// `[1, -2, 3]` (an MLIR dense array in its short form), of `i16`s when `small`.
fn parse_int_list(p: &mut OpAsmParser<'_, '_>, small: bool) -> PResult<Vec<i64>> {
    p.parse_lsquare()?;
    let mut v = Vec::new();
    if p.parse_optional_rsquare() {
        return Ok(v);
    }
    loop {
        v.push(integer(p, small)?);
        if !p.parse_optional_comma() {
            break;
        }
    }
    p.parse_rsquare()?;
    Ok(v)
}

/// A list of grid axes (`[0, 1]`), each an `i16`.
fn parse_axis_list(p: &mut OpAsmParser<'_, '_>) -> PResult<Vec<i64>> {
    parse_int_list(p, true)
}

/// `(kw = [axes])?`, setting attribute `name` (empty when absent).
fn parse_optional_axes(p: &mut OpAsmParser<'_, '_>, st: &mut OperationState, kw: &str) -> PResult<()> {
    let axes = if p.parse_optional_keyword(kw) {
        p.parse_equal()?;
        parse_axis_list(p)?
    } else {
        Vec::new()
    };
    let a = grid_axes_attr(p.ctx(), &axes);
    p.set_attr(st, kw, a);
    Ok(())
}

/// `name = N`, an index attribute.
fn parse_index_field(p: &mut OpAsmParser<'_, '_>, st: &mut OperationState, name: &str) -> PResult<()> {
    keyword(p, name)?;
    p.parse_equal()?;
    if !p.peek(Tok::Integer) && !p.peek(Tok::Minus) {
        // MLIR parses an attribute here
        return Err(p.emit_wrong_token_error("expected attribute value"));
    }
    let v = integer(p, false)?;
    let ctx = p.ctx();
    p.set_attr(st, name, ctx.int_attr(v as i128, ctx.index_type()));
    Ok(())
}

/// `(reduction = kind)?` (`sum` when absent).
fn parse_optional_reduction(p: &mut OpAsmParser<'_, '_>, st: &mut OperationState) -> PResult<()> {
    let mut kind = ReductionKind::Sum;
    if p.parse_optional_keyword("reduction") {
        p.parse_equal()?;
        let off = p.offset();
        let kw = p.parse_optional_bare_id();
        kind = match kw.and_then(ReductionKind::from_keyword) {
            Some(k) => k,
            None => {
                let message = match kw {
                    Some(_) => format!("expected ::mlir::shard::ReductionKind to be one of: {}", ReductionKind::keyword_list()),
                    None => "expected valid keyword or string".to_string(),
                };
                return Err(p.emit_error_at(off, message));
            }
        };
    }
    let a = kind.attr(p.ctx());
    p.set_attr(st, "reduction", a);
    Ok(())
}

/// `[1, %v, 3]` (MLIR's `custom<DynamicIndexList>`): the static values, with `DYNAMIC` where
/// an SSA value stands, and the SSA values.
fn parse_dynamic_index_list<'s>(p: &mut OpAsmParser<'_, 's>) -> PResult<(Vec<i64>, Vec<UnresolvedOperand<'s>>)> {
    p.parse_lsquare()?;
    let (mut statics, mut values) = (Vec::new(), Vec::new());
    if p.parse_optional_rsquare() {
        return Ok((statics, values));
    }
    loop {
        match p.parse_optional_operand()? {
            Some(v) => {
                values.push(v);
                statics.push(DYNAMIC);
            }
            None => statics.push(integer(p, false)?),
        }
        if !p.parse_optional_comma() {
            break;
        }
    }
    p.parse_rsquare()?;
    Ok((statics, values))
}

/// Prints `[1, %v, 3]`; false (nothing printed) if the values do not match the placeholders.
fn print_dynamic_index_list(p: &mut OpAsmPrinter<'_>, statics: &[i64], values: &[xcs_ir::Value]) -> bool {
    if statics.iter().filter(|&&s| s == DYNAMIC).count() != values.len() {
        return false;
    }
    p.write_str("[");
    let mut next = values.iter();
    for (i, &s) in statics.iter().enumerate() {
        if i > 0 {
            p.write_str(", ");
        }
        match (s == DYNAMIC).then(|| next.next()).flatten() {
            Some(&v) => p.print_operand(v),
            None => p.write_str(&s.to_string()),
        }
    }
    p.write_str("]");
    true
}

fn int_list(v: &[i64]) -> String {
    super::attrs::int_list_text(v)
}

/// The op's attribute `name` as an integer.
fn int_attr(p: &OpAsmPrinter<'_>, name: &str) -> Option<i64> {
    p.attr(name).and_then(|a| p.ctx().as_int(a)).map(|v| v as i64)
}

/// ` kw = [0, 1]` unless the list is empty; false if the attribute is not a list of axes.
fn print_optional_axes(p: &mut OpAsmPrinter<'_>, kw: &str) -> bool {
    let axes = match p.attr(kw) {
        None => Vec::new(),
        Some(a) => match grid_axes_of(p.ctx(), a) {
            Some(v) => v,
            None => return false,
        },
    };
    if !axes.is_empty() {
        p.write_str(&format!(" {kw} = {}", int_list(&axes)));
    }
    true
}

/// ` on @grid` (or ` @grid` without `on`); false if `grid` is not a flat symbol reference.
fn print_grid_ref(p: &mut OpAsmPrinter<'_>, on: bool) -> bool {
    let Some(grid) = p.attr("grid").and_then(|a| p.ctx().as_symbol(a)) else {
        return false;
    };
    p.write_str(if on { " on " } else { " " });
    p.print_symbol_name(grid);
    true
}

// ---------------------------------------------------------------------------- shard.grid

/// `@name(shape = 2x?x4) attr-dict`
pub(crate) fn parse_grid(p: &mut OpAsmParser<'_, '_>, st: &mut OperationState) -> PResult<()> {
    let name = p.parse_symbol_name()?;
    p.set_attr(st, "sym_name", name);
    p.parse_lparen()?;
    keyword(p, "shape")?;
    p.parse_equal()?;
    let dims: Vec<i64> = if p.parse_optional_lsquare() {
        p.parse_rsquare()?;
        Vec::new()
    } else {
        let dims = p.parse_dimension_list(true)?;
        if dims.is_empty() {
            return Err(p.emit_error("Failed parsing dimension list. Did you mean an empty list? It must be denoted by \"[]\"."));
        }
        dims.to_vec()
    };
    let shape = p.ctx().dense_i64_array(&dims);
    p.set_attr(st, "shape", shape);
    p.parse_rparen()?;
    p.parse_optional_attr_dict(st)
}

/// `shard.grid @mesh(shape = 2x4) {xcs.axes = ["dp", "tp"]}`
pub(crate) fn print_grid(p: &mut OpAsmPrinter<'_>) {
    let ctx = p.ctx();
    let name = p.attr("sym_name").and_then(|a| ctx.as_str(a));
    let shape = p.attr("shape").and_then(|a| ctx.as_i64_array(a));
    let (Some(name), Some(shape)) = (name, shape) else {
        return p.fallback_to_generic();
    };
    p.write_str(" ");
    p.print_symbol_name(name);
    let dims: Vec<String> = shape.iter().map(|&d| if d == DYNAMIC { "?".to_string() } else { d.to_string() }).collect();
    let dims = if dims.is_empty() { "[]".to_string() } else { dims.join("x") };
    p.write_str(&format!("(shape = {dims})"));
    let attrs = p.attrs();
    p.print_optional_attr_dict(attrs, &["sym_name", "shape"]);
}

// ---------------------------------------------------------------------------- shard.sharding

/// `@grid split_axes = [[0], []] (halo_sizes = [...])? (sharded_dims_offsets = [...])?
/// attr-dict : !shard.sharding`
pub(crate) fn parse_sharding(p: &mut OpAsmParser<'_, '_>, st: &mut OperationState) -> PResult<()> {
    let grid = parse_grid_ref(p)?;
    p.set_attr(st, "grid", grid);
    keyword(p, "split_axes")?;
    p.parse_equal()?;
    p.parse_lsquare()?;
    let mut axes = Vec::new();
    loop {
        axes.push(parse_axis_list(p)?);
        if !p.parse_optional_comma() {
            break;
        }
    }
    p.parse_rsquare()?;
    let ctx = p.ctx();
    p.set_attr(st, "split_axes", split_axes_attr(ctx, &axes));
    let (mut halos, mut halo_values) = (Vec::new(), Vec::new());
    if p.parse_optional_keyword("halo_sizes") {
        p.parse_equal()?;
        (halos, halo_values) = parse_dynamic_index_list(p)?;
    }
    let (mut offsets, mut offset_values) = (Vec::new(), Vec::new());
    if p.parse_optional_keyword("sharded_dims_offsets") {
        p.parse_equal()?;
        (offsets, offset_values) = parse_dynamic_index_list(p)?;
    }
    p.set_attr(st, "static_halo_sizes", ctx.dense_i64_array(&halos));
    p.set_attr(st, "static_sharded_dims_offsets", ctx.dense_i64_array(&offsets));
    p.set_attr(st, "operandSegmentSizes", i32_array_attr(ctx, &[offset_values.len() as i32, halo_values.len() as i32]));
    p.parse_optional_attr_dict(st)?;
    let ty = p.parse_colon_type()?;
    let i64s: Vec<Type> = vec![ctx.i64_type(); offset_values.len() + halo_values.len()];
    let uses: Vec<UnresolvedOperand<'_>> = offset_values.into_iter().chain(halo_values).collect();
    p.resolve_operands(&uses, &i64s, st)?;
    st.result_types.push(ty);
    Ok(())
}

/// `shard.sharding @mesh split_axes = [[0], []] halo_sizes = [1, 2] : !shard.sharding`
pub(crate) fn print_sharding(p: &mut OpAsmPrinter<'_>) {
    let ctx = p.ctx();
    let axes = p.attr("split_axes").and_then(|a| split_axes_of(ctx, a));
    let list = |name: &str| match p.attr(name) {
        None => Some(Vec::new()),
        Some(a) => ctx.as_i64_array(a),
    };
    let (halos, offsets) = (list("static_halo_sizes"), list("static_sharded_dims_offsets"));
    let (Some(axes), Some(halos), Some(offsets)) = (axes, halos, offsets) else {
        return p.fallback_to_generic();
    };
    let Some((offset_values, halo_values)) = super::sharding_operand_groups(ctx, p.attrs(), &p.operands()) else {
        return p.fallback_to_generic();
    };
    let results = p.result_types();
    if results.len() != 1 || !print_grid_ref(p, false) {
        return p.fallback_to_generic();
    }
    p.write_str(&format!(" split_axes = {}", super::attrs::split_axes_text(&axes)));
    if !halos.is_empty() {
        p.write_str(" halo_sizes = ");
        if !print_dynamic_index_list(p, &halos, &halo_values) {
            return p.fallback_to_generic();
        }
    }
    if !offsets.is_empty() {
        p.write_str(" sharded_dims_offsets = ");
        if !print_dynamic_index_list(p, &offsets, &offset_values) {
            return p.fallback_to_generic();
        }
    }
    let attrs = p.attrs();
    let elided = ["grid", "split_axes", "static_halo_sizes", "static_sharded_dims_offsets", "operandSegmentSizes"];
    p.print_optional_attr_dict(attrs, &elided);
    p.write_str(" : ");
    p.print_type(results[0]);
}

// ---------------------------------------------------------------------------- shard.shard

/// `%src to %sharding (annotate_for_users)? attr-dict : type`
pub(crate) fn parse_shard(p: &mut OpAsmParser<'_, '_>, st: &mut OperationState) -> PResult<()> {
    let src = p.parse_operand()?;
    keyword(p, "to")?;
    let sharding = p.parse_operand()?;
    if p.parse_optional_keyword("annotate_for_users") {
        let unit = p.ctx().unit_attr();
        p.set_attr(st, "annotate_for_users", unit);
    }
    p.parse_optional_attr_dict(st)?;
    let ty = p.parse_colon_type()?;
    let sharding_type = super::sharding_type(p.ctx());
    p.resolve_operands(&[src, sharding], &[ty, sharding_type], st)?;
    st.result_types.push(ty);
    Ok(())
}

/// `shard.shard %x to %s annotate_for_users : tensor<4x8xf32>`
pub(crate) fn print_shard(p: &mut OpAsmPrinter<'_>) {
    let operands = p.operands();
    let results = p.result_types();
    let sharding_type = super::sharding_type(p.ctx());
    let ok = operands.len() == 2
        && results.len() == 1
        && p.value_type(operands[0]) == Some(results[0])
        && p.value_type(operands[1]) == Some(sharding_type);
    if !ok {
        return p.fallback_to_generic();
    }
    p.write_str(" ");
    p.print_operand(operands[0]);
    p.write_str(" to ");
    p.print_operand(operands[1]);
    let annotate = p.attr("annotate_for_users");
    if annotate.is_some_and(|a| p.ctx().attr_kind(a) == &xcs_ir::AttrKind::Unit) {
        p.write_str(" annotate_for_users");
    }
    let attrs = p.attrs();
    p.print_optional_attr_dict(attrs, &["annotate_for_users"]);
    p.write_str(" : ");
    p.print_type(results[0]);
}

// ---------------------------------------------------------------------------- collectives

/// A part of a collective's syntax after `on @grid (grid_axes = [...])?`.
#[derive(Copy, Clone)]
pub(crate) enum Field {
    /// `name = N`, an index attribute.
    Index(&'static str),
    /// `(reduction = kind)?`.
    Reduction,
    /// `root = [1, %v]`, the static `root` and the operands after the input.
    Root,
}

/// `%input on @grid (grid_axes = [...])? fields attr-dict : type -> type` (or, with a root,
/// `: (operand types) -> type`).
fn parse_collective(p: &mut OpAsmParser<'_, '_>, st: &mut OperationState, fields: &[Field]) -> PResult<()> {
    let input = p.parse_operand()?;
    keyword(p, "on")?;
    let grid = parse_grid_ref(p)?;
    p.set_attr(st, "grid", grid);
    parse_optional_axes(p, st, "grid_axes")?;
    let mut root_values = Vec::new();
    for f in fields {
        match *f {
            Field::Index(name) => parse_index_field(p, st, name)?,
            Field::Reduction => parse_optional_reduction(p, st)?,
            Field::Root => {
                keyword(p, "root")?;
                p.parse_equal()?;
                let (statics, values) = parse_dynamic_index_list(p)?;
                let a = p.ctx().dense_i64_array(&statics);
                p.set_attr(st, "root", a);
                root_values = values;
            }
        }
    }
    p.parse_optional_attr_dict(st)?;
    p.parse_colon()?;
    if fields.iter().any(|f| matches!(f, Field::Root)) {
        let (inputs, results) = p.parse_function_type()?;
        let uses: Vec<UnresolvedOperand<'_>> = std::iter::once(input).chain(root_values).collect();
        p.resolve_operands(&uses, &inputs, st)?;
        st.result_types.extend(results);
    } else {
        let t = p.parse_type()?;
        p.parse_arrow()?;
        let r = p.parse_type()?;
        p.resolve_operands(&[input], &[t], st)?;
        st.result_types.push(r);
    }
    Ok(())
}

fn print_collective(p: &mut OpAsmPrinter<'_>, fields: &[Field]) {
    let operands = p.operands();
    let results = p.result_types();
    let has_root = fields.iter().any(|f| matches!(f, Field::Root));
    if operands.is_empty() || results.len() != 1 || (!has_root && operands.len() != 1) {
        return p.fallback_to_generic();
    }
    p.write_str(" ");
    p.print_operand(operands[0]);
    if !print_grid_ref(p, true) || !print_optional_axes(p, "grid_axes") {
        return p.fallback_to_generic();
    }
    let mut elided = vec!["grid", "grid_axes"];
    for f in fields {
        match *f {
            Field::Index(name) => {
                let Some(v) = int_attr(p, name) else { return p.fallback_to_generic() };
                p.write_str(&format!(" {name} = {v}"));
                elided.push(name);
            }
            Field::Reduction => {
                let kind = match p.attr("reduction") {
                    None => ReductionKind::Sum,
                    Some(a) => match ReductionKind::from_attr(p.ctx(), a) {
                        Some(k) => k,
                        None => return p.fallback_to_generic(),
                    },
                };
                if kind != ReductionKind::Sum {
                    p.write_str(&format!(" reduction =  {}", kind.keyword()));
                }
                elided.push("reduction");
            }
            Field::Root => {
                let Some(root) = p.attr("root").and_then(|a| p.ctx().as_i64_array(a)) else {
                    return p.fallback_to_generic();
                };
                p.write_str(" root = ");
                if !print_dynamic_index_list(p, &root, &operands[1..]) {
                    return p.fallback_to_generic();
                }
                elided.push("root");
            }
        }
    }
    let attrs = p.attrs();
    p.print_optional_attr_dict(attrs, &elided);
    p.write_str(" : ");
    if has_root {
        p.print_functional_type();
    } else {
        p.print_type(p.operand_types()[0]);
        p.write_str(" -> ");
        p.print_type(results[0]);
    }
}

/// The parse and print hooks of a collective with `fields`.
macro_rules! collective_syntax {
    ($($parse:ident, $print:ident => [$($field:expr),*];)*) => {$(
        pub(crate) fn $parse(p: &mut OpAsmParser<'_, '_>, st: &mut OperationState) -> PResult<()> {
            parse_collective(p, st, &[$($field),*])
        }
        pub(crate) fn $print(p: &mut OpAsmPrinter<'_>) {
            print_collective(p, &[$($field),*])
        }
    )*};
}

collective_syntax! {
    parse_all_gather, print_all_gather => [Field::Index("gather_axis")];
    parse_all_reduce, print_all_reduce => [Field::Reduction];
    parse_reduce_scatter, print_reduce_scatter => [Field::Reduction, Field::Index("scatter_axis")];
    parse_all_to_all, print_all_to_all => [Field::Index("split_axis"), Field::Index("concat_axis")];
    parse_all_slice, print_all_slice => [Field::Index("slice_axis")];
    parse_broadcast, print_broadcast => [Field::Root];
}

// ---------------------------------------------------------------------------- process indices

/// `on? @grid (axes = [...])? attr-dict : index, ...` (`on` for the process ops, not for
/// `shard.grid_shape`).
fn parse_grid_query(p: &mut OpAsmParser<'_, '_>, st: &mut OperationState, on: bool, axes: bool) -> PResult<()> {
    if on {
        keyword(p, "on")?;
    }
    let grid = parse_grid_ref(p)?;
    p.set_attr(st, "grid", grid);
    if axes {
        parse_optional_axes(p, st, "axes")?;
    }
    p.parse_optional_attr_dict(st)?;
    p.parse_colon()?;
    let index = p.ctx().index_type();
    loop {
        let off = p.offset();
        let t = p.parse_type()?;
        if t != index {
            let found = xcs_ir::printer::type_to_string(p.ctx(), t);
            return Err(p.emit_error_at(off, format!("invalid kind of type specified: expected builtin.index, but found '{found}'")));
        }
        st.result_types.push(t);
        if !p.parse_optional_comma() {
            return Ok(());
        }
    }
}

fn print_grid_query(p: &mut OpAsmPrinter<'_>, on: bool, axes: bool) {
    let results = p.result_types();
    if results.is_empty() || !print_grid_ref(p, on) || (axes && !print_optional_axes(p, "axes")) {
        return p.fallback_to_generic();
    }
    let attrs = p.attrs();
    p.print_optional_attr_dict(attrs, &["grid", "axes"]);
    p.write_str(" : ");
    p.print_types(&results);
}

pub(crate) fn parse_process_multi_index(p: &mut OpAsmParser<'_, '_>, st: &mut OperationState) -> PResult<()> {
    parse_grid_query(p, st, true, true)
}
pub(crate) fn print_process_multi_index(p: &mut OpAsmPrinter<'_>) {
    print_grid_query(p, true, true)
}
pub(crate) fn parse_process_linear_index(p: &mut OpAsmParser<'_, '_>, st: &mut OperationState) -> PResult<()> {
    parse_grid_query(p, st, true, false)
}
pub(crate) fn print_process_linear_index(p: &mut OpAsmPrinter<'_>) {
    print_grid_query(p, true, false)
}
pub(crate) fn parse_grid_shape(p: &mut OpAsmParser<'_, '_>, st: &mut OperationState) -> PResult<()> {
    parse_grid_query(p, st, false, true)
}
pub(crate) fn print_grid_shape(p: &mut OpAsmPrinter<'_>) {
    print_grid_query(p, false, true)
}

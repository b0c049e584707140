//! The MLIR text printer (generic form, the uniform XCS pretty form, custom op hooks).

use crate::body::{Body, Op};
use crate::context::{Attr, Context};
use crate::location::Location;
use crate::module::Module;
use crate::types::Type;

/// Prints the custom form of one op (MLIR's `OpAsmPrinter` role).
pub type CustomPrintFn = fn(&mut OpAsmPrinter<'_>, Op);

/// The printer handle custom op syntax is written against.
pub struct OpAsmPrinter<'a> {
    _p: std::marker::PhantomData<&'a ()>,
}

/// Printer settings.
#[derive(Clone, Debug, Default)]
pub struct PrintOptions {
    /// Print every op in the generic form (`--mlir-print-op-generic`).
    pub generic: bool,
    /// Print locations (`--mlir-print-debuginfo`).
    pub debug_info: bool,
}

/// Prints a module (the top-level `builtin.module` and everything in it).
pub fn print_module(_ctx: &Context, _m: &Module, _opts: &PrintOptions) -> String {
    unimplemented!("printer")
}

/// Prints the isolated op that owns `body` (e.g. one `func.func`), as in IR dumps of a
/// function pass.
pub fn print_isolated(_ctx: &Context, _body: &Body, _opts: &PrintOptions) -> String {
    unimplemented!("printer")
}

/// Prints one op of `body` (and its regions) in the generic form, e.g. for "see current
/// operation" notes.
pub fn print_op_generic(_ctx: &Context, _body: &Body, _op: Op) -> String {
    unimplemented!("printer")
}

/// The printed form of a type.
pub fn type_to_string(ctx: &Context, t: Type) -> String {
    format!("{:?}", ctx.type_kind(t))
}

/// The printed form of an attribute.
pub fn attr_to_string(ctx: &Context, a: Attr) -> String {
    format!("{:?}", ctx.attr_kind(a))
}

/// The printed form of a location, e.g. `loc("f.mlir":3:5)`.
pub fn loc_to_string(ctx: &Context, l: Location) -> String {
    format!("loc({:?})", ctx.loc_kind(l))
}

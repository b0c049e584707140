//! The types of the values programs pass around besides tensors and integers: `!xcs.str`
//! (text) and `!xcs.any` (an opaque host value). The `xcs` dialect declares them (its
//! `TypeDef`s) and re-exports these constructors; they are named here, below the dialects, so
//! that the interpreter's runtime values can recognise them without using the `xcs` dialect.

use xcs_ir::{Context, Type};

/// `!xcs.str`.
pub fn str_type(ctx: &Context) -> Type {
    ctx.dialect_type("xcs.str")
}

/// `!xcs.any`.
pub fn any_type(ctx: &Context) -> Type {
    ctx.dialect_type("xcs.any")
}

//! Op interfaces (MLIR's `OpInterface`s and their external models): what an op *means* beyond
//! its syntax — its reference semantics, batching rule, cost rule, fusion role, loop structure,
//! LLVM lowering — is an interface the op implements, found from its registered name in O(1)
//! (an array index by the interface's dense id), never by comparing op names.
//!
//! An interface is any `'static` type `I` (usually a trait object such as `dyn Semantics`, or a
//! plain struct or enum such as [`FusionRole`]) that implements [`OpInterface`], which the
//! [`op_interface!`](crate::op_interface) macro does. An op implements it in one of two ways:
//! - in its declaration (`op! { ... interfaces: [dyn Semantics => &ADD_SEMANTICS], ... }`): the
//!   dialect that owns the op provides it, and every context that registers the dialect has it;
//! - attached later to one context ([`Context::attach_interface`], MLIR's `attachInterface` /
//!   dialect-registry extensions), by a crate above the dialect that the dialect must not know
//!   (the LLVM lowering attaches `dyn LowerOp` to the tensor ops it compiles). Attachments are
//!   per context, so independent contexts never share them.
//!
//! Interfaces defined here, because they need nothing but the IR: [`DefaultDialect`] (the
//! default dialect inside an op's regions, for the text format), [`ResultName`] (the name an
//! op's results print with), [`FusionRole`] (how `fuse`
//! groups an op) and [`loops`] (an op's loops and the indexing maps of its operands and
//! results, as linalg's indexing maps, for sharding and tiling).

pub mod asm;
pub mod fusion;
pub mod loops;

pub use crate::op_interface::*;
pub use asm::{DefaultDialect, ResultName};
pub use fusion::{fusion_role, FusionRole};
pub use loops::{LoopInfo, LoopKind, LoopStructure};

#[cfg(test)]
mod tests {
    use crate::opdef::{DialectDef, OpDef};
    use crate::Context;

    trait Answer: Sync {
        fn answer(&self) -> i32;
    }
    crate::op_interface!(dyn Answer, "answer");
    struct Fixed(i32);
    impl Answer for Fixed {
        fn answer(&self) -> i32 {
            self.0
        }
    }

    #[derive(Debug, PartialEq)]
    struct Colour(&'static str);
    crate::op_interface!(Colour, "colour");

    crate::op! {
        /// Declares `dyn Answer` itself.
        pub struct DeclaringOp = "itest.declaring" {
            summary: "declares an interface",
            interfaces: [dyn Answer => &Fixed(42)],
        }
    }
    crate::op! {
        /// Has no interface of its own.
        pub struct PlainOp = "itest.plain" {
            summary: "no interface",
        }
    }
    static ITEST: DialectDef = DialectDef {
        name: "itest",
        summary: "",
        description: "",
        ops: crate::opdef::OpList::Fixed(&[DeclaringOp::DEF, PlainOp::DEF]),
        types: &[],
        attrs: &[],
        materialize_constant: None,
    };

    fn ctx() -> Context {
        let mut ctx = Context::new();
        ctx.register_dialect(&ITEST);
        ctx
    }

    #[test]
    fn declared_interfaces_are_found_from_the_op_name() {
        let ctx = ctx();
        let name = ctx.op_name("itest.declaring");
        assert_eq!(ctx.interface::<dyn Answer>(name).map(|a| a.answer()), Some(42));
        assert!(ctx.interface::<Colour>(name).is_none());
        assert!(ctx.interface::<dyn Answer>(ctx.op_name("itest.plain")).is_none());
        assert!(ctx.interface::<dyn Answer>(ctx.op_name("other.unregistered")).is_none());
    }

    #[test]
    fn attached_interfaces_belong_to_one_context() {
        static BLUE: Colour = Colour("blue");
        static SEVEN: Fixed = Fixed(7);
        let mut a = ctx();
        a.attach_interface::<Colour>(PlainOp::DEF, &BLUE);
        a.attach_interface::<dyn Answer>(PlainOp::DEF, &SEVEN);
        let b = ctx();
        let (pa, pb) = (a.op_name("itest.plain"), b.op_name("itest.plain"));
        assert_eq!(a.interface::<Colour>(pa), Some(&Colour("blue")));
        assert_eq!(a.interface::<dyn Answer>(pa).map(|x| x.answer()), Some(7));
        assert!(b.interface::<Colour>(pb).is_none(), "an attachment leaked into another context");
        assert!(b.interface::<dyn Answer>(pb).is_none());
    }

    #[test]
    fn an_attachment_overrides_the_declaration() {
        static ONE: Fixed = Fixed(1);
        let mut c = ctx();
        c.attach_interface::<dyn Answer>(DeclaringOp::DEF, &ONE);
        assert_eq!(c.interface::<dyn Answer>(c.op_name("itest.declaring")).map(|x| x.answer()), Some(1));
    }

    #[test]
    fn typed_views_compare_declarations_not_names() {
        let ctx = ctx();
        let mut m = crate::Module::new(&ctx, crate::Location::UNKNOWN);
        let body = &mut m.body;
        let op = body.create_op(crate::OperationState::new(&ctx, "itest.declaring", crate::Location::UNKNOWN));
        assert!(DeclaringOp::cast(&ctx, body, op).is_some());
        assert!(PlainOp::cast(&ctx, body, op).is_none());
        let def: &OpDef = DeclaringOp::DEF;
        assert!(def.is::<DeclaringOp>() && !def.is::<PlainOp>());
    }
}

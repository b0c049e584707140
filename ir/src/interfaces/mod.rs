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
//! Interfaces defined here, because they need nothing but the IR: [`FusionRole`] (how `fuse`
//! groups an op) and [`loops`] (an op's loops and the indexing maps of its operands and
//! results, as linalg's indexing maps, for sharding and tiling).

pub mod fusion;
pub mod loops;

use std::any::Any;
use std::sync::atomic::{AtomicU32, Ordering};

pub use fusion::{fusion_role, FusionRole};
pub use loops::{LoopInfo, LoopKind, LoopStructure};

/// The dense id of an interface (0, 1, 2, ... in the order interfaces are first used): the
/// index of its slot in every op's interface table.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct InterfaceId(pub u32);

/// The id allocator behind [`op_interface!`](crate::op_interface): one per interface type,
/// assigned on first use from a process-wide counter (ids only; no interface data is global).
pub struct InterfaceSlot {
    id: AtomicU32,
    name: &'static str,
}

static NEXT_INTERFACE_ID: AtomicU32 = AtomicU32::new(0);
const UNASSIGNED: u32 = u32::MAX;

impl InterfaceSlot {
    pub const fn new(name: &'static str) -> Self {
        InterfaceSlot { id: AtomicU32::new(UNASSIGNED), name }
    }
    /// This interface's id (assigned on the first call).
    #[inline]
    pub fn id(&self) -> InterfaceId {
        let id = self.id.load(Ordering::Acquire);
        if id != UNASSIGNED {
            return InterfaceId(id);
        }
        let fresh = NEXT_INTERFACE_ID.fetch_add(1, Ordering::Relaxed);
        match self.id.compare_exchange(UNASSIGNED, fresh, Ordering::AcqRel, Ordering::Acquire) {
            Ok(_) => InterfaceId(fresh),
            Err(winner) => InterfaceId(winner),
        }
    }
    pub fn name(&self) -> &'static str {
        self.name
    }
}

/// A type that ops can implement as an interface. Implement it with
/// [`op_interface!`](crate::op_interface).
pub trait OpInterface: 'static + Sync {
    /// The interface's id allocator (and name, for messages).
    fn slot() -> &'static InterfaceSlot;
    fn id() -> InterfaceId {
        Self::slot().id()
    }
}

/// Makes a type an op interface:
/// ```ignore
/// pub trait Semantics: Sync { fn exec(&self, e: &mut OpExec) -> Result<Control, InterpError>; }
/// xcs_ir::op_interface!(dyn Semantics, "semantics");
/// ```
#[macro_export]
macro_rules! op_interface {
    ($ty:ty, $name:literal) => {
        impl $crate::interfaces::OpInterface for $ty {
            fn slot() -> &'static $crate::interfaces::InterfaceSlot {
                static SLOT: $crate::interfaces::InterfaceSlot = $crate::interfaces::InterfaceSlot::new($name);
                &SLOT
            }
        }
    };
}

/// One interface implementation in an op's declaration: the interface's id and the
/// implementation (a `&'static I`, type-erased). Made by [`InterfaceImpl::of`].
#[derive(Copy, Clone)]
pub struct InterfaceImpl {
    pub slot: fn() -> &'static InterfaceSlot,
    pub imp: &'static (dyn Any + Send + Sync),
}

impl InterfaceImpl {
    /// The implementation `imp` of interface `I` (`imp` is a reference to a `&'static I`, so
    /// that trait objects can be stored: `InterfaceImpl::of::<dyn T>(&(&X as &'static dyn T))`).
    pub const fn of<I: OpInterface + ?Sized>(imp: &'static &'static I) -> InterfaceImpl {
        InterfaceImpl { slot: I::slot, imp }
    }
}

/// An entry of an op's interface table in a context: from the declaration (static) or attached
/// to this context (owned by it).
pub(crate) enum InterfaceEntry {
    Declared(&'static (dyn Any + Send + Sync)),
    Attached(Box<dyn Any + Send + Sync>),
}

impl InterfaceEntry {
    #[inline]
    fn get<I: OpInterface + ?Sized>(&self) -> Option<&'static I> {
        let any: &(dyn Any + Send + Sync) = match self {
            InterfaceEntry::Declared(a) => *a,
            InterfaceEntry::Attached(b) => &**b,
        };
        any.downcast_ref::<&'static I>().copied()
    }
}

/// The interface tables of a context's registered ops, indexed by op name and interface id.
#[derive(Default)]
pub(crate) struct InterfaceTables {
    /// `tables[op_name_index][interface_id]`.
    tables: Vec<Vec<Option<InterfaceEntry>>>,
}

impl InterfaceTables {
    fn slot_mut(&mut self, op: usize, id: InterfaceId) -> &mut Option<InterfaceEntry> {
        if self.tables.len() <= op {
            self.tables.resize_with(op + 1, Vec::new);
        }
        let row = &mut self.tables[op];
        let i = id.0 as usize;
        if row.len() <= i {
            row.resize_with(i + 1, || None);
        }
        &mut row[i]
    }
    pub(crate) fn declare(&mut self, op: usize, imp: &InterfaceImpl) {
        *self.slot_mut(op, (imp.slot)().id()) = Some(InterfaceEntry::Declared(imp.imp));
    }
    pub(crate) fn attach<I: OpInterface + ?Sized>(&mut self, op: usize, imp: &'static I) {
        *self.slot_mut(op, I::id()) = Some(InterfaceEntry::Attached(Box::new(imp)));
    }
    #[inline]
    pub(crate) fn get<I: OpInterface + ?Sized>(&self, op: usize) -> Option<&'static I> {
        self.tables.get(op)?.get(I::id().0 as usize)?.as_ref()?.get::<I>()
    }
}

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

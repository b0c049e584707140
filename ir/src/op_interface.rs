//! The op-interface mechanism (see [`crate::interfaces`] for what interfaces are and which
//! exist): dense interface ids, the implementation entries of op declarations, and the
//! per-context tables that `Context::interface` indexes. MLIR keeps the same data in each
//! `OperationName`'s interface map.

use std::any::Any;
use std::sync::atomic::{AtomicU32, Ordering};

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
        impl $crate::op_interface::OpInterface for $ty {
            fn slot() -> &'static $crate::op_interface::InterfaceSlot {
                static SLOT: $crate::op_interface::InterfaceSlot = $crate::op_interface::InterfaceSlot::new($name);
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

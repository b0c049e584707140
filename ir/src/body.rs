//! [`Body`]: the storage of one isolated-from-above operation (a `builtin.module`, a
//! `func.func`, ...): its attributes, its regions and everything inside them. Ops, blocks,
//! regions and values live in arenas with typed ids; ops and blocks form intrusive doubly-linked
//! lists (O(1) insert and erase); every value has a use list (O(uses) replace-all-uses).
//!
//! An isolated op nested inside a body keeps its operands and results in that body, but its
//! contents live in a child `Body` owned by it. A function pass gets `&mut Body` of one
//! function, so passes on different functions run in parallel without sharing anything
//! mutable; only the `&Context` (a thread-safe interner) is shared.

use rustc_hash::FxHashMap;
use smallvec::SmallVec;

use crate::context::{Attr, Context, Ident, OpName};
use crate::entity::{EntityRef, ListPool, ListRef, Slab};
use crate::location::Location;
use crate::types::Type;

crate::entity_id!(
    /// An operation in a [`Body`].
    pub struct Op; "op"
);
crate::entity_id!(
    /// A block in a [`Body`].
    pub struct Block; "block"
);
crate::entity_id!(
    /// A region in a [`Body`].
    pub struct Region; "region"
);
crate::entity_id!(
    /// An SSA value (op result or block argument) in a [`Body`].
    pub struct Value; "v"
);
crate::entity_id!(
    /// A child body (the contents of a nested isolated-from-above op).
    pub struct BodyRef; "body"
);

const NO_USE: u32 = u32::MAX;

/// Where a value comes from.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ValueDef {
    Result { op: Op, index: u32 },
    Arg { block: Block, index: u32 },
}

#[derive(Clone, Debug)]
pub(crate) struct ValueData {
    ty: Type,
    def: ValueDef,
    first_use: u32,
}

/// One operand slot: the value used, the op using it, and its links in the value's use list.
#[derive(Copy, Clone, Debug)]
pub(crate) struct Operand {
    value: Value,
    owner: Op,
    next_use: u32,
    prev_use: u32,
}

#[derive(Clone, Debug)]
pub(crate) struct OpData {
    name: OpName,
    parent: Option<Block>,
    prev: Option<Op>,
    next: Option<Op>,
    operands: ListRef,
    first_result: Option<Value>,
    num_results: u32,
    successors: ListRef,
    regions: ListRef,
    attrs: Attr,
    props: Option<Attr>,
    loc: Location,
    nested: Option<BodyRef>,
}

#[derive(Clone, Debug, Default)]
pub(crate) struct BlockData {
    parent: Option<Region>,
    prev: Option<Block>,
    next: Option<Block>,
    first_op: Option<Op>,
    last_op: Option<Op>,
    args: ListRef,
}

#[derive(Clone, Debug, Default)]
pub(crate) struct RegionData {
    parent: Option<Op>,
    first_block: Option<Block>,
    last_block: Option<Block>,
}

/// Everything needed to create an operation (MLIR's `OperationState`).
pub struct OperationState {
    pub name: OpName,
    pub loc: Location,
    pub operands: SmallVec<[Value; 4]>,
    pub result_types: SmallVec<[Type; 2]>,
    /// The attribute dictionary (discardable attributes, and inherent ones of registered ops).
    pub attrs: Attr,
    /// `<{...}>` properties of an unregistered op, kept apart to print them back.
    pub props: Option<Attr>,
    pub successors: SmallVec<[Block; 2]>,
    /// Detached regions of this body that become the op's regions (non-isolated ops).
    pub regions: SmallVec<[Region; 1]>,
    /// The contents of an isolated-from-above op; its regions are `nested.root_regions()`.
    pub nested: Option<Box<Body>>,
}

impl OperationState {
    pub fn new(ctx: &Context, name: &str, loc: Location) -> Self {
        Self::with_name(ctx, ctx.op_name(name), loc)
    }
    /// The state of a new op of declaration `def` (e.g. `OperationState::of(ctx, AddOp::DEF,
    /// loc)`): how library code creates ops without spelling their names.
    pub fn of(ctx: &Context, def: &crate::opdef::OpDef, loc: Location) -> Self {
        Self::new(ctx, def.name, loc)
    }
    pub fn with_name(ctx: &Context, name: OpName, loc: Location) -> Self {
        OperationState {
            name,
            loc,
            operands: SmallVec::new(),
            result_types: SmallVec::new(),
            attrs: ctx.empty_dict(),
            props: None,
            successors: SmallVec::new(),
            regions: SmallVec::new(),
            nested: None,
        }
    }
    pub fn add_attr(&mut self, ctx: &Context, name: &str, value: Attr) -> &mut Self {
        self.attrs = ctx.dict_set(self.attrs, ctx.ident(name), Some(value));
        self
    }
    pub fn operands(mut self, vs: &[Value]) -> Self {
        self.operands.extend_from_slice(vs);
        self
    }
    pub fn results(mut self, ts: &[Type]) -> Self {
        self.result_types.extend_from_slice(ts);
        self
    }
    pub fn attr(mut self, ctx: &Context, name: &str, value: Attr) -> Self {
        self.add_attr(ctx, name, value);
        self
    }
}

/// The storage of one isolated-from-above operation. See the module docs.
#[derive(Clone)]
pub struct Body {
    name: OpName,
    loc: Location,
    attrs: Attr,
    props: Option<Attr>,
    root_regions: SmallVec<[Region; 1]>,
    ops: Slab<Op, OpData>,
    blocks: Slab<Block, BlockData>,
    regions: Slab<Region, RegionData>,
    values: Slab<Value, ValueData>,
    operands: ListPool<Operand>,
    block_lists: ListPool<Block>,
    region_lists: ListPool<Region>,
    value_lists: ListPool<Value>,
    children: Slab<BodyRef, Box<Body>>,
    /// Locations of block arguments (only those that have one).
    arg_locs: FxHashMap<Value, Location>,
}

impl Body {
    /// An empty body for an op named `name` with no regions yet.
    pub fn new(ctx: &Context, name: OpName, loc: Location) -> Body {
        Body {
            name,
            loc,
            attrs: ctx.empty_dict(),
            props: None,
            root_regions: SmallVec::new(),
            ops: Slab::new(),
            blocks: Slab::new(),
            regions: Slab::new(),
            values: Slab::new(),
            operands: ListPool::new(),
            block_lists: ListPool::new(),
            region_lists: ListPool::new(),
            value_lists: ListPool::new(),
            children: Slab::new(),
            arg_locs: FxHashMap::default(),
        }
    }

    // ------------------------------------------------------------------ the owning op
    /// Name of the isolated op this body belongs to.
    pub fn name(&self) -> OpName {
        self.name
    }
    pub fn loc(&self) -> Location {
        self.loc
    }
    pub fn set_loc(&mut self, loc: Location) {
        self.loc = loc;
    }
    /// Attribute dictionary of the owning op.
    pub fn self_attrs(&self) -> Attr {
        self.attrs
    }
    pub fn set_self_attrs(&mut self, d: Attr) {
        self.attrs = d;
    }
    pub fn self_props(&self) -> Option<Attr> {
        self.props
    }
    pub fn set_self_props(&mut self, p: Option<Attr>) {
        self.props = p;
    }
    pub fn self_attr(&self, ctx: &Context, name: &str) -> Option<Attr> {
        ctx.dict_get(self.attrs, name)
    }
    pub fn set_self_attr(&mut self, ctx: &Context, name: &str, value: Option<Attr>) {
        self.attrs = ctx.dict_set(self.attrs, ctx.ident(name), value);
    }
    /// Regions of the owning op.
    pub fn root_regions(&self) -> &[Region] {
        &self.root_regions
    }
    /// Adds a new empty region to the owning op.
    pub fn add_root_region(&mut self) -> Region {
        let r = self.regions.insert(RegionData::default());
        self.root_regions.push(r);
        r
    }
    /// Attaches a detached region as the next root region.
    pub fn push_root_region(&mut self, r: Region) {
        debug_assert!(self.regions[r].parent.is_none());
        self.root_regions.push(r);
    }

    // ------------------------------------------------------------------ children
    /// The contents of a nested isolated op.
    pub fn nested(&self, op: Op) -> Option<&Body> {
        self.ops[op].nested.map(|c| &*self.children[c])
    }
    pub fn nested_mut(&mut self, op: Op) -> Option<&mut Body> {
        match self.ops[op].nested {
            Some(c) => Some(&mut *self.children[c]),
            None => None,
        }
    }
    /// Mutable access to the nested bodies of several distinct ops at once (for parallel
    /// passes). Ops without a nested body are skipped.
    pub fn nested_many_mut(&mut self, ops: &[Op]) -> Vec<(Op, &mut Body)> {
        let mut want: FxHashMap<BodyRef, Op> = FxHashMap::default();
        for &op in ops {
            if let Some(c) = self.ops[op].nested {
                want.insert(c, op);
            }
        }
        let mut out: Vec<(Op, &mut Body)> = self
            .children
            .iter_mut()
            .filter_map(|(c, b)| want.get(&c).map(|&op| (op, &mut **b)))
            .collect();
        let order: FxHashMap<Op, usize> = ops.iter().enumerate().map(|(i, &o)| (o, i)).collect();
        out.sort_by_key(|(op, _)| order[op]);
        out
    }
    /// Number of nested bodies directly owned by this one.
    pub fn num_children(&self) -> usize {
        self.children.len()
    }
    /// Takes the nested body out of an op (e.g. to move it into another body).
    pub fn take_nested(&mut self, op: Op) -> Option<Box<Body>> {
        let c = self.ops[op].nested.take()?;
        self.children.remove(c)
    }
    /// Gives an op a nested body.
    pub fn set_nested(&mut self, op: Op, body: Box<Body>) {
        if let Some(old) = self.ops[op].nested.take() {
            self.children.remove(old);
        }
        let c = self.children.insert(body);
        self.ops[op].nested = Some(c);
    }

    // ------------------------------------------------------------------ ops
    /// Creates a detached op. Regions in `state.regions` become its regions; `state.nested`
    /// becomes its nested body.
    pub fn create_op(&mut self, state: OperationState) -> Op {
        let op = self.ops.insert(OpData {
            name: state.name,
            parent: None,
            prev: None,
            next: None,
            operands: ListRef::EMPTY,
            first_result: None,
            num_results: state.result_types.len() as u32,
            successors: ListRef::EMPTY,
            regions: ListRef::EMPTY,
            attrs: state.attrs,
            props: state.props,
            loc: state.loc,
            nested: None,
        });
        self.set_operands(op, &state.operands);
        if !state.result_types.is_empty() {
            let n = state.result_types.len();
            let first = if n == 1 {
                self.values.insert(ValueData {
                    ty: state.result_types[0],
                    def: ValueDef::Result { op, index: 0 },
                    first_use: NO_USE,
                })
            } else {
                self.values.push_run(state.result_types.iter().enumerate().map(|(i, &ty)| ValueData {
                    ty,
                    def: ValueDef::Result { op, index: i as u32 },
                    first_use: NO_USE,
                }))
            };
            self.ops[op].first_result = Some(first);
        }
        if !state.successors.is_empty() {
            self.ops[op].successors = self.block_lists.alloc(&state.successors);
        }
        if !state.regions.is_empty() {
            for &r in &state.regions {
                debug_assert!(self.regions[r].parent.is_none(), "region already attached");
                self.regions[r].parent = Some(op);
            }
            self.ops[op].regions = self.region_lists.alloc(&state.regions);
        }
        if let Some(mut nested) = state.nested {
            // The nested body is complete once its op is created (the parser and passes build
            // the contents first): give back the arenas' growth slack.
            nested.shrink_to_fit();
            nested.name = state.name;
            nested.loc = state.loc;
            nested.attrs = state.attrs;
            nested.props = state.props;
            let c = self.children.insert(nested);
            self.ops[op].nested = Some(c);
        }
        op
    }

    #[inline]
    pub fn op_name(&self, op: Op) -> OpName {
        self.ops[op].name
    }
    #[inline]
    pub fn op_loc(&self, op: Op) -> Location {
        self.ops[op].loc
    }
    pub fn set_op_loc(&mut self, op: Op, loc: Location) {
        self.ops[op].loc = loc;
        if let Some(c) = self.ops[op].nested {
            self.children[c].loc = loc;
        }
    }
    /// True if `op` is a live op of this body.
    pub fn contains_op(&self, op: Op) -> bool {
        self.ops.contains(op)
    }
    pub fn num_ops(&self) -> usize {
        self.ops.len()
    }

    // attributes (for an isolated op these live in its nested body)
    #[inline]
    pub fn attrs(&self, op: Op) -> Attr {
        let d = &self.ops[op];
        match d.nested {
            Some(c) => self.children[c].attrs,
            None => d.attrs,
        }
    }
    pub fn set_attrs(&mut self, op: Op, dict: Attr) {
        match self.ops[op].nested {
            Some(c) => self.children[c].attrs = dict,
            None => self.ops[op].attrs = dict,
        }
    }
    pub fn attr(&self, ctx: &Context, op: Op, name: &str) -> Option<Attr> {
        ctx.dict_get(self.attrs(op), name)
    }
    pub fn set_attr(&mut self, ctx: &Context, op: Op, name: &str, value: Attr) {
        let d = ctx.dict_set(self.attrs(op), ctx.ident(name), Some(value));
        self.set_attrs(op, d);
    }
    pub fn set_attr_ident(&mut self, ctx: &Context, op: Op, name: Ident, value: Option<Attr>) {
        let d = ctx.dict_set(self.attrs(op), name, value);
        self.set_attrs(op, d);
    }
    pub fn remove_attr(&mut self, ctx: &Context, op: Op, name: &str) -> Option<Attr> {
        let old = self.attr(ctx, op, name)?;
        let d = ctx.dict_set(self.attrs(op), ctx.ident(name), None);
        self.set_attrs(op, d);
        Some(old)
    }
    pub fn props(&self, op: Op) -> Option<Attr> {
        let d = &self.ops[op];
        match d.nested {
            Some(c) => self.children[c].props,
            None => d.props,
        }
    }
    pub fn set_props(&mut self, op: Op, props: Option<Attr>) {
        match self.ops[op].nested {
            Some(c) => self.children[c].props = props,
            None => self.ops[op].props = props,
        }
    }

    // operands
    #[inline]
    pub fn num_operands(&self, op: Op) -> usize {
        self.ops[op].operands.len()
    }
    #[inline]
    pub fn operand(&self, op: Op, i: usize) -> Value {
        self.operands.get(self.ops[op].operands)[i].value
    }
    /// The values used by `op`, in order.
    #[inline]
    pub fn operands(&self, op: Op) -> impl ExactSizeIterator<Item = Value> + '_ {
        self.operands.get(self.ops[op].operands).iter().map(|o| o.value)
    }
    pub fn operand_vec(&self, op: Op) -> SmallVec<[Value; 4]> {
        self.operands(op).collect()
    }
    pub fn operand_types(&self, op: Op) -> SmallVec<[Type; 4]> {
        self.operands(op).map(|v| self.values[v].ty).collect()
    }
    /// Replaces operand `i` of `op`.
    pub fn set_operand(&mut self, op: Op, i: usize, v: Value) {
        let slot = self.ops[op].operands.slot(i);
        self.unlink_use(slot);
        self.operands.at_mut(slot).value = v;
        self.link_use(slot);
    }
    /// Replaces all operands of `op`.
    pub fn set_operands(&mut self, op: Op, vs: &[Value]) {
        let old = self.ops[op].operands;
        for i in 0..old.len() {
            self.unlink_use(old.slot(i));
        }
        self.operands.free(old);
        let items: SmallVec<[Operand; 8]> =
            vs.iter().map(|&value| Operand { value, owner: op, next_use: NO_USE, prev_use: NO_USE }).collect();
        let list = self.operands.alloc(&items);
        self.ops[op].operands = list;
        for i in 0..list.len() {
            self.link_use(list.slot(i));
        }
    }
    fn link_use(&mut self, slot: u32) {
        let v = self.operands.at(slot).value;
        let head = self.values[v].first_use;
        {
            let u = self.operands.at_mut(slot);
            u.next_use = head;
            u.prev_use = NO_USE;
        }
        if head != NO_USE {
            self.operands.at_mut(head).prev_use = slot;
        }
        self.values[v].first_use = slot;
    }
    fn unlink_use(&mut self, slot: u32) {
        let Operand { value, next_use, prev_use, .. } = *self.operands.at(slot);
        if prev_use == NO_USE {
            if let Some(vd) = self.values.get_mut(value) {
                vd.first_use = next_use;
            }
        } else {
            self.operands.at_mut(prev_use).next_use = next_use;
        }
        if next_use != NO_USE {
            self.operands.at_mut(next_use).prev_use = prev_use;
        }
    }

    // results
    #[inline]
    pub fn num_results(&self, op: Op) -> usize {
        self.ops[op].num_results as usize
    }
    #[inline]
    pub fn result(&self, op: Op, i: usize) -> Value {
        let d = &self.ops[op];
        debug_assert!(i < d.num_results as usize);
        Value::new(d.first_result.expect("op has no results").index() + i)
    }
    pub fn results(&self, op: Op) -> impl ExactSizeIterator<Item = Value> + '_ {
        let d = &self.ops[op];
        let first = d.first_result.map(|v| v.index()).unwrap_or(0);
        (0..d.num_results as usize).map(move |i| Value::new(first + i))
    }
    pub fn result_types(&self, op: Op) -> SmallVec<[Type; 2]> {
        self.results(op).map(|v| self.values[v].ty).collect()
    }

    // successors and regions
    pub fn successors(&self, op: Op) -> &[Block] {
        self.block_lists.get(self.ops[op].successors)
    }
    pub fn set_successor(&mut self, op: Op, i: usize, b: Block) {
        let l = self.ops[op].successors;
        self.block_lists.get_mut(l)[i] = b;
    }
    /// Regions of a non-isolated op (an isolated op's regions are `nested(op).root_regions()`).
    pub fn regions(&self, op: Op) -> &[Region] {
        self.region_lists.get(self.ops[op].regions)
    }
    pub fn num_regions(&self, op: Op) -> usize {
        match self.ops[op].nested {
            Some(c) => self.children[c].root_regions.len(),
            None => self.ops[op].regions.len(),
        }
    }
    /// True if `op` has a nested body (it is isolated from above).
    pub fn is_isolated(&self, op: Op) -> bool {
        self.ops[op].nested.is_some()
    }

    // position
    #[inline]
    pub fn op_block(&self, op: Op) -> Option<Block> {
        self.ops[op].parent
    }
    #[inline]
    pub fn next_op(&self, op: Op) -> Option<Op> {
        self.ops[op].next
    }
    #[inline]
    pub fn prev_op(&self, op: Op) -> Option<Op> {
        self.ops[op].prev
    }
    /// The op whose region contains `op` (`None` at the top of the body).
    pub fn parent_op(&self, op: Op) -> Option<Op> {
        let b = self.ops[op].parent?;
        let r = self.blocks[b].parent?;
        self.regions[r].parent
    }
    pub fn region_parent_op(&self, r: Region) -> Option<Op> {
        self.regions[r].parent
    }
    pub fn block_region(&self, b: Block) -> Option<Region> {
        self.blocks[b].parent
    }
    /// The op containing `block` (`None` for blocks of root regions).
    pub fn block_parent_op(&self, b: Block) -> Option<Op> {
        self.blocks[b].parent.and_then(|r| self.regions[r].parent)
    }
    /// True if `ancestor` is `op` or contains it.
    pub fn is_ancestor(&self, ancestor: Op, mut op: Op) -> bool {
        loop {
            if op == ancestor {
                return true;
            }
            match self.parent_op(op) {
                Some(p) => op = p,
                None => return false,
            }
        }
    }

    /// Inserts a detached op at the end of `block`.
    pub fn append_op(&mut self, block: Block, op: Op) {
        debug_assert!(self.ops[op].parent.is_none(), "op already in a block");
        let last = self.blocks[block].last_op;
        {
            let d = &mut self.ops[op];
            d.parent = Some(block);
            d.prev = last;
            d.next = None;
        }
        match last {
            Some(l) => self.ops[l].next = Some(op),
            None => self.blocks[block].first_op = Some(op),
        }
        self.blocks[block].last_op = Some(op);
    }
    /// Inserts a detached op at the start of `block`.
    pub fn prepend_op(&mut self, block: Block, op: Op) {
        match self.blocks[block].first_op {
            Some(f) => self.insert_op_before(f, op),
            None => self.append_op(block, op),
        }
    }
    /// Inserts a detached op right before `anchor`.
    pub fn insert_op_before(&mut self, anchor: Op, op: Op) {
        debug_assert!(self.ops[op].parent.is_none(), "op already in a block");
        let block = self.ops[anchor].parent.expect("anchor is not in a block");
        let prev = self.ops[anchor].prev;
        {
            let d = &mut self.ops[op];
            d.parent = Some(block);
            d.prev = prev;
            d.next = Some(anchor);
        }
        self.ops[anchor].prev = Some(op);
        match prev {
            Some(p) => self.ops[p].next = Some(op),
            None => self.blocks[block].first_op = Some(op),
        }
    }
    /// Inserts a detached op right after `anchor`.
    pub fn insert_op_after(&mut self, anchor: Op, op: Op) {
        match self.ops[anchor].next {
            Some(n) => self.insert_op_before(n, op),
            None => {
                let b = self.ops[anchor].parent.expect("anchor is not in a block");
                self.append_op(b, op)
            }
        }
    }
    /// Unlinks `op` from its block; it keeps its operands, results and regions.
    pub fn detach_op(&mut self, op: Op) {
        let (block, prev, next) = {
            let d = &self.ops[op];
            match d.parent {
                Some(b) => (b, d.prev, d.next),
                None => return,
            }
        };
        match prev {
            Some(p) => self.ops[p].next = next,
            None => self.blocks[block].first_op = next,
        }
        match next {
            Some(n) => self.ops[n].prev = prev,
            None => self.blocks[block].last_op = prev,
        }
        let d = &mut self.ops[op];
        d.parent = None;
        d.prev = None;
        d.next = None;
    }
    /// Moves `op` (attached or not) to right before `anchor`.
    pub fn move_op_before(&mut self, op: Op, anchor: Op) {
        self.detach_op(op);
        self.insert_op_before(anchor, op);
    }
    /// Erases `op`, its regions and everything in them. Its results must have no uses outside
    /// what is erased (uses inside are dropped first).
    pub fn erase_op(&mut self, op: Op) {
        self.drop_all_uses_within(op);
        self.erase_op_unchecked(op);
    }
    fn drop_all_uses_within(&mut self, op: Op) {
        // drop operands of op and of everything nested, so that erasing in any order is safe
        let mut stack = vec![op];
        while let Some(o) = stack.pop() {
            let l = self.ops[o].operands;
            for i in 0..l.len() {
                self.unlink_use(l.slot(i));
            }
            self.operands.free(l);
            self.ops[o].operands = ListRef::EMPTY;
            for &r in self.region_lists.get(self.ops[o].regions) {
                let mut b = self.regions[r].first_block;
                while let Some(bb) = b {
                    let mut x = self.blocks[bb].first_op;
                    while let Some(xo) = x {
                        stack.push(xo);
                        x = self.ops[xo].next;
                    }
                    b = self.blocks[bb].next;
                }
            }
        }
    }
    fn erase_op_unchecked(&mut self, op: Op) {
        self.detach_op(op);
        let regions: SmallVec<[Region; 2]> = self.regions(op).into();
        for r in regions {
            self.erase_region(r);
        }
        let d = self.ops.remove(op).expect("erase of a dead op");
        self.block_lists.free(d.successors);
        self.region_lists.free(d.regions);
        self.operands.free(d.operands);
        if let Some(first) = d.first_result {
            for i in 0..d.num_results as usize {
                let v = Value::new(first.index() + i);
                debug_assert!(self.values[v].first_use == NO_USE, "erasing an op whose result is still used");
                self.values.remove(v);
            }
        }
        if let Some(c) = d.nested {
            self.children.remove(c);
        }
    }

    // ------------------------------------------------------------------ values
    #[inline]
    pub fn value_type(&self, v: Value) -> Type {
        self.values[v].ty
    }
    pub fn set_value_type(&mut self, v: Value, ty: Type) {
        self.values[v].ty = ty;
    }
    #[inline]
    pub fn value_def(&self, v: Value) -> ValueDef {
        self.values[v].def
    }
    /// The op defining `v`, if it is an op result.
    pub fn defining_op(&self, v: Value) -> Option<Op> {
        match self.values[v].def {
            ValueDef::Result { op, .. } => Some(op),
            ValueDef::Arg { .. } => None,
        }
    }
    /// The block `v` is defined in (the defining op's block, or the argument's block).
    pub fn value_block(&self, v: Value) -> Option<Block> {
        match self.values[v].def {
            ValueDef::Result { op, .. } => self.ops[op].parent,
            ValueDef::Arg { block, .. } => Some(block),
        }
    }
    pub fn contains_value(&self, v: Value) -> bool {
        self.values.contains(v)
    }
    /// The uses of `v` as (user op, operand index), most recent first.
    pub fn uses(&self, v: Value) -> Uses<'_> {
        Uses { body: self, cur: self.values[v].first_use }
    }
    pub fn users(&self, v: Value) -> impl Iterator<Item = Op> + '_ {
        self.uses(v).map(|(op, _)| op)
    }
    #[inline]
    pub fn has_uses(&self, v: Value) -> bool {
        self.values[v].first_use != NO_USE
    }
    pub fn has_one_use(&self, v: Value) -> bool {
        let f = self.values[v].first_use;
        f != NO_USE && self.operands.at(f).next_use == NO_USE
    }
    /// Replaces every use of `from` by `to`.
    pub fn replace_all_uses(&mut self, from: Value, to: Value) {
        if from == to {
            return;
        }
        while self.values[from].first_use != NO_USE {
            let slot = self.values[from].first_use;
            self.unlink_use(slot);
            self.operands.at_mut(slot).value = to;
            self.link_use(slot);
        }
    }
    /// Replaces the uses of `from` for which `pred(user op)` holds.
    pub fn replace_uses_if(&mut self, from: Value, to: Value, mut pred: impl FnMut(&Body, Op) -> bool) {
        let mut slot = self.values[from].first_use;
        while slot != NO_USE {
            let Operand { owner, next_use, .. } = *self.operands.at(slot);
            if pred(self, owner) {
                self.unlink_use(slot);
                self.operands.at_mut(slot).value = to;
                self.link_use(slot);
            }
            slot = next_use;
        }
    }
    /// Replaces all results of `op` by `vals` and erases `op`.
    pub fn replace_op(&mut self, op: Op, vals: &[Value]) {
        let results: SmallVec<[Value; 2]> = self.results(op).collect();
        assert_eq!(results.len(), vals.len(), "replace_op: result count mismatch");
        for (r, &v) in results.into_iter().zip(vals) {
            self.replace_all_uses(r, v);
        }
        self.erase_op(op);
    }

    // ------------------------------------------------------------------ blocks
    /// Creates a detached block with arguments of the given types.
    pub fn create_block(&mut self, arg_types: &[Type]) -> Block {
        let b = self.blocks.insert(BlockData::default());
        let args: SmallVec<[Value; 4]> = arg_types
            .iter()
            .enumerate()
            .map(|(i, &ty)| {
                self.values.insert(ValueData { ty, def: ValueDef::Arg { block: b, index: i as u32 }, first_use: NO_USE })
            })
            .collect();
        self.blocks[b].args = self.value_lists.alloc(&args);
        b
    }
    pub fn block_args(&self, b: Block) -> &[Value] {
        self.value_lists.get(self.blocks[b].args)
    }
    pub fn block_arg(&self, b: Block, i: usize) -> Value {
        self.block_args(b)[i]
    }
    pub fn add_block_arg(&mut self, b: Block, ty: Type) -> Value {
        let index = self.blocks[b].args.len() as u32;
        let v = self.values.insert(ValueData { ty, def: ValueDef::Arg { block: b, index }, first_use: NO_USE });
        let l = self.blocks[b].args;
        self.blocks[b].args = self.value_lists.push(l, v);
        v
    }
    /// Removes argument `i` of `b`, which must be unused.
    pub fn erase_block_arg(&mut self, b: Block, i: usize) {
        let args: SmallVec<[Value; 8]> = self.block_args(b).into();
        let v = args[i];
        assert!(!self.has_uses(v), "erasing a used block argument");
        self.values.remove(v);
        self.arg_locs.remove(&v);
        let rest: SmallVec<[Value; 8]> = args.iter().copied().filter(|&a| a != v).collect();
        for (j, &a) in rest.iter().enumerate() {
            self.values[a].def = ValueDef::Arg { block: b, index: j as u32 };
        }
        let old = self.blocks[b].args;
        self.value_lists.free(old);
        self.blocks[b].args = self.value_lists.alloc(&rest);
    }
    pub fn set_arg_loc(&mut self, v: Value, loc: Location) {
        self.arg_locs.insert(v, loc);
    }
    pub fn arg_loc(&self, v: Value) -> Option<Location> {
        self.arg_locs.get(&v).copied()
    }
    pub fn first_op(&self, b: Block) -> Option<Op> {
        self.blocks[b].first_op
    }
    pub fn last_op(&self, b: Block) -> Option<Op> {
        self.blocks[b].last_op
    }
    /// The ops of `b` in order. The iterator reads the next link before yielding, so the
    /// yielded op may be erased or moved while iterating.
    pub fn block_ops(&self, b: Block) -> OpIter<'_> {
        OpIter { body: self, cur: self.blocks[b].first_op }
    }
    pub fn block_op_vec(&self, b: Block) -> Vec<Op> {
        self.block_ops(b).collect()
    }
    pub fn is_block_empty(&self, b: Block) -> bool {
        self.blocks[b].first_op.is_none()
    }
    pub fn next_block(&self, b: Block) -> Option<Block> {
        self.blocks[b].next
    }
    pub fn prev_block(&self, b: Block) -> Option<Block> {
        self.blocks[b].prev
    }
    pub fn contains_block(&self, b: Block) -> bool {
        self.blocks.contains(b)
    }

    // ------------------------------------------------------------------ regions
    /// Creates a detached, empty region.
    pub fn create_region(&mut self) -> Region {
        self.regions.insert(RegionData::default())
    }
    pub fn append_block(&mut self, r: Region, b: Block) {
        debug_assert!(self.blocks[b].parent.is_none(), "block already in a region");
        let last = self.regions[r].last_block;
        {
            let d = &mut self.blocks[b];
            d.parent = Some(r);
            d.prev = last;
            d.next = None;
        }
        match last {
            Some(l) => self.blocks[l].next = Some(b),
            None => self.regions[r].first_block = Some(b),
        }
        self.regions[r].last_block = Some(b);
    }
    /// Inserts a detached block before `anchor` in its region.
    pub fn insert_block_before(&mut self, anchor: Block, b: Block) {
        let r = self.blocks[anchor].parent.expect("anchor block not in a region");
        let prev = self.blocks[anchor].prev;
        {
            let d = &mut self.blocks[b];
            d.parent = Some(r);
            d.prev = prev;
            d.next = Some(anchor);
        }
        self.blocks[anchor].prev = Some(b);
        match prev {
            Some(p) => self.blocks[p].next = Some(b),
            None => self.regions[r].first_block = Some(b),
        }
    }
    pub fn detach_block(&mut self, b: Block) {
        let Some(r) = self.blocks[b].parent else { return };
        let (prev, next) = (self.blocks[b].prev, self.blocks[b].next);
        match prev {
            Some(p) => self.blocks[p].next = next,
            None => self.regions[r].first_block = next,
        }
        match next {
            Some(n) => self.blocks[n].prev = prev,
            None => self.regions[r].last_block = prev,
        }
        let d = &mut self.blocks[b];
        d.parent = None;
        d.prev = None;
        d.next = None;
    }
    /// Erases a block and its ops (their uses inside are dropped; arguments must be unused
    /// outside).
    pub fn erase_block(&mut self, b: Block) {
        for op in self.block_op_vec(b) {
            self.drop_all_uses_within(op);
        }
        self.erase_block_unchecked(b);
    }
    fn erase_block_unchecked(&mut self, b: Block) {
        self.detach_block(b);
        while let Some(op) = self.blocks[b].last_op {
            self.erase_op_unchecked(op);
        }
        let d = self.blocks.remove(b).expect("erase of a dead block");
        for &a in self.value_lists.get(d.args) {
            self.values.remove(a);
            self.arg_locs.remove(&a);
        }
        self.value_lists.free(d.args);
    }
    fn erase_region(&mut self, r: Region) {
        while let Some(b) = self.regions[r].last_block {
            self.erase_block_unchecked(b);
        }
        self.regions.remove(r);
    }
    pub fn region_blocks(&self, r: Region) -> BlockIter<'_> {
        BlockIter { body: self, cur: self.regions[r].first_block }
    }
    pub fn entry_block(&self, r: Region) -> Option<Block> {
        self.regions[r].first_block
    }
    pub fn region_is_empty(&self, r: Region) -> bool {
        self.regions[r].first_block.is_none()
    }
    /// Moves all blocks of `src` to the end of `dst` (both in this body).
    pub fn take_region_blocks(&mut self, src: Region, dst: Region) {
        while let Some(b) = self.regions[src].first_block {
            self.detach_block(b);
            self.append_block(dst, b);
        }
    }

    // ------------------------------------------------------------------ walking
    /// All ops of this body (not of nested bodies) in pre-order: each op before the ops in its
    /// regions, blocks in region order.
    pub fn walk_ops(&self) -> Vec<Op> {
        let mut out = Vec::with_capacity(self.ops.len());
        for &r in &self.root_regions {
            self.walk_region_into(r, &mut out);
        }
        out
    }
    pub fn walk_region_into(&self, r: Region, out: &mut Vec<Op>) {
        for b in self.region_blocks(r) {
            for op in self.block_ops(b) {
                out.push(op);
                for &rr in self.regions(op) {
                    self.walk_region_into(rr, out);
                }
            }
        }
    }
    /// Ops directly in the blocks of this body's root regions.
    pub fn top_ops(&self) -> Vec<Op> {
        let mut out = Vec::new();
        for &r in &self.root_regions {
            for b in self.region_blocks(r) {
                out.extend(self.block_ops(b));
            }
        }
        out
    }
    /// Calls `f` on this body and every nested body, depth-first, parents first.
    pub fn for_each_body(&self, f: &mut dyn FnMut(&Body)) {
        f(self);
        for (_, c) in self.children.iter() {
            c.for_each_body(f);
        }
    }
    /// Total ops in this body and all nested bodies, counting each isolated op once.
    pub fn total_ops(&self) -> usize {
        let mut n = 0;
        self.for_each_body(&mut |b| n += b.num_ops());
        n
    }
    /// Gives back the arenas' spare capacity (not of nested bodies). The parser calls it when a
    /// body is complete: arenas grow by doubling, so a freshly built body holds up to twice
    /// the memory it needs.
    pub fn shrink_to_fit(&mut self) {
        self.ops.shrink_to_fit();
        self.blocks.shrink_to_fit();
        self.regions.shrink_to_fit();
        self.values.shrink_to_fit();
        self.operands.shrink_to_fit();
        self.block_lists.shrink_to_fit();
        self.region_lists.shrink_to_fit();
        self.value_lists.shrink_to_fit();
        self.children.shrink_to_fit();
    }

    /// Approximate heap bytes held by this body and its children.
    pub fn memory_bytes(&self) -> usize {
        let mut n = self.ops.memory_bytes()
            + self.blocks.memory_bytes()
            + self.regions.memory_bytes()
            + self.values.memory_bytes()
            + self.operands.memory_bytes()
            + self.block_lists.memory_bytes()
            + self.region_lists.memory_bytes()
            + self.value_lists.memory_bytes();
        for (_, c) in self.children.iter() {
            n += std::mem::size_of::<Body>() + c.memory_bytes();
        }
        n
    }
}

/// Iterator over the ops of a block (see [`Body::block_ops`]).
pub struct OpIter<'a> {
    body: &'a Body,
    cur: Option<Op>,
}
impl Iterator for OpIter<'_> {
    type Item = Op;
    #[inline]
    fn next(&mut self) -> Option<Op> {
        let op = self.cur?;
        self.cur = self.body.ops[op].next;
        Some(op)
    }
}

/// Iterator over the blocks of a region.
pub struct BlockIter<'a> {
    body: &'a Body,
    cur: Option<Block>,
}
impl Iterator for BlockIter<'_> {
    type Item = Block;
    #[inline]
    fn next(&mut self) -> Option<Block> {
        let b = self.cur?;
        self.cur = self.body.blocks[b].next;
        Some(b)
    }
}

/// Iterator over the uses of a value (see [`Body::uses`]).
pub struct Uses<'a> {
    body: &'a Body,
    cur: u32,
}
impl Iterator for Uses<'_> {
    type Item = (Op, usize);
    fn next(&mut self) -> Option<(Op, usize)> {
        if self.cur == NO_USE {
            return None;
        }
        let u = *self.body.operands.at(self.cur);
        let list = self.body.ops[u.owner].operands;
        let index = (self.cur - list.slot(0)) as usize;
        self.cur = u.next_use;
        Some((u.owner, index))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn op(ctx: &Context, body: &mut Body, name: &str, operands: &[Value], results: &[Type]) -> Op {
        body.create_op(OperationState::new(ctx, name, Location::UNKNOWN).operands(operands).results(results))
    }

    #[test]
    fn build_link_replace_erase() {
        let ctx = Context::new();
        let mut body = Body::new(&ctx, ctx.op_name("builtin.module"), Location::UNKNOWN);
        let r = body.add_root_region();
        let b = body.create_block(&[ctx.i32_type()]);
        body.append_block(r, b);
        let arg = body.block_arg(b, 0);
        let i32t = ctx.i32_type();
        let a = op(&ctx, &mut body, "t.a", &[arg, arg], &[i32t, i32t]);
        body.append_op(b, a);
        let (a0, a1) = (body.result(a, 0), body.result(a, 1));
        let c = op(&ctx, &mut body, "t.c", &[a0, a1, arg], &[]);
        body.append_op(b, c);
        assert_eq!(body.uses(arg).count(), 3);
        assert!(body.has_one_use(a0));
        let mut uses: Vec<_> = body.uses(arg).collect();
        uses.sort();
        assert_eq!(uses, vec![(a, 0), (a, 1), (c, 2)]);
        // replace a0 by arg
        body.replace_all_uses(a0, arg);
        assert!(!body.has_uses(a0));
        assert_eq!(body.operand(c, 0), arg);
        assert_eq!(body.uses(arg).count(), 4);
        // insert before, order
        let d = op(&ctx, &mut body, "t.d", &[], &[]);
        body.insert_op_before(c, d);
        assert_eq!(body.block_op_vec(b), vec![a, d, c]);
        body.set_operands(c, &[a1]);
        assert_eq!(body.uses(arg).count(), 2);
        body.erase_op(c);
        assert!(!body.has_uses(a1));
        body.erase_op(a);
        assert!(!body.has_uses(arg));
        assert_eq!(body.block_op_vec(b), vec![d]);
        assert_eq!(body.num_ops(), 1);
    }

    #[test]
    fn erase_op_with_region_drops_inner_uses() {
        let ctx = Context::new();
        let mut body = Body::new(&ctx, ctx.op_name("builtin.module"), Location::UNKNOWN);
        let r = body.add_root_region();
        let b = body.create_block(&[]);
        body.append_block(r, b);
        let i32t = ctx.i32_type();
        let x = op(&ctx, &mut body, "t.x", &[], &[i32t]);
        body.append_op(b, x);
        let xv = body.result(x, 0);
        let inner_r = body.create_region();
        let inner_b = body.create_block(&[i32t]);
        body.append_block(inner_r, inner_b);
        let inner_arg = body.block_arg(inner_b, 0);
        let y = op(&ctx, &mut body, "t.y", &[xv, inner_arg], &[]);
        body.append_op(inner_b, y);
        let mut st = OperationState::new(&ctx, "t.wrap", Location::UNKNOWN);
        st.regions.push(inner_r);
        let w = body.create_op(st);
        body.append_op(b, w);
        assert!(body.has_uses(xv));
        assert_eq!(body.parent_op(y), Some(w));
        body.erase_op(w);
        assert!(!body.has_uses(xv));
        assert_eq!(body.num_ops(), 1);
    }
}

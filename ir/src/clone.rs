//! Cloning IR from one [`Body`] into another (e.g. a callee's body into its caller when
//! inlining). A [`Cloner`] copies ops, blocks and regions recursively, nested isolated ops'
//! bodies included, mapping values and blocks; operands and successors are resolved in
//! [`Cloner::finish`], so uses may come before definitions (graph regions, blocks cloned in
//! any order). Locations can be rewritten on the way (the inliner's call-site locations).

use rustc_hash::FxHashMap;
use smallvec::SmallVec;

use crate::body::{Block, Body, Op, OperationState, Region, Value};
use crate::entity::EntityRef;
use crate::location::Location;

/// A value or block of the source body that the clone uses but that was neither cloned nor
/// mapped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CloneError {
    UnmappedValue(Value),
    UnmappedBlock(Block),
}

impl std::fmt::Display for CloneError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CloneError::UnmappedValue(v) => write!(f, "cloned IR uses value {v:?} defined outside what was cloned"),
            CloneError::UnmappedBlock(b) => write!(f, "cloned IR branches to block {b:?} outside what was cloned"),
        }
    }
}

/// What a finished clone produced: source -> destination values, blocks and ops.
#[derive(Default, Debug)]
pub struct CloneMap {
    pub values: FxHashMap<Value, Value>,
    pub blocks: FxHashMap<Block, Block>,
    /// (source op, cloned op), in cloning order (parents before the ops in their regions).
    pub ops: Vec<(Op, Op)>,
}

impl CloneMap {
    pub fn value(&self, v: Value) -> Option<Value> {
        self.values.get(&v).copied()
    }
    pub fn block(&self, b: Block) -> Option<Block> {
        self.blocks.get(&b).copied()
    }
}

/// Copies IR out of `src` into a destination body. Call the `clone_*` methods, then
/// [`finish`](Cloner::finish) to wire operands and successors.
pub struct Cloner<'a> {
    src: &'a Body,
    map: CloneMap,
    /// Ops whose operands and successors still refer to the source.
    pending: Vec<(Op, Op)>,
    loc_map: Option<Box<dyn FnMut(Location) -> Location + 'a>>,
}

impl<'a> Cloner<'a> {
    pub fn new(src: &'a Body) -> Self {
        Cloner {
            src,
            map: CloneMap::default(),
            pending: Vec::new(),
            loc_map: None,
        }
    }
    /// Rewrites every cloned location (ops, block arguments, nested bodies) through `f`.
    pub fn with_loc_map(mut self, f: impl FnMut(Location) -> Location + 'a) -> Self {
        self.loc_map = Some(Box::new(f));
        self
    }
    /// Uses `to` (a destination value) wherever the clone uses `from` (a source value).
    pub fn map_value(&mut self, from: Value, to: Value) {
        self.map.values.insert(from, to);
    }
    pub fn map_block(&mut self, from: Block, to: Block) {
        self.map.blocks.insert(from, to);
    }
    pub fn lookup_value(&self, v: Value) -> Option<Value> {
        self.map.value(v)
    }
    fn loc(&mut self, l: Location) -> Location {
        match &mut self.loc_map {
            Some(f) => f(l),
            None => l,
        }
    }

    /// Creates a detached copy of `op` (with its regions) in `dst`. Its operands and
    /// successors are set by [`finish`](Cloner::finish).
    pub fn clone_op(&mut self, dst: &mut Body, op: Op) -> Op {
        let src = self.src;
        let loc = self.loc(src.op_loc(op));
        let mut st = OperationState {
            name: src.op_name(op),
            loc,
            operands: SmallVec::new(),
            result_types: src.result_types(op),
            attrs: src.attrs(op),
            props: src.props(op),
            // placeholders, fixed in `finish` (block lists hold plain ids)
            successors: src.successors(op).iter().map(|_| Block::new(0)).collect(),
            regions: SmallVec::new(),
            nested: None,
        };
        if let Some(nested) = src.nested(op) {
            let mut copy = Box::new(nested.clone());
            if let Some(f) = &mut self.loc_map {
                map_locations(&mut copy, &mut **f);
            }
            st.nested = Some(copy);
        } else {
            for &r in src.regions(op) {
                let nr = dst.create_region();
                let blocks = self.clone_blocks(dst, &src.region_blocks(r).collect::<Vec<_>>());
                for b in blocks {
                    dst.append_block(nr, b);
                }
                st.regions.push(nr);
            }
        }
        let new = dst.create_op(st);
        for (a, b) in src.results(op).zip(dst.results(new).collect::<SmallVec<[Value; 2]>>()) {
            self.map.values.insert(a, b);
        }
        self.map.ops.push((op, new));
        self.pending.push((op, new));
        new
    }

    /// Creates detached copies of `blocks` (arguments mapped, ops cloned) in `dst`, in order.
    /// All blocks are created before any op is cloned, so branches among them resolve.
    pub fn clone_blocks(&mut self, dst: &mut Body, blocks: &[Block]) -> Vec<Block> {
        let new: Vec<Block> = blocks.iter().map(|&b| self.declare_block(dst, b)).collect();
        for (&b, &nb) in blocks.iter().zip(&new) {
            self.clone_ops_into(dst, b, nb);
        }
        new
    }

    /// Creates an empty detached copy of block `b` (its arguments mapped) in `dst`.
    pub fn declare_block(&mut self, dst: &mut Body, b: Block) -> Block {
        let src = self.src;
        let types: SmallVec<[crate::types::Type; 4]> = src.block_args(b).iter().map(|&a| src.value_type(a)).collect();
        let nb = dst.create_block(&types);
        let new_args: SmallVec<[Value; 4]> = dst.block_args(nb).into();
        for (&a, &na) in src.block_args(b).iter().zip(&new_args) {
            self.map.values.insert(a, na);
            if let Some(l) = src.arg_loc(a) {
                let l = self.loc(l);
                dst.set_arg_loc(na, l);
            }
        }
        self.map.blocks.insert(b, nb);
        nb
    }

    /// Clones the ops of source block `b` to the end of destination block `into`.
    pub fn clone_ops_into(&mut self, dst: &mut Body, b: Block, into: Block) {
        for op in self.src.block_ops(b) {
            let new = self.clone_op(dst, op);
            dst.append_op(into, new);
        }
    }

    /// Clones the blocks of `region` to the end of destination region `into`.
    pub fn clone_region_into(&mut self, dst: &mut Body, region: Region, into: Region) {
        let blocks: Vec<Block> = self.src.region_blocks(region).collect();
        for b in self.clone_blocks(dst, &blocks) {
            dst.append_block(into, b);
        }
    }

    /// Sets the operands and successors of every cloned op through the value and block maps.
    pub fn finish(mut self, dst: &mut Body) -> Result<CloneMap, CloneError> {
        let src = self.src;
        for (s, d) in std::mem::take(&mut self.pending) {
            let mut vals: SmallVec<[Value; 4]> = SmallVec::new();
            for v in src.operands(s) {
                vals.push(self.map.value(v).ok_or(CloneError::UnmappedValue(v))?);
            }
            dst.set_operands(d, &vals);
            for (i, &b) in src.successors(s).iter().enumerate() {
                let nb = self.map.block(b).ok_or(CloneError::UnmappedBlock(b))?;
                dst.set_successor(d, i, nb);
            }
        }
        Ok(self.map)
    }
}

/// Every block of `body` (root regions and op regions, not nested bodies), in walk order.
pub fn all_blocks(body: &Body) -> Vec<Block> {
    fn region(body: &Body, r: Region, out: &mut Vec<Block>) {
        for b in body.region_blocks(r) {
            out.push(b);
            for op in body.block_ops(b) {
                for &rr in body.regions(op) {
                    region(body, rr, out);
                }
            }
        }
    }
    let mut out = Vec::new();
    for &r in body.root_regions() {
        region(body, r, &mut out);
    }
    out
}

/// Rewrites every location inside `body` (ops, block arguments, nested bodies; not the
/// body's own location, which belongs to its op in the parent) through `f`.
pub fn map_locations(body: &mut Body, f: &mut dyn FnMut(Location) -> Location) {
    for op in body.walk_ops() {
        let l = f(body.op_loc(op));
        body.set_op_loc(op, l);
    }
    for b in all_blocks(body) {
        let args: SmallVec<[Value; 4]> = body.block_args(b).into();
        for a in args {
            if let Some(l) = body.arg_loc(a) {
                let l = f(l);
                body.set_arg_loc(a, l);
            }
        }
    }
    let isolated: Vec<Op> = body.walk_ops().into_iter().filter(|&o| body.is_isolated(o)).collect();
    for (_, child) in body.nested_many_mut(&isolated) {
        map_locations(child, f);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::context::Context;

    fn op(ctx: &Context, b: &mut Body, name: &str, operands: &[Value], results: &[crate::types::Type]) -> Op {
        b.create_op(
            OperationState::new(ctx, name, ctx.file_loc("src", 1, 1))
                .operands(operands)
                .results(results),
        )
    }

    #[test]
    fn clones_blocks_regions_and_nested_bodies_across_bodies() {
        let ctx = Context::new();
        let i32t = ctx.i32_type();
        // source: two blocks, ^bb0 uses a value defined in ^bb1 (forward), an op with a
        // region, and an isolated op with a nested body.
        let mut src = Body::new(&ctx, ctx.op_name("t.src"), Location::UNKNOWN);
        let r = src.add_root_region();
        let b0 = src.create_block(&[i32t]);
        let b1 = src.create_block(&[]);
        src.append_block(r, b0);
        src.append_block(r, b1);
        let arg = src.block_arg(b0, 0);
        src.set_arg_loc(arg, ctx.file_loc("src", 9, 9));
        let d = op(&ctx, &mut src, "t.def", &[arg], &[i32t]);
        src.append_op(b1, d);
        let dv = src.result(d, 0);
        let u = op(&ctx, &mut src, "t.use", &[dv], &[]);
        src.append_op(b0, u);
        let mut br = OperationState::new(&ctx, "t.br", Location::UNKNOWN);
        br.successors.push(b1);
        let br = src.create_op(br);
        src.append_op(b0, br);
        let inner_r = src.create_region();
        let inner_b = src.create_block(&[]);
        src.append_block(inner_r, inner_b);
        let y = op(&ctx, &mut src, "t.inner", &[arg], &[]);
        src.append_op(inner_b, y);
        let mut w = OperationState::new(&ctx, "t.wrap", Location::UNKNOWN);
        w.regions.push(inner_r);
        let w = src.create_op(w);
        src.append_op(b1, w);
        let mut nested = Body::new(&ctx, ctx.op_name("t.iso"), Location::UNKNOWN);
        let nr = nested.add_root_region();
        let nb = nested.create_block(&[]);
        nested.append_block(nr, nb);
        let n_op = op(&ctx, &mut nested, "t.n", &[], &[]);
        nested.append_op(nb, n_op);
        let mut iso = OperationState::new(&ctx, "t.iso", Location::UNKNOWN);
        iso.nested = Some(Box::new(nested));
        let iso = src.create_op(iso.attr(&ctx, "k", ctx.i64_attr(3)));
        src.append_op(b1, iso);

        // destination: clone the region into a fresh body, remapping locations
        let mut dst = Body::new(&ctx, ctx.op_name("t.dst"), Location::UNKNOWN);
        let dr = dst.add_root_region();
        let tag = ctx.name_loc("cloned", None);
        let mut cl =
            Cloner::new(&src).with_loc_map(|l| ctx.loc(crate::location::LocKind::CallSite { callee: l, caller: tag }));
        cl.clone_region_into(&mut dst, r, dr);
        let map = cl.finish(&mut dst).unwrap();

        let blocks: Vec<Block> = dst.region_blocks(dr).collect();
        assert_eq!(blocks.len(), 2);
        let (c0, c1) = (blocks[0], blocks[1]);
        let cu = map.ops.iter().find(|(s, _)| *s == u).unwrap().1;
        let cd = map.ops.iter().find(|(s, _)| *s == d).unwrap().1;
        assert_eq!(dst.operand(cu, 0), dst.result(cd, 0), "forward use resolved");
        assert_eq!(dst.operand(cd, 0), dst.block_arg(c0, 0));
        let cbr = dst.last_op(c0).unwrap();
        assert_eq!(dst.successors(cbr), &[c1]);
        let cw = map.ops.iter().find(|(s, _)| *s == w).unwrap().1;
        let cy = dst.first_op(dst.entry_block(dst.regions(cw)[0]).unwrap()).unwrap();
        assert_eq!(
            dst.operand(cy, 0),
            dst.block_arg(c0, 0),
            "nested region sees the mapped argument"
        );
        let ciso = map.ops.iter().find(|(s, _)| *s == iso).unwrap().1;
        assert!(dst.is_isolated(ciso));
        assert_eq!(dst.attr(&ctx, ciso, "k"), Some(ctx.i64_attr(3)));
        assert_eq!(dst.nested(ciso).unwrap().num_ops(), 1);
        // locations went through the map, in nested bodies too
        let expect = ctx.loc(crate::location::LocKind::CallSite {
            callee: ctx.file_loc("src", 1, 1),
            caller: tag,
        });
        assert_eq!(dst.op_loc(cd), expect);
        let inner = dst.nested(ciso).unwrap();
        assert_eq!(inner.op_loc(inner.top_ops()[0]), expect);
        assert!(matches!(
            ctx.loc_kind(dst.arg_loc(dst.block_arg(c0, 0)).unwrap()),
            crate::location::LocKind::CallSite { .. }
        ));
        // the source is untouched
        assert_eq!(src.num_ops(), 6);
    }

    #[test]
    fn unmapped_outside_value_is_an_error() {
        let ctx = Context::new();
        let i32t = ctx.i32_type();
        let mut src = Body::new(&ctx, ctx.op_name("t.src"), Location::UNKNOWN);
        let r = src.add_root_region();
        let b0 = src.create_block(&[i32t]);
        src.append_block(r, b0);
        let a = src.block_arg(b0, 0);
        let x = op(&ctx, &mut src, "t.x", &[a], &[]);
        src.append_op(b0, x);
        let mut dst = Body::new(&ctx, ctx.op_name("t.dst"), Location::UNKNOWN);
        let mut cl = Cloner::new(&src);
        cl.clone_op(&mut dst, x);
        assert_eq!(cl.finish(&mut dst).unwrap_err(), CloneError::UnmappedValue(a));
        // mapped: fine
        let dr = dst.add_root_region();
        let db = dst.create_block(&[i32t]);
        dst.append_block(dr, db);
        let da = dst.block_arg(db, 0);
        let mut cl = Cloner::new(&src);
        cl.map_value(a, da);
        let nx = cl.clone_op(&mut dst, x);
        dst.append_op(db, nx);
        cl.finish(&mut dst).unwrap();
        assert_eq!(dst.operand(nx, 0), da);
    }
}

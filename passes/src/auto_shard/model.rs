//! The program as the cost model sees it (`shard-cost-model.md` sections 1 and 3), apart from
//! the IR: tensor values with their types, function arguments (free or fixed), ops (with
//! loops, opaque, or annotations), results with their required shardings; and [`Model`]: the
//! program with every op's choices (strategy + resolution, section 3.4) and every tensor
//! type's [`StateSpace`], from which plans are evaluated ([`Model::evaluate`], section 3.6).

use std::rc::Rc;

use rustc_hash::FxHashMap;
use smallvec::SmallVec;
use xcs_ir::interfaces::{LoopInfo, LoopKind};

use super::mesh::{Mesh, Time, MAX_AXES};
use super::sharding::{is_valid, AxisState, Sharding, StateSpace, TensorType};

/// Index of a tensor type in [`Program::types`].
pub type TypeId = usize;
/// Index of a tensor value in [`Program::values`].
pub type ValueId = usize;

/// Where a tensor value comes from.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ValueDef {
    /// Function argument `i` (index into [`Program::args`]).
    Arg(usize),
    /// Result `index` of op `op` (index into [`Program::ops`]).
    Result { op: usize, index: usize },
}

#[derive(Clone, Debug)]
pub struct ValueNode {
    pub ty: TypeId,
    pub def: ValueDef,
}

/// A tensor argument of the function: stored in any valid sharding, or `fixed` by an
/// annotation (section 3.5).
#[derive(Clone, Debug)]
pub struct ArgNode {
    pub value: ValueId,
    pub fixed: Option<Sharding>,
}

/// One operand of an op: a value of the model, or a constant / non-model value (`value:
/// None`: free in any sharding). `ty` is the operand's tensor type (`None` for non-tensors).
#[derive(Clone, Debug)]
pub struct Operand {
    pub value: Option<ValueId>,
    pub ty: Option<TypeId>,
}

/// What an op is to the model.
#[derive(Clone, Debug)]
pub enum OpKind {
    /// Loops and indexing maps (section 1): its strategies are the axis-to-loop maps.
    Loops(LoopInfo),
    /// No loop structure: replicated operands and results, whole FLOPs.
    Opaque,
    /// `shard.shard`: its operand is required in, and its result is, this sharding.
    Annotation(Sharding),
}

#[derive(Clone, Debug)]
pub struct OpNode {
    pub operands: Vec<Operand>,
    /// The op's tensor results (for `Loops`, aligned with the loop info's results).
    pub results: Vec<ValueId>,
    pub flops: f64,
    pub kind: OpKind,
}

/// A function result: its value (`None` for a constant or non-tensor) and its required
/// sharding (`None`: `outputs=free`, no requirement).
#[derive(Clone, Debug)]
pub struct ResultNode {
    pub value: Option<ValueId>,
    pub required: Option<Sharding>,
}

/// A function in the model's terms.
#[derive(Clone, Debug)]
pub struct Program {
    pub mesh: Mesh,
    pub types: Vec<TensorType>,
    pub values: Vec<ValueNode>,
    pub args: Vec<ArgNode>,
    pub ops: Vec<OpNode>,
    pub results: Vec<ResultNode>,
}

/// Marks a mesh axis unused in [`OpChoice::loops`].
pub const UNUSED: u8 = u8::MAX;

/// One way to run an op: a strategy (section 3.4) and a resolution of its partial results.
#[derive(Clone, Debug)]
pub struct OpChoice {
    /// Per active mesh axis, the loop it splits ([`UNUSED`] if none).
    pub loops: [u8; MAX_AXES],
    /// Per operand, the sharding it is consumed in, and its state index (in its type's space).
    pub required: SmallVec<[(Sharding, u32); 3]>,
    /// Per result, the produced sharding (may have `P` axes).
    pub produced: SmallVec<[Sharding; 1]>,
    /// Per result, the sharding after resolution and its state index.
    pub resolved: SmallVec<[(Sharding, u32); 1]>,
    pub compute: Time,
    /// Time of the resolutions (P -> R or S(d)).
    pub resolution: Time,
    /// Produced buffers, plus resolved buffers where they differ.
    pub memory: u64,
}

/// A plan: the stored sharding of each argument (state index) and the choice of each op.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    pub args: Vec<u32>,
    pub ops: Vec<u32>,
}

/// The totals of a plan (section 3.6).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Evaluation {
    pub compute: Time,
    /// Resolutions + use reshards + result reshards.
    pub comm: Time,
    pub memory: u64,
}

impl Evaluation {
    pub fn total(&self) -> Time {
        self.compute.saturating_add(self.comm)
    }
}

/// A program with its choices and state spaces.
pub struct Model {
    pub program: Program,
    /// Per type, its unpartial states and reshard times (rows for every state a producer can
    /// be in are computed).
    pub spaces: Vec<StateSpace>,
    /// Per op, its choices (one for opaque ops and annotations).
    pub choices: Vec<Vec<OpChoice>>,
}

impl Model {
    /// Builds the choices and state spaces; an error when a type has too many states or an
    /// annotation's sharding is not valid for its tensor.
    pub fn new(program: Program) -> Result<Model, String> {
        let mesh = &program.mesh;
        let mut spaces = Vec::with_capacity(program.types.len());
        for ty in &program.types {
            spaces.push(StateSpace::new(ty.clone(), mesh)?);
        }
        let mut choices = Vec::with_capacity(program.ops.len());
        let mut cache = ResolutionCache::default();
        for (i, op) in program.ops.iter().enumerate() {
            let c = op_choices(&program, &spaces, op, &mut cache).map_err(|e| format!("op #{i}: {e}"))?;
            choices.push(c);
        }
        for arg in &program.args {
            if let Some(s) = arg.fixed {
                let ty = program.values[arg.value].ty;
                if spaces[ty].index(s).is_none() {
                    return Err("an argument's annotation is not a valid sharding of it".into());
                }
            }
        }
        let mut model = Model { program, spaces, choices };
        model.compute_rows();
        Ok(model)
    }

    /// Computes the reshard rows from every state a value can be produced in.
    fn compute_rows(&mut self) {
        let mesh = &self.program.mesh;
        for (v, value) in self.program.values.iter().enumerate() {
            let space = &mut self.spaces[value.ty];
            match value.def {
                ValueDef::Arg(a) => match self.program.args[a].fixed {
                    Some(s) => {
                        let i = space.index(s).unwrap_or(0);
                        space.ensure_row(mesh, i);
                    }
                    None => (0..space.len() as u32).for_each(|i| space.ensure_row(mesh, i)),
                },
                ValueDef::Result { op, index } => {
                    for c in &self.choices[op] {
                        space.ensure_row(mesh, c.resolved[index].1);
                    }
                }
            }
            let _ = v;
        }
    }

    pub fn mesh(&self) -> &Mesh {
        &self.program.mesh
    }

    /// The type of value `v`.
    pub fn value_type(&self, v: ValueId) -> TypeId {
        self.program.values[v].ty
    }

    /// The resolved state index of value `v` under `plan`.
    pub fn value_state(&self, plan: &Plan, v: ValueId) -> u32 {
        match self.program.values[v].def {
            ValueDef::Arg(a) => plan.args[a],
            ValueDef::Result { op, index } => self.choices[op][plan.ops[op] as usize].resolved[index].1,
        }
    }

    /// Time and memory of resharding value `v` from state `from` to `to` for one use.
    pub fn reshard(&self, v: ValueId, from: u32, to: u32) -> (Time, u64) {
        let space = &self.spaces[self.value_type(v)];
        if from == to {
            (0, 0)
        } else {
            (space.time(from, to), space.bytes[to as usize])
        }
    }

    /// The choices an argument may take: every state, or its fixed one.
    pub fn arg_states(&self, a: usize) -> Vec<u32> {
        let arg = &self.program.args[a];
        let space = &self.spaces[self.value_type(arg.value)];
        match arg.fixed {
            Some(s) => vec![space.index(s).unwrap_or(0)],
            None => (0..space.len() as u32).collect(),
        }
    }

    /// The required state of result `r`, if it has a requirement and a model value.
    pub fn result_requirement(&self, r: usize) -> Option<(ValueId, u32)> {
        let res = &self.program.results[r];
        let (v, s) = (res.value?, res.required?);
        Some((v, self.spaces[self.value_type(v)].index(s)?))
    }

    /// Evaluates a plan (section 3.6), term by term as the model states it.
    pub fn evaluate(&self, plan: &Plan) -> Evaluation {
        let mut e = Evaluation::default();
        for (a, arg) in self.program.args.iter().enumerate() {
            e.memory = e.memory.saturating_add(self.spaces[self.value_type(arg.value)].bytes[plan.args[a] as usize]);
        }
        for (o, op) in self.program.ops.iter().enumerate() {
            let c = &self.choices[o][plan.ops[o] as usize];
            e.compute = e.compute.saturating_add(c.compute);
            e.comm = e.comm.saturating_add(c.resolution);
            e.memory = e.memory.saturating_add(c.memory);
            for (i, operand) in op.operands.iter().enumerate() {
                if let Some(v) = operand.value {
                    let (t, m) = self.reshard(v, self.value_state(plan, v), c.required[i].1);
                    e.comm = e.comm.saturating_add(t);
                    e.memory = e.memory.saturating_add(m);
                }
            }
        }
        for r in 0..self.program.results.len() {
            if let Some((v, to)) = self.result_requirement(r) {
                let (t, m) = self.reshard(v, self.value_state(plan, v), to);
                e.comm = e.comm.saturating_add(t);
                e.memory = e.memory.saturating_add(m);
            }
        }
        e
    }
}

/// The choices of one op.
fn op_choices(program: &Program, spaces: &[StateSpace], op: &OpNode, cache: &mut ResolutionCache) -> Result<Vec<OpChoice>, String> {
    let mesh = &program.mesh;
    let state = |ty: Option<TypeId>, s: Sharding| -> Result<u32, String> {
        match ty {
            Some(t) => spaces[t].index(s).ok_or_else(|| "a sharding that is not valid for its tensor".to_string()),
            None => Ok(0),
        }
    };
    let fixed = |req: Sharding, res: Sharding, compute: Time, memory: u64| -> Result<OpChoice, String> {
        let required = op.operands.iter().map(|o| Ok((req, state(o.ty, req)?))).collect::<Result<_, String>>()?;
        let resolved = op.results.iter().map(|&v| Ok((res, state(Some(program.values[v].ty), res)?))).collect::<Result<_, String>>()?;
        Ok(OpChoice {
            loops: [UNUSED; MAX_AXES],
            required,
            produced: op.results.iter().map(|_| res).collect(),
            resolved,
            compute,
            resolution: 0,
            memory,
        })
    };
    match &op.kind {
        OpKind::Opaque => {
            let memory = op.results.iter().map(|&v| program.types[program.values[v].ty].bytes()).fold(0u64, u64::saturating_add);
            Ok(vec![fixed(Sharding::REPLICATED, Sharding::REPLICATED, mesh.compute_time(op.flops, 1), memory)?])
        }
        OpKind::Annotation(s) => Ok(vec![fixed(*s, *s, 0, 0)?]),
        OpKind::Loops(info) => {
            let mut out = Vec::new();
            for loops in strategies(info, mesh) {
                strategy_choices(program, spaces, op, info, &loops, cache, &mut out);
            }
            if out.is_empty() {
                return Err("no valid strategy (not even the replicated one)".into());
            }
            Ok(out)
        }
    }
}

/// Every injective map from the active mesh axes to splittable loops divisible by the axis
/// size (an axis may stay unused), in a fixed order: the all-unused map first.
pub fn strategies(info: &LoopInfo, mesh: &Mesh) -> Vec<[u8; MAX_AXES]> {
    fn rec(info: &LoopInfo, mesh: &Mesh, a: usize, cur: &mut [u8; MAX_AXES], out: &mut Vec<[u8; MAX_AXES]>) {
        if a == mesh.rank() {
            out.push(*cur);
            return;
        }
        cur[a] = UNUSED;
        rec(info, mesh, a + 1, cur, out);
        let n = mesh.size(a) as i64;
        for l in 0..info.loops.len().min(UNUSED as usize) {
            let ok = info.loops[l].splittable() && info.sizes[l] > 0 && info.sizes[l] % n == 0 && !cur[..a].contains(&(l as u8));
            if ok {
                cur[a] = l as u8;
                rec(info, mesh, a + 1, cur, out);
            }
        }
        cur[a] = UNUSED;
    }
    let mut out = Vec::new();
    rec(info, mesh, 0, &mut [UNUSED; MAX_AXES], &mut out);
    out
}

/// The sharding a strategy gives a tensor whose dim `d` is indexed by loop `map[d]`: `S(d)`
/// for an axis on a loop indexing dim `d`, else `P` if the loop is a reduction and
/// `partial_ok`, else `R`. `None` when a loop indexes two dims of the tensor, or when a
/// parallel loop that does not index a result is split.
pub fn sharding_of(info: &LoopInfo, map: &[Option<usize>], loops: &[u8; MAX_AXES], axes: usize, partial_ok: bool) -> Option<Sharding> {
    let mut s = Sharding::REPLICATED;
    for (a, &l) in loops.iter().enumerate().take(axes) {
        if l == UNUSED {
            continue;
        }
        let l = l as usize;
        let mut dims = map.iter().enumerate().filter(|(_, m)| **m == Some(l)).map(|(d, _)| d);
        match (dims.next(), dims.next()) {
            (Some(d), None) => s.set(a, AxisState::Split(d)),
            (Some(_), Some(_)) => return None,
            (None, _) if !partial_ok => {}
            (None, _) if info.loops[l].is_reduction() => s.set(a, AxisState::Partial),
            (None, _) if info.loops[l] == LoopKind::Parallel => return None,
            (None, _) => {}
        }
    }
    Some(s)
}

/// The resolutions of each (tensor type, produced sharding) met so far: ops of one type and
/// strategy share them, so their shortest paths are computed once.
type ResolutionCache = FxHashMap<(TypeId, Sharding), Rc<Vec<(Sharding, u32, Time)>>>;

/// Adds the choices of one strategy: one per resolution of its partial results.
fn strategy_choices(
    program: &Program,
    spaces: &[StateSpace],
    op: &OpNode,
    info: &LoopInfo,
    loops: &[u8; MAX_AXES],
    cache: &mut ResolutionCache,
    out: &mut Vec<OpChoice>,
) {
    let mesh = &program.mesh;
    let k = mesh.rank();
    let mut required = SmallVec::new();
    for (i, operand) in op.operands.iter().enumerate() {
        let Some(map) = info.operands.get(i) else { return };
        let Some(s) = sharding_of(info, map, loops, k, false) else { return };
        let idx = match operand.ty {
            Some(t) => match spaces[t].index(s) {
                Some(x) => x,
                None => return,
            },
            None => 0,
        };
        required.push((s, idx));
    }
    let mut produced: SmallVec<[Sharding; 1]> = SmallVec::new();
    for r in 0..op.results.len() {
        let Some(map) = info.results.get(r) else { return };
        let Some(s) = sharding_of(info, map, loops, k, true) else { return };
        let ty = &program.types[program.values[op.results[r]].ty];
        if !is_valid(ty, mesh, s) {
            return;
        }
        produced.push(s);
    }
    let ways: u64 = (0..k).filter(|&a| loops[a] != UNUSED).map(|a| mesh.size(a)).product();
    let compute = mesh.compute_time(op.flops, ways);
    // Every combination of resolutions of the results.
    let per_result: Vec<Rc<Vec<(Sharding, u32, Time)>>> = op
        .results
        .iter()
        .zip(&produced)
        .map(|(&v, &p)| {
            let ty = program.values[v].ty;
            cache.entry((ty, p)).or_insert_with(|| Rc::new(resolutions(&spaces[ty], mesh, p))).clone()
        })
        .collect();
    let mut pick = vec![0usize; per_result.len()];
    loop {
        let mut c = OpChoice {
            loops: *loops,
            required: required.clone(),
            produced: produced.clone(),
            resolved: SmallVec::new(),
            compute,
            resolution: 0,
            memory: 0,
        };
        for (r, &j) in pick.iter().enumerate() {
            let (s, idx, t) = per_result[r][j];
            let space = &spaces[program.values[op.results[r]].ty];
            let produced_bytes = super::sharding::local_bytes(&space.ty, mesh, produced[r]);
            c.resolved.push((s, idx));
            c.resolution = c.resolution.saturating_add(t);
            c.memory = c.memory.saturating_add(produced_bytes);
            if s != produced[r] {
                c.memory = c.memory.saturating_add(space.bytes[idx as usize]);
            }
        }
        out.push(c);
        // next combination
        let mut r = 0;
        while r < pick.len() {
            pick[r] += 1;
            if pick[r] < per_result[r].len() {
                break;
            }
            pick[r] = 0;
            r += 1;
        }
        if r == pick.len() {
            break;
        }
    }
}

/// The resolutions of a produced sharding: each `P` axis to `R` or to `S(d)` of a dim no
/// other axis splits (the result valid), with the shortest-path time from the produced state.
/// An unpartial sharding resolves to itself at no cost.
pub fn resolutions(space: &StateSpace, mesh: &Mesh, produced: Sharding) -> Vec<(Sharding, u32, Time)> {
    let partial = produced.partial_axes(mesh.rank());
    if partial.is_empty() {
        return space.index(produced).map(|i| vec![(produced, i, 0)]).unwrap_or_default();
    }
    let times = space.times_from(mesh, produced);
    let mut out = Vec::new();
    let mut targets = vec![produced.without_partial()];
    for &a in &partial {
        let mut next = Vec::new();
        for t in targets {
            next.push(t);
            for d in 0..space.ty.rank() {
                next.push(t.with(a, AxisState::Split(d)));
            }
        }
        targets = next;
    }
    for t in targets {
        if let Some(i) = space.index(t) {
            out.push((t, i, times[i as usize]));
        }
    }
    out
}

//! Shardings and resharding (`shard-cost-model.md` sections 2, 3.1-3.3): a tensor's
//! [`Sharding`] gives each mesh axis `R`, `P` or `S(d)`; [`steps`] are the single-axis
//! collectives of 3.1 between valid states; [`StateSpace`] holds, for one tensor type, its
//! valid unpartial states and the shortest-path reshard times between them (Dijkstra over the
//! steps, rows computed on demand), and [`StateSpace::path`] the collectives of one reshard.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use rustc_hash::FxHashMap;

use super::mesh::{Mesh, Time, MAX_AXES};

/// What one mesh axis does to a tensor.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum AxisState {
    /// `R`: replicated along the axis.
    Replicated,
    /// `P`: a pending sum (or max, or min) along the axis.
    Partial,
    /// `S(d)`: dim `d` cut into equal blocks along the axis.
    Split(usize),
}

/// A sharding: one [`AxisState`] per active mesh axis, packed one byte each (0 = `R`,
/// 1 = `P`, 2 + d = `S(d)`); unused trailing bytes are 0.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Sharding(pub [u8; MAX_AXES]);

impl Sharding {
    /// Replicated on every axis.
    pub const REPLICATED: Sharding = Sharding([0; MAX_AXES]);

    pub fn get(&self, axis: usize) -> AxisState {
        match self.0[axis] {
            0 => AxisState::Replicated,
            1 => AxisState::Partial,
            b => AxisState::Split(b as usize - 2),
        }
    }
    pub fn set(&mut self, axis: usize, s: AxisState) {
        self.0[axis] = match s {
            AxisState::Replicated => 0,
            AxisState::Partial => 1,
            AxisState::Split(d) => (d + 2).min(255) as u8,
        };
    }
    pub fn with(mut self, axis: usize, s: AxisState) -> Sharding {
        self.set(axis, s);
        self
    }
    /// True when some axis is `P`.
    pub fn is_partial(&self) -> bool {
        self.0.contains(&1)
    }
    /// The axis that splits dim `d`, if any (the first, for an invalid sharding).
    pub fn axis_of_dim(&self, rank: usize, d: usize) -> Option<usize> {
        (0..rank).find(|&a| self.0[a] as usize == d + 2)
    }
    /// Per tensor dim, the active axis splitting it.
    pub fn dims(&self, axes: usize, tensor_rank: usize) -> Vec<Option<usize>> {
        (0..tensor_rank).map(|d| self.axis_of_dim(axes, d)).collect()
    }
    /// The `P` axes.
    pub fn partial_axes(&self, axes: usize) -> Vec<usize> {
        (0..axes).filter(|&a| self.0[a] == 1).collect()
    }
    /// The sharding without its `P` axes (they become `R`).
    pub fn without_partial(mut self) -> Sharding {
        for b in self.0.iter_mut() {
            if *b == 1 {
                *b = 0;
            }
        }
        self
    }
}

/// A tensor type as the model sees it: a static shape and the element size in bytes.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TensorType {
    pub shape: Vec<u64>,
    pub esize: u64,
}

impl TensorType {
    pub fn rank(&self) -> usize {
        self.shape.len()
    }
    /// Bytes of the whole tensor.
    pub fn bytes(&self) -> u64 {
        self.shape.iter().fold(self.esize, |acc, &d| acc.saturating_mul(d))
    }
    /// True when dim `d` may be split over `n` devices on its own.
    pub fn splits(&self, d: usize, n: u64) -> bool {
        self.shape.get(d).is_some_and(|&s| s % n == 0)
    }
}

/// True when `s` obeys section 2 for `ty`: every split dim exists, is split by one axis only
/// and is divisible by the axis size.
pub fn is_valid(ty: &TensorType, mesh: &Mesh, s: Sharding) -> bool {
    let k = mesh.rank();
    for a in 0..k {
        if let AxisState::Split(d) = s.get(a) {
            if !ty.splits(d, mesh.size(a)) {
                return false;
            }
            if (a + 1..k).any(|b| s.get(b) == AxisState::Split(d)) {
                return false;
            }
        }
    }
    s.0[k..].iter().all(|&b| b == 0)
}

/// The local buffer of `s` in bytes: element size × Π dims, each split dim divided by its
/// axis size (`R` and `P` do not shrink it).
pub fn local_bytes(ty: &TensorType, mesh: &Mesh, s: Sharding) -> u64 {
    let mut bytes = ty.esize;
    for (d, &size) in ty.shape.iter().enumerate() {
        let n = s.axis_of_dim(mesh.rank(), d).map_or(1, |a| mesh.size(a));
        bytes = bytes.saturating_mul(size / n);
    }
    bytes
}

/// The collectives of section 3.1 (and the local slice).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Collective {
    /// `S(d) -> R`.
    AllGather,
    /// `S(d) -> S(d')`.
    AllToAll,
    /// `P -> R`.
    AllReduce,
    /// `P -> S(d)`.
    ReduceScatter,
    /// `R -> S(d)`, local, free.
    AllSlice,
}

impl Collective {
    /// Upstream's op name suffix (`all_gather`, ...).
    pub fn name(self) -> &'static str {
        match self {
            Collective::AllGather => "all_gather",
            Collective::AllToAll => "all_to_all",
            Collective::AllReduce => "all_reduce",
            Collective::ReduceScatter => "reduce_scatter",
            Collective::AllSlice => "all_slice",
        }
    }
}

/// One single-axis step of a reshard.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Step {
    pub kind: Collective,
    /// The active mesh axis.
    pub axis: usize,
    pub from: Sharding,
    pub to: Sharding,
    /// The per-device input buffer, bytes.
    pub bytes: u64,
    pub time: Time,
}

/// True when dim `d` is not split by an axis other than `axis` in `s`.
fn dim_free(s: Sharding, k: usize, axis: usize, d: usize) -> bool {
    (0..k).all(|b| b == axis || s.get(b) != AxisState::Split(d))
}

/// Every single-axis step out of the valid state `x` into a valid state (section 3.3's edges),
/// in a fixed order: axis by axis; per axis gather/reduce first, then the splits by dim.
pub fn steps(ty: &TensorType, mesh: &Mesh, x: Sharding, out: &mut Vec<Step>) {
    let k = mesh.rank();
    let bytes = local_bytes(ty, mesh, x);
    for a in 0..k {
        let n = mesh.size(a);
        let mut push = |kind, to: Sharding, time| out.push(Step { kind, axis: a, from: x, to, bytes, time });
        let targets = (0..ty.rank()).filter(|&d| ty.splits(d, n) && dim_free(x, k, a, d));
        match x.get(a) {
            AxisState::Replicated => {
                for d in targets {
                    push(Collective::AllSlice, x.with(a, AxisState::Split(d)), 0);
                }
            }
            AxisState::Split(cur) => {
                // all_gather: α + (n-1)/n · (n·s) · β
                push(Collective::AllGather, x.with(a, AxisState::Replicated), mesh.collective_time(a, n - 1, 1, bytes));
                for d in targets.filter(|&d| d != cur) {
                    push(Collective::AllToAll, x.with(a, AxisState::Split(d)), mesh.collective_time(a, n - 1, n, bytes));
                }
            }
            AxisState::Partial => {
                push(Collective::AllReduce, x.with(a, AxisState::Replicated), mesh.collective_time(a, 2 * (n - 1), n, bytes));
                for d in targets {
                    push(Collective::ReduceScatter, x.with(a, AxisState::Split(d)), mesh.collective_time(a, n - 1, n, bytes));
                }
            }
        }
    }
}

/// Shortest reshard times from `source` to every state reachable from it, with the last step
/// of one shortest path to each (Dijkstra; ties keep the path found first, so paths are
/// deterministic).
pub fn shortest_paths(ty: &TensorType, mesh: &Mesh, source: Sharding) -> FxHashMap<Sharding, (Time, Option<Step>)> {
    let mut dist: FxHashMap<Sharding, (Time, Option<Step>)> = FxHashMap::default();
    let mut heap = BinaryHeap::new();
    let mut seq = 0u64;
    dist.insert(source, (0, None));
    heap.push(Reverse((0 as Time, seq, source)));
    let mut out = Vec::new();
    while let Some(Reverse((t, _, x))) = heap.pop() {
        if dist.get(&x).is_some_and(|&(best, _)| best < t) {
            continue;
        }
        out.clear();
        steps(ty, mesh, x, &mut out);
        for step in &out {
            let nt = t.saturating_add(step.time);
            if dist.get(&step.to).is_none_or(|&(best, _)| nt < best) {
                dist.insert(step.to, (nt, Some(*step)));
                seq += 1;
                heap.push(Reverse((nt, seq, step.to)));
            }
        }
    }
    dist
}

/// The most unpartial states one tensor type may have (beyond it the pass reports an error).
pub const MAX_STATES: usize = 1 << 16;

/// The valid unpartial shardings of one tensor type and the reshard times between them.
pub struct StateSpace {
    pub ty: TensorType,
    /// The valid states without `P`; state 0 is replicated.
    pub states: Vec<Sharding>,
    index: FxHashMap<Sharding, u32>,
    /// Local bytes per state.
    pub bytes: Vec<u64>,
    /// `rows[i][j]`: shortest reshard time from state i to state j (computed on demand).
    rows: Vec<Option<Box<[Time]>>>,
}

impl StateSpace {
    /// The states of `ty` on `mesh`; an error when there are more than [`MAX_STATES`].
    pub fn new(ty: TensorType, mesh: &Mesh) -> Result<StateSpace, String> {
        let mut states = vec![Sharding::REPLICATED];
        for a in 0..mesh.rank() {
            let n = mesh.size(a);
            let mut next = Vec::with_capacity(states.len() * (ty.rank() + 1));
            for &s in &states {
                next.push(s);
                for d in 0..ty.rank() {
                    if ty.splits(d, n) && dim_free(s, a, a, d) {
                        next.push(s.with(a, AxisState::Split(d)));
                    }
                }
            }
            if next.len() > MAX_STATES {
                return Err(format!("a tensor of shape {:?} has more than {MAX_STATES} shardings on this mesh", ty.shape));
            }
            states = next;
        }
        let index = states.iter().enumerate().map(|(i, &s)| (s, i as u32)).collect();
        let bytes = states.iter().map(|&s| local_bytes(&ty, mesh, s)).collect();
        let rows = vec![None; states.len()];
        Ok(StateSpace { ty, states, index, bytes, rows })
    }

    pub fn len(&self) -> usize {
        self.states.len()
    }
    pub fn is_empty(&self) -> bool {
        self.states.is_empty()
    }
    /// The index of an unpartial valid state.
    pub fn index(&self, s: Sharding) -> Option<u32> {
        self.index.get(&s).copied()
    }

    /// Reshard times from `source` (any valid state, partial or not) to every state.
    pub fn times_from(&self, mesh: &Mesh, source: Sharding) -> Box<[Time]> {
        let dist = shortest_paths(&self.ty, mesh, source);
        self.states.iter().map(|s| dist.get(s).map_or(Time::MAX, |&(t, _)| t)).collect()
    }

    /// Computes row `from` if it is not there yet.
    pub fn ensure_row(&mut self, mesh: &Mesh, from: u32) {
        if self.rows[from as usize].is_none() {
            let row = self.times_from(mesh, self.states[from as usize]);
            self.rows[from as usize] = Some(row);
        }
    }

    /// The row of reshard times from state `from` ([`StateSpace::ensure_row`] first).
    pub fn row(&self, from: u32) -> Option<&[Time]> {
        self.rows[from as usize].as_deref()
    }

    /// Reshard time between two states (the row must have been computed; `Time::MAX` if not).
    pub fn time(&self, from: u32, to: u32) -> Time {
        self.row(from).map_or(Time::MAX, |r| r[to as usize])
    }

    /// The steps of one shortest reshard from `from` to `to` (empty when equal).
    pub fn path(&self, mesh: &Mesh, from: Sharding, to: Sharding) -> Vec<Step> {
        let dist = shortest_paths(&self.ty, mesh, from);
        let mut path = Vec::new();
        let mut at = to;
        while let Some(&(_, Some(step))) = dist.get(&at) {
            path.push(step);
            at = step.from;
        }
        path.reverse();
        path
    }
}

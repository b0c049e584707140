//! The reference of the property tests: the optimum of a [`Program`] by enumerating every
//! plan (depth first, pruned only by partial sums that can no longer win: every cost term is
//! non-negative). Written from `shard-cost-model.md` alone: it derives strategies, shardings
//! and resolutions itself (not from `model.rs`'s choices) and compares plans with the
//! model's tolerance rule, so it checks the choice enumeration and the solver together.

use rustc_hash::FxHashMap;
use xcs_ir::interfaces::LoopKind;

use super::mesh::{seconds, Time, MAX_AXES};
use super::model::{OpKind, Program, ValueDef};
use super::sharding::{is_valid, local_bytes, shortest_paths, AxisState, Sharding};

/// One way to run an op, as the reference sees it.
#[derive(Clone, Debug)]
struct Way {
    required: Vec<Sharding>,
    resolved: Vec<Sharding>,
    time: Time,
    memory: u64,
}

/// The reference optimum: (total time, memory) of the best plan, `None` when no plan fits.
pub fn optimum(prog: &Program, limit: Option<u64>) -> Option<(Time, u64)> {
    let mut b = Brute { prog, paths: FxHashMap::default(), best: None, limit: limit.unwrap_or(u64::MAX), rest_time: Vec::new(), rest_mem: Vec::new() };
    let mut ways: Vec<Vec<Way>> = (0..prog.ops.len()).map(|o| b.ways(o)).collect();
    // Cheapest first, so that good plans are met early; the bounds of what is left prune.
    for w in &mut ways {
        w.sort_by_key(|w| w.time);
    }
    b.rest_time = vec![0; ways.len() + 1];
    b.rest_mem = vec![0; ways.len() + 1];
    for o in (0..ways.len()).rev() {
        b.rest_time[o] = b.rest_time[o + 1] + ways[o].iter().map(|w| w.time).min().unwrap_or(0);
        b.rest_mem[o] = b.rest_mem[o + 1] + ways[o].iter().map(|w| w.memory).min().unwrap_or(0);
    }
    let args_left = (0..prog.args.len()).map(|a| b.least_bytes(a)).sum();
    let mut state = State { args_left, args: vec![None; prog.args.len()], values: vec![None; prog.values.len()], time: 0, mem: 0 };
    b.dfs(&ways, 0, &mut state);
    b.best
}

struct State {
    /// The least memory of the arguments not stored yet.
    args_left: u64,
    args: Vec<Option<Sharding>>,
    values: Vec<Option<Sharding>>,
    time: Time,
    mem: u64,
}

struct Brute<'p> {
    prog: &'p Program,
    paths: FxHashMap<(usize, Sharding, Sharding), Time>,
    best: Option<(Time, u64)>,
    limit: u64,
    /// Lower bounds of the time and memory of ops `o..`: the least of each op's ways.
    rest_time: Vec<Time>,
    rest_mem: Vec<u64>,
}

/// The model's tie rule: times within 1e-15 s + 1e-9 × the larger are equal.
fn same_time(a: Time, b: Time) -> bool {
    let (x, y) = (seconds(a), seconds(b));
    (x - y).abs() <= 1e-15 + 1e-9 * x.max(y)
}

impl<'p> Brute<'p> {
    fn reshard(&mut self, ty: usize, from: Sharding, to: Sharding) -> (Time, u64) {
        if from == to {
            return (0, 0);
        }
        let prog = self.prog;
        let t = *self.paths.entry((ty, from, to)).or_insert_with(|| shortest_paths(&prog.types[ty], &prog.mesh, from).get(&to).map_or(Time::MAX, |x| x.0));
        (t, local_bytes(&prog.types[ty], &prog.mesh, to))
    }

    /// Every strategy and resolution of op `o`, derived from section 3.4.
    fn ways(&mut self, o: usize) -> Vec<Way> {
        let prog = self.prog;
        let op = &prog.ops[o];
        let mesh = &prog.mesh;
        let k = mesh.rank();
        let info = match &op.kind {
            OpKind::Loops(info) => info,
            OpKind::Opaque => {
                let memory = op.results.iter().map(|&v| prog.types[prog.values[v].ty].bytes()).sum();
                return vec![Way {
                    required: vec![Sharding::REPLICATED; op.operands.len()],
                    resolved: vec![Sharding::REPLICATED; op.results.len()],
                    time: mesh.compute_time(op.flops, 1),
                    memory,
                }];
            }
            OpKind::Annotation(s) => return vec![Way { required: vec![*s], resolved: vec![*s; op.results.len()], time: 0, memory: 0 }],
        };
        let nl = info.loops.len();
        let mut out = Vec::new();
        // every map axis -> loop or none, as a number in base nl+1
        let total = (nl + 1).pow(k as u32);
        'maps: for code in 0..total {
            let mut map = [usize::MAX; MAX_AXES];
            let mut c = code;
            for m in map.iter_mut().take(k) {
                let l = c % (nl + 1);
                c /= nl + 1;
                *m = if l == nl { usize::MAX } else { l };
            }
            let used: Vec<(usize, usize)> = (0..k).filter(|&a| map[a] != usize::MAX).map(|a| (a, map[a])).collect();
            for (i, &(a, l)) in used.iter().enumerate() {
                let n = mesh.size(a) as i64;
                if info.loops[l] == LoopKind::Whole || info.sizes[l] % n != 0 || used[..i].iter().any(|&(_, m)| m == l) {
                    continue 'maps;
                }
            }
            let shard = |dims: &[Option<usize>], result: bool| -> Option<Sharding> {
                let mut s = Sharding::REPLICATED;
                for &(a, l) in &used {
                    let hits: Vec<usize> = (0..dims.len()).filter(|&d| dims[d] == Some(l)).collect();
                    match hits.len() {
                        1 => s.set(a, AxisState::Split(hits[0])),
                        0 if result && info.loops[l] != LoopKind::Parallel => s.set(a, AxisState::Partial),
                        0 if result => return None,
                        0 => {}
                        _ => return None,
                    }
                }
                Some(s)
            };
            let mut required = Vec::new();
            for (i, operand) in op.operands.iter().enumerate() {
                let Some(s) = shard(&info.operands[i], false) else { continue 'maps };
                if operand.ty.is_some_and(|t| !is_valid(&prog.types[t], mesh, s)) {
                    continue 'maps;
                }
                required.push(s);
            }
            let mut produced = Vec::new();
            for (r, &v) in op.results.iter().enumerate() {
                let Some(s) = shard(&info.results[r], true) else { continue 'maps };
                if !is_valid(&prog.types[prog.values[v].ty], mesh, s) {
                    continue 'maps;
                }
                produced.push(s);
            }
            let ways: u64 = used.iter().map(|&(a, _)| mesh.size(a)).product();
            let compute = mesh.compute_time(op.flops, ways);
            self.resolve_all(op.results.as_slice(), &produced, 0, Vec::new(), compute, &required, &mut out);
        }
        out
    }

    /// Every combination of resolutions of the produced shardings (each `P` axis to `R` or
    /// any `S(d)`, the result valid), priced by shortest paths.
    #[allow(clippy::too_many_arguments)]
    fn resolve_all(&mut self, results: &[usize], produced: &[Sharding], r: usize, resolved: Vec<(Sharding, Time, u64)>, compute: Time, required: &[Sharding], out: &mut Vec<Way>) {
        let prog = self.prog;
        if r == results.len() {
            let time = resolved.iter().fold(compute, |t, x| t.saturating_add(x.1));
            let memory = resolved.iter().map(|x| x.2).sum();
            out.push(Way { required: required.to_vec(), resolved: resolved.iter().map(|x| x.0).collect(), time, memory });
            return;
        }
        let ty = prog.values[results[r]].ty;
        let tt = &prog.types[ty];
        let p = produced[r];
        let partial: Vec<usize> = (0..prog.mesh.rank()).filter(|&a| p.get(a) == AxisState::Partial).collect();
        let mut targets = vec![p];
        for &a in &partial {
            targets = targets
                .into_iter()
                .flat_map(|t| std::iter::once(t.with(a, AxisState::Replicated)).chain((0..tt.rank()).map(move |d| t.with(a, AxisState::Split(d)))))
                .collect();
        }
        for t in targets {
            if !is_valid(tt, &prog.mesh, t) {
                continue;
            }
            let (time, extra) = self.reshard(ty, p, t);
            let mem = local_bytes(tt, &prog.mesh, p) + if t != p { extra } else { 0 };
            let mut next = resolved.clone();
            next.push((t, time, mem));
            self.resolve_all(results, produced, r + 1, next, compute, required, out);
        }
    }

    /// The states an argument may be stored in.
    fn arg_states(&self, a: usize) -> Vec<Sharding> {
        let prog = self.prog;
        if let Some(s) = prog.args[a].fixed {
            return vec![s];
        }
        let ty = &prog.types[prog.values[prog.args[a].value].ty];
        let k = prog.mesh.rank();
        let mut out = vec![Sharding::REPLICATED];
        for a in 0..k {
            out = out.into_iter().flat_map(|s| std::iter::once(s).chain((0..ty.rank()).map(move |d| s.with(a, AxisState::Split(d))))).collect();
        }
        out.retain(|&s| is_valid(ty, &prog.mesh, s));
        out
    }

    /// The least local buffer argument `a` can have.
    fn least_bytes(&self, a: usize) -> u64 {
        let prog = self.prog;
        let ty = &prog.types[prog.values[prog.args[a].value].ty];
        self.arg_states(a).into_iter().map(|s| local_bytes(ty, &prog.mesh, s)).min().unwrap_or(0)
    }

    /// Assigns argument `a` to each of its states in turn, then continues with `next`.
    fn with_arg(&mut self, a: usize, st: &mut State, next: &mut dyn FnMut(&mut Self, &mut State)) {
        let prog = self.prog;
        let v = prog.args[a].value;
        let ty = prog.values[v].ty;
        let least = self.least_bytes(a);
        st.args_left -= least;
        for s in self.arg_states(a) {
            let (t0, m0) = (st.time, st.mem);
            st.mem = st.mem.saturating_add(local_bytes(&prog.types[ty], &prog.mesh, s));
            st.args[a] = Some(s);
            st.values[v] = Some(s);
            next(self, st);
            st.args[a] = None;
            st.values[v] = None;
            st.time = t0;
            st.mem = m0;
        }
        st.args_left += least;
    }

    /// True when no completion of `st` (ops `o..` left) can fit or win: every term is >= 0.
    fn pruned(&self, st: &State, o: usize) -> bool {
        let time = st.time.saturating_add(self.rest_time[o]);
        let mem = st.mem.saturating_add(self.rest_mem[o]).saturating_add(st.args_left);
        mem > self.limit || self.best.is_some_and(|(bt, bm)| (time > bt && !same_time(time, bt)) || (same_time(time, bt) && mem >= bm))
    }

    /// Depth first over ops; each op first assigns the arguments it uses that are not yet.
    fn dfs(&mut self, ways: &[Vec<Way>], o: usize, st: &mut State) {
        let prog = self.prog;
        if self.pruned(st, o) {
            return;
        }
        if o == prog.ops.len() {
            return self.finish(st);
        }
        let pending = prog.ops[o].operands.iter().filter_map(|x| x.value).find_map(|v| match prog.values[v].def {
            ValueDef::Arg(a) if st.args[a].is_none() => Some(a),
            _ => None,
        });
        if let Some(a) = pending {
            return self.with_arg(a, st, &mut |b, st| b.dfs(ways, o, st));
        }
        for w in &ways[o] {
            let (t0, m0) = (st.time, st.mem);
            st.time = st.time.saturating_add(w.time);
            st.mem = st.mem.saturating_add(w.memory);
            for (i, operand) in prog.ops[o].operands.iter().enumerate() {
                if let Some(v) = operand.value {
                    let from = st.values[v].unwrap_or(Sharding::REPLICATED);
                    let (t, m) = self.reshard(prog.values[v].ty, from, w.required[i]);
                    st.time = st.time.saturating_add(t);
                    st.mem = st.mem.saturating_add(m);
                }
            }
            for (r, &v) in prog.ops[o].results.iter().enumerate() {
                st.values[v] = Some(w.resolved[r]);
            }
            self.dfs(ways, o + 1, st);
            st.time = t0;
            st.mem = m0;
        }
    }

    /// All ops placed: the arguments no op used, then the result reshards.
    fn finish(&mut self, st: &mut State) {
        let prog = self.prog;
        if let Some(a) = (0..prog.args.len()).find(|&a| st.args[a].is_none()) {
            return self.with_arg(a, st, &mut |b, st| b.finish(st));
        }
        let (mut time, mut mem) = (st.time, st.mem);
        for res in &prog.results {
            if let (Some(v), Some(req)) = (res.value, res.required) {
                let (t, m) = self.reshard(prog.values[v].ty, st.values[v].unwrap_or(Sharding::REPLICATED), req);
                time = time.saturating_add(t);
                mem = mem.saturating_add(m);
            }
        }
        if mem > self.limit {
            return;
        }
        let better = match self.best {
            None => true,
            Some((bt, bm)) => (time < bt && !same_time(time, bt)) || (same_time(time, bt) && mem < bm),
        };
        if better {
            self.best = Some((time, mem));
        }
    }
}

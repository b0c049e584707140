//! The model as a min-sum problem over a graph: one variable per free argument and per op with
//! loops (its domain: the states or the choices), unary costs (compute, resolutions, buffers,
//! reshards to and from fixed neighbours) and pairwise costs on every use between two
//! variables (the reshard from the producer's resolved state to the consumer's required
//! state, read from the value type's [`StateSpace`]). Opaque ops, annotations and fixed
//! arguments are constants. An argument used once by a variable is absorbed (storing it as its
//! user wants is optimal: no time, the least memory), and choices that look the same to every
//! neighbour are merged ([`Problem::compress`]). The solvers work on this; [`Problem::plan`]
//! maps an assignment back to a [`Plan`].

use std::cmp::Ordering;

use rustc_hash::FxHashMap;

use super::mesh::Time;
use super::model::{Model, OpKind, Plan, ValueDef};
use super::sharding::StateSpace;

/// A cost: time and memory, added term by term.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Cost {
    pub time: Time,
    pub mem: u64,
}

impl Cost {
    pub const ZERO: Cost = Cost { time: 0, mem: 0 };
    /// An impossible cost (worse than any other under every order).
    pub const INFINITE: Cost = Cost { time: Time::MAX, mem: u64::MAX };

    #[inline]
    pub fn new(time: Time, mem: u64) -> Cost {
        Cost { time, mem }
    }
    #[inline]
    pub fn add(self, o: Cost) -> Cost {
        Cost { time: self.time.saturating_add(o.time), mem: self.mem.saturating_add(o.mem) }
    }
    /// `self - o` for a part `o` of `self`.
    #[inline]
    pub fn sub(self, o: Cost) -> Cost {
        Cost { time: self.time.saturating_sub(o.time), mem: self.mem.saturating_sub(o.mem) }
    }
    /// True when `self` is at least as good as `o` in both time and memory.
    #[inline]
    pub fn dominates(self, o: Cost) -> bool {
        self.time <= o.time && self.mem <= o.mem
    }
}

/// How costs are compared by the single-valued solvers.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Order {
    /// Least time, then least memory (the objective without a memory limit).
    TimeFirst,
    /// Least memory, then least time (the least-memory plan).
    MemoryFirst,
    /// Least time + λ·memory (λ in time units per byte), then least memory.
    Weighted(Time),
}

impl Order {
    /// The sort key of a cost.
    #[inline]
    pub fn key(self, c: Cost) -> (Time, Time) {
        match self {
            Order::TimeFirst => (c.time, c.mem as Time),
            Order::MemoryFirst => (c.mem as Time, c.time),
            Order::Weighted(l) => (c.time.saturating_add(l.saturating_mul(c.mem as Time)), c.mem as Time),
        }
    }
    #[inline]
    pub fn less(self, a: Cost, b: Cost) -> bool {
        self.key(a) < self.key(b)
    }
    pub fn cmp(self, a: Cost, b: Cost) -> Ordering {
        self.key(a).cmp(&self.key(b))
    }
}

/// One variable: its domain (indices into the original choices), a unary cost per domain
/// entry and, per port, the state of each entry.
#[derive(Clone, Debug)]
pub struct Var {
    /// What the variable stands for.
    pub node: Node,
    /// Per domain entry, the index of the original choice (op choice or argument state).
    pub choices: Vec<u32>,
    pub unary: Vec<Cost>,
    /// Per port, per domain entry, the state index.
    pub ports: Vec<Vec<u32>>,
}

impl Var {
    pub fn domain(&self) -> usize {
        self.unary.len()
    }
}

/// What a variable is in the model.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Node {
    Arg(usize),
    Op(usize),
}

/// A use between two variables: the producer's port state to the consumer's port state,
/// priced by the value type's reshard times.
#[derive(Copy, Clone, Debug)]
pub struct Edge {
    pub from: usize,
    pub from_port: usize,
    pub to: usize,
    pub to_port: usize,
    /// The value's type (index into the spaces).
    pub space: usize,
}

/// The problem. Total cost of an assignment = `constant` + Σ unary + Σ edge costs.
#[derive(Clone)]
pub struct Problem<'m> {
    pub spaces: &'m [StateSpace],
    pub vars: Vec<Var>,
    pub edges: Vec<Edge>,
    pub constant: Cost,
    /// Arguments absorbed into their one user: (argument, user variable, user port).
    pub absorbed: Vec<(usize, usize, usize)>,
    /// Per argument, its fixed state when it is not a variable and not absorbed.
    fixed_args: Vec<Option<u32>>,
    /// Per op, its variable (if it has one).
    op_var: Vec<Option<usize>>,
}

/// Which end of a use a node is, during construction.
#[derive(Copy, Clone)]
enum End {
    /// A variable's port.
    Var(usize, usize),
    /// A fixed state.
    Fixed(u32),
}

impl<'m> Problem<'m> {
    /// A problem with no variables over `spaces`.
    pub fn empty(spaces: &'m [StateSpace]) -> Problem<'m> {
        Problem {
            spaces,
            vars: Vec::new(),
            edges: Vec::new(),
            constant: Cost::ZERO,
            absorbed: Vec::new(),
            fixed_args: Vec::new(),
            op_var: Vec::new(),
        }
    }

    /// Builds the problem of a model.
    pub fn new(model: &'m Model) -> Problem<'m> {
        let prog = &model.program;
        let mut p = Problem {
            spaces: &model.spaces,
            vars: Vec::new(),
            edges: Vec::new(),
            constant: Cost::ZERO,
            absorbed: Vec::new(),
            fixed_args: vec![None; prog.args.len()],
            op_var: vec![None; prog.ops.len()],
        };
        // Variables and their base unary costs, in program order (arguments first).
        let mut arg_var = vec![None; prog.args.len()];
        for (a, arg) in prog.args.iter().enumerate() {
            let space = &model.spaces[model.value_type(arg.value)];
            let states = model.arg_states(a);
            if arg.fixed.is_some() {
                p.fixed_args[a] = Some(states[0]);
                p.constant = p.constant.add(Cost::new(0, space.bytes[states[0] as usize]));
                continue;
            }
            arg_var[a] = Some(p.vars.len());
            let unary = states.iter().map(|&s| Cost::new(0, space.bytes[s as usize])).collect();
            p.vars.push(Var { node: Node::Arg(a), choices: states.clone(), unary, ports: vec![states] });
        }
        for (o, op) in prog.ops.iter().enumerate() {
            let choices = &model.choices[o];
            let base = |c: &super::model::OpChoice| Cost::new(c.compute.saturating_add(c.resolution), c.memory);
            if !matches!(op.kind, OpKind::Loops(_)) {
                p.constant = p.constant.add(base(&choices[0]));
                continue;
            }
            p.op_var[o] = Some(p.vars.len());
            let mut ports: Vec<Vec<u32>> = (0..op.operands.len()).map(|i| choices.iter().map(|c| c.required[i].1).collect()).collect();
            ports.extend((0..op.results.len()).map(|r| choices.iter().map(|c| c.resolved[r].1).collect()));
            p.vars.push(Var {
                node: Node::Op(o),
                choices: (0..choices.len() as u32).collect(),
                unary: choices.iter().map(base).collect(),
                ports,
            });
        }
        p.add_uses(model, &arg_var);
        p.absorb_args(model);
        p
    }

    /// The producer end of value `v`.
    fn producer(&self, model: &Model, arg_var: &[Option<usize>], v: usize) -> End {
        match model.program.values[v].def {
            ValueDef::Arg(a) => match arg_var[a] {
                Some(x) => End::Var(x, 0),
                None => End::Fixed(self.fixed_args[a].unwrap_or(0)),
            },
            ValueDef::Result { op, index } => match self.op_var[op] {
                Some(x) => End::Var(x, model.program.ops[op].operands.len() + index),
                None => End::Fixed(model.choices[op][0].resolved[index].1),
            },
        }
    }

    /// Adds every use (op operands and function results) as an edge, a unary or a constant.
    fn add_uses(&mut self, model: &Model, arg_var: &[Option<usize>]) {
        let prog = &model.program;
        let mut uses: Vec<(usize, End, End)> = Vec::new();
        for (o, op) in prog.ops.iter().enumerate() {
            for (i, operand) in op.operands.iter().enumerate() {
                let Some(v) = operand.value else { continue };
                let to = match self.op_var[o] {
                    Some(x) => End::Var(x, i),
                    None => End::Fixed(model.choices[o][0].required[i].1),
                };
                uses.push((v, self.producer(model, arg_var, v), to));
            }
        }
        for r in 0..prog.results.len() {
            if let Some((v, req)) = model.result_requirement(r) {
                uses.push((v, self.producer(model, arg_var, v), End::Fixed(req)));
            }
        }
        for (v, from, to) in uses {
            let space = model.value_type(v);
            self.add_use(space, from, to);
        }
    }

    fn add_use(&mut self, space: usize, from: End, to: End) {
        let sp = &self.spaces[space];
        let cost = |a: u32, b: u32| if a == b { Cost::ZERO } else { Cost::new(sp.time(a, b), sp.bytes[b as usize]) };
        match (from, to) {
            (End::Var(x, px), End::Var(y, py)) => self.edges.push(Edge { from: x, from_port: px, to: y, to_port: py, space }),
            (End::Var(x, px), End::Fixed(b)) => {
                let var = &mut self.vars[x];
                for (u, &a) in var.unary.iter_mut().zip(&var.ports[px]) {
                    *u = u.add(cost(a, b));
                }
            }
            (End::Fixed(a), End::Var(y, py)) => {
                let var = &mut self.vars[y];
                for (u, &b) in var.unary.iter_mut().zip(&var.ports[py]) {
                    *u = u.add(cost(a, b));
                }
            }
            (End::Fixed(a), End::Fixed(b)) => self.constant = self.constant.add(cost(a, b)),
        }
    }

    /// Removes every argument variable whose only contribution is one edge to another
    /// variable: it is stored as that user requires it (time 0, its required buffer).
    fn absorb_args(&mut self, model: &Model) {
        let mut degree = vec![0usize; self.vars.len()];
        for e in &self.edges {
            degree[e.from] += 1;
            degree[e.to] += 1;
        }
        let mut remove = vec![false; self.vars.len()];
        for x in 0..self.vars.len() {
            let Node::Arg(a) = self.vars[x].node else { continue };
            let space = &model.spaces[model.value_type(model.program.args[a].value)];
            // Only the base unary (its own buffer): no fixed user, no result requirement.
            let base = self.vars[x].ports[0].iter().zip(&self.vars[x].unary).all(|(&s, u)| u.time == 0 && u.mem == space.bytes[s as usize]);
            if degree[x] == 1 && base {
                remove[x] = true;
            }
        }
        let mut keep_edges = Vec::with_capacity(self.edges.len());
        for e in std::mem::take(&mut self.edges) {
            if remove[e.from] && !remove[e.to] {
                let Node::Arg(a) = self.vars[e.from].node else { continue };
                let sp = &self.spaces[e.space];
                let user = &mut self.vars[e.to];
                for (u, &b) in user.unary.iter_mut().zip(&user.ports[e.to_port]) {
                    *u = u.add(Cost::new(0, sp.bytes[b as usize]));
                }
                self.absorbed.push((a, e.to, e.to_port));
            } else {
                keep_edges.push(e);
            }
        }
        self.edges = keep_edges;
        self.remove_vars(&remove);
    }

    /// Drops the marked variables, renumbering edges and absorbed users.
    fn remove_vars(&mut self, remove: &[bool]) {
        let mut new_index = vec![usize::MAX; self.vars.len()];
        let mut n = 0;
        for (x, &r) in remove.iter().enumerate() {
            if !r {
                new_index[x] = n;
                n += 1;
            }
        }
        let vars = std::mem::take(&mut self.vars);
        self.vars = vars.into_iter().zip(remove).filter(|(_, &r)| !r).map(|(v, _)| v).collect();
        for e in &mut self.edges {
            e.from = new_index[e.from];
            e.to = new_index[e.to];
        }
        for (_, user, _) in &mut self.absorbed {
            *user = new_index[*user];
        }
        for v in self.op_var.iter_mut().flatten() {
            *v = new_index[*v];
        }
    }

    /// The ports of each variable that carry an edge.
    fn edge_ports(&self) -> Vec<Vec<usize>> {
        let mut ports: Vec<Vec<usize>> = vec![Vec::new(); self.vars.len()];
        for e in &self.edges {
            ports[e.from].push(e.from_port);
            ports[e.to].push(e.to_port);
        }
        for p in &mut ports {
            p.sort_unstable();
            p.dedup();
        }
        ports
    }

    /// Merges domain entries that have the same states on every port carrying an edge: with
    /// `order`, only the best entry of each group stays; without, the entries no other entry
    /// of the group dominates (what the time/memory Pareto solver needs).
    pub fn compress(&mut self, order: Option<Order>) {
        let edge_ports = self.edge_ports();
        for (x, var) in self.vars.iter_mut().enumerate() {
            let ports = &edge_ports[x];
            let mut groups: FxHashMap<Vec<u32>, Vec<usize>> = FxHashMap::default();
            let mut keys: Vec<Vec<u32>> = Vec::new();
            for c in 0..var.domain() {
                let sig: Vec<u32> = ports.iter().map(|&p| var.ports[p][c]).collect();
                let g = groups.entry(sig.clone()).or_default();
                if g.is_empty() {
                    keys.push(sig);
                }
                g.push(c);
            }
            let mut keep: Vec<usize> = Vec::new();
            for sig in &keys {
                let g = &groups[sig];
                match order {
                    Some(o) => {
                        let best = g.iter().copied().min_by(|&a, &b| o.cmp(var.unary[a], var.unary[b]).then(a.cmp(&b)));
                        keep.extend(best);
                    }
                    None => {
                        for &c in g {
                            let u = var.unary[c];
                            let dominated = g.iter().any(|&d| d != c && var.unary[d].dominates(u) && (var.unary[d] != u || d < c));
                            if !dominated {
                                keep.push(c);
                            }
                        }
                    }
                }
            }
            keep.sort_unstable();
            if keep.len() == var.domain() {
                continue;
            }
            var.choices = keep.iter().map(|&c| var.choices[c]).collect();
            var.unary = keep.iter().map(|&c| var.unary[c]).collect();
            for p in &mut var.ports {
                *p = keep.iter().map(|&c| p[c]).collect();
            }
        }
    }

    /// The cost of edge `e` between domain entries `a` (of `e.from`) and `b` (of `e.to`).
    #[inline]
    pub fn edge_cost(&self, e: &Edge, a: usize, b: usize) -> Cost {
        let sa = self.vars[e.from].ports[e.from_port][a];
        let sb = self.vars[e.to].ports[e.to_port][b];
        if sa == sb {
            Cost::ZERO
        } else {
            let sp = &self.spaces[e.space];
            Cost::new(sp.time(sa, sb), sp.bytes[sb as usize])
        }
    }

    /// The edges touching each variable (by edge index; a self-edge listed once): the
    /// adjacency both eliminations walk.
    pub fn edges_by_var(&self) -> Vec<Vec<usize>> {
        let mut by_var = vec![Vec::new(); self.vars.len()];
        for (i, e) in self.edges.iter().enumerate() {
            by_var[e.from].push(i);
            if e.to != e.from {
                by_var[e.to].push(i);
            }
        }
        by_var
    }

    /// Folds the still-alive edges `edge_ids` of variable `x` into the elimination of `x` and
    /// marks them dead: a self-edge adds to `unary` (per domain entry of `x`); an edge to the
    /// variable at position `pos` of `scope` (whose domain size is `dims[pos]`) adds to that
    /// position's pair matrix, `[a_y * dx + c_x]`. Shared by the exact and the Pareto
    /// elimination.
    pub fn take_edges_of(
        &self,
        x: usize,
        edge_ids: &[usize],
        edge_alive: &mut [bool],
        scope: &[usize],
        dims: &[usize],
        unary: &mut [Cost],
    ) -> Vec<Option<Vec<Cost>>> {
        let dx = self.vars[x].domain();
        let mut pairs: Vec<Option<Vec<Cost>>> = vec![None; scope.len()];
        for &ei in edge_ids {
            if !std::mem::replace(&mut edge_alive[ei], false) {
                continue;
            }
            let e = &self.edges[ei];
            if e.from == e.to {
                for (c, u) in unary.iter_mut().enumerate() {
                    *u = u.add(self.edge_cost(e, c, c));
                }
                continue;
            }
            let y = if e.from == x { e.to } else { e.from };
            let pos = scope.binary_search(&y).unwrap_or(0);
            let m = pairs[pos].get_or_insert_with(|| vec![Cost::ZERO; dims[pos] * dx]);
            for ay in 0..dims[pos] {
                for cx in 0..dx {
                    let c = if e.from == x { self.edge_cost(e, cx, ay) } else { self.edge_cost(e, ay, cx) };
                    m[ay * dx + cx] = m[ay * dx + cx].add(c);
                }
            }
        }
        pairs
    }

    /// The total cost of an assignment (a domain entry per variable).
    pub fn cost(&self, assignment: &[u32]) -> Cost {
        let mut c = self.constant;
        for (x, var) in self.vars.iter().enumerate() {
            c = c.add(var.unary[assignment[x] as usize]);
        }
        for e in &self.edges {
            c = c.add(self.edge_cost(e, assignment[e.from] as usize, assignment[e.to] as usize));
        }
        c
    }

    /// The plan of an assignment.
    pub fn plan(&self, model: &Model, assignment: &[u32]) -> Plan {
        let mut plan = Plan { args: self.fixed_args.iter().map(|s| s.unwrap_or(0)).collect(), ops: vec![0; model.program.ops.len()] };
        for (x, var) in self.vars.iter().enumerate() {
            let choice = var.choices[assignment[x] as usize];
            match var.node {
                Node::Arg(a) => plan.args[a] = choice,
                Node::Op(o) => plan.ops[o] = choice,
            }
        }
        for &(a, user, port) in &self.absorbed {
            plan.args[a] = self.vars[user].ports[port][assignment[user] as usize];
        }
        plan
    }
}

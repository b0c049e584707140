//! The anytime search, for problems past the exact budget: a greedy start (each op, in
//! program order, takes its best choice given the producers already chosen: seed 001's
//! solver), then rounds of improvement until none helps or the budget runs out: best
//! responses (one variable at a time, the others fixed) and windows of consecutive variables
//! re-solved exactly by variable elimination with the rest fixed. Every move is accepted
//! only if it improves the whole plan, so the result is never worse than the start. The
//! budget counts evaluated combinations (deterministic) and, optionally, wall time.

use std::time::Instant;

use super::eliminate::{elimination_order, solve as solve_exact};
use super::problem::{Cost, Edge, Order, Problem};

/// What the search minimises: over a memory limit, the excess memory first; then `order`.
#[derive(Copy, Clone, Debug)]
pub struct Objective {
    pub order: Order,
    pub limit: Option<u64>,
}

impl Objective {
    pub fn key(&self, c: Cost) -> (u64, (u128, u128)) {
        let excess = self.limit.map_or(0, |l| c.mem.saturating_sub(l));
        (excess, self.order.key(c))
    }
    pub fn less(&self, a: Cost, b: Cost) -> bool {
        self.key(a) < self.key(b)
    }
}

/// The search budget: combinations left and an optional deadline.
#[derive(Clone, Debug)]
pub struct Budget {
    pub states: u128,
    pub deadline: Option<Instant>,
}

impl Budget {
    /// Spends `n` combinations; false once the budget is gone.
    pub fn spend(&mut self, n: u128) -> bool {
        self.states = self.states.saturating_sub(n);
        self.states > 0 && !self.deadline.is_some_and(|d| Instant::now() > d)
    }
}

/// Edges per variable.
fn var_edges(problem: &Problem) -> Vec<Vec<usize>> {
    let mut out = vec![Vec::new(); problem.vars.len()];
    for (i, e) in problem.edges.iter().enumerate() {
        out[e.from].push(i);
        if e.to != e.from {
            out[e.to].push(i);
        }
    }
    out
}

/// The cost of variable `x` at entry `c` with its neighbours as in `a` (`None` entries are
/// not chosen yet and count nothing).
fn local_cost(p: &Problem, edges: &[usize], x: usize, c: usize, a: &[Option<u32>]) -> Cost {
    let mut cost = p.vars[x].unary[c];
    for &ei in edges {
        let e: &Edge = &p.edges[ei];
        let (cf, ct) = match (e.from == x, e.to == x) {
            (true, true) => (Some(c as u32), Some(c as u32)),
            (true, false) => (Some(c as u32), a[e.to]),
            (false, _) => (a[e.from], Some(c as u32)),
        };
        if let (Some(f), Some(t)) = (cf, ct) {
            cost = cost.add(p.edge_cost(e, f as usize, t as usize));
        }
    }
    cost
}

/// The edges touching `vars` (each once).
fn touched_edges(vars: &[usize], edges_of: &[Vec<usize>]) -> Vec<usize> {
    let mut t: Vec<usize> = vars.iter().flat_map(|&x| edges_of[x].iter().copied()).collect();
    t.sort_unstable();
    t.dedup();
    t
}

/// The part of the total that depends on `vars`: their unary costs and the `touched` edges.
fn part_cost(p: &Problem, vars: &[usize], touched: &[usize], a: &[Option<u32>]) -> Cost {
    let mut c = Cost::ZERO;
    for &x in vars {
        c = c.add(p.vars[x].unary[a[x].unwrap_or(0) as usize]);
    }
    for &ei in touched {
        let e = &p.edges[ei];
        c = c.add(p.edge_cost(e, a[e.from].unwrap_or(0) as usize, a[e.to].unwrap_or(0) as usize));
    }
    c
}

/// The greedy start: variables in order, each its best entry given those before it.
pub fn greedy(p: &Problem, obj: &Objective) -> Vec<u32> {
    let edges = var_edges(p);
    let mut a: Vec<Option<u32>> = vec![None; p.vars.len()];
    for x in 0..p.vars.len() {
        let best = (0..p.vars[x].domain()).min_by(|&c, &d| obj.key(local_cost(p, &edges[x], x, c, &a)).cmp(&obj.key(local_cost(p, &edges[x], x, d, &a))).then(c.cmp(&d)));
        a[x] = Some(best.unwrap_or(0) as u32);
    }
    a.into_iter().map(|c| c.unwrap_or(0)).collect()
}

/// Improves `start` until no move helps or the budget is spent; returns the best assignment.
pub fn improve(p: &Problem, start: Vec<u32>, obj: &Objective, budget: &mut Budget) -> Vec<u32> {
    let edges = var_edges(p);
    let mut cur: Vec<Option<u32>> = start.into_iter().map(Some).collect();
    let mut total = p.cost(&cur.iter().map(|c| c.unwrap_or(0)).collect::<Vec<_>>());
    let mut window = 8usize;
    loop {
        let mut improved = false;
        // Best responses.
        for x in 0..p.vars.len() {
            let old = cur[x].unwrap_or(0) as usize;
            let base = total.sub(local_cost(p, &edges[x], x, old, &cur));
            let mut best = (total, old);
            for c in 0..p.vars[x].domain() {
                let t = base.add(local_cost(p, &edges[x], x, c, &cur));
                if obj.less(t, best.0) {
                    best = (t, c);
                }
            }
            if best.1 != old {
                cur[x] = Some(best.1 as u32);
                total = best.0;
                improved = true;
            }
            if !budget.spend((p.vars[x].domain() * (edges[x].len() + 1)) as u128) {
                return cur.into_iter().map(|c| c.unwrap_or(0)).collect();
            }
        }
        // Windows re-solved exactly (for the order; accepted only if the objective improves).
        let n = p.vars.len();
        let mut i = 0;
        while i < n && window > 1 {
            let vars: Vec<usize> = (i..(i + window).min(n)).collect();
            let sub = p.window(&vars, &cur, &edges);
            match elimination_order(&sub, budget.states.min(1 << 22)) {
                None => {
                    window /= 2;
                    continue;
                }
                Some(elim) => {
                    if !budget.spend(elim.work.max(1)) {
                        return cur.into_iter().map(|c| c.unwrap_or(0)).collect();
                    }
                    let (sa, _) = solve_exact(&sub, obj.order, &elim);
                    let touched = touched_edges(&vars, &edges);
                    let before = part_cost(p, &vars, &touched, &cur);
                    let old: Vec<Option<u32>> = vars.iter().map(|&x| cur[x]).collect();
                    for (j, &x) in vars.iter().enumerate() {
                        cur[x] = Some(sa[j]);
                    }
                    let t = total.sub(before).add(part_cost(p, &vars, &touched, &cur));
                    if obj.less(t, total) {
                        total = t;
                        improved = true;
                    } else {
                        for (j, &x) in vars.iter().enumerate() {
                            cur[x] = old[j];
                        }
                    }
                }
            }
            i += (window / 2).max(1);
        }
        if !improved {
            break;
        }
    }
    cur.into_iter().map(|c| c.unwrap_or(0)).collect()
}

impl<'m> Problem<'m> {
    /// The sub-problem of `vars` with every other variable fixed as in `current`: edges to
    /// fixed variables become unary costs. `edges_of` lists each variable's edges.
    pub fn window(&self, vars: &[usize], current: &[Option<u32>], edges_of: &[Vec<usize>]) -> Problem<'m> {
        let pos = |x: usize| vars.iter().position(|&v| v == x);
        let mut sub = Problem::empty(self.spaces);
        sub.vars = vars.iter().map(|&x| self.vars[x].clone()).collect();
        let mut seen: Vec<usize> = vars.iter().flat_map(|&x| edges_of[x].iter().copied()).collect();
        seen.sort_unstable();
        seen.dedup();
        for ei in seen {
            let e = &self.edges[ei];
            match (pos(e.from), pos(e.to)) {
                (Some(f), Some(t)) => sub.edges.push(Edge { from: f, to: t, ..*e }),
                (Some(f), None) => {
                    let b = current[e.to].unwrap_or(0) as usize;
                    for c in 0..sub.vars[f].domain() {
                        let add = self.edge_cost(e, c, b);
                        sub.vars[f].unary[c] = sub.vars[f].unary[c].add(add);
                    }
                }
                (None, Some(t)) => {
                    let a = current[e.from].unwrap_or(0) as usize;
                    for c in 0..sub.vars[t].domain() {
                        let add = self.edge_cost(e, a, c);
                        sub.vars[t].unary[c] = sub.vars[t].unary[c].add(add);
                    }
                }
                (None, None) => {}
            }
        }
        sub
    }
}

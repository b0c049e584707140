//! Exact variable elimination over (time, memory) Pareto sets, for a memory limit: every table
//! entry holds the plans of its sub-problem no other plan beats in both time and memory (and
//! within the limit: memory only grows, so a partial plan over the limit is dropped). Each
//! point remembers its variable's choice and the point it took from each input table, so the
//! backward pass follows pointers. The root picks the least time within the limit (then the
//! least memory). Points are the budget: past `max_points` the solver gives up (the caller
//! falls back to the anytime search).

use std::time::Instant;

use smallvec::SmallVec;

use super::eliminate::{strides, Elimination};
use super::problem::{Cost, Problem};

/// What the Pareto solver found.
#[derive(Debug)]
pub enum Outcome {
    /// The optimum under the limit: an assignment and its cost.
    Solved(Vec<u32>, Cost),
    /// No plan fits in the limit.
    Infeasible,
    /// The budget (points or time) ran out.
    OutOfBudget,
}

#[derive(Copy, Clone)]
struct Point {
    cost: Cost,
    /// The eliminated variable's domain entry.
    choice: u32,
    /// Offset into the table's `picks` of this point's input points (one per input table).
    picks: u32,
}

/// A table of Pareto sets, and the record of the variable whose elimination built it.
struct ParetoTable {
    var: usize,
    scope: Vec<usize>,
    strides: Vec<usize>,
    /// Per entry, the range of its points.
    entries: Vec<(u32, u32)>,
    points: Vec<Point>,
    picks: Vec<u32>,
    /// The tables this one consumed.
    inputs: Vec<usize>,
}

/// A candidate while combining: its cost and its picks so far.
type Cand = (Cost, SmallVec<[u32; 4]>);

/// Keeps the candidates no other beats in both time and memory (and within `cap` memory);
/// equal costs keep the first.
fn pareto_filter<T>(mut v: Vec<(Cost, T)>, cap: u64) -> Vec<(Cost, T)> {
    v.retain(|(c, _)| c.mem <= cap);
    v.sort_by(|a, b| (a.0.time, a.0.mem).cmp(&(b.0.time, b.0.mem)));
    let mut out = Vec::with_capacity(v.len().min(16));
    let mut best_mem = u64::MAX;
    for (c, t) in v {
        if c.mem < best_mem {
            best_mem = c.mem;
            out.push((c, t));
        }
    }
    out
}

struct Solver<'p, 'm> {
    problem: &'p Problem<'m>,
    cap: u64,
    max_points: u128,
    points: u128,
    deadline: Option<Instant>,
    tables: Vec<ParetoTable>,
    alive: Vec<bool>,
    var_tables: Vec<Vec<usize>>,
    var_edges: Vec<Vec<usize>>,
    edge_alive: Vec<bool>,
}

/// Solves `problem` exactly under the memory limit `limit`, eliminating in `elim`'s order.
pub fn solve(problem: &Problem, elim: &Elimination, limit: u64, max_points: u128, deadline: Option<Instant>) -> Outcome {
    let n = problem.vars.len();
    let Some(cap) = limit.checked_sub(problem.constant.mem) else { return Outcome::Infeasible };
    let var_edges = problem.edges_by_var();
    let mut s = Solver {
        problem,
        cap,
        max_points,
        points: 0,
        deadline,
        tables: Vec::new(),
        alive: Vec::new(),
        var_tables: vec![Vec::new(); n],
        var_edges,
        edge_alive: vec![true; problem.edges.len()],
    };
    for &x in &elim.order {
        if !s.eliminate(x) {
            return Outcome::OutOfBudget;
        }
        if s.tables.last().is_some_and(|t| t.points.is_empty()) {
            return Outcome::Infeasible;
        }
    }
    s.finish()
}

impl<'p, 'm> Solver<'p, 'm> {
    /// Eliminates `x`; false when the budget ran out.
    fn eliminate(&mut self, x: usize) -> bool {
        let p = self.problem;
        let dx = p.vars[x].domain();
        let mut scope: Vec<usize> = Vec::new();
        for &ei in &self.var_edges[x] {
            if self.edge_alive[ei] {
                let e = &p.edges[ei];
                scope.push(if e.from == x { e.to } else { e.from });
            }
        }
        let inputs: Vec<usize> = self.var_tables[x].iter().copied().filter(|&t| self.alive[t]).collect();
        for &t in &inputs {
            scope.extend(self.tables[t].scope.iter().copied().filter(|&y| y != x));
            self.alive[t] = false;
        }
        scope.sort_unstable();
        scope.dedup();
        let dims: Vec<usize> = scope.iter().map(|&y| p.vars[y].domain()).collect();
        let mut unary = p.vars[x].unary.clone();
        let pairs = p.take_edges_of(x, &self.var_edges[x], &mut self.edge_alive, &scope, &dims, &mut unary);
        // Per input table: the stride of x and of each scope position.
        let lookups: Vec<(usize, Vec<usize>)> = inputs
            .iter()
            .map(|&t| {
                let tb = &self.tables[t];
                let at = |v: usize| tb.scope.iter().position(|&s| s == v).map_or(0, |i| tb.strides[i]);
                (at(x), scope.iter().map(|&y| at(y)).collect())
            })
            .collect();
        let (table_strides, size) = strides(&dims);
        let mut table = ParetoTable {
            var: x,
            scope: scope.clone(),
            strides: table_strides,
            entries: Vec::with_capacity(size),
            points: Vec::new(),
            picks: Vec::new(),
            inputs: inputs.clone(),
        };
        let mut digits = vec![0usize; dims.len()];
        for _ in 0..size {
            let mut cands: Vec<(Cost, (u32, SmallVec<[u32; 4]>))> = Vec::new();
            for cx in 0..dx {
                let mut base = unary[cx];
                for (j, m) in pairs.iter().enumerate() {
                    if let Some(m) = m {
                        base = base.add(m[digits[j] * dx + cx]);
                    }
                }
                let mut partial: Vec<Cand> = vec![(base, SmallVec::new())];
                for (&t, (xs, ss)) in inputs.iter().zip(&lookups) {
                    let idx = cx * xs + digits.iter().zip(ss).map(|(d, s)| d * s).sum::<usize>();
                    let (start, len) = self.tables[t].entries[idx];
                    let mut next: Vec<Cand> = Vec::with_capacity(partial.len() * len as usize);
                    for (c, picks) in &partial {
                        for q in start..start + len {
                            let mut pk = picks.clone();
                            pk.push(q);
                            next.push((c.add(self.tables[t].points[q as usize].cost), pk));
                        }
                    }
                    self.points += next.len() as u128;
                    partial = pareto_filter(next, self.cap);
                }
                cands.extend(partial.into_iter().map(|(c, pk)| (c, (cx as u32, pk))));
            }
            self.points += cands.len() as u128;
            if self.points > self.max_points {
                return false;
            }
            let kept = pareto_filter(cands, self.cap);
            let start = table.points.len() as u32;
            for (cost, (choice, pk)) in kept {
                table.points.push(Point { cost, choice, picks: table.picks.len() as u32 });
                table.picks.extend(pk);
            }
            table.entries.push((start, table.points.len() as u32 - start));
            let mut j = digits.len();
            while j > 0 {
                j -= 1;
                digits[j] += 1;
                if digits[j] < dims[j] {
                    break;
                }
                digits[j] = 0;
            }
        }
        if self.deadline.is_some_and(|d| Instant::now() > d) {
            return false;
        }
        let id = self.tables.len();
        for &y in &scope {
            self.var_tables[y].push(id);
        }
        self.tables.push(table);
        self.alive.push(true);
        true
    }

    /// Combines the tables left (one per connected component), picks the best point and
    /// follows the pointers back.
    fn finish(self) -> Outcome {
        let roots: Vec<usize> = (0..self.tables.len()).filter(|&t| self.alive[t]).collect();
        let mut partial: Vec<Cand> = vec![(Cost::ZERO, SmallVec::new())];
        for &t in &roots {
            let tb = &self.tables[t];
            let (start, len) = tb.entries[0];
            let mut next = Vec::new();
            for (c, picks) in &partial {
                for q in start..start + len {
                    let mut pk = picks.clone();
                    pk.push(q);
                    next.push((c.add(tb.points[q as usize].cost), pk));
                }
            }
            partial = pareto_filter(next, self.cap);
        }
        // Least time, then least memory: the first point of a filtered set.
        let Some((_, picks)) = partial.into_iter().next() else { return Outcome::Infeasible };
        let mut chosen: Vec<Option<u32>> = vec![None; self.tables.len()];
        for (&t, &q) in roots.iter().zip(&picks) {
            chosen[t] = Some(q);
        }
        let mut assignment = vec![0u32; self.problem.vars.len()];
        for t in (0..self.tables.len()).rev() {
            let Some(q) = chosen[t] else { continue };
            let tb = &self.tables[t];
            let pt = tb.points[q as usize];
            assignment[tb.var] = pt.choice;
            for (j, &input) in tb.inputs.iter().enumerate() {
                chosen[input] = Some(tb.picks[pt.picks as usize + j]);
            }
        }
        let cost = self.problem.cost(&assignment);
        Outcome::Solved(assignment, cost)
    }
}

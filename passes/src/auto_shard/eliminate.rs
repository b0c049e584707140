//! Exact min-sum variable elimination (bucket elimination) over a [`Problem`], for one cost
//! order ([`Order`]): variables are eliminated greedily by the size of the table they leave
//! (min-weight, ties by degree then index); eliminating `x` with neighbours `N` builds the
//! table `min_x (unary_x + Σ pair costs + Σ tables over x)` over `N` and records the best `x`
//! per entry; a backward pass reads the assignment. Work = Σ D_x·Π_{y∈N} D_y, known before any
//! table is built ([`elimination_order`]), so the budget is checked up front.
//! (The time/memory Pareto version is `pareto.rs`.)

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::problem::{Cost, Order, Problem};

/// An elimination order and its work (combinations evaluated).
#[derive(Clone, Debug)]
pub struct Elimination {
    pub order: Vec<usize>,
    pub work: u128,
    /// The largest table built (entries).
    pub largest: u128,
}

/// The neighbour lists of the interaction graph (sorted, no duplicates).
pub fn neighbours(problem: &Problem) -> Vec<Vec<usize>> {
    let mut adj: Vec<Vec<usize>> = vec![Vec::new(); problem.vars.len()];
    for e in &problem.edges {
        if e.from != e.to {
            adj[e.from].push(e.to);
            adj[e.to].push(e.from);
        }
    }
    for a in &mut adj {
        a.sort_unstable();
        a.dedup();
    }
    adj
}

/// Greedy min-weight elimination order; `None` when its work exceeds `max_work`.
pub fn elimination_order(problem: &Problem, max_work: u128) -> Option<Elimination> {
    let n = problem.vars.len();
    let domain: Vec<u128> = problem.vars.iter().map(|v| v.domain() as u128).collect();
    let mut adj = neighbours(problem);
    let weight = |adj: &[usize]| adj.iter().fold(1u128, |w, &y| w.saturating_mul(domain[y]));
    let mut heap: BinaryHeap<Reverse<(u128, usize, usize)>> = (0..n).map(|x| Reverse((weight(&adj[x]), adj[x].len(), x))).collect();
    let mut done = vec![false; n];
    let mut order = Vec::with_capacity(n);
    let (mut work, mut largest) = (0u128, 0u128);
    while let Some(Reverse((w, deg, x))) = heap.pop() {
        if done[x] || w != weight(&adj[x]) || deg != adj[x].len() {
            continue;
        }
        done[x] = true;
        order.push(x);
        work = work.saturating_add(w.saturating_mul(domain[x]));
        largest = largest.max(w);
        if work > max_work {
            return None;
        }
        let nx = std::mem::take(&mut adj[x]);
        for &y in &nx {
            let merged = merge_without(&adj[y], &nx, x, y);
            adj[y] = merged;
            heap.push(Reverse((weight(&adj[y]), adj[y].len(), y)));
        }
    }
    Some(Elimination { order, work, largest })
}

/// `a ∪ b` without `x` and `y` (both sorted).
fn merge_without(a: &[usize], b: &[usize], x: usize, y: usize) -> Vec<usize> {
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        let v = if j == b.len() || (i < a.len() && a[i] <= b[j]) {
            let v = a[i];
            if j < b.len() && b[j] == v {
                j += 1;
            }
            i += 1;
            v
        } else {
            j += 1;
            b[j - 1]
        };
        if v != x && v != y {
            out.push(v);
        }
    }
    out
}

/// A table factor over some variables (row-major, the last variable fastest).
pub(crate) struct Table {
    pub scope: Vec<usize>,
    pub strides: Vec<usize>,
    pub values: Vec<Cost>,
}

/// Row-major strides of `dims`, and the total size.
pub(crate) fn strides(dims: &[usize]) -> (Vec<usize>, usize) {
    let mut s = vec![0; dims.len()];
    let mut size = 1usize;
    for i in (0..dims.len()).rev() {
        s[i] = size;
        size = size.saturating_mul(dims[i]);
    }
    (s, size)
}

/// What eliminating one variable left for the backward pass.
struct Record {
    var: usize,
    scope: Vec<usize>,
    strides: Vec<usize>,
    best: Vec<u32>,
}

/// The solver's working state.
struct Eliminator<'p, 'm> {
    problem: &'p Problem<'m>,
    order: Order,
    unary: Vec<Vec<Cost>>,
    var_edges: Vec<Vec<usize>>,
    edge_alive: Vec<bool>,
    tables: Vec<Table>,
    table_alive: Vec<bool>,
    var_tables: Vec<Vec<usize>>,
    eliminated: Vec<bool>,
    records: Vec<Record>,
}

/// Solves `problem` exactly for `order` along `elim`; returns the assignment (a domain entry
/// per variable) and its cost.
pub fn solve(problem: &Problem, order: Order, elim: &Elimination) -> (Vec<u32>, Cost) {
    let n = problem.vars.len();
    let var_edges = problem.edges_by_var();
    let mut s = Eliminator {
        problem,
        order,
        unary: problem.vars.iter().map(|v| v.unary.clone()).collect(),
        var_edges,
        edge_alive: vec![true; problem.edges.len()],
        tables: Vec::new(),
        table_alive: Vec::new(),
        var_tables: vec![Vec::new(); n],
        eliminated: vec![false; n],
        records: Vec::with_capacity(n),
    };
    for &x in &elim.order {
        s.eliminate(x);
    }
    let mut assignment = vec![0u32; n];
    for r in s.records.iter().rev() {
        let idx: usize = r.scope.iter().zip(&r.strides).map(|(&y, &st)| assignment[y] as usize * st).sum();
        assignment[r.var] = r.best[idx];
    }
    let cost = problem.cost(&assignment);
    (assignment, cost)
}

/// A table over `x` and neighbours, used while eliminating `x`: its values, the stride of `x`,
/// and per position of the new scope the stride (0 if the table does not have that variable).
struct Lookup<'t> {
    values: &'t [Cost],
    x_stride: usize,
    strides: Vec<usize>,
}

impl<'p, 'm> Eliminator<'p, 'm> {
    fn eliminate(&mut self, x: usize) {
        let p = self.problem;
        let dx = p.vars[x].domain();
        let mut scope: Vec<usize> = Vec::new();
        for &ei in &self.var_edges[x] {
            if self.edge_alive[ei] {
                let e = &p.edges[ei];
                scope.push(if e.from == x { e.to } else { e.from });
            }
        }
        for &t in &self.var_tables[x] {
            if self.table_alive[t] {
                scope.extend(self.tables[t].scope.iter().copied().filter(|&y| y != x));
            }
        }
        scope.sort_unstable();
        scope.dedup();
        let dims: Vec<usize> = scope.iter().map(|&y| p.vars[y].domain()).collect();
        // Pair matrices [a_y * dx + c_x] per scope position, from edges and 2-variable tables.
        let mut unary = std::mem::take(&mut self.unary[x]);
        let mut pairs = p.take_edges_of(x, &self.var_edges[x], &mut self.edge_alive, &scope, &dims, &mut unary);
        let mut general: Vec<usize> = Vec::new();
        for &t in &std::mem::take(&mut self.var_tables[x]) {
            if !std::mem::replace(&mut self.table_alive[t], false) {
                continue;
            }
            let tb = &self.tables[t];
            match tb.scope.len() {
                1 => {
                    for (u, v) in unary.iter_mut().zip(&tb.values) {
                        *u = u.add(*v);
                    }
                }
                2 => {
                    let (xi, y) = if tb.scope[0] == x { (0, tb.scope[1]) } else { (1, tb.scope[0]) };
                    let pos = scope.binary_search(&y).unwrap_or(0);
                    let m = pairs[pos].get_or_insert_with(|| vec![Cost::ZERO; dims[pos] * dx]);
                    for ay in 0..dims[pos] {
                        for cx in 0..dx {
                            let idx = if xi == 0 { cx * tb.strides[0] + ay } else { ay * tb.strides[0] + cx };
                            m[ay * dx + cx] = m[ay * dx + cx].add(tb.values[idx]);
                        }
                    }
                }
                _ => general.push(t),
            }
        }
        let lookups: Vec<Lookup> = general
            .iter()
            .map(|&t| {
                let tb = &self.tables[t];
                let at = |v: usize| tb.scope.iter().position(|&s| s == v).map_or(0, |i| tb.strides[i]);
                Lookup { values: &tb.values, x_stride: at(x), strides: scope.iter().map(|&y| at(y)).collect() }
            })
            .collect();
        let (values, best) = self.combine(dx, &dims, &unary, &pairs, &lookups);
        self.eliminated[x] = true;
        let (table_strides, _) = strides(&dims);
        let id = self.tables.len();
        for &y in &scope {
            self.var_tables[y].push(id);
        }
        self.records.push(Record { var: x, scope: scope.clone(), strides: table_strides.clone(), best });
        self.tables.push(Table { scope, strides: table_strides, values });
        self.table_alive.push(true);
    }

    /// For every assignment of the scope (odometer, last fastest): the best `x` and its cost.
    fn combine(&self, dx: usize, dims: &[usize], unary: &[Cost], pairs: &[Option<Vec<Cost>>], lookups: &[Lookup]) -> (Vec<Cost>, Vec<u32>) {
        let k = dims.len();
        let (_, size) = strides(dims);
        let mut values = Vec::with_capacity(size);
        let mut best = Vec::with_capacity(size);
        // partial[j]: unary + pair terms of positions < j, for the current digits.
        let mut partial: Vec<Vec<Cost>> = vec![unary.to_vec(); k + 1];
        let mut digits = vec![0usize; k];
        let mut from = 0; // first level whose partial sums must be recomputed
        let mut bases = vec![0usize; lookups.len()];
        for _ in 0..size {
            for j in from..k {
                let (lo, hi) = partial.split_at_mut(j + 1);
                let (prev, next) = (&lo[j], &mut hi[0]);
                match &pairs[j] {
                    Some(m) => {
                        let row = &m[digits[j] * dx..(digits[j] + 1) * dx];
                        for ((n, a), b) in next.iter_mut().zip(prev).zip(row) {
                            *n = a.add(*b);
                        }
                    }
                    None => next.copy_from_slice(prev),
                }
            }
            for (b, l) in bases.iter_mut().zip(lookups) {
                *b = digits.iter().zip(&l.strides).map(|(d, s)| d * s).sum();
            }
            let row = &partial[k];
            let (mut bc, mut bx) = (Cost::INFINITE, 0u32);
            for (cx, &base) in row.iter().enumerate() {
                let mut c = base;
                for (l, b) in lookups.iter().zip(&bases) {
                    c = c.add(l.values[b + l.x_stride * cx]);
                }
                if self.order.less(c, bc) {
                    bc = c;
                    bx = cx as u32;
                }
            }
            values.push(bc);
            best.push(bx);
            // advance the odometer
            let mut j = k;
            while j > 0 {
                j -= 1;
                digits[j] += 1;
                if digits[j] < dims[j] {
                    break;
                }
                digits[j] = 0;
            }
            from = j;
        }
        (values, best)
    }
}

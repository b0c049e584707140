//! The solver's driver: the optimal plan of a [`Model`] under the objective of section 3.6.
//! Without a memory limit: exact variable elimination for (time, then memory) when its work
//! fits in `max_states`, else the anytime search. With a limit: the unconstrained optimum if
//! it fits; the least-memory plan (exact) to detect infeasibility; then exact elimination over
//! (time, memory) Pareto sets; past its budget, plans for time + λ·memory (λ by bisection)
//! improved by the anytime search under the limit. `optimal` says whether the plan is proven.

use std::time::{Duration, Instant};

use super::eliminate::{elimination_order, solve as solve_exact};
use super::local::{greedy, improve, Budget, Objective};
use super::mesh::Time;
use super::model::{Evaluation, Model, Plan};
use super::pareto::{self, Outcome};
use super::problem::{Order, Problem};

/// The solver's options.
#[derive(Clone, Debug)]
pub struct Options {
    /// Memory per device, bytes.
    pub memory_limit: Option<u64>,
    /// The exact budget (combinations, or Pareto points) and the anytime search's.
    pub max_states: u128,
    /// Wall-clock bound of the anytime search (and of the Pareto elimination).
    pub time_budget: Option<Duration>,
}

impl Default for Options {
    fn default() -> Self {
        Options { memory_limit: None, max_states: DEFAULT_MAX_STATES, time_budget: None }
    }
}

/// The default `max-states`.
pub const DEFAULT_MAX_STATES: u128 = 400_000_000;

/// A plan, its totals, and whether it is proven optimal.
#[derive(Clone, Debug)]
pub struct Solution {
    pub plan: Plan,
    pub eval: Evaluation,
    pub optimal: bool,
}

/// No plan fits in the memory limit: the least-memory plan found.
#[derive(Clone, Debug)]
pub struct Infeasible {
    pub least: Solution,
}

/// A plan for one cost order: exact when the work fits in the budget, else anytime.
fn scalar(model: &Model, base: &Problem, order: Order, opts: &Options, deadline: Option<Instant>) -> Solution {
    let mut p = base.clone();
    p.compress(Some(order));
    if let Some(elim) = elimination_order(&p, opts.max_states) {
        let (a, _) = solve_exact(&p, order, &elim);
        let plan = p.plan(model, &a);
        return Solution { eval: model.evaluate(&plan), plan, optimal: true };
    }
    let obj = Objective { order, limit: None };
    let start = greedy(&p, &obj);
    let mut budget = Budget { states: opts.max_states, deadline };
    let a = improve(&p, start, &obj, &mut budget);
    let plan = p.plan(model, &a);
    Solution { eval: model.evaluate(&plan), plan, optimal: false }
}

/// True when `a` is better than `b` under a memory limit: fits, then less time, then less
/// memory.
fn better(a: &Evaluation, b: &Evaluation, limit: u64) -> bool {
    let key = |e: &Evaluation| (e.memory > limit, e.total(), e.memory);
    key(a) < key(b)
}

/// Solves the model (see the module docs).
pub fn solve(model: &Model, opts: &Options) -> Result<Solution, Infeasible> {
    let deadline = opts.time_budget.map(|d| Instant::now() + d);
    let base = Problem::new(model);
    let fastest = scalar(model, &base, Order::TimeFirst, opts, deadline);
    let Some(limit) = opts.memory_limit else { return Ok(fastest) };
    if fastest.eval.memory <= limit {
        return Ok(fastest);
    }
    let least = scalar(model, &base, Order::MemoryFirst, opts, deadline);
    if least.eval.memory > limit {
        return Err(Infeasible { least });
    }
    // Exact over Pareto sets.
    let mut p = base.clone();
    p.compress(None);
    if let Some(elim) = elimination_order(&p, u128::MAX) {
        match pareto::solve(&p, &elim, limit, opts.max_states, deadline) {
            Outcome::Solved(a, _) => {
                let plan = p.plan(model, &a);
                return Ok(Solution { eval: model.evaluate(&plan), plan, optimal: true });
            }
            Outcome::Infeasible => return Err(Infeasible { least }),
            Outcome::OutOfBudget => {}
        }
    }
    Ok(lagrangian(model, &base, limit, least, opts, deadline))
}

/// Past the exact budget: plans for time + λ·memory over a bisection of log2 λ, the best that
/// fits improved by the anytime search under the limit. Not proven optimal.
fn lagrangian(model: &Model, base: &Problem, limit: u64, least: Solution, opts: &Options, deadline: Option<Instant>) -> Solution {
    let mut best = least;
    let (mut lo, mut hi) = (0.0f64, 127.0f64);
    for _ in 0..16 {
        let mid = (lo + hi) / 2.0;
        let lambda = 2f64.powf(mid) as Time;
        let s = scalar(model, base, Order::Weighted(lambda), opts, deadline);
        if s.eval.memory <= limit {
            hi = mid;
            if better(&s.eval, &best.eval, limit) {
                best = s;
            }
        } else {
            lo = mid;
        }
        if deadline.is_some_and(|d| Instant::now() > d) {
            break;
        }
    }
    let mut p = base.clone();
    p.compress(None);
    let obj = Objective { order: Order::TimeFirst, limit: Some(limit) };
    let start = assignment_of(&p, &best.plan);
    let mut budget = Budget { states: opts.max_states, deadline };
    let a = improve(&p, start, &obj, &mut budget);
    let plan = p.plan(model, &a);
    let eval = model.evaluate(&plan);
    if better(&eval, &best.eval, limit) {
        best = Solution { plan, eval, optimal: false };
    }
    best.optimal = false;
    best
}

/// The assignment of `problem`'s variables that gives `plan` (the first matching entry; 0 if
/// the plan's choice was compressed away).
fn assignment_of(problem: &Problem, plan: &Plan) -> Vec<u32> {
    problem
        .vars
        .iter()
        .map(|v| {
            let want = match v.node {
                super::problem::Node::Arg(a) => plan.args[a],
                super::problem::Node::Op(o) => plan.ops[o],
            };
            v.choices.iter().position(|&c| c == want).unwrap_or(0) as u32
        })
        .collect()
}

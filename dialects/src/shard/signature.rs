//! How a partitioned function says how its arguments and results are split over the devices,
//! so that whoever runs it (`xcs-run --devices`, the C header, the MPI runtime) slices the
//! full inputs and reassembles the outputs: `shard-partition` writes the function attribute
//! `shard.spmd_grid = @mesh` (the grid it runs on) and, on every tensor argument and result,
//! `shard.split_axes = #shard<axisarray[[0], []]>` (MLIR's split axes) in `arg_attrs` /
//! `res_attrs`, next to the other argument attributes (`xcs.name`). `mlir-opt` keeps both.

use xcs_ir::{Attr, Body, Context, Module};

use super::attrs::{split_axes_attr, split_axes_of, SplitAxes};
use super::build::Grid;
use crate::interp::spmd::Split;

/// The function attribute naming the grid a partitioned function runs on (`shard.spmd_grid = @mesh`).
pub const GRID_ATTR: &str = "shard.spmd_grid";
/// The argument and result attribute holding a value's split axes
/// (`shard.split_axes = #shard<axisarray[[0], []]>`).
pub const SHARDING_ATTR: &str = "shard.split_axes";

/// The grid of a partitioned function and the split axes of each argument and result (`None`
/// for values that are not tensors, or that the function does not describe: replicated).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Signature {
    pub grid: String,
    pub args: Vec<Option<SplitAxes>>,
    pub results: Vec<Option<SplitAxes>>,
}

impl Signature {
    /// The signature recorded on function `f` (a `func.func`'s body); `None` if `f` has no
    /// `shard.spmd_grid` (it is not partitioned), an error if an entry is malformed.
    pub fn of(ctx: &Context, f: &Body) -> Option<Result<Signature, String>> {
        let grid = f.self_attr(ctx, GRID_ATTR)?;
        let Some(grid) = ctx.as_symbol(grid) else {
            return Some(Err(format!("'{GRID_ATTR}' must be a symbol reference to a shard.grid")));
        };
        let read = |key: &str, what: &str| -> Result<Vec<Option<SplitAxes>>, String> {
            let dicts: Vec<Attr> = f
                .self_attr(ctx, key)
                .and_then(|a| ctx.as_array(a))
                .map(|a| a.to_vec())
                .unwrap_or_default();
            dicts
                .iter()
                .enumerate()
                .map(|(i, &d)| match ctx.dict_get(d, SHARDING_ATTR) {
                    None => Ok(None),
                    Some(a) => split_axes_of(ctx, a)
                        .map(Some)
                        .ok_or_else(|| format!("{what} #{i}: '{SHARDING_ATTR}' is not a #shard<axisarray[...]>")),
                })
                .collect()
        };
        let (args, results) = match (read("arg_attrs", "argument"), read("res_attrs", "result")) {
            (Ok(a), Ok(r)) => (a, r),
            (Err(e), _) | (_, Err(e)) => return Some(Err(e)),
        };
        Some(Ok(Signature {
            grid: grid.to_string(),
            args,
            results,
        }))
    }

    /// The signature of function `name` of `module` and its grid (`None` if there is no such
    /// function or it is not partitioned).
    pub fn find(ctx: &Context, module: &Module, name: &str) -> Option<Result<(Signature, Grid), String>> {
        let body = &module.body;
        let f = body
            .top_ops()
            .into_iter()
            .filter_map(|op| body.nested(op))
            .find(|f| f.self_attr(ctx, "sym_name").and_then(|a| ctx.as_str(a)) == Some(name))?;
        let sig = match Signature::of(ctx, f)? {
            Ok(s) => s,
            Err(e) => return Some(Err(format!("@{name}: {e}"))),
        };
        match Grid::find(ctx, body, &sig.grid) {
            Some(g) => Some(Ok((sig, g))),
            None => Some(Err(format!(
                "@{name} runs on grid @{}, which the module does not define",
                sig.grid
            ))),
        }
    }

    /// Each argument's split for the interpreter's SPMD runner (`interp::spmd`), `n` of them
    /// (replicated where none is recorded).
    pub fn arg_splits(&self, n: usize) -> Result<Vec<Split>, String> {
        splits(&self.args, n)
    }

    /// Each result's split, `n` of them.
    pub fn result_splits(&self, n: usize) -> Result<Vec<Split>, String> {
        splits(&self.results, n)
    }

    /// Writes the signature onto function `f`: `shard.spmd_grid` and a `shard.split_axes` entry per
    /// described argument and result (entries of `None` are removed), keeping every other
    /// argument and result attribute.
    pub fn record(&self, ctx: &Context, f: &mut Body) {
        f.set_self_attr(ctx, GRID_ATTR, Some(ctx.symbol_ref(&self.grid)));
        for (key, entries) in [("arg_attrs", &self.args), ("res_attrs", &self.results)] {
            let old: Vec<Attr> = f
                .self_attr(ctx, key)
                .and_then(|a| ctx.as_array(a))
                .map(|a| a.to_vec())
                .unwrap_or_default();
            let dicts: Vec<Attr> = entries
                .iter()
                .enumerate()
                .map(|(i, axes)| {
                    let d = old.get(i).copied().unwrap_or_else(|| ctx.empty_dict());
                    ctx.dict_set(
                        d,
                        ctx.ident(SHARDING_ATTR),
                        axes.as_ref().map(|a| split_axes_attr(ctx, a)),
                    )
                })
                .collect();
            let any = dicts.iter().any(|&d| !ctx.dict_entries(d).is_empty());
            f.set_self_attr(ctx, key, any.then(|| ctx.array_attr(&dicts)));
        }
    }
}

fn splits(entries: &[Option<SplitAxes>], n: usize) -> Result<Vec<Split>, String> {
    (0..n)
        .map(|i| match entries.get(i).and_then(|e| e.as_ref()) {
            None => Ok(Vec::new()),
            Some(axes) => axes
                .iter()
                .map(|dim| {
                    dim.iter()
                        .map(|&a| usize::try_from(a).map_err(|_| format!("grid axis {a} is negative")))
                        .collect()
                })
                .collect(),
        })
        .collect()
}

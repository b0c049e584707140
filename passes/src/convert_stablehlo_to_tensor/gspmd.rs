//! GSPMD's `mhlo.sharding` strings on one grid. GSPMD names no mesh: each string assigns tiles
//! to device ids. Every iota tile assignment reads the device id as mixed-radix digits; the grid
//! is the coarsest one whose axes refine all those digits (each axis is a run of the device
//! id's strides), and each tile dim becomes the grid axes its digits cover. Shardy's importer
//! of GSPMD shardings does the same factoring (openxla/shardy, `import_shardings`); it names
//! the axes `axis_0`, `axis_1`, ... as here.

use xcs_dialects::shard::{Grid, Sharding};
use xcs_dialects::stablehlo::gspmd::{self, HloSharding, TileAssignment};

/// The grid GSPMD's strings map onto, and the device-id stride of each of its axes (major first).
#[derive(Clone, Debug)]
pub(super) struct GspmdGrid {
    pub grid: Grid,
    strides: Vec<i64>,
}

/// A run of the device id: `size` digits of weight `stride`.
type Piece = (i64, i64);

/// The name of the grid made from GSPMD's strings.
const GRID_NAME: &str = "mesh";

impl GspmdGrid {
    /// The grid of `devices` devices that every sharding in `strings` fits; `None` on one
    /// device. The error says which string does not fit.
    pub fn derive(devices: i64, strings: &[&str]) -> Result<Option<GspmdGrid>, String> {
        let mut bounds = vec![1, devices.max(1)];
        for s in strings {
            if let HloSharding::Tiled(t) = gspmd::parse(s)? {
                if t.device_count() != devices {
                    return Err(format!("\"{s}\" uses {} devices, the module {devices}", t.device_count()));
                }
                for (stride, size) in tile_pieces(&t).map_err(|why| format!("{why} in \"{s}\""))?.into_iter().flatten() {
                    bounds.extend([stride, stride * size]);
                }
            }
        }
        if devices <= 1 {
            return Ok(None);
        }
        bounds.sort_unstable();
        bounds.dedup();
        if let Some(w) = bounds.windows(2).find(|w| w[1] % w[0] != 0) {
            return Err(format!("the shardings split the devices at strides {} and {}, which no grid has", w[0], w[1]));
        }
        let strides: Vec<i64> = bounds[..bounds.len() - 1].iter().rev().copied().collect();
        let shape: Vec<i64> = bounds.windows(2).rev().map(|w| w[1] / w[0]).collect();
        let names: Vec<String> = (0..shape.len()).map(|i| format!("axis_{i}")).collect();
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        Ok(Some(GspmdGrid { grid: Grid::new(GRID_NAME, &shape).with_axes(&names), strides }))
    }

    /// The `shard` sharding of the string `s`.
    pub fn sharding_of(&self, s: &str) -> Result<Sharding, String> {
        let t = match gspmd::parse(s)? {
            HloSharding::Replicated => return Ok(Sharding::replicated(&self.grid.name)),
            HloSharding::Maximal(d) => return Err(format!("\"{s}\" puts the value on device {d} alone (not covered)")),
            HloSharding::Manual => return Err(format!("\"{s}\" is a manual (shard_map) sharding (not covered)")),
            HloSharding::Tiled(t) => t,
        };
        let mut dims = tile_pieces(&t).map_err(|why| format!("{why} in \"{s}\""))?;
        if t.last_tile_dim_replicate {
            dims.pop();
        }
        let mut split: Vec<Vec<i64>> = dims.iter().map(|pieces| self.axes_of(pieces)).collect();
        while split.len() > 1 && split.last().is_some_and(|v| v.is_empty()) {
            split.pop();
        }
        Ok(Sharding::new(&self.grid.name, split))
    }

    /// The grid axes (major first) whose strides the pieces cover.
    fn axes_of(&self, pieces: &[Piece]) -> Vec<i64> {
        let mut axes = Vec::new();
        for &(stride, size) in pieces {
            let covered = (0..self.strides.len()).filter(|&a| self.strides[a] >= stride && self.strides[a] < stride * size);
            axes.extend(covered.map(|a| a as i64));
        }
        axes
    }
}

/// The pieces of the device id each tile dim (the replica dim too) runs over, major first.
fn tile_pieces(t: &TileAssignment) -> Result<Vec<Vec<Piece>>, String> {
    let (reshape, perm) = t.iota().ok_or("an explicit device order (not covered)")?;
    let strides: Vec<i64> = (0..reshape.len()).map(|i| reshape[i + 1..].iter().product()).collect();
    let mut runs: std::collections::VecDeque<Piece> =
        perm.iter().map(|&p| (strides[p], reshape[p])).filter(|&(_, n)| n > 1).collect();
    let mut dims = Vec::with_capacity(t.dims.len());
    for &d in &t.dims {
        let (mut left, mut pieces) = (d, Vec::new());
        while left > 1 {
            let (stride, n) = runs.pop_front().ok_or("more tiles than devices")?;
            if n <= left {
                if left % n != 0 {
                    return Err(format!("a tile dim of {d} that splits a run of {n} devices"));
                }
                pieces.push((stride, n));
                left /= n;
            } else {
                if n % left != 0 {
                    return Err(format!("a tile dim of {d} that splits a run of {n} devices"));
                }
                pieces.push((stride * (n / left), left));
                runs.push_front((stride, n / left));
                left = 1;
            }
        }
        dims.push(pieces);
    }
    Ok(dims)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grid(devices: i64, strings: &[&str]) -> GspmdGrid {
        GspmdGrid::derive(devices, strings).unwrap().unwrap()
    }

    #[test]
    fn a_transposed_iota_maps_onto_the_minor_axis() {
        // What JAX 0.10 writes for P("dp", None) and P(None, "tp") on a 2x2 mesh.
        let dp = "{devices=[2,1,2]<=[4] last_tile_dim_replicate}";
        let tp = "{devices=[1,2,2]<=[2,2]T(1,0) last_tile_dim_replicate}";
        let both = "{devices=[2,2]<=[4]}";
        let g = grid(4, &[dp, tp, both]);
        assert_eq!(g.grid.shape, vec![2, 2]);
        assert_eq!(g.sharding_of(dp).unwrap().split_axes, vec![vec![0]]);
        assert_eq!(g.sharding_of(tp).unwrap().split_axes, vec![vec![], vec![1]]);
        assert_eq!(g.sharding_of(both).unwrap().split_axes, vec![vec![0], vec![1]]);
        assert_eq!(g.sharding_of("{replicated}").unwrap().split_axes, vec![Vec::<i64>::new()]);
    }

    #[test]
    fn one_dim_over_all_devices_takes_every_axis_in_order() {
        let g = grid(4, &["{devices=[4,1]<=[4]}", "{devices=[2,2]<=[4]}"]);
        assert_eq!(g.grid.shape, vec![2, 2]);
        assert_eq!(g.sharding_of("{devices=[4,1]<=[4]}").unwrap().split_axes, vec![vec![0, 1]]);
        assert_eq!(g.sharding_of("{devices=[1,4]<=[2,2]T(1,0)}").unwrap().split_axes, vec![vec![], vec![1, 0]]);
    }

    #[test]
    fn one_device_needs_no_grid() {
        assert!(GspmdGrid::derive(1, &["{replicated}"]).unwrap().is_none());
    }

    #[test]
    fn shardings_that_fit_no_grid_are_errors() {
        // Strides 2 (from [3,2]) and 3 (from [2,3]) over 6 devices: no common refinement.
        let err = GspmdGrid::derive(6, &["{devices=[3,2]<=[6]}", "{devices=[2,3]<=[6]}"]).unwrap_err();
        assert!(err.contains("no grid has"), "{err}");
        let err = GspmdGrid::derive(4, &["{devices=[2,2]0,2,1,3}"]).unwrap_err();
        assert!(err.contains("explicit device order"), "{err}");
        let g = grid(2, &["{devices=[2]<=[2]}"]);
        assert!(g.sharding_of("{maximal device=0}").unwrap_err().contains("not covered"));
        assert!(GspmdGrid::derive(4, &["{devices=[2]<=[2]}"]).unwrap_err().contains("uses 2 devices"));
    }
}

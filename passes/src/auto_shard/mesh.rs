//! The device mesh of `auto-shard` (`shard-cost-model.md` section 2): named axes with their
//! size, latency α and bandwidth, the peak FLOP rate, and the fixed-point time unit in which
//! every cost is kept (so that sums are exact and ties are ties). Also the parsers of the
//! pass options that describe it (`mesh=2x4 axes=dp,tp alpha=... bandwidth=...`).

/// A time in units of 10^-27 s. Costs are rounded once, term by term, and then added exactly,
/// so the total of a plan does not depend on the order of the sum and equal plans compare
/// equal; 2^128 units are about 3.4·10^11 s.
pub type Time = u128;

/// Units of [`Time`] per second.
pub const UNITS_PER_SECOND: f64 = 1e27;

/// Seconds to [`Time`] units (rounded to nearest; negative and NaN give 0, huge saturates).
pub fn units(seconds: f64) -> Time {
    let u = (seconds * UNITS_PER_SECOND).round();
    if u.is_nan() || u <= 0.0 {
        0
    } else if u >= u128::MAX as f64 {
        u128::MAX
    } else {
        u as u128
    }
}

/// [`Time`] units to seconds.
pub fn seconds(t: Time) -> f64 {
    t as f64 / UNITS_PER_SECOND
}

/// The most mesh axes of size > 1 the model handles (a sharding stores one byte per axis).
pub const MAX_AXES: usize = 8;

/// One axis of the mesh.
#[derive(Clone, Debug, PartialEq)]
pub struct MeshAxis {
    pub name: String,
    pub size: u64,
    /// Latency of one collective on this axis, seconds.
    pub alpha: f64,
    /// Bandwidth of this axis, bytes per second.
    pub bandwidth: f64,
}

/// The mesh: all its axes (as declared) and the ones the model uses (size > 1, section 1:
/// "mesh axes of size 1 are ignored"), plus the peak FLOP rate of one device.
#[derive(Clone, Debug, PartialEq)]
pub struct Mesh {
    pub axes: Vec<MeshAxis>,
    /// Indices into `axes` of the axes of size > 1; the model's axis `a` is `axes[active[a]]`.
    pub active: Vec<usize>,
    pub peak_flops: f64,
    /// Per active axis: α in time units.
    alpha_units: Vec<Time>,
}

impl Mesh {
    /// A mesh from its axes; an error for more than [`MAX_AXES`] axes of size > 1, a size of
    /// 0, a negative latency, or a bandwidth or FLOP rate that is not positive.
    pub fn new(axes: Vec<MeshAxis>, peak_flops: f64) -> Result<Mesh, String> {
        for a in &axes {
            if a.size == 0 {
                return Err(format!("mesh axis '{}' has size 0", a.name));
            }
            if !(a.alpha >= 0.0 && a.alpha.is_finite()) {
                return Err(format!("the latency of mesh axis '{}' must be a finite number >= 0, not {}", a.name, a.alpha));
            }
            if !(a.bandwidth > 0.0) {
                return Err(format!("the bandwidth of mesh axis '{}' must be > 0, not {}", a.name, a.bandwidth));
            }
        }
        if !(peak_flops > 0.0) {
            return Err(format!("peak-flops must be > 0, not {peak_flops}"));
        }
        let active: Vec<usize> = (0..axes.len()).filter(|&i| axes[i].size > 1).collect();
        if active.len() > MAX_AXES {
            return Err(format!("auto-shard handles at most {MAX_AXES} mesh axes of size > 1, not {}", active.len()));
        }
        let alpha_units = active.iter().map(|&i| units(axes[i].alpha)).collect();
        Ok(Mesh { axes, active, peak_flops, alpha_units })
    }

    /// The number of axes the model uses.
    pub fn rank(&self) -> usize {
        self.active.len()
    }
    /// Size of active axis `a`.
    pub fn size(&self, a: usize) -> u64 {
        self.axes[self.active[a]].size
    }
    /// Name of active axis `a`.
    pub fn name(&self, a: usize) -> &str {
        &self.axes[self.active[a]].name
    }
    /// The active axis of declared axis `i` (`None` for an axis of size 1).
    pub fn active_of(&self, i: usize) -> Option<usize> {
        self.active.iter().position(|&x| x == i)
    }
    /// Shape of the mesh as declared.
    pub fn shape(&self) -> Vec<u64> {
        self.axes.iter().map(|a| a.size).collect()
    }
    /// Number of devices.
    pub fn devices(&self) -> u64 {
        self.axes.iter().map(|a| a.size).product()
    }

    /// Time of a collective on active axis `a` that moves `num / den` times `bytes` over the
    /// axis' bandwidth: α + num·bytes / (den·B) (section 3.1; `den` divides out the ring's
    /// `(n-1)/n`).
    pub fn collective_time(&self, a: usize, num: u64, den: u64, bytes: u64) -> Time {
        let b = self.axes[self.active[a]].bandwidth;
        let moved = (num as f64) * (bytes as f64) / ((den as f64) * b);
        self.alpha_units[a].saturating_add(units(moved))
    }

    /// Compute time of `flops` split `ways` ways: FLOPs / ways / peak (section 3.4).
    pub fn compute_time(&self, flops: f64, ways: u64) -> Time {
        units(flops / (ways as f64) / self.peak_flops)
    }
}

/// Parses `2x4` (or `8`) into axis sizes.
pub fn parse_shape(s: &str) -> Result<Vec<u64>, String> {
    let s = s.trim();
    if s.is_empty() {
        return Err("mesh= is required (e.g. mesh=2x4)".into());
    }
    s.split('x')
        .map(|d| {
            d.trim()
                .parse::<u64>()
                .ok()
                .filter(|&n| n > 0)
                .ok_or_else(|| format!("mesh='{s}': '{d}' is not a positive integer (expected sizes joined by 'x', e.g. 2x4)"))
        })
        .collect()
}

/// Parses a list of per-axis numbers (`20e-6,5e-6`): one per axis, or a single value for all.
pub fn parse_per_axis(option: &str, items: &[String], axes: usize, default: f64) -> Result<Vec<f64>, String> {
    if items.is_empty() {
        return Ok(vec![default; axes]);
    }
    let vals: Vec<f64> = items
        .iter()
        .map(|s| {
            s.trim()
                .parse::<f64>()
                .ok()
                .filter(|v| v.is_finite())
                .ok_or_else(|| format!("{option}: '{s}' is not a number"))
        })
        .collect::<Result<_, _>>()?;
    match vals.len() {
        1 => Ok(vec![vals[0]; axes]),
        n if n == axes => Ok(vals),
        n => Err(format!("{option} has {n} values but the mesh has {axes} axes (give one per axis, or one for all)")),
    }
}

/// Parses a byte count: an integer with an optional `B`, `KiB`, `MiB`, `GiB` or `TiB`
/// suffix (`48MiB`), or a plain number (`1e9`).
pub fn parse_bytes(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let (num, mult) = [("TiB", 1u64 << 40), ("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10), ("B", 1)]
        .iter()
        .find_map(|&(suf, m)| t.strip_suffix(suf).map(|n| (n.trim(), m)))
        .unwrap_or((t, 1));
    let bad = || format!("memory-limit='{s}' is not a byte count (e.g. 48MiB, 1GiB, 65536)");
    if let Ok(n) = num.parse::<u64>() {
        return n.checked_mul(mult).ok_or_else(bad);
    }
    match num.parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 && v * (mult as f64) < u64::MAX as f64 => Ok((v * mult as f64).round() as u64),
        _ => Err(bad()),
    }
}

//! GSPMD's sharding strings, which JAX writes instead of Shardy's attributes when
//! `jax_use_shardy_partitioner` is off: `mhlo.sharding = "{devices=[2,1,2]<=[4] last_tile_dim_replicate}"`
//! on arguments, results and `stablehlo.custom_call @Sharding`. Parsed here into [`HloSharding`];
//! `convert-stablehlo-to-tensor` maps them onto one grid. The format is XLA's
//! `HloSharding::ToString` (xla/hlo/ir/hlo_sharding.cc, tile_assignment.cc).

/// A parsed `mhlo.sharding` string.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HloSharding {
    /// `{replicated}` (or `{}`): every device holds the whole value.
    Replicated,
    /// `{maximal device=N}`: the whole value on device N.
    Maximal(i64),
    /// `{manual}`: the value is already per-device (inside `shard_map`).
    Manual,
    /// `{devices=[...]...}`: split over a tile assignment.
    Tiled(TileAssignment),
}

/// A tile assignment: the tensor's dims are split into `dims[i]` tiles (with one more trailing
/// dim of replicas when `last_tile_dim_replicate`); `devices` gives the device of each tile.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TileAssignment {
    pub dims: Vec<i64>,
    pub devices: Devices,
    pub last_tile_dim_replicate: bool,
}

/// The device of each tile, in row-major tile order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Devices {
    /// `<=[r0,...,rk]T(p0,...,pk)`: `iota(product)` reshaped to `reshape`, transposed by `perm`
    /// (identity when no `T(...)` is written), then read in row-major order.
    Iota { reshape: Vec<i64>, perm: Vec<usize> },
    /// An explicit list `0,2,1,3`.
    List(Vec<i64>),
}

impl TileAssignment {
    /// The number of devices (the product of the tile dims).
    pub fn device_count(&self) -> i64 {
        self.dims.iter().product()
    }
    /// The assignment as an iota form, if it is one: an explicit list that is `0, 1, 2, ...`
    /// is the plain iota.
    pub fn iota(&self) -> Option<(Vec<i64>, Vec<usize>)> {
        match &self.devices {
            Devices::Iota { reshape, perm } => Some((reshape.clone(), perm.clone())),
            Devices::List(l) => {
                let plain = l.iter().enumerate().all(|(i, &d)| d == i as i64);
                plain.then(|| (vec![self.device_count()], vec![0]))
            }
        }
    }
}

/// Parses an `mhlo.sharding` string; the error says what is wrong in it.
pub fn parse(s: &str) -> Result<HloSharding, String> {
    let inner = s
        .trim()
        .strip_prefix('{')
        .and_then(|r| r.strip_suffix('}'))
        .ok_or_else(|| format!("expected '{{...}}' in GSPMD sharding \"{s}\""))?
        .trim();
    if inner.is_empty() || inner == "replicated" {
        return Ok(HloSharding::Replicated);
    }
    if inner == "manual" {
        return Ok(HloSharding::Manual);
    }
    if let Some(dev) = inner.strip_prefix("maximal device=") {
        return dev.trim().parse().map(HloSharding::Maximal).map_err(|_| format!("bad device in \"{s}\""));
    }
    let rest = inner.strip_prefix("devices=").ok_or_else(|| format!("unsupported GSPMD sharding \"{s}\""))?;
    tiled(rest).map(HloSharding::Tiled).map_err(|why| format!("{why} in GSPMD sharding \"{s}\""))
}

/// `[d0,...]<=[r...]T(p...) [last_tile_dim_replicate]` or `[d0,...]i0,i1,... [...]`.
fn tiled(text: &str) -> Result<TileAssignment, String> {
    let (dims, rest) = bracketed(text)?;
    let (devices_text, flags) = rest.split_once(' ').unwrap_or((rest, ""));
    let last_tile_dim_replicate = match flags.trim() {
        "" => false,
        "last_tile_dim_replicate" => true,
        other => return Err(format!("unsupported '{other}'")),
    };
    let count: i64 = dims.iter().product();
    let devices = if let Some(iota) = devices_text.strip_prefix("<=") {
        let (reshape, tail) = bracketed(iota)?;
        let perm: Vec<usize> = match tail.strip_prefix("T(").and_then(|t| t.strip_suffix(')')) {
            Some(p) => ints(p)?.into_iter().map(|x| x as usize).collect(),
            None if tail.is_empty() => (0..reshape.len()).collect(),
            None => return Err(format!("unexpected '{tail}'")),
        };
        let mut sorted = perm.clone();
        sorted.sort_unstable();
        if sorted != (0..reshape.len()).collect::<Vec<_>>() || reshape.iter().product::<i64>() != count {
            return Err("an iota device list that does not match its tile dims".into());
        }
        Devices::Iota { reshape, perm }
    } else {
        let list = ints(devices_text)?;
        if list.len() as i64 != count {
            return Err(format!("{} devices for {count} tiles", list.len()));
        }
        Devices::List(list)
    };
    Ok(TileAssignment { dims, devices, last_tile_dim_replicate })
}

/// `[1,2,3]rest` -> ([1, 2, 3], "rest").
fn bracketed(text: &str) -> Result<(Vec<i64>, &str), String> {
    let body = text.strip_prefix('[').ok_or("expected '['")?;
    let (list, rest) = body.split_once(']').ok_or("expected ']'")?;
    Ok((ints(list)?, rest))
}

/// Comma-separated non-negative integers.
fn ints(text: &str) -> Result<Vec<i64>, String> {
    text.split(',')
        .map(|x| x.trim().parse::<i64>().ok().filter(|&v| v >= 0).ok_or_else(|| format!("bad number '{x}'")))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tiles(s: &str) -> TileAssignment {
        match parse(s).unwrap() {
            HloSharding::Tiled(t) => t,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn parses_replicated_maximal_and_manual() {
        assert_eq!(parse("{replicated}"), Ok(HloSharding::Replicated));
        assert_eq!(parse("{maximal device=3}"), Ok(HloSharding::Maximal(3)));
        assert_eq!(parse("{manual}"), Ok(HloSharding::Manual));
    }

    #[test]
    fn parses_iota_tile_assignments_with_transpose_and_replication() {
        let t = tiles("{devices=[1,2,2]<=[2,2]T(1,0) last_tile_dim_replicate}");
        assert_eq!(t.dims, vec![1, 2, 2]);
        assert_eq!(t.devices, Devices::Iota { reshape: vec![2, 2], perm: vec![1, 0] });
        assert!(t.last_tile_dim_replicate);
        let t = tiles("{devices=[2,2]<=[4]}");
        assert_eq!(t.iota(), Some((vec![4], vec![0])));
    }

    #[test]
    fn an_explicit_list_is_iota_only_when_in_order() {
        assert_eq!(tiles("{devices=[2,2]0,1,2,3}").iota(), Some((vec![4], vec![0])));
        assert_eq!(tiles("{devices=[2,2]0,2,1,3}").iota(), None);
    }

    #[test]
    fn rejects_malformed_strings_with_the_reason() {
        assert!(parse("devices=[2]<=[2]").unwrap_err().contains("expected '{...}'"));
        assert!(parse("{devices=[2,2]<=[3]}").unwrap_err().contains("does not match"));
        assert!(parse("{devices=[2]<=[2] last_tile_dims={manual}}").unwrap_err().contains("unsupported"));
        assert!(parse("{devices=[2,2]0,1}").unwrap_err().contains("2 devices for 4 tiles"));
    }
}

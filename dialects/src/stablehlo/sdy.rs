//! The Shardy (`sdy`) ops and attributes JAX writes for sharded programs (JAX 0.10 exports
//! Shardy, not GSPMD's `mhlo.sharding` strings): `sdy.mesh @mesh = #sdy.mesh<["dp"=2, "tp"=2]>`,
//! `#sdy.sharding<@mesh, [{"dp"}, {}]>` on arguments and results, and
//! `sdy.sharding_constraint` (`jax.lax.with_sharding_constraint`). `convert-stablehlo-to-tensor`
//! makes them `shard.grid` and `shard.shard` annotations. Upstream: openxla/shardy `ops.td`.

use xcs_ir::opdef::constraints::*;
use xcs_ir::opdef::{AttrConstraint, AttrDef, DialectDef, ParamsError, Syntax};
use xcs_ir::{op, Attr, AttrKind, Context};

use super::TENSOR;

pub const MESH_ATTR: AttrConstraint =
    AttrConstraint { desc: "#sdy.mesh<[\"name\"=size, ...]>", check: |c, a| Mesh::from_attr(c, a).is_some() };
pub const SHARDING_ATTR: AttrConstraint =
    AttrConstraint { desc: "#sdy.sharding<@mesh, [{...}, ...]>", check: |c, a| SdySharding::from_attr(c, a).is_some() };

op! {
    /// A named device mesh: `mesh = #sdy.mesh<["dp"=2, "tp"=2]>`.
    pub struct MeshOp = "sdy.mesh" in SDY_OPS {
        summary: "Device mesh",
        attributes: { sym_name: SYMBOL_NAME_ATTR, mesh: MESH_ATTR },
        traits: [Symbol],
        syntax: Syntax::Generic,
    }
}

op! {
    /// `input` read in `sharding` (`jax.lax.with_sharding_constraint`); the value is unchanged.
    pub struct ShardingConstraintOp = "sdy.sharding_constraint" in SDY_OPS {
        summary: "Sharding constraint",
        operands: { input: TENSOR },
        results: { result: TENSOR },
        attributes: { sharding: SHARDING_ATTR },
        traits: [SameOperandsAndResultType],
        syntax: Syntax::Generic,
    }
}

xcs_ir::op_list!(pub SDY_OPS);

pub static SDY_DIALECT: DialectDef = DialectDef {
    name: "sdy",
    summary: "The Shardy ops and attributes of JAX's sharded exports (input of convert-stablehlo-to-tensor)",
    description: "`sdy.mesh` and `sdy.sharding_constraint`, and the `#sdy.mesh` / `#sdy.sharding` \
attributes; `convert-stablehlo-to-tensor` turns them into `shard.grid` and `shard.shard`.",
    ops: xcs_ir::opdef::OpList::Collected(&SDY_OPS),
    types: &[],
    attrs: &[
        AttrDef {
            mnemonic: "mesh",
            summary: "Device mesh axes",
            description: "`#sdy.mesh<[\"dp\"=2, \"tp\"=4]>`: named axes and their sizes.",
            params: Some(mesh_params),
        },
        AttrDef {
            mnemonic: "sharding",
            summary: "Per-dim mesh axes of a tensor",
            description: "`#sdy.sharding<@mesh, [{\"dp\"}, {}]>`: the mesh and, per dim, the axes splitting \
it (major to minor). Open dims (`?`), priorities and `replicated={...}` are accepted; they do not \
change the split.",
            params: Some(sharding_params),
        },
    ],
    materialize_constant: None,
};

/// `#sdy.mesh<...>`: axis names and sizes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mesh {
    pub axes: Vec<(String, i64)>,
}

/// `#sdy.sharding<...>`: the mesh's symbol and, per dim, the axis names splitting it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SdySharding {
    pub mesh: String,
    pub dims: Vec<Vec<String>>,
}

/// The parameters of a `#sdy` attribute whose text starts with `prefix` (`sdy.mesh<`).
fn dialect_text<'c>(ctx: &'c Context, a: Attr, prefix: &str) -> Option<&'c str> {
    match ctx.attr_kind(a) {
        AttrKind::Dialect { text, .. } => text.strip_prefix(prefix)?.strip_suffix('>'),
        _ => None,
    }
}

/// The quoted names of a comma-separated list (`"a", "b":(1)2`); sub-axes are not covered.
fn quoted_names(text: &str) -> Option<Vec<String>> {
    let mut out = Vec::new();
    for part in text.split(',').map(str::trim).filter(|p| !p.is_empty() && *p != "?") {
        out.push(part.strip_prefix('"')?.strip_suffix('"')?.to_string());
    }
    Some(out)
}

impl Mesh {
    pub fn parse(inner: &str) -> Option<Mesh> {
        let list = inner.trim().strip_prefix('[')?.strip_suffix(']')?;
        let mut axes = Vec::new();
        for item in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let (name, size) = item.split_once('=')?;
            let name = name.trim().strip_prefix('"')?.strip_suffix('"')?;
            axes.push((name.to_string(), size.trim().parse().ok().filter(|&n: &i64| n > 0)?));
        }
        Some(Mesh { axes })
    }
    pub fn from_attr(ctx: &Context, a: Attr) -> Option<Mesh> {
        Mesh::parse(dialect_text(ctx, a, "sdy.mesh<")?)
    }
}

impl SdySharding {
    pub fn parse(inner: &str) -> Option<SdySharding> {
        let (mesh, rest) = inner.trim().strip_prefix('@')?.split_once(',')?;
        let rest = rest.trim().strip_prefix('[')?;
        let close = rest.find(']')?;
        let mut dims = Vec::new();
        let mut body = &rest[..close];
        while let Some(open) = body.find('{') {
            let end = open + body[open..].find('}')?;
            dims.push(quoted_names(&body[open + 1..end])?);
            body = &body[end + 1..];
        }
        Some(SdySharding { mesh: mesh.trim().to_string(), dims })
    }
    pub fn from_attr(ctx: &Context, a: Attr) -> Option<SdySharding> {
        SdySharding::parse(dialect_text(ctx, a, "sdy.sharding<")?)
    }
}

fn mesh_params(_: &Context, text: &str) -> Result<String, ParamsError> {
    let inner = text.trim().strip_prefix('<').and_then(|t| t.strip_suffix('>')).unwrap_or("");
    Mesh::parse(inner).map(|_| text.to_string()).ok_or_else(|| ParamsError {
        message: "expected #sdy.mesh<[\"axis\"=size, ...]>".into(),
        offset: Some(0),
    })
}

fn sharding_params(_: &Context, text: &str) -> Result<String, ParamsError> {
    let inner = text.trim().strip_prefix('<').and_then(|t| t.strip_suffix('>')).unwrap_or("");
    SdySharding::parse(inner).map(|_| text.to_string()).ok_or_else(|| ParamsError {
        message: "expected #sdy.sharding<@mesh, [{\"axis\", ...}, ...]>".into(),
        offset: Some(0),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses() {
        let m = Mesh::parse("[\"dp\"=2, \"tp\"=4]").unwrap();
        assert_eq!(m.axes, vec![("dp".to_string(), 2), ("tp".to_string(), 4)]);
        let s = SdySharding::parse("@mesh, [{\"dp\"}, {}, {\"tp\", \"dp\"}]").unwrap();
        assert_eq!(s.mesh, "mesh");
        assert_eq!(s.dims, vec![vec!["dp".to_string()], vec![], vec!["tp".to_string(), "dp".to_string()]]);
        let s = SdySharding::parse("@mesh, [{?}, {\"tp\", ?}], replicated={\"dp\"}").unwrap();
        assert_eq!(s.dims, vec![vec![], vec!["tp".to_string()]]);
        assert!(Mesh::parse("[\"dp\"=0]").is_none());
    }
}

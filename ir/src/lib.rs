//! `xcs-ir`: the core of the XCS compiler, in the model of MLIR's `lib/IR`, `lib/AsmParser`,
//! `lib/Pass`. Start with [`Context`] (interning and registry), [`body::Body`] (op storage),
//! [`parser`] and [`printer`] (the MLIR text format), [`verifier`] and [`pass`].

pub mod entity;
pub mod intern;
pub mod context;
pub mod types;
pub mod attrs;
pub mod float_format;
pub mod location;
pub mod body;
pub mod builder;
pub mod clone;
pub mod module;
pub mod opdef;
pub mod interfaces;
pub mod op_interface;
pub mod rewrite;
pub mod diag;
pub mod builtin;
pub mod lexer;
pub mod parser;
pub mod printer;
pub mod verifier;
pub mod render;
pub mod source_text;
pub mod verify_diagnostics;
pub mod split;
pub mod resources;
pub mod pass;

pub use attrs::AttrKind;
pub use builder::{Builder, InsertPoint};
pub use body::{Block, Body, Op, OperationState, Region, Value, ValueDef};
pub use context::{Attr, Context, Ident, OpName};
pub use diag::{DiagSink, Diagnostic, Severity};
pub use location::{LocKind, Location};
pub use module::Module;
pub use resources::{Resource, ResourceBlob};
pub use opdef::{OpDef, OpView, Traits};
pub use types::{Type, TypeKind, DYNAMIC};

/// Re-exported for the `op!` and `op_list!` macros (dialect op lists are distributed slices).
#[doc(hidden)]
pub use linkme;

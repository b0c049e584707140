//! The MLIR text parser (generic form, the uniform XCS pretty form, custom op hooks).

use crate::body::OperationState;
use crate::context::Context;
use crate::diag::Diagnostic;
use crate::module::Module;

pub type PResult<T> = Result<T, Diagnostic>;

/// Parses the custom form of one op into `state` (MLIR's `OpAsmParser` role).
pub type CustomParseFn = fn(&mut OpAsmParser<'_>, &mut OperationState) -> PResult<()>;

/// The parser handle custom op syntax is written against.
pub struct OpAsmParser<'a> {
    _p: std::marker::PhantomData<&'a ()>,
}

/// Parser settings.
#[derive(Clone, Debug, Default)]
pub struct ParseOptions {
    /// Keep ops, types and attributes of unregistered dialects as opaque (mlir-opt's
    /// `--allow-unregistered-dialect`).
    pub allow_unregistered: bool,
    /// Lines before `src` in its file (for `--split-input-file` chunks), so locations and
    /// diagnostics name the line of the whole file.
    pub line_offset: u32,
}

/// Parses a whole file: top-level ops (wrapped in an implicit `builtin.module` unless the file
/// is exactly one `builtin.module`) and alias definitions. Stops at the first error.
pub fn parse_module(_ctx: &Context, _src: &str, _file: &str, _opts: &ParseOptions) -> PResult<Module> {
    unimplemented!("parser")
}

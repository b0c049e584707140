"""The exceptions of the package: every failure of `xcs` is an `XcsError`.

`TraceError` (building IR from Python), `CompileError` (parsing, a pass, LLVM), `RunError`
(the interpreter, compiled code, a provider). Each carries the rendered IR diagnostic and,
when it has one, the Python file:line:col the failing op was traced from.
"""

import re

_LOCATED = re.compile(r'^(?:error: )?"?(?P<file>[^":\n]+)"?:(?P<line>\d+):(?P<col>\d+): (?:error: )?(?P<msg>.*)$', re.M)


class XcsError(Exception):
    """Base of every XCS exception.

    Attributes: `diagnostic` (the full rendered diagnostic), `file`, `line`, `col` (the
    location of the first located line, or None), `message` (its text).
    """

    def __init__(self, diagnostic, file=None, line=None, col=None):
        super().__init__(diagnostic)
        self.diagnostic = diagnostic
        self.file, self.line, self.col = file, line, col
        self.message = diagnostic
        if file is None:
            m = _LOCATED.search(diagnostic)
            if m:
                self.file, self.line, self.col = m["file"], int(m["line"]), int(m["col"])
                self.message = m["msg"]


class TraceError(XcsError):
    """Tracing a Python function into IR failed (a shape error, an unsupported value...)."""


class BindingError(TraceError):
    """A kernel launch binds its parameters wrongly: a missing, extra or mistyped tensor,
    constexpr or axis variable (the message names the parameter)."""


class CompileError(XcsError):
    """Parsing, verifying, a pass of the pipeline, or the LLVM backend failed."""


class RunError(XcsError):
    """Running failed: compiled code, the interpreter, or a provider/external call.

    `results` holds the results of the items that succeeded when a batched call fails on
    some items (`indices` names the failed ones).
    """

    def __init__(self, diagnostic, file=None, line=None, col=None, results=None, indices=None):
        super().__init__(diagnostic, file, line, col)
        self.results = results
        self.indices = indices


class LazyTensorError(XcsError):
    """`xcs.lazy` (seed 003's LazyTensor) failed: the base of its two errors below."""


class MaterializationError(LazyTensorError):
    """Compiling or running a captured graph failed (the cause is chained)."""


class UnsupportedOperationError(LazyTensorError):
    """An operation on a LazyTensor has neither a tensor op nor an eager fallback (writing
    into an immutable lazy tensor, `out=` a lazy tensor)."""

"""XCS from Python: trace numpy-style code and LLM calls into XCS IR, compile and run it.

`xcs.jit` (trace, optimize, compile through LLVM, cache), `xcs.numpy` and `xcs.nn` (numpy's
and jax.nn's names for the tensor dialect's ops), the exceptions (`xcs.XcsError` and its
subclasses), and the native layer (`xcs.Program`: parse, pipelines, interpreter, JIT).
See docs/python.md.
"""

from . import errors
from .errors import XcsError, TraceError, CompileError, RunError
from ._native import Program, Executable
from . import numpy
from . import nn
from ._jit import jit, JitFunction, DEFAULT_PIPELINE

__all__ = ["XcsError", "TraceError", "CompileError", "RunError", "Program", "Executable",
           "numpy", "nn", "jit", "JitFunction", "DEFAULT_PIPELINE"]

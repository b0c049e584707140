"""XCS from Python: trace numpy-style code and LLM calls into XCS IR, compile and run it."""

from . import errors
from .errors import XcsError, TraceError, CompileError, RunError
from ._native import Program, Executable

"""XCS from Python: trace numpy-style code and LLM calls into XCS IR, compile and run it.

`xcs.jit` (trace, optimize, compile through LLVM, cache), `xcs.vmap`, `xcs.numpy` and `xcs.nn`
(numpy's and jax.nn's names for the tensor dialect's ops), `xcs.llm`/`xcs.format` and the
providers, seed 000's markers and `analyze_operations`, the exceptions (`xcs.XcsError` and
its subclasses), `xcs.shard_map` (auto-sharded SPMD runs on simulated devices), and the native layer (`xcs.Program`: parse, pipelines, interpreter, JIT);
`xcs.from_jax` compiles a JAX function from its StableHLO export.
See docs/python.md.
"""

from . import errors
from .errors import XcsError, TraceError, CompileError, RunError
from ._native import Program, Executable
from . import numpy
from . import nn
from . import providers
from ._jit import jit, JitFunction, DEFAULT_PIPELINE
from ._vmap import vmap, parallel_map, VmapFunction
from ._orchestration import llm, format, mark_tensor, mark_orchestration, mark_hybrid, mark_pytree_safe
from ._classify import analyze_operations, OperationSummary
from ._shard_map import shard_map, ShardMapFunction, Mesh, PartitionSpec, P
from ._jax import from_jax, JaxFunction

__all__ = ["XcsError", "TraceError", "CompileError", "RunError", "Program", "Executable", "numpy", "nn",
           "providers", "jit", "JitFunction", "DEFAULT_PIPELINE", "vmap", "parallel_map", "VmapFunction",
           "llm", "format", "mark_tensor", "mark_orchestration", "mark_hybrid", "mark_pytree_safe",
           "analyze_operations", "OperationSummary", "shard_map", "ShardMapFunction", "Mesh", "PartitionSpec", "P",
           "from_jax", "JaxFunction"]

"""XCS from Python: trace numpy-style code and LLM calls into XCS IR, compile and run it.

`xcs.jit` (trace, optimize, compile through LLVM, cache), `xcs.vmap`, `xcs.numpy` and `xcs.nn`
(numpy's and jax.nn's names for the tensor dialect's ops), `xcs.llm`/`xcs.format` and the
providers, seed 000's markers and `analyze_operations`, the exceptions (`xcs.XcsError` and
its subclasses), `@xcs.kernel` and `xcs.workload`/`xcs.parallel_for` (seed 002's kernels launched over
parallel grids), `xcs.shard_map` (auto-sharded SPMD runs on simulated devices), the native layer
(`xcs.Program`: parse, pipelines, interpreter, JIT), and `xcs.lazy` (seed 003's LazyTensor: capture
without a decorator, materialize on demand); `xcs.from_jax` compiles a JAX function from its StableHLO export.
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
from .errors import BindingError
from ._kernel import kernel, KernelRef, KernelSignature, Tensor, In, Out, InOut, Constexpr, AxisVar
from ._workload import workload, Workload, parallel_for, task
from ._schedule import WorkloadProgram
from . import lazy
from ._jax import from_jax, JaxFunction

__all__ = ["XcsError", "TraceError", "CompileError", "RunError", "Program", "Executable", "numpy", "nn",
           "providers", "jit", "JitFunction", "DEFAULT_PIPELINE", "vmap", "parallel_map", "VmapFunction",
           "llm", "format", "mark_tensor", "mark_orchestration", "mark_hybrid", "mark_pytree_safe",
           "analyze_operations", "OperationSummary", "shard_map", "ShardMapFunction", "Mesh", "PartitionSpec", "P",
           "BindingError", "kernel", "KernelRef", "KernelSignature", "Tensor", "In", "Out", "InOut", "Constexpr",
           "AxisVar", "workload", "Workload", "parallel_for", "task", "WorkloadProgram", "lazy", "from_jax", "JaxFunction"]

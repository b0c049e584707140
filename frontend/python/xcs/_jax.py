"""`xcs.from_jax`: compile a JAX function with XCS instead of XLA.

JAX lowers the function to StableHLO for the example arguments' shapes and dtypes (the MLIR
generic form, with locations); XCS parses it, runs `convert-stablehlo-to-tensor` and its
pipeline, and compiles `main` through LLVM (or runs it on the reference interpreter). See
docs/interop.md ("From JAX") for the covered ops.
"""

import numpy as np

from ._native import Program
from .errors import CompileError, RunError

#: What `from_jax` runs after the conversion: inline JAX's private functions, simplify, fuse.
JAX_PIPELINE = ("builtin.module(convert-stablehlo-to-tensor,inline,func.func(canonicalize,cse,fuse),"
                "symbol-dce)")


def stablehlo_text(f, *example_args):
    """The StableHLO module JAX exports for `f` at the example arguments (generic form, with
    locations): what `xcs-opt -p 'builtin.module(convert-stablehlo-to-tensor)'` reads."""
    import jax
    lowered = jax.jit(f).lower(*example_args)
    module = lowered.compiler_ir("stablehlo")
    return module.operation.get_asm(print_generic_op_form=True, enable_debug_info=True), lowered


class JaxFunction:
    """A JAX function compiled by XCS for one signature (the example arguments' shapes and
    dtypes). Call it with arrays of that signature (pytrees as JAX takes them); it returns
    numpy arrays in the structure JAX would.

    Attributes: `stablehlo` (the module JAX exported), `program` (the XCS program after the
    pipeline), `backend` (`"jit"` or `"interp"`).
    """

    def __init__(self, f, example_args, pipeline, backend):
        import jax
        if backend not in ("jit", "interp"):
            raise CompileError(f"from_jax: backend must be 'jit' or 'interp', not {backend!r}")
        self.stablehlo, lowered = stablehlo_text(f, *example_args)
        leaves, self._in_tree = jax.tree_util.tree_flatten(example_args)
        self._in_specs = [(tuple(np.shape(x)), np.asarray(x).dtype) for x in leaves]
        self._out_tree = lowered.out_tree
        name = getattr(f, "__name__", "f")
        self.program = Program.parse(self.stablehlo, f"<jax:{name}>")
        self.program.run_pipeline(pipeline)
        self.backend = backend
        self.executable = None
        if backend == "jit":
            self.executable = self.program.compile("main", [list(s) for s, _ in self._in_specs])

    def as_text(self, debug_info=False):
        """The XCS module after the pipeline."""
        return self.program.text(debug_info=debug_info)

    def _arrays(self, args):
        import jax
        leaves, tree = jax.tree_util.tree_flatten(args)
        if tree != self._in_tree:
            raise RunError(f"from_jax: the arguments have structure {tree}, but the function was compiled for {self._in_tree}")
        out = []
        for i, (x, (shape, dtype)) in enumerate(zip(leaves, self._in_specs)):
            a = np.ascontiguousarray(np.asarray(x), dtype=dtype)
            if a.shape != shape:
                raise RunError(f"from_jax: argument #{i} has shape {a.shape}, but the function was compiled for {shape}")
            out.append(a)
        return out

    def __call__(self, *args):
        import jax
        arrays = self._arrays(args)
        if self.executable is not None:
            results = self.executable(*arrays)
        else:
            results = self.program.interpret("main", arrays)
        return jax.tree_util.tree_unflatten(self._out_tree, list(results))


def from_jax(f, *example_args, pipeline=JAX_PIPELINE, backend="jit"):
    """Compiles the JAX function `f` with XCS for the shapes and dtypes of `example_args`.

    ```python
    g = xcs.from_jax(lambda x, w: jax.nn.gelu(x @ w), x, w)
    y = g(x, w)        # numpy arrays, computed by XCS's LLVM-compiled code
    ```

    `backend="interp"` runs the reference interpreter instead. Ops outside the covered set
    raise `xcs.CompileError` located in JAX's source (docs/interop.md)."""
    return JaxFunction(f, example_args, pipeline, backend)

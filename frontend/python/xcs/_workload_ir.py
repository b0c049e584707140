"""The IR text of a resolved workload (`Plan`): one `xcs.kernel` per kernel specialization
(constexpr values substituted, view types as parameter types, a body yielding the new values
of the written parameters) and a `func.func` whose body is an `xcs.workload` (operands: the
inputs; block arguments: the inputs then the outputs; results: the outputs) holding the
`xcs.parallel_for` grid and the `xcs.launch` ops with their views (`%Q[%b, %h]`,
`%A[%b, 4*%i:4*%i + 4]`), as `docs/dialects/xcs.md` describes them.
"""

from . import _core
from ._workload import Loop, AxisExpr


def _affine(expr, names):
    """`4*%i + 4` (MLIR-ish affine text over the axis operands)."""
    pieces, first = [], True
    for a, c in sorted(expr.coefs.items(), key=lambda t: t[0].index):
        sign = ("-" if c < 0 else "") if first else (" - " if c < 0 else " + ")
        pieces.append(sign + (names[a] if abs(c) == 1 else f"{abs(c)}*{names[a]}"))
        first = False
    if first:
        return str(expr.constant)
    if expr.constant:
        pieces.append((" - " if expr.constant < 0 else " + ") + str(abs(expr.constant)))
    return "".join(pieces)


def view_text(view, names):
    """`%Q[%b, %h]`-style view suffix (empty for the whole tensor)."""
    entries = []
    for d, e in enumerate(view.dims):
        if e[0] == "index":
            entries.append(_affine(e[1], names))
        elif e[2] is None:
            entries.append(":")
        else:
            entries.append(f"{_affine(e[1], names)}:{_affine(e[1] + AxisExpr({}, e[2]), names)}")
    while entries and entries[-1] == ":":
        entries.pop()
    return f"[{', '.join(entries)}]" if entries else ""


class _Emitter:
    def __init__(self, plan):
        self.plan = plan
        w = plan.workload
        self.tensors = list(w.tensors.values())
        taken = set()
        self.names = {}
        for t in self.tensors:
            self.names[t.name] = self._unique(t.name, taken)
        for a in w.axes:
            self.names[a] = self._unique(a.name, taken)
        self.symbols = {}  # specialization key -> symbol
        self.kernels = []  # kernel texts

    @staticmethod
    def _unique(name, taken):
        n, k = name, 0
        while n in taken:
            k += 1
            n = f"{name}_{k}"
        taken.add(n)
        return "%" + n

    def type_of(self, t):
        shape, dtype = self.plan.specs[t.name]
        return _core.tensor_type(shape, dtype)

    def symbol(self, launch):
        key = self.plan.keys[id(launch)]
        sym = self.symbols.get(key)
        if sym is None:
            base = launch.kernel.symbol
            used = set(self.symbols.values())
            sym, k = base, 0
            while sym in used:
                k += 1
                sym = f"{base}_{k}"
            self.symbols[key] = sym
            self.kernels.append(self.plan.specialization(launch).kernel_text(sym))
        return sym

    def launch_text(self, launch, indent):
        sig = launch.kernel.signature
        axes = ", ".join(self.names[a] for a in launch.axes)
        operands = ", ".join(self.names[launch.views[p.name].tensor.name] + view_text(launch.views[p.name], self.names)
                             for p in sig.tensors)
        types = ", ".join(self.type_of(launch.views[p.name].tensor) for p in sig.tensors)
        attrs = ""
        if launch.given_constexprs:
            from ._kernel import constexpr_attr
            attrs = " {constexprs = {" + ", ".join(f"{n} = {constexpr_attr(launch.constexprs[n])}"
                                                   for n in launch.given_constexprs) + "}}"
        return (f"{indent}xcs.launch @{self.symbol(launch)}[{axes}]({operands}){attrs} : {types} "
                f"{_core.loc_text(launch.where)}")

    def body_lines(self, body, indent):
        lines = []
        for s in body:
            if isinstance(s, Loop):
                lines.append(f"{indent}xcs.parallel_for {{extent = {s.axis.extent} : i64}} : () -> () {{")
                lines.append(f"{indent}^bb0({self.names[s.axis]}: index):")
                lines += self.body_lines(s.body, indent + "  ")
                lines.append(f"{indent}}}")
            else:
                lines.append(self.launch_text(s, indent))
        return lines

    def module(self):
        w = self.plan.workload
        inputs = [t for t in self.tensors if t.kind == "input"]
        outputs = [t for t in self.tensors if t.kind == "output"]
        body = self.body_lines(w.body, "      ")
        args = ", ".join(f"%arg{i}: {self.type_of(t)}" for i, t in enumerate(inputs))
        in_types = ", ".join(self.type_of(t) for t in inputs)
        out_types = ", ".join(self.type_of(t) for t in outputs)
        results = f"%results:{len(outputs)}" if len(outputs) > 1 else "%results"
        block = ", ".join(f"{self.names[t.name]}: {self.type_of(t)}" for t in inputs + outputs)
        operands = (" " + ", ".join(f"%arg{i}" for i in range(len(inputs)))) if inputs else ""
        rsig = out_types if len(outputs) == 1 else f"({out_types})"
        ret = ", ".join(f"%results#{i}" if len(outputs) > 1 else "%results" for i in range(len(outputs)))
        func = [f"func.func @{w.name}({args}) -> ({out_types}) {{",
                f"    {results} = xcs.workload{operands} : ({in_types}) -> {rsig} {{",
                f"    ^bb0({block}):"] + body + ["    }", f"    return {ret} : {out_types}", "  }"]
        return "module {\n  " + "\n  ".join(self.kernels + ["\n  ".join(func)]) + "\n}\n"


def module_text(plan):
    """The module of a workload resolved by `plan`."""
    w = plan.workload
    if not any(t.kind == "output" for t in w.tensors.values()):
        raise _core.user_error(f"workload {w.name!r} has no output (declare one with w.output(name, shape, dtype))")
    return _Emitter(plan).module()

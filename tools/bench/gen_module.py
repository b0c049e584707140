#!/usr/bin/env python3
"""Writes synthetic MLIR modules in the generic form for the XCS IR benchmarks.

The output is one `"builtin.module"() ({ ... }) : () -> ()` holding `func.func`s whose
bodies are data-flow chains on tensor types, in the style of a traced transformer model
(embeddings, matmuls, elementwise chains, reductions, softmax, layer norms, fused regions,
calls). Deterministic for a given (--ops, --funcs, --seed, --flavor, --dup, --spread).
Python 3.11, standard library only.

Usage:
    gen_module.py --ops 100000 -o target/bench/ir_100k.mlir
    gen_module.py --ops 300000 --funcs 1000 --dup 0.35 --spread 0.15 --flavor xcs -o cse.mlir
    gen_module.py --ops 1000 --stats -   # print the op mix as JSON on stderr

Op count: `--ops` is exact: the number of operations inside the top `builtin.module`,
counting `func.func`, every op of every body, ops inside nested regions and terminators
(the module op itself is not counted). `mlir-opt --print-op-stats` reports the same
total plus 1 for `builtin.module`.

Flavors (which op names the abstract ops get):
  upstream (default): accepted by BOTH `mlir-opt --allow-unregistered-dialect` (LLVM 22)
      and `xcs-opt --allow-unregistered-dialect`. mlir-opt registers the upstream `tensor`,
      `shard` and `test` dialects and rejects unknown ops in them, and XCS registers its own
      `tensor`, `xcs`, `shard`, `cost`, `cf`, `test`; so the file uses only
        - `func.func` / `func.call` / `func.return` (registered in both, valid types),
        - upstream `arith.*` / `math.*` ops that are valid on tensors (`arith.addf` `subf`
          `mulf` `divf` `maximumf` `negf` `select` `constant`, `math.exp` `tanh` `log`
          `sqrt` `rsqrt`): registered and verified in mlir-opt, opaque in xcs-opt,
        - the namespace `xt` (registered in neither tool) for the rest: `xt.matmul`
          `xt.reduce` `xt.softmax` `xt.layer_norm` `xt.transpose` `xt.cmp` `xt.split`
          (2 results) `xt.concat` `xt.gather` `xt.custom_call` `xt.fused` + `xt.yield`.
  xcs: the XCS `tensor` dialect of DESIGN.md (`tensor.add` ... `tensor.fused`/`tensor.yield`,
      `tensor.constant`), with valid shapes; for xcs-opt only (mlir-opt rejects it). No
      `split`/`concat`; multi-result values come from 2-result `func.call`s.
  test: the XCS `test` dialect (`test.pure {xt.op = "..."}`, `test.constant`,
      `test.region`/`test.yield`) that exists before the tensor dialect does; for
      xcs-test-opt only (the default xcs-opt does not register the test dialect).

Mix of the default 100k-op upstream file (seed 1, 500 functions, 12.0 MB; shares of all
ops, from --stats; the 1M-op file (5000 functions, 121 MB) is within a few tenths):
    elementwise binary (arith.addf 11.1, mulf 11.0, subf 5.6, divf 5.5, maximumf 5.5) 38.6%
    elementwise unary (math.exp/tanh/log/sqrt/rsqrt, arith.negf; ~3.4 each)          20.2%
    arith.constant 9.5% (splats 8.5, lists of 3-4 elements 0.9, 256..1024 elements 0.2)
    xt.matmul 6.5   xt.reduce 3.4   xt.transpose 2.9   xt.layer_norm 2.2   xt.softmax 2.1
    xt.cmp + arith.select 1.6 + 1.6   xt.split (2 results) 1.5   xt.concat 0.8
    xt.gather 0.1   xt.custom_call 1.6   func.call 1.9   func.func 0.5   func.return 0.5
    xt.fused 2.3 + xt.yield 2.3; 12.3% of all ops are inside xt.fused blocks (nested 0.2%)
Attributes: `axes = array<i64: 2>`, `kind = "sum"`, `keepdims = false`, `axis = 2 : i64`,
`perm = array<i64: 0, 2, 1>`, `epsilon = 1.000000e-05 : f32`, `predicate = "lt"`, strings
with escapes (`backend_config = "{\\22causal\\22: true}"`), unit attrs (`has_side_effect`),
`api_version = 2 : i32`, discardable `xt.name = "layer3/mlp"` / `xt.layer = 3 : i64` on ~8%
of ops, `arg_attrs` on ~5% of functions, ~2% private external declarations (empty region).
Types: rank 1-3 tensors of f32 (mostly), bf16, f16, i64, i1; ~20% of configurations have a
dynamic batch dim (`tensor<?x128x768xf32>`). Values are used mostly by the next few ops
(chains), sometimes far away; ~10% of `xt.fused` blocks capture an outer value.

`--dup F` re-emits, with probability F per step, a copy of a run of 1-4 earlier pure ops of
the same function (operands remapped to the earlier copies), so `cse` has work (used for the
1000-function threading benchmark). `--spread S` is the log-normal sigma of function sizes
(default 0.8; small values give functions of nearly equal size).
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
from collections import Counter
from dataclasses import dataclass, field

# Float literals as MLIR prints them (exactly representable, so they print back the same).
FLOATS = ["0.000000e+00", "1.000000e+00", "5.000000e-01", "-1.000000e+00", "2.000000e+00",
          "1.250000e-01", "-2.500000e+00", "6.250000e-02", "3.000000e+00", "-5.000000e-01"]
NAME_PARTS = ["encoder", "decoder", "block", "attn", "mlp", "proj", "q", "k", "v", "out",
              "norm", "embed", "head"]
CUSTOM_TARGETS = ["flash_attn_fwd", "rotary_embedding", "topk", "fused_rms_norm",
                  "cublas.gemm", "nccl.all_reduce"]

# Abstract value kinds ("keys") of one model configuration and their shapes.
# Kinds whose shape has the batch dim (dynamic in some configurations).
DYNAMIC_KEYS = {"X", "Y", "XT", "M", "R", "R1", "Xh", "I", "XB", "MB"}
FLOAT_KEYS = ["X", "Y", "XT", "M", "R", "R1", "Xh", "Wq", "W1", "W2", "G", "E", "C", "V4"]


@dataclass
class ModelConfig:
    """One model configuration: the tensor type of every value kind."""
    cid: int
    types: dict[str, str]
    dynamic: bool


def make_config(rng: random.Random, cid: int) -> ModelConfig:
    b = rng.choice([1, 4, 8, 16, 32])
    dynamic = rng.random() < 0.2
    bs = "?" if dynamic else str(b)
    s = rng.choice([64, 128, 256, 512])
    h = rng.choice([128, 256, 512, 768, 1024])
    f = 4 * h
    v = rng.choice([1000, 32000])
    elt = rng.choices(["f32", "bf16", "f16"], weights=[75, 20, 5])[0]

    def t(dims: list, e: str = elt) -> str:
        return "tensor<" + "".join(f"{d}x" for d in dims) + e + ">"

    types = {
        "X": t([bs, s, h]), "Y": t([bs, s, f]), "XT": t([bs, h, s]), "M": t([bs, s, s]),
        "R": t([bs, s]), "R1": t([bs, s, 1]), "Xh": t([bs, s, h // 2]),
        "Wq": t([h, h]), "W1": t([h, f]), "W2": t([f, h]), "G": t([h]), "E": t([v, h]),
        "C": t([16, 16]), "V4": t([4]),
        "I": t([bs, s], "i64"), "XB": t([bs, s, h], "i1"), "MB": t([bs, s, s], "i1"),
        "P3": t([3], "i64"),
    }
    types["_h"] = str(h)
    return ModelConfig(cid, types, dynamic)


@dataclass
class FuncSig:
    name: str
    cfg: int
    arg_keys: list[str]
    res_keys: list[str]
    decl: bool = False


@dataclass
class Recipe:
    """One emitted pure top-level op, kept so `--dup` can re-emit it."""
    render: object  # callable(operands) -> (name, operands, props, attrs, ...)
    operands: list[str]
    results: list[str]  # result names (base name `%N` for multi-result ops)
    nres: int
    res_keys: list[str]


class Scope:
    """The values visible in one block, by kind, in definition order."""

    def __init__(self, parent: "Scope | None" = None):
        self.parent = parent
        self.vals: dict[str, list[str]] = {}
        self.recent: list[tuple[str, str]] = []

    def add(self, key: str, name: str) -> None:
        self.vals.setdefault(key, []).append(name)
        self.recent.append((key, name))

    def has(self, key: str) -> bool:
        return bool(self.vals.get(key))

    def keys(self) -> list[str]:
        return [k for k, v in self.vals.items() if v]


class Generator:
    def __init__(self, args: argparse.Namespace):
        self.a = args
        self.rng = random.Random(args.seed)
        self.flavor = args.flavor
        self.out: list[str] = []
        self.count = 0
        self.mix: Counter[str] = Counter()
        self.detail: Counter[str] = Counter()  # constants by form, ops inside regions
        self.cfgs = [make_config(self.rng, i) for i in range(3)]
        self.funcs: list[FuncSig] = []
        self.by_cfg: dict[int, list[FuncSig]] = {0: [], 1: [], 2: []}
        self.mixes = set(getattr(args, "mix", []) or [])
        names, weights = list(STEP_KINDS_TOP[0]), list(STEP_KINDS_TOP[1])
        for m in sorted(self.mixes):
            for kind, w in MIX_STEP_KINDS.get(m, []):
                names.append(kind)
                weights.append(w)
        self.top_kinds = (names, weights)
        self.loc_defs: list[str] = []  # `#locN = loc(...)` lines (mix "locations")
        self.file_locs: list[str] = []
        self.nloc = 0

    # ---- op names per flavor -------------------------------------------------------------
    def opname(self, kind: str, sub: str = "") -> str:
        f = self.flavor
        if f == "upstream":
            return {
                "binary": {"add": "arith.addf", "sub": "arith.subf", "mul": "arith.mulf",
                           "div": "arith.divf", "max": "arith.maximumf"}.get(sub, ""),
                "unary": {"exp": "math.exp", "tanh": "math.tanh", "log": "math.log",
                          "sqrt": "math.sqrt", "rsqrt": "math.rsqrt", "neg": "arith.negf"}.get(sub, ""),
                "select": "arith.select", "const": "arith.constant", "yield": "xt.yield",
            }.get(kind, "xt." + kind)
        if f == "xcs":
            if kind in ("binary", "unary"):
                return "tensor." + sub
            if kind == "const":
                return "tensor.constant"
            if kind == "custom_call":
                return "xt.custom_call"
            return "tensor." + kind
        # test flavor
        return {"const": "test.constant", "fused": "test.region", "yield": "test.yield",
                "custom_call": "xt.custom_call"}.get(kind, "test.pure")

    def inherent(self, kind: str) -> bool:
        """Whether the op's own attributes go in `<{...}>` (registered op) or `{...}`."""
        if kind == "custom_call":
            return False
        if self.flavor == "upstream":
            return kind == "const"
        if self.flavor == "xcs":
            return True
        return kind == "const"

    # ---- text helpers --------------------------------------------------------------------
    @staticmethod
    def ftype(ins: list[str], outs: list[str]) -> str:
        o = outs[0] if len(outs) == 1 else "(" + ", ".join(outs) + ")"
        return "(" + ", ".join(ins) + ") -> " + o

    def emit_op(self, ind: str, res: str, nres: int, name: str, operands: list[str],
                in_types: list[str], out_types: list[str], attrs: dict[str, str],
                inherent: bool, mixkey: str, region: list[str] | None = None,
                extra: dict[str, str] | None = None) -> None:
        line = [ind]
        if nres == 1:
            line.append(f"{res} = ")
        elif nres > 1:
            line.append(f"{res}:{nres} = ")
        line.append(f'"{name}"(' + ", ".join(operands) + ")")
        props = attrs if inherent else {}
        disc = dict(extra or {})
        if not inherent:
            if self.flavor == "test" and mixkey != "custom_call":
                # test.pure declares no attributes: keep the extra ones dialect-prefixed.
                disc.update({"xt." + k: v for k, v in attrs.items()})
            else:
                disc.update(attrs)
        if self.flavor == "test" and mixkey not in ("const", "custom_call", "fused", "yield"):
            disc["xt.op"] = f'"{mixkey}"'
        if props:
            line.append(" <{" + ", ".join(f"{k} = {v}" if v else k for k, v in sorted(props.items())) + "}>")
        if region is not None:
            line.append(" ({")
            self.out.append("".join(line))
            self.out.extend(region)
            line = [ind, "})"]
        if disc:
            line.append(" {" + ", ".join(f"{k} = {v}" if v else k for k, v in sorted(disc.items())) + "}")
        line.append(" : " + self.ftype(in_types, out_types))
        line.append(self.loc_suffix(name))
        self.out.append("".join(line))
        self.count += 1
        self.mix[name if self.flavor != "test" or mixkey in ("const", "fused", "yield", "custom_call")
                 else f"{name}:{mixkey}"] += 1

    # ---- module --------------------------------------------------------------------------
    def generate(self) -> list[str]:
        a = self.a
        nfuncs = a.funcs or max(1, a.ops // 200)
        nfuncs = max(1, min(nfuncs, a.ops // 3))
        sizes = self.func_sizes(a.ops, nfuncs)
        self.out.append('"builtin.module"() ({')
        for i, size in enumerate(sizes):
            self.gen_func(i, size)
        self.out.append("}) : () -> ()")
        self.out.extend(self.file_locs)
        self.out.extend(self.loc_defs)
        assert self.count == a.ops, (self.count, a.ops)
        return self.out

    def func_sizes(self, total: int, n: int) -> list[int]:
        ws = [math.exp(self.rng.gauss(0.0, self.a.spread)) for _ in range(n)]
        s = sum(ws)
        sizes = [max(3, int(total * w / s)) for w in ws]
        diff = total - sum(sizes)
        i = 0
        while diff != 0:  # spread the rounding error over the functions
            j = i % n
            if diff > 0:
                sizes[j] += 1
                diff -= 1
            elif sizes[j] > 3:
                sizes[j] -= 1
                diff += 1
            i += 1
        # A few one-op external declarations (not in the CSE profile: they'd skew sizes).
        if self.a.dup == 0:
            for j in range(n):
                if j + 1 < n and sizes[j] >= 4 and self.rng.random() < 0.02:
                    sizes[j + 1] += sizes[j] - 1
                    sizes[j] = 1
        return sizes

    def gen_func(self, idx: int, size: int) -> None:
        rng = self.rng
        cfg = self.cfgs[rng.randrange(3)]
        ty = cfg.types
        if size == 1:  # external declaration
            arg_keys = ["X"]
            res_keys = ["X"]
            sig = FuncSig(f"ext_{rng.choice(CUSTOM_TARGETS).replace('.', '_')}_{idx}", cfg.cid,
                          arg_keys, res_keys, decl=True)
            ft = self.ftype([ty[k] for k in arg_keys], [ty[k] for k in res_keys])
            self.out.append(f'  "func.func"() <{{function_type = {ft}, sym_name = "{sig.name}", '
                            f'sym_visibility = "private"}}> ({{')
            self.out.append("  }) : () -> ()" + self.loc_suffix("func.func"))
            self.count += 1
            self.mix["func.func"] += 1
            self.funcs.append(sig)
            self.by_cfg[cfg.cid].append(sig)
            return

        arg_keys = ["X"] + rng.sample(["Wq", "W1", "W2", "G", "G", "E", "I", "X"], rng.randint(1, 3))
        if "E" in arg_keys and "I" not in arg_keys and rng.random() < 0.7:
            arg_keys.append("I")
        self.fn = FuncState(self, cfg)
        st = self.fn
        top = Scope()
        for k in arg_keys:
            top.add(k, st.new_arg())
        body: list[str] = []
        saved = self.out
        self.out = body
        self.count += 2  # func.func and func.return
        self.mix["func.func"] += 1
        self.mix["func.return"] += 1
        budget = size - 2
        while budget > 0:
            budget -= self.gen_step(top, "    ", budget, top_level=True)
        # Results: the last value's kind, sometimes a second one; rarely none.
        r = rng.random()
        if r < 0.05:
            res_keys: list[str] = []
        else:
            last_key = top.recent[-1][0]
            if last_key in ("XB", "MB"):
                last_key = "X"
            res_keys = [last_key]
            if r > 0.75:
                res_keys.append(rng.choice([k for k in top.keys() if k not in ("XB", "MB")]))
        res_vals = [top.vals[k][-1] for k in res_keys]
        rt = [ty[k] for k in res_keys]
        body.append("    " + f'"func.return"({", ".join(res_vals)}) : ' + self.ftype(rt, [])
                    + self.loc_suffix("func.return"))
        self.out = saved
        name = f"f{idx}"
        sig = FuncSig(name, cfg.cid, arg_keys, res_keys)
        at = [ty[k] for k in arg_keys]
        props = [f"function_type = {self.ftype(at, rt)}", f'sym_name = "{name}"']
        if rng.random() < 0.05:
            aa = ", ".join('{xt.sharding = "[[0], []]"}' if i == 0 else "{}" for i in range(len(at)))
            props.insert(0, f"arg_attrs = [{aa}]")
        if rng.random() < 0.3:
            props.append('sym_visibility = "private"')
        self.out.append('  "func.func"() <{' + ", ".join(props) + "}> ({")
        self.out.append("  ^bb0(" + ", ".join(f"{n}: {ty[k]}" for k, n in top.recent[:len(arg_keys)]) + "):")
        self.out.extend(body)
        self.out.append("  }) : () -> ()" + self.loc_suffix("func.func"))
        self.funcs.append(sig)
        self.by_cfg[cfg.cid].append(sig)

    # ---- one step: emits one or a few ops, returns how many --------------------------------
    def gen_step(self, sc: Scope, ind: str, budget: int, top_level: bool) -> int:
        rng = self.rng
        st = self.fn
        if top_level and self.a.dup > 0 and st.recipes and rng.random() < self.a.dup:
            n = self.dup_run(sc, ind, budget)
            if n:
                return n
        kinds = self.top_kinds if top_level else STEP_KINDS_INNER
        while True:
            kind = rng.choices(kinds[0], weights=kinds[1])[0]
            n = getattr(self, "k_" + kind)(sc, ind, budget, top_level)
            if n:
                return n

    # -- operand selection
    def pick_key(self, sc: Scope, allowed: list[str] | None = None) -> str:
        """The kind of a recent value (chains), else any available float kind."""
        rng = self.rng
        allowed = allowed or FLOAT_KEYS
        if rng.random() < 0.6:
            for k, _ in reversed(sc.recent[-4:]):
                if k in allowed:
                    return k
        ks = [k for k in sc.keys() if k in allowed]
        if not ks and sc.parent is not None:
            ks = [k for k in sc.parent.keys() if k in allowed]
        return rng.choice(ks) if ks else "X"

    def pick(self, sc: Scope, key: str) -> str:
        rng = self.rng
        vs = sc.vals.get(key)
        if sc.parent is not None and self.flavor == "upstream" and rng.random() < 0.1 \
                and sc.parent.has(key):
            return self.pick(sc.parent, key)  # capture from the enclosing block
        if not vs:
            return self.pick(sc.parent, key) if sc.parent is not None else "%missing"
        if rng.random() < 0.8:
            return vs[-1 - int(rng.random() * min(4, len(vs)))]
        return rng.choice(vs)

    def avail(self, sc: Scope, key: str) -> bool:
        return sc.has(key) or (sc.parent is not None and self.avail(sc.parent, key))

    def misc_attrs(self) -> dict[str, str]:
        rng = self.rng
        if rng.random() < 0.08:
            if rng.random() < 0.5:
                return {"xt.name": '"' + "/".join(rng.sample(NAME_PARTS, 2)) + f'{rng.randrange(12)}"'}
            return {"xt.layer": f"{rng.randrange(48)} : i64"}
        return {}

    def simple(self, sc: Scope, ind: str, kind: str, sub: str, operands: list[str],
               in_keys: list[str], out_keys: list[str], attrs: dict[str, str],
               top_level: bool, pure: bool = True) -> int:
        """Emits one op with fresh results and records it for --dup."""
        ty = self.fn.cfg.types
        res = self.fn.new_val()
        nres = len(out_keys)
        extra = self.misc_attrs()
        name = self.opname(kind, sub)
        mixkey = sub or kind
        inh = self.inherent(kind)
        self.emit_op(ind, res, nres, name, operands, [ty[k] for k in in_keys],
                     [ty[k] for k in out_keys], attrs, inh, mixkey, extra=extra)
        names = [res] if nres == 1 else [f"{res}#{i}" for i in range(nres)]
        for k, n in zip(out_keys, names):
            sc.add(k, n)
        if top_level and pure and self.a.dup > 0:
            self.fn.recipes.append(Recipe(
                (ind, name, in_keys, out_keys, attrs, inh, mixkey, extra), operands, [res], nres,
                out_keys))
        return 1

    def dup_run(self, sc: Scope, ind: str, budget: int) -> int:
        rng = self.rng
        st = self.fn
        ty = st.cfg.types
        n = min(rng.randint(1, 4), budget)
        start = rng.randrange(max(1, len(st.recipes) - n + 1))
        run = st.recipes[start:start + n]
        remap: dict[str, str] = {}
        for r in run:
            (ind0, name, in_keys, out_keys, attrs, inh, mixkey, extra) = r.render
            ops = []
            for o in r.operands:
                base, _, idx = o.partition("#")
                if base in remap:
                    o = remap[base] + ("#" + idx if idx else "")
                ops.append(o)
            res = st.new_val()
            remap[r.results[0]] = res
            self.emit_op(ind, res, r.nres, name, ops, [ty[k] for k in in_keys],
                         [ty[k] for k in out_keys], attrs, inh, mixkey, extra=extra)
            names = [res] if r.nres == 1 else [f"{res}#{i}" for i in range(r.nres)]
            for k, nm in zip(out_keys, names):
                sc.add(k, nm)
            st.recipes.append(Recipe(r.render, ops, [res], r.nres, out_keys))
        return len(run)

    # -- step kinds (each returns the number of ops emitted, 0 = not applicable) -----------
    def k_binary(self, sc, ind, budget, top):
        k = self.pick_key(sc)
        sub = self.rng.choice(["add", "add", "mul", "mul", "sub", "div", "max"])
        a, b = self.pick(sc, k), self.pick(sc, k)
        return self.simple(sc, ind, "binary", sub, [a, b], [k, k], [k], {}, top)

    def k_unary(self, sc, ind, budget, top):
        k = self.pick_key(sc)
        sub = self.rng.choice(["exp", "tanh", "log", "sqrt", "rsqrt", "neg"])
        return self.simple(sc, ind, "unary", sub, [self.pick(sc, k)], [k], [k], {}, top)

    def k_matmul(self, sc, ind, budget, top):
        opts = [(l, r, o) for l, r, o in [("X", "Wq", "X"), ("X", "W1", "Y"), ("Y", "W2", "X"),
                                          ("X", "XT", "M"), ("M", "X", "X")]
                if self.avail(sc, l) and self.avail(sc, r)]
        if not opts:
            return 0
        l, r, o = self.rng.choice(opts)
        return self.simple(sc, ind, "matmul", "", [self.pick(sc, l), self.pick(sc, r)], [l, r],
                           [o], {}, top)

    def k_transpose(self, sc, ind, budget, top):
        opts = [(i, o, p) for i, o, p in [("X", "XT", "0, 2, 1"), ("XT", "X", "0, 2, 1"),
                                          ("W1", "W2", "1, 0"), ("W2", "W1", "1, 0")]
                if self.avail(sc, i)]
        if not opts:
            return 0
        i, o, p = self.rng.choice(opts)
        return self.simple(sc, ind, "transpose", "", [self.pick(sc, i)], [i], [o],
                           {"perm": f"array<i64: {p}>"}, top)

    def k_reduce(self, sc, ind, budget, top):
        opts = [k for k in ("X", "Y", "M") if self.avail(sc, k)]
        if not opts:
            return 0
        i = self.rng.choice(opts)
        keep = self.rng.random() < 0.3 and i == "X"
        kind = self.rng.choice(["sum", "sum", "max", "mean", "min", "prod"])
        return self.simple(sc, ind, "reduce", "", [self.pick(sc, i)], [i], ["R1" if keep else "R"],
                           {"axes": "array<i64: 2>", "kind": f'"{kind}"',
                            "keepdims": "true" if keep else "false"}, top)

    def k_softmax(self, sc, ind, budget, top):
        k = "M" if self.avail(sc, "M") and self.rng.random() < 0.7 else "X"
        attrs = {"axis": "2 : i64"}
        if "constants" in self.mixes:
            attrs["scale"] = self.distinct_float() + " : f32"
        return self.simple(sc, ind, "softmax", "", [self.pick(sc, k)], [k], [k], attrs, top)

    def k_layer_norm(self, sc, ind, budget, top):
        if not self.avail(sc, "G"):
            return self.k_const(sc, ind, budget, top, key="G")
        return self.simple(sc, ind, "layer_norm", "",
                           [self.pick(sc, "X"), self.pick(sc, "G"), self.pick(sc, "G")],
                           ["X", "G", "G"], ["X"],
                           {"axis": "2 : i64", "epsilon": (self.distinct_float() if "constants" in self.mixes
                                                           else "1.000000e-05") + " : f32"}, top)

    def k_cmp_select(self, sc, ind, budget, top):
        if budget < 2:
            return 0
        k = "M" if self.avail(sc, "M") and self.rng.random() < 0.5 else "X"
        bk = "MB" if k == "M" else "XB"
        pred = self.rng.choice(["lt", "gt", "eq", "ge"])
        self.simple(sc, ind, "cmp", "", [self.pick(sc, k), self.pick(sc, k)], [k, k], [bk],
                    {"predicate": f'"{pred}"'}, top)
        c = sc.vals[bk][-1]
        self.simple(sc, ind, "select", "", [c, self.pick(sc, k), self.pick(sc, k)], [bk, k, k],
                    [k], {}, top)
        return 2

    def k_split(self, sc, ind, budget, top):
        if self.flavor == "xcs":
            return 0
        return self.simple(sc, ind, "split", "", [self.pick(sc, "X")], ["X"], ["Xh", "Xh"],
                           {"axis": "2 : i64", "num_splits": "2 : i64"}, top)

    def k_concat(self, sc, ind, budget, top):
        if self.flavor == "xcs" or not self.avail(sc, "Xh"):
            return 0
        return self.simple(sc, ind, "concat", "", [self.pick(sc, "Xh"), self.pick(sc, "Xh")],
                           ["Xh", "Xh"], ["X"], {"axis": "2 : i64"}, top)

    def k_gather(self, sc, ind, budget, top):
        if not self.avail(sc, "E"):
            return 0
        if not self.avail(sc, "I"):
            return self.k_const(sc, ind, budget, top, key="I")
        return self.simple(sc, ind, "gather", "", [self.pick(sc, "E"), self.pick(sc, "I")],
                           ["E", "I"], ["X"], {"axis": "0 : i64"}, top)

    def k_custom_call(self, sc, ind, budget, top):
        rng = self.rng
        k = self.pick_key(sc)
        ins = [k] + rng.sample([x for x in sc.keys() if x != k], min(len(sc.keys()) - 1, rng.randint(0, 2)))
        attrs = {"call_target_name": f'"{rng.choice(CUSTOM_TARGETS)}"',
                 "backend_config": '"{\\22causal\\22: ' + rng.choice(["true", "false"]) + '}"',
                 "api_version": "2 : i32"}
        if rng.random() < 0.5:
            attrs["has_side_effect"] = ""
        return self.simple(sc, ind, "custom_call", "", [self.pick(sc, x) for x in ins], ins, [k],
                           attrs, top, pure=False)

    def k_const(self, sc, ind, budget, top, key: str | None = None):
        rng = self.rng
        ty = self.fn.cfg.types
        r = rng.random()
        if key is None:
            if r < 0.10:
                key = rng.choice(["V4", "P3"])
            elif r < 0.12:
                key = rng.choice(["C", "G"])
            else:
                key = rng.choice(["X", "G", "G", "R1", "Wq", "M", "Y"])
        if self.fn.cfg.dynamic and key in DYNAMIC_KEYS:
            if key == "I":
                return 0
            key = rng.choice(["G", "Wq", "W1"])  # dense literals need a static shape
        t = ty[key]
        if key == "I":
            val = "dense<0>"
        elif key == "P3":
            val = "dense<[" + ", ".join(str(rng.randrange(3)) for _ in range(3)) + "]>"
        elif key == "V4":
            val = "dense<[" + ", ".join(rng.choice(FLOATS) for _ in range(4)) + "]>"
        elif key == "C":
            val = "dense<[" + ", ".join("[" + ", ".join(rng.choice(FLOATS) for _ in range(16)) + "]"
                                        for _ in range(16)) + "]>"
        elif key == "G" and r >= 0.10 and r < 0.12:
            h = int(ty["_h"])
            val = "dense<[" + ", ".join(rng.choice(FLOATS) for _ in range(h)) + "]>"
        else:
            val = f"dense<{rng.choice(FLOATS)}>"
        self.detail["const:" + ("splat" if "[" not in val else
                                "small-list" if key in ("V4", "P3") else "large-list")] += 1
        return self.simple(sc, ind, "const", "", [], [], [key], {"value": f"{val} : {t}"}, top)

    def k_fused(self, sc, ind, budget, top, depth: int = 0):
        rng = self.rng
        if budget < 3:
            return 0
        st = self.fn
        ty = st.cfg.types
        k = self.pick_key(sc, ["X", "Y", "M", "R"])
        nin = rng.randint(1, 3)
        ins = [self.pick(sc, k) for _ in range(nin)]
        res = st.new_val()  # numbered before the region's values, as MLIR prints them
        inner = Scope(sc if self.flavor == "upstream" else None)
        args = [st.new_arg() for _ in range(nin)]
        for a in args:
            inner.add(k, a)
        saved = self.out
        self.out = []
        self.out.append(f"{ind}^bb0(" + ", ".join(f"{a}: {ty[k]}" for a in args) + "):")
        want = min(budget - 2, rng.randint(1, 8))
        used = 0
        while used < want:
            left = want - used
            if self.flavor == "upstream" and depth < 1 and left >= 4 and rng.random() < 0.05:
                n = self.k_fused(inner, ind + "  ", left, False, depth + 1)
                if n:
                    used += n
                    continue
            if rng.random() < 0.6:
                used += self.k_binary(inner, ind + "  ", left, False)
            else:
                used += self.k_unary(inner, ind + "  ", left, False)
        nres = 2 if rng.random() < 0.15 else 1
        yv = [inner.vals[k][-1]] + ([inner.vals[k][0]] if nres == 2 else [])
        self.emit_op(ind + "  ", "", 0, self.opname("yield"), yv, [ty[k]] * nres, [], {}, False,
                     "yield")
        region = self.out
        self.detail["ops inside xt.fused blocks (incl. yield)"] += used + 1
        if depth:
            self.detail["nested fused"] += 1
        self.out = saved
        self.emit_op(ind, res, nres, self.opname("fused"), ins, [ty[k]] * nin, [ty[k]] * nres, {},
                     False, "fused", region=region)
        for n in ([res] if nres == 1 else [f"{res}#0", f"{res}#1"]):
            sc.add(k, n)
        return used + 2

    # -- the optional mixes' step kinds and helpers
    def distinct_float(self) -> str:
        """A float literal from ~260k values, exactly representable in f32 (k / 2^10)."""
        k = self.rng.randrange(1, 1 << 18) * self.rng.choice([1, -1])
        return f"{k / 1024.0:.6e}" if (k % 1024 == 0 or abs(k) < 1024) and len(f"{k / 1024.0:.6e}") <= 13 \
            else repr(k / 1024.0)

    def k_dconst(self, sc, ind, budget, top):
        """A small dense constant of distinct values (mix "constants")."""
        rng = self.rng
        n = rng.choice([4, 8, 16])
        vals = ", ".join(f"{rng.randrange(-512, 512) / 64.0:.6e}" for _ in range(n))
        key = f"D{n}"
        self.fn.cfg.types.setdefault(key, f"tensor<{n}xf32>")
        self.detail["const:distinct-small"] += 1
        return self.simple(sc, ind, "const", "", [], [], [key],
                           {"value": f"dense<[{vals}]> : tensor<{n}xf32>"}, top)

    def k_rreduce(self, sc, ind, budget, top):
        """A reduction whose combiner is a region (mix "regions"): 3 ops."""
        if budget < 3:
            return 0
        rng = self.rng
        st = self.fn
        ty = st.cfg.types
        opts = [k for k in ("X", "Y", "M") if self.avail(sc, k)]
        if not opts:
            return 0
        k = rng.choice(opts)
        elt = ty[k].rsplit("x", 1)[1].rstrip(">")
        operand = self.pick(sc, k)
        res = st.new_val()
        a, b = st.new_arg(), st.new_arg()
        c = st.new_val()
        comb = rng.choice(["arith.addf", "arith.maximumf", "arith.minimumf", "arith.mulf"])
        region = [f"{ind}^bb0({a}: {elt}, {b}: {elt}):",
                  f'{ind}  {c} = "{comb}"({a}, {b}) : ({elt}, {elt}) -> {elt}' + self.loc_suffix(comb),
                  f'{ind}  "xt.yield"({c}) : ({elt}) -> ()' + self.loc_suffix("xt.yield")]
        self.count += 2
        self.mix[comb] += 1
        self.mix["xt.yield"] += 1
        self.detail["region reductions"] += 1
        self.emit_op(ind, res, 1, "xt.reduce", [operand], [ty[k]], [ty["R"]],
                     {"axes": "array<i64: 2>"}, False, "reduce", region=region)
        sc.add("R", res)
        return 3

    def loc_suffix(self, opname: str) -> str:
        """` loc(#locN)` with a fresh location for the op (mix "locations"), else ''."""
        if "locations" not in self.mixes:
            return ""
        rng = self.rng
        if len(self.file_locs) < 4000 and (not self.file_locs or rng.random() < 0.05):
            f = rng.choice(LOC_FILES)
            self.file_locs.append(f'#locf{len(self.file_locs)} = loc("/src/app/{f}":'
                                  f"{rng.randrange(1, 3000)}:{rng.randrange(0, 80)})")
        fl = f"#locf{rng.randrange(len(self.file_locs))}"
        n = self.nloc
        self.nloc += 1
        r = rng.random()
        if r < 0.5:
            base = opname.rsplit(".", 1)[-1]
            body = f'"jit(model)/jit(main)/{rng.choice(NAME_PARTS)}{rng.randrange(48)}/{base}"({fl})'
        elif r < 0.8:
            body = f"callsite({fl} at #locf{rng.randrange(len(self.file_locs))})"
        else:
            body = f'"/src/app/{rng.choice(LOC_FILES)}":{rng.randrange(1, 3000)}:{rng.randrange(0, 120)}'
        self.loc_defs.append(f"#loc{n} = loc({body})")
        return f" loc(#loc{n})"

    def k_call(self, sc, ind, budget, top):
        rng = self.rng
        st = self.fn
        ty = st.cfg.types
        cands = self.by_cfg[st.cfg.cid][-32:]
        if not cands:
            return 0
        for _ in range(4):
            f = rng.choice(cands)
            if all(self.avail(sc, k) for k in f.arg_keys):
                break
        else:
            return 0
        res = st.new_val() if f.res_keys else ""
        ops = [self.pick(sc, k) for k in f.arg_keys]
        self.emit_op(ind, res, len(f.res_keys), "func.call", ops, [ty[k] for k in f.arg_keys],
                     [ty[k] for k in f.res_keys], {"callee": "@" + f.name}, True, "call")
        if len(f.res_keys) == 1:
            sc.add(f.res_keys[0], res)
        else:
            for i, k in enumerate(f.res_keys):
                sc.add(k, f"{res}#{i}")
        return 1


@dataclass
class FuncState:
    gen: Generator
    cfg: ModelConfig
    nval: int = 0
    narg: int = 0
    recipes: list[Recipe] = field(default_factory=list)

    def new_val(self) -> str:
        self.nval += 1
        return f"%{self.nval - 1}"

    def new_arg(self) -> str:
        self.narg += 1
        return f"%arg{self.narg - 1}"


STEP_KINDS_TOP = (
    ["binary", "unary", "matmul", "transpose", "reduce", "softmax", "layer_norm", "cmp_select",
     "split", "concat", "gather", "custom_call", "const", "fused", "call"],
    [34, 17, 7, 3, 3.5, 2.2, 2.5, 1.7, 1.5, 1.2, 0.8, 1.7, 10, 2.2, 2.4],
)
STEP_KINDS_INNER = (["binary", "unary"], [60, 40])

# Optional mixes (`--mix`), each a realistic pressure on a parser's memory; without them the
# output is byte-identical to the generator's default.
MIXES = {
    "constants": "distinct small dense constants (4-16 elements, ~6%% of ops) and distinct float "
                 "attributes (epsilon / scale of layer norms and softmaxes)",
    "regions": "reductions with a scalar body region (xt.reduce, arith op, xt.yield; ~6%% of ops "
               "are region reductions)",
    "locations": "every op has its own location, printed as JAX exports do: #loc aliases at the "
                 "end of the file (file:line:col, named and callsite locations)",
}
# Extra top-level step kinds and their weights per mix.
MIX_STEP_KINDS = {"constants": [("dconst", 6.0)], "regions": [("rreduce", 2.2)]}
LOC_FILES = ["model.py", "layers.py", "attention.py", "mlp.py", "train.py", "utils.py"]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--ops", type=int, default=100000, help="exact number of ops (default 100000)")
    p.add_argument("--funcs", type=int, default=0, help="number of functions (default ops/200)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--flavor", choices=["upstream", "xcs", "test"], default="upstream")
    p.add_argument("--dup", type=float, default=0.0,
                   help="probability per step of re-emitting a run of earlier pure ops (CSE work)")
    p.add_argument("--spread", type=float, default=0.8, help="log-normal sigma of function sizes")
    p.add_argument("--mix", action="append", choices=sorted(MIXES), default=[],
                   help="add a mix (repeatable): " + "; ".join(f"{k}: {v}" for k, v in sorted(MIXES.items())))
    p.add_argument("-o", "--output", default="-", help="output file (default stdout)")
    p.add_argument("--stats", metavar="FILE",
                   help="write {ops, funcs, mix} as JSON to FILE ('-' = stderr)")
    a = p.parse_args(argv)
    if a.ops < 3:
        p.error("--ops must be at least 3")
    if not 0.0 <= a.dup < 1.0:
        p.error("--dup must be in [0, 1)")
    if a.mix and a.flavor != "upstream":
        p.error("--mix needs the upstream flavor")
    g = Generator(a)
    lines = g.generate()
    text = "\n".join(lines) + "\n"
    if a.output == "-":
        sys.stdout.write(text)
    else:
        with open(a.output, "w", encoding="utf-8") as f:
            f.write(text)
    if a.stats:
        total = g.count
        stats = {"ops": total, "funcs": len(g.funcs), "bytes": len(text.encode()),
                 "flavor": a.flavor, "seed": a.seed, "dup": a.dup, "mix_options": sorted(a.mix),
                 "mix": {k: {"count": v, "percent": round(100.0 * v / total, 2)}
                         for k, v in g.mix.most_common()},
                 "detail": {k: {"count": v, "percent": round(100.0 * v / total, 2)}
                            for k, v in sorted(g.detail.items())}}
        js = json.dumps(stats, indent=1)
        if a.stats == "-":
            sys.stderr.write(js + "\n")
        else:
            with open(a.stats, "w", encoding="utf-8") as f:
                f.write(js + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""A hybrid function: tensor math and an LLM call in one traced function, run on the
reference interpreter (strings cannot go through LLVM); an orchestration callee
(@xcs.mark_orchestration) becomes an external declaration called back into Python.
Run: python3 examples/hybrid.py"""

import numpy as np

import xcs
import xcs.numpy as xnp


@xcs.mark_orchestration(returns=str)
def lookup(label):
    return f"notes on {label}"


@xcs.jit
def triage(scores, label):
    top = xnp.max(scores)
    note = lookup(label)
    report = xcs.llm(xcs.format("top score {} for {}: {}", top, label, note), provider="echo")
    return report, scores / top


print(triage.lower(np.ones(3, np.float32), "x").as_text())
report, normalized = triage(np.array([1.0, 4.0, 2.0], np.float32), "ticket-7")
print("== report:", report)
print("== normalized:", normalized)
print("== analyze_operations(triage.fun):", xcs.analyze_operations(triage.fun))

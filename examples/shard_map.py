"""An MLP with xcs.shard_map on a 2x4 mesh of simulated devices: x is fixed split by rows
over "dp", auto-shard plans the rest under a cost model in which communication is cheap,
shard-partition makes the per-device program, and the 8 devices (threads) run it; checked
against numpy. Run: python3 examples/shard_map.py"""

import numpy as np

import xcs

mesh = xcs.Mesh((2, 4), ("dp", "tp"))


def mlp(x, w1, b1, w2):
    return xcs.nn.relu(x @ w1 + b1) @ w2


f = xcs.shard_map(mlp, mesh=mesh, in_specs=(xcs.P("dp", None), None, None, None), out_specs=None,
                  auto_sharding=True, cost_model=dict(alpha=1e-9, bandwidth=1e12, peak_flops=1e6))

rng = np.random.default_rng(0)
x = rng.standard_normal((16, 32), dtype=np.float32)
w1, b1 = rng.standard_normal((32, 64), dtype=np.float32) * 0.1, np.zeros(64, np.float32)
w2 = rng.standard_normal((64, 8), dtype=np.float32) * 0.1

y = f(x, w1, b1, w2)
want = np.maximum(x @ w1 + b1, 0) @ w2
print(f"== on {mesh}: max |xcs - numpy| = {np.abs(y - want).max():.2e}")
assert np.allclose(y, want, rtol=1e-4, atol=1e-5)

plan = f.plan()["mlp"]
print(f"== the plan (auto-shard, optimal={plan['optimal']}): modelled {plan['total_time_s']:.3e} s, "
      f"{plan['memory_bytes_per_device']} bytes per device")
for a in plan["arguments"]:
    print(f"   {a['name']}: {a['sharding']}")
for op in plan["ops"]:
    collectives = ", ".join(f"{c['kind']}({c['axis']})" for c in op["collectives"]) or "none"
    print(f"   {op['op']}: {op['result']}  collectives: {collectives}")
print("== the program each device runs (after shard-partition)")
print(f.lower(x, w1, b1, w2).compile().as_text())

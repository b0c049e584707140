#!/usr/bin/env python3
"""Validates an auto-shard plan report against schemas/shard_report_schema.json and prints it
one line per entry, for FileCheck: per function its totals, then its arguments, ops and
results with their shardings (`[tp,-]`: dim 0 split along tp, dim 1 whole) and collectives.

Usage: plan_summary.py PLAN.json SCHEMA.json
"""
import json
import sys

import jsonschema


def sharding(s):
    return "[" + ",".join("-" if a is None else a for a in s) + "]" if s is not None else "none"


def collectives(cs):
    return " ".join(f"{c['kind']}({c['axis']},{c['bytes']})" for c in cs) or "none"


def main() -> int:
    plan_path, schema_path = sys.argv[1], sys.argv[2]
    with open(schema_path) as f:
        schema = json.load(f)
    with open(plan_path) as f:
        plans = json.load(f)
    cls = jsonschema.Draft202012Validator
    cls.check_schema(schema)
    errors = sorted(cls(schema).iter_errors(plans), key=lambda e: list(e.path))
    if errors:
        e = errors[0]
        print(f"invalid: {'/'.join(map(str, e.path))}: {e.message}")
        return 1
    for name, p in plans.items():
        print(f"function @{name} total={p['total_time_s']:.6e} compute={p['compute_time_s']:.6e} "
              f"comm={p['comm_time_s']:.6e} memory={p['memory_bytes_per_device']} optimal={str(p['optimal']).lower()} "
              f"mesh={'x'.join(map(str, p['mesh']['shape']))}:{','.join(p['mesh']['axes'])}")
        for a in p["arguments"]:
            print(f"  arg {a['name']} {sharding(a['sharding'])}")
        for o in p["ops"]:
            ops = " ".join(sharding(s) for s in o["operands"])
            prod = o["produced"]
            produced = sharding(prod["dims"]) + ("" if not prod["partial"] else "+P(" + ",".join(prod["partial"]) + ")")
            print(f"  op {o['name']} {o['op']} in {ops} produced {produced} result {sharding(o['result'])} "
                  f"collectives {collectives(o['collectives'])}")
        for r in p["results"]:
            print(f"  result {r['index']} required {sharding(r['required'])} final {sharding(r['final'])} "
                  f"reshard {collectives(r['reshard'])}")
        for a in p["annotations"]:
            kind = "for_users " if a["for_users"] else ""
            print(f"  annotation {a['name']} {kind}{sharding(a['sharding'])} collectives {collectives(a['collectives'])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

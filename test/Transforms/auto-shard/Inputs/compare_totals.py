#!/usr/bin/env python3
"""Compares two auto-shard plan reports of the same module: for each function, whether the
first plan's total time is at least the second's (within the cost model's tolerance), as an
unproven plan must be against the proven optimum.

Usage: compare_totals.py UNPROVEN.json OPTIMAL.json
"""
import json
import sys


def main() -> int:
    with open(sys.argv[1]) as f:
        first = json.load(f)
    with open(sys.argv[2]) as f:
        second = json.load(f)
    for name, plan in first.items():
        a, b = plan["total_time_s"], second[name]["total_time_s"]
        ok = a >= b or abs(a - b) <= 1e-15 + 1e-9 * max(a, b)
        print(f"{name}: anytime {'>=' if ok else '<'} exact")
    return 0


if __name__ == "__main__":
    sys.exit(main())

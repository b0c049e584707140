#!/usr/bin/env python3
"""Validates a resolved cost tree (xcs-cost resolve, cost-annotate's report) against
schemas/resolved_cost_schema.json with the jsonschema package.

Usage: validate_tree.py SCHEMA.json TREE.json
Prints `valid: N nodes` and exits 0, or prints the first violation and exits 1.
"""
import json
import sys

import jsonschema


def count(node):
    return 1 + sum(count(c) for c in node.get("children", {}).values())


def main() -> int:
    schema_path, tree_path = sys.argv[1], sys.argv[2]
    with open(schema_path) as f:
        schema = json.load(f)
    with open(tree_path) as f:
        tree = json.load(f)
    cls = jsonschema.Draft202012Validator
    cls.check_schema(schema)
    errors = sorted(cls(schema).iter_errors(tree), key=lambda e: list(e.path))
    if errors:
        e = errors[0]
        print(f"invalid: {'/'.join(map(str, e.path))}: {e.message}")
        return 1
    print(f"valid: {count(tree)} nodes")
    return 0


if __name__ == "__main__":
    sys.exit(main())

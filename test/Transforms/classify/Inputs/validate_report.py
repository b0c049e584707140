#!/usr/bin/env python3
"""Validates a classify report (JSON) against schemas/classify_report_schema.json.

Usage: validate_report.py REPORT.json SCHEMA.json
Prints `valid: N functions` and exits 0, or prints the first violation and exits 1.
"""
import json
import sys

import jsonschema


def main() -> int:
    report_path, schema_path = sys.argv[1], sys.argv[2]
    with open(schema_path) as f:
        schema = json.load(f)
    with open(report_path) as f:
        report = json.load(f)
    cls = jsonschema.Draft202012Validator
    cls.check_schema(schema)
    errors = sorted(cls(schema).iter_errors(report), key=lambda e: list(e.path))
    if errors:
        e = errors[0]
        print(f"invalid: {'/'.join(map(str, e.path))}: {e.message}")
        return 1
    print(f"valid: {len(report['functions'])} functions")
    return 0


if __name__ == "__main__":
    sys.exit(main())

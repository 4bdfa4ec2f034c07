#!/usr/bin/env python3
"""Validates a JSON instance against a JSON schema with the jsonschema package
(Draft 2020-12), the independent check of ck's --json-schema output.

usage: validate_json.py SCHEMA_FILE INSTANCE_FILE
Exit 0 when valid; 1 with the reasons on stderr when not; 2 when either file
is not JSON."""
import json
import sys

import jsonschema


def main() -> int:
    try:
        with open(sys.argv[1], encoding="utf-8") as f:
            schema = json.load(f)
        with open(sys.argv[2], encoding="utf-8") as f:
            instance = json.load(f)
    except (OSError, ValueError) as e:
        print(f"validate_json: {e}", file=sys.stderr)
        return 2
    errors = list(jsonschema.Draft202012Validator(schema).iter_errors(instance))
    for e in errors:
        print(f"validate_json: {e.json_path}: {e.message}", file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())

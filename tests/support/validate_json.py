#!/usr/bin/env python3
"""Validates one JSON document against schema/report-v2.json with python3-jsonschema (Debian's
maintained JSON Schema validator, draft 2020-12), for the tests of the --json contract.

usage: validate_json.py SCHEMA INSTANCE [DEF]
  DEF: validate against SCHEMA's $defs/DEF instead of the whole schema.
Prints one line per error ("/report/sections/setup: 'id' is a required property") and exits 1, or
prints nothing and exits 0. Exits 2 if the schema itself is not a valid draft 2020-12 schema.
"""
import json
import sys

import jsonschema


def main() -> int:
    schema_path, instance_path = sys.argv[1], sys.argv[2]
    with open(schema_path, encoding="utf-8") as f:
        schema = json.load(f)
    with open(instance_path, encoding="utf-8") as f:
        instance = json.load(f)
    try:
        jsonschema.Draft202012Validator.check_schema(schema)
    except jsonschema.SchemaError as e:
        print(f"the schema is not valid: {e.message}")
        return 2
    if len(sys.argv) > 3:
        schema = {"$ref": "#/$defs/" + sys.argv[3], "$defs": schema["$defs"]}
    validator = jsonschema.Draft202012Validator(schema)
    errors = sorted(validator.iter_errors(instance), key=lambda e: list(e.absolute_path))
    for e in errors:
        where = "".join("/" + str(p) for p in e.absolute_path)
        print(f"{where or '/'}: {e.message}")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())

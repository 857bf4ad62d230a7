#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Validates JSON lines against docs/publish.schema.json (dlapublish's tests run it):
   validate_schema.py SCHEMA FILE   -> exit 0 when every line is valid, else 1 naming the first bad one;
   77 without python3-jsonschema (the unit tests fail on anything but 0; the GPU test notes it)."""
import json, sys
try:
    import jsonschema
except ImportError:
    print('validate_schema: python3-jsonschema is missing: apt-get install python3-jsonschema (.ci/install-deps.sh)')
    sys.exit(77)
schema = json.load(open(sys.argv[1]))
validator = jsonschema.Draft202012Validator(schema)
jsonschema.Draft202012Validator.check_schema(schema)
n = 0
for i, line in enumerate(open(sys.argv[2]), 1):
    try:
        doc = json.loads(line)
    except json.JSONDecodeError as e:
        sys.exit(f'validate_schema: line {i} is no JSON: {e}: {line[:200]}')
    errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.path))
    if errors:
        sys.exit(f'validate_schema: line {i} breaks the schema at {list(errors[0].path)}: {errors[0].message}')
    n += 1
print(f'validate_schema: {n} line(s) valid')

# SPDX-License-Identifier: LGPL-2.1-or-later
"""Prints one closing line from a meson testlog.json: 'SUITE: N passed, N failed, N skipped'."""
import json
import sys

path, label = sys.argv[1], sys.argv[2]
counts = {"OK": 0, "FAIL": 0, "SKIP": 0}
with open(path, encoding="utf-8") as f:
    for line in f:
        result = json.loads(line)["result"]
        key = "OK" if result in ("OK", "EXPECTEDFAIL") else "SKIP" if result == "SKIP" else "FAIL"
        counts[key] += 1
print(f"{label}: {counts['OK']} passed, {counts['FAIL']} failed, {counts['SKIP']} skipped")

#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""One plain line of a meson build's test results, counted from its log:
   scripts/test-counts.py BUILD_DIR [LABEL]  ->  "LABEL: N passed, N failed, N skipped"
"""
import json
import sys

counts = {}
for line in open(f"{sys.argv[1]}/meson-logs/testlog.json"):
    r = json.loads(line)["result"]
    counts[r] = counts.get(r, 0) + 1
passed = counts.get("OK", 0) + counts.get("EXPECTEDFAIL", 0)
failed = sum(v for k, v in counts.items() if k not in ("OK", "EXPECTEDFAIL", "SKIP"))
label = f"{sys.argv[2]}: " if len(sys.argv) > 2 else ""
print(f"{label}{passed} passed, {failed} failed, {counts.get('SKIP', 0)} skipped")

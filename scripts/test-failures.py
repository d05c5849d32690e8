#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""What each failed test of a meson build said, from its log, for a run
whose full output is kept in a file (scripts/gst-versions.sh): the lines
that say why (check's failures, criticals, assertions, the objects the
leaks tracer found alive) and the output's last lines.
   scripts/test-failures.py BUILD_DIR [MAX_LINES_PER_TEST]
   scripts/test-failures.py --names BUILD_DIR   (the failed tests' names)
   scripts/test-failures.py --at-exit BUILD_DIR (those of them that failed
                   after all their checks passed, on the leaks tracer's
                   "couldn't find weak ref" alone: not on objects it found
                   alive, which is a leak)
A gst-check test that exits 2 after all its checks passed failed at exit:
a critical or warning then (the leaks tracer's, for one) reaches check
after its messaging is gone ("No messaging setup").
"""
import json
import re
import sys

WHY = re.compile(r":\d+:[FE]:|Failures: [1-9]|Errors: [1-9]|error:|assert|Bail out|"
                 r"Unexpected critical|object-alive, type-name=\(string\)\w|"
                 r"No messaging setup|SUMMARY:|runtime error")
# GStreamer's debug lines: "0:00:00.001 PID 0xADDR LEVEL CATEGORY file:line:func: text".
DEBUG_PREFIX = re.compile(r"^\S*\d+:\d+:\d+\.\d+\s+(\x1b\[[0-9;]*m)?\s*\d+.*?:\d+:[^ ]+:?\s*")


def failed(build):
    for line in open(f"{build}/meson-logs/testlog.json"):
        try:
            r = json.loads(line)
        except ValueError:
            continue  # a line cut short (a run stopped while writing)
        if r["result"] not in ("OK", "EXPECTEDFAIL", "SKIP"):
            yield r


ALL_PASSED = re.compile(r"^100%: Checks: \d+, Failures: 0, Errors: 0$", re.M)
STALE_ENTRY = "gst_mini_object_weak_unref: couldn't find weak ref"

if sys.argv[1] in ("--names", "--at-exit"):
    for r in failed(sys.argv[2]):
        out = (r.get("stdout") or "") + (r.get("stderr") or "")
        if sys.argv[1] == "--at-exit" and not (
                ALL_PASSED.search(out) and STALE_ENTRY in out and "Leaks detected" not in out):
            continue
        # "project:suite / name": meson test takes the name alone
        print(r["name"].split(" / ")[-1])
    sys.exit(0)

build = sys.argv[1]
most = int(sys.argv[2]) if len(sys.argv) > 2 else 40
for r in failed(build):
    print(f"--- {r['name']}: {r['result']} (exit {r.get('returncode')}, "
          f"{r.get('duration', 0):.2f} s)")
    out = ((r.get("stdout") or "") + (r.get("stderr") or "")).splitlines()
    # The last lines that are not GStreamer's debug log.
    plain = [i for i, l in enumerate(out) if not DEBUG_PREFIX.match(l)][-8:]
    why = [DEBUG_PREFIX.sub("", l) for i, l in enumerate(out)
           if WHY.search(l) and i not in plain]
    tail = [out[i] for i in plain]
    shown = why[:most - len(tail)] + tail
    for l in shown:
        print("    " + l[:300])
    if len(why) + len(tail) > len(shown):
        print(f"    ({len(why) + len(tail) - len(shown)} more lines: "
              f"{build}/meson-logs/testlog.txt)")

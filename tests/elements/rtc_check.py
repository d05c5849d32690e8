#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""rtc_check.py TEST_EXE [TEST NAMES...]: runs a converter test whose
conversions take kernels compiled at run time for them
(gpu/convert_scale_rtc.h), twice:

- GST_CS_CONVERT_RTC=wait: every description compiled at its first
  launch. Checks that the test passes, that compiled kernels ran, and that
  none failed to compile or load, or was declined (its description in
  local memory: kMostStackBytes).
- as users run it (compiled in the background after a few launches, the
  built kernel meanwhile): the test passes, and its processes exit
  cleanly while compiles are under way (gst-check forks a process a test).

Each test's process says at exit what it compiled and launched
(GST_CS_CONVERT_RTC_REPORT)."""
import os
import re
import subprocess
import sys
import tempfile

exe, names = sys.argv[1], sys.argv[2:]


def run(mode, cache):
    env = dict(os.environ)
    env.pop("GST_CS_CONVERT_RTC", None)
    if mode:
        env["GST_CS_CONVERT_RTC"] = mode
    env["GST_CS_CONVERT_RTC_REPORT"] = "1"
    env["GST_CS_CONVERT_RTC_CACHE"] = cache
    if names:
        env["GST_CHECKS"] = ",".join(names)
    r = subprocess.run([exe], env=env, capture_output=True, text=True)
    if r.returncode == 77:
        sys.stdout.write(r.stdout + r.stderr[-2000:])
        sys.exit(77)
    sys.stdout.write(r.stdout)
    reports = re.findall(
        r"convert rtc: (\d+) compiled, (\d+) failed, (\d+) declined, (\d+) launches(.*)",
        r.stderr)
    totals = [sum(int(x[i]) for x in reports) for i in range(4)]
    print("rtc (%s): %d processes reported: %d compiled, %d failed, %d declined, "
          "%d launches of compiled kernels" % (mode or "background", len(reports), *totals))
    if r.returncode != 0:
        sys.stderr.write(r.stderr[-20000:])
        sys.exit("the test failed with compiled kernels (%s, exit %d)"
                 % (mode or "background", r.returncode))
    if not reports:
        sys.exit("no process reported (GST_CS_CONVERT_RTC_REPORT): was NVRTC found?")
    errors = [x[4] for x in reports if x[4]]
    if totals[1] or totals[2] or errors:
        sys.exit("kernels that did not compile, load or pay:%s" % "".join(errors)[:4000])
    return totals


with tempfile.TemporaryDirectory() as fresh:
    # A cache of its own for each run: the background run compiles too.
    if run("wait", os.path.join(fresh, "wait"))[3] == 0:
        sys.exit("no compiled kernel was launched")
    run(None, os.path.join(fresh, "background"))

#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""rtc_check.py TEST_EXE [TEST NAMES...]: runs a converter test whose
conversions take kernels compiled at run time for them
(gpu/convert_scale_rtc.h: GST_CS_CONVERT_RTC=wait, every description
compiled at its first launch), and checks that it passes, that compiled
kernels ran, and that none failed to compile or load. Each test's process
says at exit what it compiled and launched (GST_CS_CONVERT_RTC_REPORT)."""
import os
import re
import subprocess
import sys

exe, names = sys.argv[1], sys.argv[2:]
env = dict(os.environ)
env.update({"GST_CS_CONVERT_RTC": "wait", "GST_CS_CONVERT_RTC_REPORT": "1"})
env.setdefault("GST_CS_CONVERT_RTC_CACHE", os.path.join(os.getcwd(), "rtc-cache"))
if names:
    env["GST_CHECKS"] = ",".join(names)
run = subprocess.run([exe], env=env, capture_output=True, text=True)
if run.returncode == 77:
    sys.stdout.write(run.stdout + run.stderr[-2000:])
    sys.exit(77)
sys.stdout.write(run.stdout)
reports = re.findall(r"convert rtc: (\d+) compiled, (\d+) failed, (\d+) launches(.*)", run.stderr)
compiled = sum(int(r[0]) for r in reports)
failed = sum(int(r[1]) for r in reports)
launches = sum(int(r[2]) for r in reports)
print("rtc: %d processes reported: %d compiled, %d failed, %d launches of compiled kernels"
      % (len(reports), compiled, failed, launches))
errors = [r[3] for r in reports if r[3]]
if run.returncode != 0:
    sys.stderr.write(run.stderr[-20000:])
    sys.exit("the test failed with compiled kernels (exit %d)" % run.returncode)
if not reports:
    sys.exit("no process reported (GST_CS_CONVERT_RTC_REPORT): was NVRTC found?")
if failed or errors:
    sys.exit("kernels that did not compile or load:%s" % "".join(errors)[:4000])
if launches == 0:
    sys.exit("no compiled kernel was launched")

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

- with --launch GST_LAUNCH: a live pipeline of 5 s (1000 moving frames
  into the converter, NV12 to RGBA, downscaled), as users run it: its
  kernel compiled in the background and taken mid-stream. Its output
  must be the built kernels' (GST_CS_CONVERT_RTC=0), byte for byte, over
  the switch, and compiled kernels must have run in it. Then runs shorter
  than a compile (40 frames, not live): the first exits while its kernel
  is compiled, whose compiler goes on and caches it; the next takes it
  from the cache, so compiled kernels run in it.

Each test's process says at exit what it compiled and launched
(GST_CS_CONVERT_RTC_REPORT)."""
import hashlib
import os
import re
import subprocess
import sys
import tempfile
import time

args = sys.argv[1:]
launch = None
if args[:1] == ["--launch"]:
    launch, args = args[1], args[2:]
exe, names = args[0], args[1:]


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


def pipeline_switches(workdir):
    """The live pipeline, built kernels alone and then as users run it
    (a fresh cache: compiled during the stream); the same bytes."""
    os.makedirs(workdir)
    line = ("videotestsrc is-live=true num-buffers=1000 pattern=ball ! "
            "video/x-raw,format=NV12,width=640,height=360,framerate=200/1 ! "
            "cudastreamsupload ! cudastreamsconvertscale ! "
            "video/x-raw(memory:CUDAStreamsMemory),format=RGBA,width=256,height=144 ! "
            "cudastreamsdownload ! filesink location=%s")
    digests = {}
    for mode in ("0", None):
        env = dict(os.environ)
        env.pop("GST_CS_CONVERT_RTC", None)
        if mode:
            env["GST_CS_CONVERT_RTC"] = mode
        env["GST_CS_CONVERT_RTC_REPORT"] = "1"
        env["GST_CS_CONVERT_RTC_CACHE"] = os.path.join(workdir, "cache")
        out = os.path.join(workdir, "frames-%s" % (mode or "background"))
        r = subprocess.run([launch, "-q"] + (line % out).split(), env=env,
                           capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit("pipeline (%s) failed, exit %d:\n%s"
                     % (mode or "background", r.returncode, r.stderr[-4000:]))
        report = re.findall(r"convert rtc: (\d+) compiled, (\d+) failed, (\d+) declined, "
                            r"(\d+) launches(.*)", r.stderr)
        if mode is None and len(report) != 1:
            sys.exit("pipeline (%s): no report of the compiler:\n%s"
                     % (mode or "background", r.stderr[-4000:]))
        compiled, failed, declined, launches, error = (report or [("0",) * 4 + ("",)])[0]
        size = os.path.getsize(out)
        with open(out, "rb") as f:
            digests[mode] = hashlib.sha256(f.read()).hexdigest()
        os.unlink(out)
        print("pipeline (%s): %d bytes, %s compiled, %s failed, %s declined, %s launches%s"
              % (mode or "background", size, compiled, failed, declined, launches, error))
        if size != 1000 * 256 * 144 * 4:
            sys.exit("pipeline (%s): %d bytes written, not 1000 frames" % (mode, size))
        if mode is None and (int(launches) == 0 or int(failed) or int(declined)):
            sys.exit("the compiled kernel did not take over the stream")
    if digests["0"] != digests[None]:
        sys.exit("the frames differ once the compiled kernel takes over")


def short_runs(workdir):
    """Runs that end before their kernel is compiled leave it to the next
    (gpu/convert_scale_rtc.h: the compiler finishes on its own)."""
    line = ("videotestsrc num-buffers=40 pattern=ball ! "
            "video/x-raw,format=NV12,width=640,height=360 ! "
            "cudastreamsupload ! cudastreamsconvertscale ! "
            "video/x-raw(memory:CUDAStreamsMemory),format=RGBA,width=200,height=120 ! "
            "fakesink")
    env = dict(os.environ)
    env.pop("GST_CS_CONVERT_RTC", None)
    env["GST_CS_CONVERT_RTC_REPORT"] = "1"
    cache = env["GST_CS_CONVERT_RTC_CACHE"] = os.path.join(workdir, "short")
    reports = []
    for k in range(2):
        r = subprocess.run([launch, "-q"] + line.split(), env=env, capture_output=True,
                           text=True)
        report = re.findall(r"convert rtc: (\d+) compiled, (\d+) failed, (\d+) declined, "
                            r"(\d+) launches(.*)", r.stderr)
        if r.returncode != 0 or len(report) != 1:
            sys.exit("short run %d failed, exit %d:\n%s" % (k + 1, r.returncode,
                                                             r.stderr[-4000:]))
        reports.append(report[0])
        print("short run %d: %s compiled, %s launches%s" % (k + 1, report[0][0],
                                                          report[0][3], report[0][4]))
        if k == 0:
            # The first run's compiler, left running, writes the cache.
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline and not (
                    os.path.isdir(cache) and
                    any(f.endswith(".cubin") for f in os.listdir(cache))):
                time.sleep(0.1)
    if int(reports[1][3]) == 0:
        sys.exit("a short run's kernel was not left to the next run")


with tempfile.TemporaryDirectory() as fresh:
    # A cache of its own for each run: the background run compiles too.
    if run("wait", os.path.join(fresh, "wait"))[3] == 0:
        sys.exit("no compiled kernel was launched")
    run(None, os.path.join(fresh, "background"))
    if launch:
        pipeline_switches(os.path.join(fresh, "pipeline"))
        short_runs(fresh)

#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Times a plain gst-launch-1.0 pipeline, as a user would run it.

    launch_bench.py --frames 100,600 --tag impl=ours --tag case=imagefreeze \
        --format RGBA --width 3840 --height 2160 --source imagefreeze \
        -- videotestsrc num-buffers=1 ! ... ! imagefreeze num-buffers={n} ! ...

Runs the pipeline twice, with {n} replaced by each frame count, and takes the
difference: start-up (registry, CUDA context, pools, the first frames) costs
the same in both runs and drops out. Prints one line "RESULT {json}" in
gcs-bench's form (fps, cpu_us: user+system time of gst-launch-1.0 and its
threads per frame; no host-wait counts: gst-launch-1.0 cannot report them).
"""
import argparse
import json
import os
import resource
import subprocess
import sys
import time


def run_once(argv):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    p = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall = time.monotonic() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return p.returncode, wall, cpu, p.stderr


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--frames", default="100,600")
    ap.add_argument("--tag", action="append", default=[])
    ap.add_argument("--format", required=True)
    ap.add_argument("--width", type=int, required=True)
    ap.add_argument("--height", type=int, required=True)
    ap.add_argument("--source", default="imagefreeze")
    ap.add_argument("pipeline", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    desc = " ".join(x for x in a.pipeline if x != "--")
    result = {k: v for k, v in (t.split("=", 1) for t in a.tag)}
    result.update(format=a.format, width=a.width, height=a.height, source=a.source)
    n1, n2 = (int(x) for x in a.frames.split(","))
    runs = []
    for n in (n1, n2):
        argv = ["gst-launch-1.0", "-q"] + desc.replace("{n}", str(n)).split()
        rc, wall, cpu, err = run_once(argv)
        if rc != 0:
            result.update(status="error", reason=f"gst-launch-1.0 exit {rc}: {err.strip()[-300:]}")
            print("RESULT " + json.dumps(result))
            return 1
        runs.append((wall, cpu))
    dwall = runs[1][0] - runs[0][0]
    dcpu = runs[1][1] - runs[0][1]
    frames = n2 - n1
    if dwall <= 0:
        result.update(status="error", reason=f"no time difference between the runs "
                      f"({n1} frames: {runs[0][0]:.3f} s, {n2} frames: {runs[1][0]:.3f} s)")
    else:
        bytes_ = a.width * a.height * {"RGBA": 4, "NV12": 1.5}.get(a.format, 4)
        fps = frames / dwall
        result.update(status="ok", fps=fps, gbps=2 * bytes_ * fps / 1e9,
                      cpu_us=1e6 * dcpu / frames, waits=None, frames=frames,
                      seconds=dwall, pipeline=desc)
    print(f"{result.get('impl', '?')} {desc}: " + (
        f"{result['fps']:.0f} fps, {result['cpu_us']:.0f} us CPU/frame"
        if result["status"] == "ok" else result["reason"]), file=sys.stderr)
    print("RESULT " + json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Where each converter row's frame time goes, from a BENCH_CUPTI=1 run of
pipelines/bench: beside each case's frames/s (the time a frame takes, 1e6 /
fps), the GPU's own account of its per-frame kernel (CUPTI: its median
duration, and the median time from one start to the next). A period that
equals the kernel's duration is a GPU-bound row; one well above it, a row
whose GPU waits for the host between frames.

    cupti_rows.py raw_convert.jsonl CUPTI_DIR
"""
import json
import os
import sys


def results(path):
    out = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("RESULT "):
                out.append(json.loads(line[7:]))
    return out


def frame_kernel(cupti):
    """The kernel launched once a frame: the most launched one."""
    kernels = cupti.get("kernels", {})
    if not kernels:
        return None, None
    name, k = max(kernels.items(), key=lambda kv: kv[1]["n"])
    return name, k


def main():
    raw, cdir = sys.argv[1], sys.argv[2]
    print("%-38s %-15s %9s %8s %8s %8s %6s  %s" % ("row", "impl", "fps", "frame_us",
                                                 "kern_us", "period", "busy", "kernel"))
    for r in results(raw):
        if r.get("status") != "ok":
            continue
        name = "%s-%s-%s-%dx%d.json" % (r["impl"], r["case"], r["format"], r["width"],
                                        r["height"])
        path = os.path.join(cdir, name)
        if not os.path.exists(path):
            continue
        try:
            with open(path, encoding="utf-8") as f:
                cupti = json.load(f)
        except (OSError, ValueError):
            continue
        kname, k = frame_kernel(cupti)
        if not k:
            continue
        frame_us = 1e6 / r["fps"]
        period = k.get("period_p50_us", -1)
        busy = k["p50_us"] / period if period and period > 0 else 0
        print("%-38s %-15s %9.0f %8.2f %8.2f %8.2f %5.0f%%  %s" % (
            r["case"].replace("convert-", ""), r["impl"], r["fps"], frame_us, k["p50_us"],
            period, 100 * busy, kname[:40]))


if __name__ == "__main__":
    main()

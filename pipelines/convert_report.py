#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The cudaconvertscale rows of pipelines/bench: one table, a CSV, a chart
and a summary against issue 34's targets.

    convert_report.py raw_convert.jsonl convert_time.txt --rows convert_rows.txt
        [--csv FILE] [--chart FILE.png] [--gpu NAME] [--date DATE] [--summary FILE]

raw_convert.jsonl: gcs-bench's "RESULT {json}" lines of the convert-* cases
(impl ours, nvcodec-<version>); convert_time.txt: gcs-convert-time's
"CONVERT-TIME {json}" lines (the kernel's GPU time per frame beside a
device-to-device copy of the bytes it must move). The targets, on every
device-resident row: frames/s at least the newest nvcodec's, their median
ratio at least 1.3; CPU us/frame at most nvcodec's + 1; the kernel at most
1.5x the copy; 0 host waits. The end-to-end rows (convert-e2e-*) are shown
and written, not counted.
"""
import argparse
import csv
import json
import statistics
import sys

from convert_matrix import read_rows  # the rows files' one reader

COLUMNS = ["row", "ours_fps", "nvcodec_fps", "ours_cpu_us", "nvcodec_cpu_us", "kernel_us",
           "copy_us", "host_waits", "gpu", "date"]
E2E = ["e2e-sysmem", "e2e-nvdec"]


def read(path, prefix):
    out = []
    try:
        with open(path, encoding="utf-8") as f:
            for line in f:
                if line.startswith(prefix):
                    out.append(json.loads(line[len(prefix):]))
    except OSError:
        pass
    return out


def row_names(path):
    return [r["row"] for r in read_rows(path)]


def ok(r):
    return r is not None and r.get("status") == "ok"


def chart(rows, path, title):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("chart: no matplotlib here")
        return
    names = [r["row"] for r in rows]
    speed = [(r["ours_fps"] / r["nvcodec_fps"]) if r["ours_fps"] and r["nvcodec_fps"] else 0
             for r in rows]
    kern = [(r["kernel_us"] / r["copy_us"]) if r["kernel_us"] and r["copy_us"] else 0
            for r in rows]
    fig, ax = plt.subplots(1, 2, figsize=(14, 0.32 * len(rows) + 1.5), sharey=True)
    y = list(range(len(rows)))
    ax[0].barh(y, speed, color=["tab:green" if s >= 1.0 else "tab:red" for s in speed])
    ax[0].axvline(1.0, color="black", lw=1)
    ax[0].axvline(1.3, color="grey", lw=1, ls="--")
    ax[0].set_xlabel("frames/s, ours / nvcodec 1.28 (line: 1; dashed: median target 1.3)")
    ax[0].set_yticks(y)
    ax[0].set_yticklabels(names, fontsize=8)
    ax[0].invert_yaxis()
    ax[1].barh(y, kern, color=["tab:blue" if k <= 1.5 else "tab:orange" for k in kern])
    ax[1].axvline(1.5, color="grey", lw=1, ls="--")
    ax[1].set_xlabel("our kernel's GPU time / a device copy of its bytes (dashed: 1.5)")
    fig.suptitle("cudaconvertscale, " + title)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    print("chart: " + path)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("raw")
    ap.add_argument("times")
    ap.add_argument("--rows", required=True)
    ap.add_argument("--csv")
    ap.add_argument("--chart")
    ap.add_argument("--gpu", default="")
    ap.add_argument("--date", default="")
    ap.add_argument("--summary")
    a = ap.parse_args()
    results = read(a.raw, "RESULT ")
    times = {t["row"]: t for t in read(a.times, "CONVERT-TIME ")}
    by = {(r["impl"], r["case"]): r for r in results}
    peers = sorted({r["impl"] for r in results if r["impl"].startswith("nvcodec")})
    peer = peers[-1] if peers else None
    rows = []
    for name in row_names(a.rows) + E2E:
        ours = by.get(("ours", "convert-" + name))
        nv = by.get((peer, "convert-" + name)) if peer else None
        t = times.get(name)
        if ours is None and nv is None and t is None:
            continue
        rows.append({
            "row": name,
            "ours_fps": ours["fps"] if ok(ours) else None,
            "nvcodec_fps": nv["fps"] if ok(nv) else None,
            "ours_cpu_us": ours["cpu_us"] if ok(ours) else None,
            "nvcodec_cpu_us": nv["cpu_us"] if ok(nv) else None,
            "kernel_us": t["kernel_us"] if t else None,
            "copy_us": t["copy_us"] if t else None,
            "host_waits": ours.get("waits") if ok(ours) else None,
            "gpu": a.gpu, "date": a.date,
            "path": t.get("path", "") if t else "",
            "why": "" if ok(ours) and ok(nv) else
                   ("ours: " + (ours or {}).get("reason", "none") if not ok(ours) else
                    "nvcodec: " + (nv or {}).get("reason", "none")),
        })

    def f(v, fmt):
        return fmt % v if v is not None else "n/a"

    print("%-36s %9s %9s %6s %7s %7s %7s %7s %6s %5s  %s" % (
        "row", "ours fps", "nv fps", "ratio", "CPU us", "nv CPU", "kern us", "copy us",
        "k/copy", "waits", "path"))
    speedups, fails = [], []
    for r in rows:
        sp = r["ours_fps"] / r["nvcodec_fps"] if r["ours_fps"] and r["nvcodec_fps"] else None
        kc = r["kernel_us"] / r["copy_us"] if r["kernel_us"] and r["copy_us"] else None
        print("%-36s %9s %9s %6s %7s %7s %7s %7s %6s %5s  %s%s" % (
            r["row"], f(r["ours_fps"], "%.0f"), f(r["nvcodec_fps"], "%.0f"), f(sp, "%.2f"),
            f(r["ours_cpu_us"], "%.1f"), f(r["nvcodec_cpu_us"], "%.1f"),
            f(r["kernel_us"], "%.1f"), f(r["copy_us"], "%.1f"), f(kc, "%.2f"),
            f(r["host_waits"], "%.2f"), r["path"], ("  (" + r["why"][:60] + ")") if r["why"] else ""))
        if r["row"] in E2E:
            continue
        if sp is not None:
            speedups.append(sp)
        miss = []
        if sp is None or sp < 1.0:
            miss.append("fps")
        if r["ours_cpu_us"] is None or r["nvcodec_cpu_us"] is None or \
                r["ours_cpu_us"] > r["nvcodec_cpu_us"] + 1.0:
            miss.append("cpu")
        if kc is None or kc > 1.5:
            miss.append("kernel")
        if r["host_waits"] != 0:
            miss.append("waits")
        if miss:
            fails.append("%s (%s)" % (r["row"], ",".join(miss)))
    med = statistics.median(speedups) if speedups else None
    head = ("cudaconvertscale vs %s: %d device rows, median ours/nvcodec %s (target 1.3); "
            "rows missing a target: %d" % (peer or "nvcodec", len(speedups), f(med, "%.2f"),
                                            len(fails)))
    print(head)
    for x in fails:
        print("  misses: " + x)
    if a.csv:
        with open(a.csv, "w", newline="", encoding="utf-8") as out:
            w = csv.DictWriter(out, fieldnames=COLUMNS, extrasaction="ignore")
            w.writeheader()
            for r in rows:
                w.writerow({k: (round(v, 2) if isinstance(v, float) else v)
                            for k, v in r.items()})
    if a.chart:
        chart(rows, a.chart, "%s, %s" % (a.gpu, a.date))
    if a.summary:
        with open(a.summary, "a", encoding="utf-8") as fh:
            fh.write(head + "\n" + "".join("  misses: %s\n" % x for x in fails))
    return 0


if __name__ == "__main__":
    sys.exit(main())

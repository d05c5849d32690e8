#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The cudaconvertscale rows of pipelines/bench, as one table and a summary.

    convert_report.py raw_convert.jsonl convert_time.txt [--summary FILE]

raw_convert.jsonl: gcs-bench's "RESULT {json}" lines of the convert-* cases
(impl ours, nvcodec-<version>, cpu); convert_time.txt: gcs-convert-time's
"CONVERT-TIME {json}" lines (the kernel's GPU time per frame beside a
device-to-device copy of the same bytes). The targets of issue 17: at least
2x the newest nvcodec's frames/s on every row of ROWS, 0 host waits, GPU time
within 1.5x of the copy; EXTRA_ROWS are shown beside them, not counted.
"""
import argparse
import json
import sys

ROWS = [
    ("convert-scale", "4K NV12 -> 1080p RGBA bilinear"),
    ("convert-letterbox", "1080p NV12 -> 640x640 RGBP letterbox"),
    ("convert-p010", "4K P010 -> 4K NV12"),
    ("convert-rotate", "1080p RGBA rotate-90"),
]
# Rows beside the issue's, not its targets: what users run besides them
# (a decoder's frames resized for an encoder).
EXTRA_ROWS = [
    ("convert-nv12", "4K NV12 -> 1080p NV12 bilinear"),
]


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


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("raw")
    ap.add_argument("times")
    ap.add_argument("--summary")
    a = ap.parse_args()
    results = read(a.raw, "RESULT ")
    times = {t["row"]: t for t in read(a.times, "CONVERT-TIME ")}
    by = {(r["impl"], r["case"]): r for r in results}
    peers = sorted({r["impl"] for r in results if r["impl"].startswith("nvcodec")})
    peer = peers[-1] if peers else None

    def cell(r):
        if not r:
            return "n/a"
        if r.get("status") != "ok":
            return r.get("status", "?") + ": " + r.get("reason", "")[:40]
        return "%.0f fps, %.0f us CPU" % (r["fps"], r["cpu_us"])

    print("%-38s %-24s %-24s %-24s %-8s %s" % (
        "row", "ours (waits/frame)", peer or "nvcodec", "CPU videoconvertscale",
        "ours/nv", "GPU us/frame (copy us, ratio)"))
    summary = []
    all_2x = all_zero = all_copy = True
    for case, label in ROWS + EXTRA_ROWS:
        target = (case, label) in ROWS
        ours = by.get(("ours", case))
        nv = by.get((peer, case)) if peer else None
        cpu = by.get(("cpu", case))
        t = times.get(label)
        speedup = None
        if ours and nv and ours.get("status") == "ok" and nv.get("status") == "ok":
            speedup = ours["fps"] / nv["fps"]
        waits = ours.get("waits") if ours and ours.get("status") == "ok" else None
        gpu = "n/a"
        if t:
            gpu = "%.1f (%.1f, %.2fx)" % (t["kernel_us"], t["copy_us"], t["ratio"])
        print("%-38s %-24s %-24s %-24s %-8s %s" % (
            label, cell(ours) + (" (%.2f)" % waits if waits is not None else ""), cell(nv),
            cell(cpu), "%.2fx" % speedup if speedup else "n/a", gpu))
        if target:
            all_2x = all_2x and speedup is not None and speedup >= 2.0
            all_zero = all_zero and waits == 0
            all_copy = all_copy and t is not None and t["ratio"] <= 1.5
        summary.append("  %s%s: ours %s vs %s %s (%s), CPU %s; GPU %s us vs copy %s us" % (
            label, "" if target else " (not a target)", "%.0f fps" % ours["fps"] if ours and ours.get("status") == "ok" else "n/a",
            peer or "nvcodec", "%.0f fps" % nv["fps"] if nv and nv.get("status") == "ok" else "n/a",
            "%.2fx" % speedup if speedup else "n/a",
            "%.0f fps" % cpu["fps"] if cpu and cpu.get("status") == "ok" else "n/a",
            "%.1f" % t["kernel_us"] if t else "n/a", "%.1f" % t["copy_us"] if t else "n/a"))
    head = "cudaconvertscale: >=2x %s on every row: %s; 0 host waits: %s; GPU time <=1.5x copy: %s" % (
        peer or "nvcodec", "yes" if all_2x else "NO", "yes" if all_zero else "NO",
        "yes" if all_copy else "NO")
    print(head)
    if a.summary:
        with open(a.summary, "a", encoding="utf-8") as f:
            f.write(head + "\n" + "\n".join(summary) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

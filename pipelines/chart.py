#!/usr/bin/env python3
"""Bar chart of the benchmark: ours vs nvcodec vs the copy limit, per case.

    chart.py bench.csv bench.png [--title "GPU, date"]

Needs matplotlib (Debian: apt-get install python3-matplotlib). pipelines/bench
calls it when matplotlib is there; otherwise run it on its CSV elsewhere.
"""
import argparse
import csv

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

LABEL = {"updown": "up→down", "uponly": "up", "crop": "crop",
         "updown-mif0": "up→down\nmif=0", "updown-default": "up→down\ndefault",
         "updown-spin": "up→down\nspin-wait", "updown-bevents": "up→down\nblk events",
         "uponly-bevents": "up\nblk events"}
SHORT = {"1920x1080": "1080p", "3840x2160": "4K"}


def num(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return 0.0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("csv")
    ap.add_argument("png")
    ap.add_argument("--title", default="")
    a = ap.parse_args()
    rows = list(csv.DictReader(open(a.csv, encoding="utf-8")))
    names = [f"{LABEL.get(r['case'], r['case'])}\n{r['format']} {SHORT.get(r['size'], r['size'])}"
             f"\n{r['source']}" for r in rows]
    series = [("ours", "ours_fps", "#2a7ab9"), ("nvcodec 1.22", "nvcodec_fps", "#c9622b"),
              ("copy limit", "limit_fps", "#9a9a9a")]
    width = 0.27
    fig, ax = plt.subplots(figsize=(max(10, 0.95 * len(rows)), 5.5))
    for i, (label, key, color) in enumerate(series):
        xs = [j + (i - 1) * width for j in range(len(rows))]
        ax.bar(xs, [num(r[key]) for r in rows], width, label=label, color=color)
    ax.set_yscale("log")
    ax.set_ylabel("frames/s (log scale)")
    ax.set_xticks(range(len(rows)))
    ax.set_xticklabels(names, fontsize=6.5)
    ax.grid(axis="y", which="both", alpha=0.3)
    ax.legend()
    ax.set_title("gst-cudastreams vs nvcodec vs PCIe copy limit" +
                 (f" — {a.title}" if a.title else ""), fontsize=10)
    fig.tight_layout()
    fig.savefig(a.png, dpi=110)


if __name__ == "__main__":
    main()

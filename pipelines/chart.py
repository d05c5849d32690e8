#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Chart of the benchmark: ours and nvcodec as % of the copy limit, per case.

    chart.py bench.csv bench.png [--title "GPU, date"]

One panel per source kind (pinned, recurring, oneshot, imagefreeze, any other
in the CSV). Each row
is a case (case, format, size): a bar for this project and one for each
version of GStreamer's nvcodec in the CSV (its nvcodec_<version>_fps columns;
a CSV of older runs has only nvcodec_fps, GStreamer 1.22's), as a percentage
of the PCIe copy limit measured in the same run for the same transfers (the
100% line), the frames/s written beside each bar. A row without a copy limit
says so; a missing nvcodec figure shows as "n/a".

Needs matplotlib (Debian: apt-get install python3-matplotlib). pipelines/bench
calls it when matplotlib is there; otherwise run it on its CSV elsewhere.
"""
import argparse
import csv
import re

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import PercentFormatter  # noqa: E402

CASE = {"updown": "up→down", "uponly": "up only", "crop": "up→crop→down",
        "updown-default": "up→down, max-in-flight default",
        "updown-mif0": "up→down, max-in-flight=0", "updown-spin": "up→down, spin-wait=true",
        "imagefreeze": "gst-launch imagefreeze up→down"}
SIZE = {"1920x1080": "1080p", "3840x2160": "4K"}
SOURCE = {"pinned": "pinned source: the producer writes into the pool cudaupload offers",
          "recurring": "recurring source: a few malloc'd memories pushed again and again "
                       "(registered by cudaupload)",
          "oneshot": "one-shot source: a new memory every frame (staged by cudaupload)",
          "imagefreeze": "plain gst-launch-1.0: videotestsrc ! imagefreeze ! cudaupload ! "
                         "cudadownload",
          "pageable": "pageable source (older builds): frames in ordinary malloc'd memory"}
SOURCES = ["pinned", "recurring", "oneshot", "imagefreeze", "pageable"]
TITLE = "gst-cudastreams vs nvcodec: how close each gets to the copy limit"
OURS = "#2a7ab9"
# nvcodec versions, oldest first: the first keeps the colour of the charts
# made when only 1.22 was measured.
PEERS = ["#c9622b", "#7b4fa0", "#3f9a5a", "#b0467c"]
ROW = 0.76  # of a row's height, shared by its bars
OLD_PEER = ("nvcodec_fps", "1.22")


def num(v):
    """A CSV cell as a positive float, or None (empty, "n/a", 0)."""
    try:
        f = float(v)
    except (TypeError, ValueError):
        return None
    return f if f > 0 else None


def pct(fps, limit):
    return 100 * fps / limit if fps and limit else None


def label(r):
    lim = num(r.get("limit_fps"))
    text = f"{CASE.get(r['case'], r['case'])}  {r['format']} {SIZE.get(r['size'], r['size'])}"
    return text + (f"  (limit {lim:,.0f} fps)" if lim else "  (no limit measured)")


def peer_columns(fields):
    """The nvcodec series in the CSV, oldest first: [(column, version)]."""
    cols = [(f, m.group(1)) for f in fields
            for m in [re.fullmatch(r"nvcodec_(\d[\w.]*)_fps", f)] if m]
    cols.sort(key=lambda cv: tuple(int(x) for x in re.findall(r"\d+", cv[1])))
    return cols or ([OLD_PEER] if OLD_PEER[0] in fields else [])


def series(peers):
    """(column, colour, name) of every bar of a row: ours, then each nvcodec."""
    return [("ours_fps", OURS, "ours")] + [
        (col, PEERS[i % len(PEERS)], f"nvcodec {v}") for i, (col, v) in enumerate(peers)]


def draw_panel(ax, source, rows, xmax, peers):
    ys = range(len(rows))
    bars = series(peers)
    bar = ROW / len(bars)
    for y, r in zip(ys, rows):
        lim = num(r.get("limit_fps"))
        for i, (col, color, who) in enumerate(bars):
            fps = num(r.get(col))
            dy = (i - (len(bars) - 1) / 2) * bar
            p = pct(fps, lim)
            if p is not None:
                ax.barh(y + dy, min(p, xmax), bar, color=color)
                # White behind the text, so the 100% line does not cross it.
                ax.text(min(p, xmax) + 0.8, y + dy, f"{fps:,.0f} fps · {p:.0f}%", va="center",
                        fontsize=7, bbox={"facecolor": "white", "edgecolor": "none", "pad": 0.3})
            else:
                why = "n/a" if fps is None else f"{fps:,.0f} fps, no limit to compare with"
                ax.text(0.8, y + dy, f"{who}: {why}", va="center", fontsize=7, color="#555")
    ax.axvline(100, color="#333", linestyle="--", linewidth=1)
    ax.set_yticks(list(ys))
    ax.set_yticklabels([label(r) for r in rows], fontsize=8)
    ax.invert_yaxis()
    # A thin line between cases, so the rows of one case read as a group.
    for y in range(1, len(rows)):
        if rows[y]["case"] != rows[y - 1]["case"]:
            ax.axhline(y - 0.5, color="#ccc", linewidth=0.8)
    ax.set_ylim(len(rows) - 0.5, -0.5)
    ax.set_xlim(0, xmax)
    ax.xaxis.set_major_formatter(PercentFormatter(decimals=0))
    ax.grid(axis="x", alpha=0.3)
    ax.set_title(SOURCE.get(source, f"source: {source}"), fontsize=9.5, loc="left")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("csv")
    ap.add_argument("png")
    ap.add_argument("--title", default="", help="the GPU and date, e.g. 'NVIDIA H200, 2026-11-21'")
    a = ap.parse_args()
    with open(a.csv, encoding="utf-8") as f:
        reader = csv.DictReader(f)
        rows = list(reader)
        peers = peer_columns(reader.fieldnames or [])
    for r in rows:
        for k in ("case", "format", "size", "source"):
            r[k] = r.get(k) or "?"
    sources = [s for s in SOURCES if any(r["source"] == s for r in rows)]
    sources += sorted({r["source"] for r in rows} - set(sources))
    panels = [(s, [r for r in rows if r["source"] == s]) for s in sources]

    values = [pct(num(r.get(k)), num(r.get("limit_fps")))
              for r in rows for k, _, _ in series(peers)]
    # Room right of the longest bar for its label; bars past 160% are cut there.
    xmax = min(160, max([110] + [v + 30 for v in values if v is not None]))

    if not panels:
        # A chart that says so beats a missing file in the benchmark's output.
        fig, ax = plt.subplots(figsize=(10, 2))
        ax.axis("off")
        ax.text(0.5, 0.5, f"no results in {a.csv}", ha="center", va="center")
        fig.suptitle(TITLE + (f" — {a.title}" if a.title else ""), fontsize=11)
        fig.savefig(a.png, dpi=120)
        return

    heights = [len(p) for _, p in panels]
    # As tall a bar as with two bars a row (0.36 in a row), however many.
    legend = 0.15 * (2 + len(peers))
    height = 1.15 + legend + 0.18 * len(series(peers)) * sum(heights) + 0.5 * len(heights)
    fig, axes = plt.subplots(len(heights), 1, sharex=True, squeeze=False, figsize=(10, height),
                             gridspec_kw={"height_ratios": heights})
    for ax, (source, prows) in zip(axes[:, 0], panels):
        draw_panel(ax, source, prows, xmax, peers)
    bottom = axes[-1, 0]
    bottom.set_xlabel("frames/s as % of the PCIe copy limit for the same transfers, measured "
                      "in the same run (dashed line = 100%)", fontsize=8.5)
    handles = [plt.Rectangle((0, 0), 1, 1, color=color) for _, color, _ in series(peers)]
    names = ["gst-cudastreams (this project; cudadownload max-in-flight=3 "
             "unless the row says otherwise)"]
    names += [f"GStreamer {v} nvcodec (up→crop→down: nvcodec up→down, then videocrop on "
              f"the CPU)" for _, v in peers]
    fig.legend(handles, names, loc="lower left", bbox_to_anchor=(0.01, 0), ncol=1, fontsize=8,
               frameon=False)
    # A plain text, not a suptitle: matplotlib versions differ in whether
    # tight_layout makes room for a suptitle; the rect below does it for all.
    fig.text(0.01, 1 - 0.1 / height, TITLE + (f"\n{a.title}" if a.title else ""), fontsize=11,
             ha="left", va="top")
    fig.tight_layout(rect=(0, legend / height, 1, 1 - 0.6 / height))  # legend, title
    fig.savefig(a.png, dpi=120)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Draws a cudastreams tracer file (GST_TRACERS="cudastreamstrace(file=F)") as a
PNG timeline: one row per CUDA stream, each element's GPU spans in its
colour, waits on the GPU as hatched spans, and each wait's producer ->
consumer flow as an arrow; the streaming threads' chain calls below.

    python3 pipelines/trace_timeline.py trace.json timeline.png [--window MS] [--title T]

--window keeps the last MS milliseconds of the run (a steady state), so a
long run stays readable.
"""
import argparse
import json
import sys


def load(path):
    with open(path) as f:
        events = json.load(f)["traceEvents"]
    names = {(e["pid"], e.get("tid")): e["args"]["name"] for e in events if e.get("ph") == "M"}
    return events, names


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("trace")
    ap.add_argument("png")
    ap.add_argument("--window", type=float, default=2.0, help="last MS milliseconds")
    ap.add_argument("--title", default="")
    a = ap.parse_args()
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        sys.exit("matplotlib is needed")
    events, names = load(a.trace)
    spans = [e for e in events if e.get("ph") == "X"]
    if not spans:
        sys.exit(f"{a.trace}: no spans")
    end = max(e["ts"] + e["dur"] for e in spans)
    t0 = end - a.window * 1000.0
    spans = [e for e in spans if e["ts"] + e["dur"] >= t0]
    # Rows: GPU streams first (pid >= 100), then threads.
    rows = sorted({(e["pid"], e["tid"]) for e in spans}, key=lambda k: (-k[0], k[1]))
    row_of = {k: i for i, k in enumerate(rows)}
    elements = sorted({e["name"].removeprefix("wait: ") for e in spans})
    cmap = plt.get_cmap("tab10")
    colour = {n: cmap(i % 10) for i, n in enumerate(elements)}
    fig, ax = plt.subplots(figsize=(14, 1.0 + 0.55 * len(rows)))
    for e in spans:
        y = row_of[(e["pid"], e["tid"])]
        x, w = (e["ts"] - t0) / 1000.0, e["dur"] / 1000.0
        name = e["name"].removeprefix("wait: ")
        if e["cat"] == "gpu-wait":
            ax.barh(y, w, left=x, height=0.5, color="none", edgecolor=colour[name],
                    hatch="////", linewidth=0)
        elif e["cat"] == "gpu":
            ax.barh(y, w, left=x, height=0.7, color=colour[name])
        else:  # a chain call on a thread: nested calls are drawn over it, thinner
            ax.barh(y, w, left=x, height=0.35, color=colour[name], alpha=0.6)
    starts = {e["id"]: e for e in events if e.get("ph") == "s"}
    for e in events:
        s = starts.get(e.get("id")) if e.get("ph") == "f" else None
        if s and s["ts"] >= t0:
            ax.annotate("", xy=((e["ts"] - t0) / 1000.0, row_of.get((e["pid"], e["tid"]), 0)),
                        xytext=((s["ts"] - t0) / 1000.0, row_of.get((s["pid"], s["tid"]), 0)),
                        arrowprops=dict(arrowstyle="->", color="0.3", lw=0.6))
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels([("GPU " if k[0] >= 100 else "thread ") + names.get(k, str(k[1]))
                        for k in rows], fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel(f"ms (the last {a.window:g} ms of the run)")
    ax.legend(handles=[plt.Rectangle((0, 0), 1, 1, color=colour[n]) for n in elements],
              labels=elements, loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=8)
    ax.set_title(a.title or "cudastreams tracer: GPU spans per stream (hatched: waiting "
                 "on the GPU for the producer, arrows: event -> wait), chain calls per thread",
                 fontsize=9)
    fig.tight_layout()
    fig.savefig(a.png, dpi=110)
    print(f"wrote {a.png}: {len(rows)} rows, {len(spans)} spans")


if __name__ == "__main__":
    main()

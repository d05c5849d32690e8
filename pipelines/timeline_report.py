#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Reads a timeline that libgcs-cupti-truth.so wrote (GCS_CUPTI_TIMELINE)
and says where a run's copy engines waited, and what the host was doing
meanwhile:

- per copy direction: the hardware channels it ran on, how busy it was,
  how long both directions ran at once, its idle gaps;
- per copy, how long it waited on the GPU after its call returned (long:
  the GPU was the bound; near zero: the GPU waited for the host);
- per idle gap of a direction, the runtime call each host thread was in
  when the gap began (or "between calls"), summed over the gaps;
- per thread, its runtime calls: how many a second and their median.

    timeline_report.py TIMELINE [--skip 0.3]

--skip: the share of the run, from its first copy, left out as warm-up.
"""
import argparse
import bisect
import collections
import statistics


def read(path):
    copies, calls = [], collections.defaultdict(list)
    for line in open(path):
        p = line.split()
        if not p:
            continue
        if p[0] == "C" and len(p) >= 8:
            copies.append((p[1], int(p[2]), int(p[3]), int(p[4]), int(p[5]), int(p[6]), int(p[7])))
        elif p[0] == "A" and len(p) >= 6:
            calls[int(p[1])].append((int(p[2]), int(p[3]), int(p[4]), p[5]))
    return copies, calls


def merge(spans):
    out = []
    for s, e in sorted(spans):
        if out and s <= out[-1][1]:
            out[-1][1] = max(out[-1][1], e)
        else:
            out.append([s, e])
    return out


def overlap(a, b):
    i = j = 0
    both = 0
    while i < len(a) and j < len(b):
        lo, hi = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        if hi > lo:
            both += hi - lo
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return both


def pct(v, q):
    v = sorted(v)
    return v[min(len(v) - 1, int(q * len(v)))] if v else 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("timeline")
    ap.add_argument("--skip", type=float, default=0.3)
    a = ap.parse_args()
    copies, calls = read(a.timeline)
    if not copies:
        print("no copies in", a.timeline)
        return
    t0 = min(c[3] for c in copies)
    t1 = max(c[4] for c in copies)
    lo = t0 + int((t1 - t0) * a.skip)
    window = (t1 - lo) / 1e9
    copies = [c for c in copies if c[3] >= lo and c[4] <= t1]
    ends = {}  # correlation -> end of the call that enqueued it
    for tid, cs in calls.items():
        cs.sort()
        for s, e, corr, name in cs:
            ends[corr] = e
    print("window: %.3f s after %.0f%% warm-up" % (window, 100 * a.skip))
    busy = {}
    for d in ("h2d", "d2h"):
        mine = [c for c in copies if c[0] == d]
        if not mine:
            continue
        chans = collections.Counter(c[2] for c in mine)
        streams = collections.Counter(c[1] for c in mine)
        busy[d] = merge([(c[3], c[4]) for c in mine])
        b = sum(e - s for s, e in busy[d])
        gaps = [busy[d][i + 1][0] - busy[d][i][1] for i in range(len(busy[d]) - 1)]
        waited = [(c[3] - ends[c[6]]) / 1e3 for c in mine if c[6] in ends]
        print("%s: %d copies/s, median %.1f us, %.1f GB/s; channels %s; streams %s" % (
            d, len(mine) / window, statistics.median((c[4] - c[3]) / 1e3 for c in mine),
            sum(c[5] for c in mine) / window / 1e9, dict(chans), dict(streams)))
        print("  busy %.0f%% of the window; idle gaps p50 %.1f us, p90 %.1f us, %d/s over 5 us" % (
            100 * b / (window * 1e9), pct(gaps, 0.5) / 1e3, pct(gaps, 0.9) / 1e3,
            sum(1 for g in gaps if g > 5000) / window))
        if waited:
            print("  queued on the GPU after the call returned: p10 %.1f us, p50 %.1f us, p90 %.1f us" % (
                pct(waited, 0.1), pct(waited, 0.5), pct(waited, 0.9)))
    if len(busy) == 2:
        both = overlap(busy["h2d"], busy["d2h"])
        print("both directions at once: %.0f%% of the window" % (100 * both / (window * 1e9)))
    # What each thread was in when a direction went idle (gaps over 5 us).
    starts = {t: [c[0] for c in cs] for t, cs in calls.items()}
    for d, spans in busy.items():
        blame = collections.Counter()
        total = 0
        for i in range(len(spans) - 1):
            g0, g1 = spans[i][1], spans[i + 1][0]
            if g1 - g0 <= 5000:
                continue
            total += g1 - g0
            for t, cs in calls.items():
                k = bisect.bisect_right(starts[t], g0) - 1
                if k >= 0 and cs[k][1] >= g0:
                    blame[(t, cs[k][3])] += g1 - g0
                else:
                    blame[(t, "between calls")] += g1 - g0
        if total:
            print("%s idle (gaps over 5 us) %.0f us/s; each thread then:" % (d, total / 1e3 / window))
            for (t, name), ns in blame.most_common(12):
                print("  thread %-8d %-28s %5.0f%% of that idle time" % (t, name, 100 * ns / total))
    print("runtime calls per thread (in the window):")
    for t, cs in sorted(calls.items(), key=lambda kv: -len(kv[1])):
        mine = [c for c in cs if c[0] >= lo]
        if not mine:
            continue
        by = collections.defaultdict(list)
        for s, e, corr, name in mine:
            by[name].append((e - s) / 1e3)
        top = sorted(by.items(), key=lambda kv: -sum(kv[1]))[:6]
        print("  thread %-8d %s" % (t, "; ".join("%s %d/s p50 %.1f us" % (
            n, len(v) / window, statistics.median(v)) for n, v in top)))


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Turns the raw results of pipelines/bench into one table, a CSV and a summary.

    report.py RAW.jsonl COPY_LIMITS.txt OUT.csv [--gpu "name, driver"] [--date D]

RAW.jsonl holds the "RESULT {json}" lines of gcs-bench (tags impl=ours|nvcodec|
nvcodec-<version>|cpu, case=..., and peer_version=<version> for the nvcodec
ones), COPY_LIMITS.txt the output of gcs-copy-limits. Rows are our cases; the
figures of every nvcodec version measured and the CPU's for the same case,
format, size and source, and the copy limit that case faces, stand beside them.
The ratios to nvcodec (×nvcodec, limit/nvcodec and the targets on them) are
against the newest nvcodec that has a figure for the row; the table and the
summary say where that is an older one.
"""
import argparse
import csv
import json
import re
import sys

# The targets the benchmark was written against.
TARGET_FPS = {
    ("updown", "RGBA", "3840x2160", "pinned"): 1200,
    ("updown", "NV12", "1920x1080", "pinned"): 8000,
    ("crop", "RGBA", "3840x2160", "pinned"): 1300,
}
TARGET_RATIO = 5.0
TARGET_PAGEABLE_GBPS = 12.0
# Ordinary memory (issue 11): a share of the pinned duplex limit measured in
# the same run, and a multiple of nvcodec, for recurring and one-shot sources.
PAGEABLE_SOURCES = ("recurring", "oneshot", "pageable")
TARGET_PINNED_SHARE = {
    ("updown", "RGBA", "3840x2160"): 0.70,
    ("updown", "NV12", "1920x1080"): 0.60,
}
TARGET_PAGEABLE_RATIO = 2.0
TARGET_LAUNCH_RATIO = 3.0   # imagefreeze through plain gst-launch-1.0
WAIT_TOLERANCE = 0.02       # per frame: "exactly one" within counting noise

CASES = ["updown", "uponly", "crop", "updown-default", "updown-mif0", "updown-spin",
         "imagefreeze"]
SOURCES = ["pinned", "recurring", "oneshot", "pageable", "imagefreeze"]
# Variants of a case: same peer and limit, no targets of their own.
VARIANT_OF = {"updown-default": "updown", "updown-mif0": "updown", "updown-spin": "updown"}
FORMATS = ["RGBA", "NV12"]
CASE_LABEL = {
    "updown": "up→down",
    "uponly": "up only",
    "crop": "up→crop→down",
    "updown-default": "up→down default mif",
    "updown-mif0": "up→down mif=0",
    "updown-spin": "up→down spin-wait",
    "imagefreeze": "gst-launch imagefreeze up→down",
}
CROP_OUT = {"3840x2160": "1920x1080"}
# Cases with a table of their own: the decoder brings the frames (no upload,
# no copy limit); every implementation is a row, with whose elements ran.
DECODE_CASES = ["decode-crop"]
DECODE_IMPL_LABEL = {
    "ours": "nvh264dec ! cudastreamscrop ! cudastreamsdownload",
    "nvcodec": "nvh264dec ! cudadownload ! videocrop (CPU)",
}
# GStreamer's nvcodec: impl "nvcodec" is the one of the GStreamer the
# benchmark runs on (1.22), "nvcodec-<version>" a newer one (BENCH_PEER_GST).
# Results from before peer_version was recorded are of 1.22.
PEER = "nvcodec"
OLD_PEER_VERSION = "1.22"


def is_peer(impl):
    return impl == PEER or (impl or "").startswith(PEER + "-")


def version_key(v):
    return tuple(int(x) for x in re.findall(r"\d+", v))


def peer_versions(results):
    """The nvcodec implementations measured, oldest first: [(impl, version)]."""
    seen = {}
    for (impl, *_), r in results.items():
        if is_peer(impl) and (r.get("peer_version") or impl not in seen):
            seen[impl] = (r.get("peer_version") or seen.get(impl)
                          or (impl[len(PEER) + 1:] if impl != PEER else OLD_PEER_VERSION))
    # One column per version: two impls of one version (pipelines/bench never
    # makes them) would mix their rows; the first by name is kept.
    by_version = {}
    for impl, v in sorted(seen.items()):
        by_version.setdefault(v, impl)
    return sorted(((i, v) for v, i in by_version.items()), key=lambda iv: version_key(iv[1]))


def peer_label(impl, peers):
    """ "nvcodec 1.28.6" for any nvcodec impl; other impls as they are."""
    return f"{PEER} {dict(peers)[impl]}" if impl in dict(peers) else impl


def load_results(path):
    res = {}
    for line in open(path, encoding="utf-8"):
        if not line.startswith("RESULT "):
            continue
        r = json.loads(line[len("RESULT "):])
        key = (r.get("impl"), r.get("case"), r["format"],
               f'{r["width"]}x{r["height"]}', r["source"])
        res[key] = r
    return res


def load_limits(path):
    limits = {}
    try:
        lines = open(path, encoding="utf-8").read().splitlines()
    except OSError:
        return limits
    for line in lines:
        if line.startswith("LIMIT "):
            r = json.loads(line[len("LIMIT "):])
            limits[(r["what"], r["mem"], r["layout"], r["up"], r["down"])] = r
    return limits


def limit_for(limits, case, fmt, size, source):
    """The copy limit the case faces: its transfers, from its kind of memory
    (downloads always land in cudadownload's pinned pool)."""
    up = f"{fmt} {size}"
    # Recurring, one-shot and imagefreeze memory face the pinned limit: host
    # memory is several times faster than PCIe, so only the old "pageable"
    # rows are set against the driver's own pageable copy.
    mem = "pageable" if source == "pageable" else "pinned"
    if case == "uponly":
        return limits.get(("h2d", mem, "linear", up, ""))
    down = f"{fmt} {CROP_OUT[size]}" if case == "crop" else up
    return limits.get(("duplex", "mixed" if mem == "pageable" else "pinned", "linear", up, down))


def fmt_num(v, digits=0):
    if v is None:
        return "n/a"
    return f"{v:,.{digits}f}"


def waits_text(r):
    d = r.get("waits_detail") or {}
    return ";".join(f"{k}={v:.3f}" for k, v in d.items())


PLANES = {"RGBA": 1, "NV12": 2}


def evaluate_waits(case, r):
    """One host wait per frame at the download, none in the other elements
    nor unaccounted for. The source's own pool waits are left out: they are
    the producer being held back by the GPU (back-pressure; in up-only
    nothing else holds it back), and the table shows them in waits/f. From
    pageable memory CUDA itself waits for the stream before each plane's
    copy, and cudaupload counts that: one wait per plane per frame.
    Up-only rows from memory cudaupload reads directly or stages: with no
    consumer that waits, cudaupload's own wait for input the GPU still reads
    (or for staging it still reads) is that back-pressure, so up to one wait
    per frame there, in cudaupload or in the source's pool, passes."""
    if r.get("waits") is None:
        return None
    d = r.get("waits_detail") or {}
    down = sum(v for k, v in d.items() if k.startswith("down"))
    up = sum(v for k, v in d.items() if k.startswith("up"))
    rest = sum(abs(v) for k, v in d.items()
               if not k.startswith(("down", "up")) and k != "source-pool")
    want_down = 0 if case == "uponly" else 1
    # Since issue 11 cudaupload never waits in steady state, whatever the
    # memory; only results of older builds ("pageable") waited per plane.
    want_up = PLANES.get(r["format"], 0) if r["source"] == "pageable" else 0
    if case == "uponly" and r["source"] != "pageable":
        pool = d.get("source-pool", 0)
        return (abs(down) <= WAIT_TOLERANCE and up + pool <= 1 + WAIT_TOLERANCE
                and rest <= WAIT_TOLERANCE)
    return (abs(down - want_down) <= WAIT_TOLERANCE and abs(up - want_up) <= WAIT_TOLERANCE
            and rest <= WAIT_TOLERANCE)


def peer_key(version, what="fps"):
    """The row's (and CSV's) column of one nvcodec version: nvcodec_1.28.6_fps."""
    return f"{PEER}_{version}_{what}"


def build_rows(results, limits, peers):
    rows = []
    # The host-cost rows (host-*) have no transfer limit or target of this
    # table's: pipelines/bench prints them in a section of their own.
    keys = sorted({k[1:] for k in results if k[0] == "ours" and k[1] not in DECODE_CASES
                   and not k[1].startswith("host-")},
                  key=lambda k: (CASES.index(k[0]) if k[0] in CASES else 99,
                                 FORMATS.index(k[1]) if k[1] in FORMATS else 99,
                                 int(k[2].split("x")[0]),
                                 SOURCES.index(k[3]) if k[3] in SOURCES else 99))
    for case, fmt, size, source in keys:
        ours = results[("ours", case, fmt, size, source)]
        peer_case = VARIANT_OF.get(case, case)
        # Every nvcodec's figure; the ratios are against the newest that has one.
        by_version = {v: results.get((impl, peer_case, fmt, size, source)) for impl, v in peers}
        nv, nv_version = None, None
        for _, v in peers:
            r = by_version[v]
            if r and r["status"] == "ok" and r.get("fps"):
                nv, nv_version = r, v
        cpu = results.get(("cpu", case, fmt, size, source))
        lim = limit_for(limits, peer_case, fmt, size, source)
        ok = ours["status"] == "ok"
        fps = ours.get("fps") if ok else None
        nv_fps = nv.get("fps") if nv else None
        row = {
            "case": case, "format": fmt, "size": size, "source": source,
            "status": ours["status"] if ok else f'{ours["status"]}: {ours.get("reason", "")}',
            "ours_fps": fps,
            "ours_gbps": ours.get("gbps") if ok else None,
            "ours_cpu_us": ours.get("cpu_us") if ok else None,
            "ours_waits": ours.get("waits") if ok else None,
            "waits_detail": waits_text(ours) if ok else "",
            "pool_waits": (ours.get("waits_detail") or {}).get("source-pool") if ok else None,
            "src_mem": ours.get("src_mem", ""),
            "nvcodec_fps": nv_fps,
            "nvcodec_cpu_us": nv.get("cpu_us") if nv_fps else None,
            "nvcodec_src_mem": nv.get("src_mem", "") if nv else "",
            # Which nvcodec the three above and the ratios are of.
            "nvcodec_version": nv_version,
        }
        for v, r in by_version.items():
            good = r is not None and r["status"] == "ok"
            row[peer_key(v)] = r.get("fps") if good else None
            row[peer_key(v, "cpu_us")] = r.get("cpu_us") if good else None
            row[peer_key(v, "src_mem")] = r.get("src_mem", "") if r else ""
            # Table only (not in the CSV): its status where it ran and failed.
            row.setdefault("_peer_status", {})[v] = r["status"] if r else None
        row.update({
            "ratio": fps / nv_fps if fps and nv_fps else None,
            # The most any implementation could beat nvcodec by: the copy limit.
            "max_ratio": lim["fps"] / nv_fps if lim and nv_fps else None,
            "videocrop_fps": cpu.get("fps") if cpu and cpu["status"] == "ok" else None,
            "limit_fps": lim["fps"] if lim else None,
            "pct_limit": 100 * fps / lim["fps"] if fps and lim else None,
        })
        row["targets"] = targets_of(row, ours)
        rows.append(row)
    return rows


def targets_of(row, ours):
    """Pass/miss marks of the targets that apply to this row."""
    marks = []
    key = (row["case"], row["format"], row["size"], row["source"])
    fps = row["ours_fps"]
    if key in TARGET_FPS:
        t = TARGET_FPS[key]
        if fps is None:
            marks.append(f"≥{t}: n/a")
        elif fps >= t:
            marks.append(f"≥{t}: pass")
        else:
            marks.append(f"≥{t}: miss −{100 * (1 - fps / t):.0f}%")
    variant = row["case"] in VARIANT_OF
    share = TARGET_PINNED_SHARE.get(key[:3]) if row["source"] in PAGEABLE_SOURCES[:2] else None
    if share is not None:
        pct = row["pct_limit"]
        if pct is None:
            marks.append(f"≥{share:.0%} pinned: n/a")
        else:
            marks.append(f"≥{share:.0%} pinned: {'pass' if pct >= 100 * share else 'miss'}")
    if row["ratio"] is not None and not variant:
        r, top = row["ratio"], row["max_ratio"]
        want = ratio_target(row)
        if r >= want:
            marks.append(f"≥{want:g}×nv: pass")
        elif top is not None and top < want:
            marks.append(f"≥{want:g}×nv: miss (limit allows {top:.1f}×)")
        else:
            marks.append(f"≥{want:g}×nv: miss")
    if fps is not None and not variant:
        w = evaluate_waits(row["case"], ours)
        if w is not None:
            marks.append(f"waits: {'pass' if w else 'miss'}")
    if row["case"] == "uponly" and row["source"] in PAGEABLE_SOURCES and fps is not None:
        g = row["ours_gbps"]
        marks.append(f"≥12GB/s: {'pass' if g >= TARGET_PAGEABLE_GBPS else f'miss −{100 * (1 - g / TARGET_PAGEABLE_GBPS):.0f}%'}")
    return ", ".join(marks)


def ratio_target(row):
    """How many times nvcodec's rate a row must reach."""
    if row["case"] == "imagefreeze":
        return TARGET_LAUNCH_RATIO
    if row["source"] in PAGEABLE_SOURCES[:2]:
        return TARGET_PAGEABLE_RATIO
    return TARGET_RATIO


COLUMNS = [
    ("case", "case"), ("format", "fmt"), ("size", "size"), ("source", "source"),
    ("ours_fps", "ours fps"), ("ours_gbps", "GB/s"), ("ours_cpu_us", "CPU µs/f"),
    ("ours_waits", "waits/f"), ("nvcodec_fps", "nvcodec fps"), ("ratio", "×nvcodec"),
    ("max_ratio", "limit/nvcodec"),
    ("videocrop_fps", "CPU videocrop fps"), ("limit_fps", "limit fps"),
    ("pct_limit", "% limit"), ("targets", "targets"),
]


def columns(peers):
    """COLUMNS with one fps column per nvcodec version measured (none: the
    one "nvcodec fps", all n/a). With more than one, the ratio columns name
    the newest, which they are against unless a cell says "(vs older)"."""
    cols = []
    for key, head in COLUMNS:
        if key == "nvcodec_fps" and peers:
            cols += [(peer_key(v), f"nvcodec {v} fps") for _, v in peers]
        elif key in ("ratio", "max_ratio") and len(peers) > 1:
            cols.append((key, f"{head} {peers[-1][1]}"))
        else:
            cols.append((key, head))
    return cols


def cell(row, key, newest=None):
    """A table cell. newest: the newest nvcodec version, where more than one
    was measured: ratios against an older one say so."""
    v = row[key]
    if key == "case":
        return CASE_LABEL.get(v, v)
    if key.startswith(PEER + "_") and key.endswith("_fps") and key != "nvcodec_fps":
        status = row.get("_peer_status", {}).get(key[len(PEER) + 1:-len("_fps")])
        return status if v is None and status not in (None, "ok") else fmt_num(v)
    if key in ("ours_fps", "nvcodec_fps", "videocrop_fps", "limit_fps", "pct_limit"):
        return fmt_num(v)
    if key in ("ratio", "max_ratio"):
        older = newest and v is not None and row["nvcodec_version"] != newest
        return fmt_num(v, 1) + (f" (vs {row['nvcodec_version']})" if older else "")
    if key in ("ours_gbps", "ours_cpu_us"):
        return fmt_num(v, 1)
    if key == "ours_waits":
        pool = row.get("pool_waits") or 0
        return fmt_num(v, 2) + (f" (src pool {pool:.2f})" if pool > WAIT_TOLERANCE else "")
    if key == "ours_fps" and v is None:
        return "n/a"
    return str(v) if v is not None else "n/a"


def table(rows, peers):
    """A Markdown table, so README.md can carry it as printed."""
    cols = columns(peers)
    newest = peers[-1][1] if len(peers) > 1 else None
    head = [h for _, h in cols]
    body = []
    for r in rows:
        cells = [cell(r, k, newest) for k, _ in cols]
        if r["ours_fps"] is None:
            cells[4] = "n/a" if r["status"].startswith("missing") else "error"
        body.append(cells)
    widths = [max(len(h), *(len(b[i]) for b in body)) if body else len(h)
              for i, h in enumerate(head)]
    line = lambda cs: "| " + " | ".join(c.ljust(w) for c, w in zip(cs, widths)) + " |"
    out = [line(head), "|" + "|".join("-" * (w + 2) for w in widths) + "|"]
    out += [line(b) for b in body]
    return "\n".join(out)


def decode_rows(results, peers):
    """The decode cases: one row per implementation, ours first, then the
    nvcodecs oldest first."""
    order = {impl: i for i, (impl, _) in enumerate(peers)}
    rows = []
    for (impl, case, fmt, size, source), r in sorted(
            results.items(), key=lambda kv: (kv[0][1], kv[0][0] != "ours",
                                             order.get(kv[0][0], len(order)), kv[0][0])):
        if case not in DECODE_CASES:
            continue
        ok = r["status"] == "ok"
        rows.append({
            "case": case, "impl": impl, "size": size, "who": peer_label(impl, peers),
            "pipeline": DECODE_IMPL_LABEL.get(PEER if is_peer(impl) else impl,
                                              r.get("pipeline", "")),
            "fps": r.get("fps") if ok else None,
            "cpu_us": r.get("cpu_us") if ok else None,
            # nvcodec's elements count no host waits: n/a, not 0.
            "waits": r.get("waits") if ok else None,
            "waits_detail": waits_text(r) if ok else "",
            "elements": r.get("elements", ""),
            "status": r["status"] if ok else f'{r["status"]}: {r.get("reason", "")}',
        })
    return rows


def decode_table(rows):
    head = ["case", "impl", "size", "pipeline", "fps", "CPU µs/f", "waits/f", "elements (plugin)"]
    body = []
    for r in rows:
        waits = "n/a" if r["waits"] is None else f'{r["waits"]:.2f} ({r["waits_detail"]})'
        body.append([r["case"], r["who"], r["size"], r["pipeline"],
                     fmt_num(r["fps"]) if r["fps"] is not None else r["status"],
                     fmt_num(r["cpu_us"], 1), waits if r["fps"] is not None else "n/a",
                     r["elements"]])
    widths = [max(len(h), *(len(b[i]) for b in body)) for i, h in enumerate(head)]
    line = lambda cs: "| " + " | ".join(c.ljust(w) for c, w in zip(cs, widths)) + " |"
    out = [line(head), "|" + "|".join("-" * (w + 2) for w in widths) + "|"]
    return "\n".join(out + [line(b) for b in body])


def decode_summary(rows, peers):
    by = {r["impl"]: r for r in rows if r["case"] == "decode-crop"}
    o = by.get("ours")
    if not o:
        return []
    if o["fps"] is None:
        return [f"  decode→crop→download 4K: ours {o['status']}"]
    text = (f"  decode→crop→download 4K: ours {o['fps']:,.0f} fps, {o['cpu_us']:.0f} µs CPU/f, "
            f"{o['waits']:.2f} host waits/f")
    # Each nvcodec measured, oldest first: the last is the newest.
    for impl, v in peers:
        n = by.get(impl)
        if n and n["fps"]:
            text += (f"; nvcodec-only ({v}) {n['fps']:,.0f} fps, {n['cpu_us']:.0f} µs CPU/f "
                     f"({o['fps'] / n['fps']:.1f}× the fps)")
    return [text]


def against(rows, peers):
    """Which nvcodec the ratios of ROWS are against: "nvcodec 1.28.6", and
    where some rows fell back to an older one for want of a figure, how many."""
    if not peers:
        return PEER
    newest = peers[-1][1]
    used = {}
    for r in rows:
        if r["nvcodec_version"]:
            used[r["nvcodec_version"]] = used.get(r["nvcodec_version"], 0) + 1
    head = max(used, key=version_key) if used else newest
    older = [f"{v} in {n} row{'s' if n > 1 else ''}" for v, n in
             sorted(used.items(), key=lambda vn: version_key(vn[0])) if v != head]
    text = f"{PEER} {head}"
    if head != newest:
        text += f" ({newest} has no figure for {'them' if len(rows) > 1 else 'it'})"
    if older:
        text += f" ({', '.join(older)} where {head} has no figure)"
    return text


def summary(rows, limits, peers):
    out = []
    by = {(r["case"], r["format"], r["size"], r["source"]): r for r in rows}
    for key, t in TARGET_FPS.items():
        r = by.get(key)
        fps = r["ours_fps"] if r else None
        name = f"{CASE_LABEL[key[0]]} {key[1]} {key[2]} {key[3]}"
        if fps is None:
            out.append(f"  {name} ≥{t} fps: n/a ({r['status'] if r else 'not run'})")
        else:
            verdict = "pass" if fps >= t else f"MISS by {t - fps:,.0f} fps ({100 * (1 - fps / t):.0f}%)"
            extra = f", {r['pct_limit']:.0f}% of the copy limit {r['limit_fps']:,.0f}" if r["pct_limit"] else ""
            out.append(f"  {name} ≥{t} fps: {fps:,.0f} → {verdict}{extra}")
    for key, share in TARGET_PINNED_SHARE.items():
        for src in PAGEABLE_SOURCES[:2]:
            r = by.get(key + (src,))
            name = f"{CASE_LABEL[key[0]]} {key[1]} {key[2]} {src}"
            if not r or r["pct_limit"] is None:
                out.append(f"  {name} ≥{share:.0%} of pinned duplex: n/a")
                continue
            ratio = (f", {r['ratio']:.1f}× nvcodec {r['nvcodec_version']} → "
                     f"{'pass' if r['ratio'] >= TARGET_PAGEABLE_RATIO else 'MISS'}"
                     if r["ratio"] is not None else ", nvcodec n/a")
            out.append(f"  {name} ≥{share:.0%} of pinned duplex: {r['pct_limit']:.0f}% "
                       f"({r['ours_fps']:,.0f} of {r['limit_fps']:,.0f} fps) → "
                       f"{'pass' if r['pct_limit'] >= 100 * share else 'MISS'}"
                       f"{ratio} ≥{TARGET_PAGEABLE_RATIO:g}×; "
                       f"CPU {r['ours_cpu_us']:.0f} µs/frame, waits/f {fmt_num(r['ours_waits'], 2)}")
    launch = by.get(("imagefreeze", "RGBA", "3840x2160", "imagefreeze"))
    if launch and launch["ratio"] is not None:
        out.append(f"  gst-launch imagefreeze 4K RGBA ≥{TARGET_LAUNCH_RATIO:g}× nvcodec "
                   f"{launch['nvcodec_version']}: "
                   f"{launch['ours_fps']:,.0f} vs {launch['nvcodec_fps']:,.0f} fps = "
                   f"{launch['ratio']:.1f}× → "
                   f"{'pass' if launch['ratio'] >= TARGET_LAUNCH_RATIO else 'MISS'}")
    elif launch:
        out.append(f"  gst-launch imagefreeze 4K RGBA: ours {fmt_num(launch['ours_fps'])} fps, "
                   f"nvcodec n/a")
    ratios = [r for r in rows if r["ratio"] is not None and r["case"] not in VARIANT_OF
              and ratio_target(r) == TARGET_RATIO]
    if ratios:
        low = min(ratios, key=lambda r: r["ratio"])
        miss = [r for r in ratios if r["ratio"] < TARGET_RATIO]
        capped = [r for r in miss if r["max_ratio"] is not None and r["max_ratio"] < TARGET_RATIO]
        out.append(f"  ≥5× {against(ratios, peers)}: {len(ratios) - len(miss)}/{len(ratios)} "
                   f"rows pass; lowest "
                   f"{low['ratio']:.1f}× ({CASE_LABEL[low['case']]} {low['format']} {low['size']} "
                   f"{low['source']}); in {len(capped)} of the {len(miss)} misses 5× nvcodec "
                   f"is above the measured copy limit (for pageable rows: the CUDA driver's "
                   f"pageable copy)")
    else:
        out.append("  ≥5× nvcodec: n/a (nvcodec not measured)")
    # Ahead of or behind the newest nvcodec, every row with a ratio (no
    # target of its own: the ratio targets above are the targets).
    compared = [r for r in rows if r["ratio"] is not None and r["case"] not in VARIANT_OF]
    if compared:
        behind = sorted((r for r in compared if r["ratio"] < 1), key=lambda r: r["ratio"])
        text = (f"  ahead of {against(compared, peers)}: "
                f"{len(compared) - len(behind)}/{len(compared)} rows")
        if behind:
            text += "; behind: " + ", ".join(
                f"{CASE_LABEL[r['case']]} {r['format']} {r['size']} {r['source']} "
                f"{r['ratio']:.2f}×" for r in behind[:4])
            text += f" and {len(behind) - 4} more" if len(behind) > 4 else ""
        out.append(text)
    # The nvcodec versions against each other, on the rows both measured.
    for (_, old), (_, new) in zip(peers, peers[1:]):
        q = sorted(r[peer_key(new)] / r[peer_key(old)] for r in rows
                   if r["case"] not in VARIANT_OF and r[peer_key(new)] and r[peer_key(old)])
        if q:
            out.append(f"  nvcodec {new} vs {old}: median {q[len(q) // 2]:.2f}× the fps "
                       f"({q[0]:.2f}–{q[-1]:.2f}× over {len(q)} rows)")
    waits = [r for r in rows if "waits:" in r["targets"]]
    bad = [r for r in waits if "waits: miss" in r["targets"]]
    if waits:
        worst = ", ".join(f"{CASE_LABEL[r['case']]} {r['format']} {r['size']} {r['source']} "
                          f"{r['ours_waits']:.2f} ({r['waits_detail']})" for r in bad[:4])
        out.append(f"  one host wait/frame at the download, none elsewhere: "
                   f"{len(waits) - len(bad)}/{len(waits)} rows pass" + (f"; misses: {worst}" if bad else ""))
    pg = [r for r in rows if r["case"] == "uponly" and r["source"] in PAGEABLE_SOURCES
          and r["ours_gbps"]]
    if pg:
        low = min(pg, key=lambda r: r["ours_gbps"])
        npass = sum(r["ours_gbps"] >= TARGET_PAGEABLE_GBPS for r in pg)
        out.append(f"  pageable upload ≥12 GB/s: {npass}/{len(pg)} rows pass; lowest "
                   f"{low['ours_gbps']:.1f} GB/s ({low['format']} {low['size']})")
    dup = limits.get(("duplex", "pinned", "linear", "RGBA 3840x2160", "RGBA 3840x2160"))
    h2d = limits.get(("h2d", "pinned", "linear", "RGBA 3840x2160", ""))
    pgl = limits.get(("h2d", "pageable", "linear", "RGBA 3840x2160", ""))
    if dup and h2d:
        out.append(f"  copy limits (4K RGBA): pinned H2D {h2d['h2d_gbps']:.1f} GB/s, duplex "
                   f"{dup['h2d_gbps']:.1f}+{dup['d2h_gbps']:.1f} GB/s"
                   + (f", pageable H2D {pgl['h2d_gbps']:.1f} GB/s" if pgl else ""))
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("raw")
    ap.add_argument("limits")
    ap.add_argument("csv")
    ap.add_argument("--gpu", default="unknown GPU")
    ap.add_argument("--date", default="")
    ap.add_argument("--summary", help="also write the summary here")
    a = ap.parse_args()
    results = load_results(a.raw)
    limits = load_limits(a.limits)
    peers = peer_versions(results)
    rows = build_rows(results, limits, peers)
    with open(a.csv, "w", newline="", encoding="utf-8") as f:
        # "_" keys are the table's own.
        keys = [k for k in rows[0] if not k.startswith("_")] if rows else ["case"]
        w = csv.DictWriter(f, fieldnames=keys, extrasaction="ignore")
        w.writeheader()
        for r in rows:
            w.writerow({k: ("" if v is None else (f"{v:.4g}" if isinstance(v, float) else v))
                        for k, v in r.items()})
    print(f"gst-cudastreams benchmark on {a.gpu}, {a.date}")
    print(table(rows, peers))
    print()
    versions = " and ".join(v for _, v in peers) or OLD_PEER_VERSION
    newest = (f"; ×nvcodec, limit/nvcodec and the ratio targets: against the newest nvcodec "
              f"with a figure for the row ({peers[-1][1]}; \"(vs X)\" where only X has one)"
              if len(peers) > 1 else "")
    print("ours = this project (cudadownload max-in-flight=3, except: default mif = the "
          "element's default, mif=0, spin-wait = spin-wait=true, "
          "a host wait that polls instead of sleeping); "
          f"nvcodec = GStreamer {versions}'s nvcodec cudaupload ! cudadownload, each version "
          f"in its own processes with its own libraries (up→crop→down: followed by CPU "
          f"videocrop){newest}; "
          "CPU videocrop = videocrop alone on system memory; limit = gcs-copy-limits for the "
          "same transfers (pinned, recurring, oneshot, imagefreeze: duplex pinned, the "
          "physical limit; the old pageable rows: pageable H2D + pinned D2H). "
          "recurring = a few malloc'd memories pushed again and again; oneshot = a new "
          "memory every frame; imagefreeze = plain gst-launch-1.0 videotestsrc ! imagefreeze "
          "! cudaupload ! cudadownload (two runs, their difference). GB/s = (input frame + output frame in system memory) "
          "× fps. CPU = process user+sys time per frame. waits = host waits per frame "
          "(gst_cs_host_waits_total).")
    for _, v in peers:
        nv_mem = sorted({r[peer_key(v, "src_mem")] for r in rows
                         if r["source"] == "pinned" and r[peer_key(v, "src_mem")]})
        if nv_mem == ["pinned-other"]:
            print(f"nvcodec {v}'s cudaupload offers a page-locked pool: in its 'pinned' rows "
                  f"the source wrote into that.")
        elif nv_mem and nv_mem != ["cs-pinned"]:
            print(f"nvcodec {v}'s cudaupload offers no pinned pool: in its 'pinned' rows the "
                  f"source got {', '.join(nv_mem)} memory from the pool it was offered.")
    drows = decode_rows(results, peers)
    if drows:
        print()
        print("Decode → crop → download, 3840x2160 H.264 (x264, made once per run) decoded in a "
              "loop by NVDEC; crop to the centre 1920x1080; both plugins in one registry for "
              "ours (unambiguous names), nvcodec alone for nvcodec-only. waits/f: our "
              "elements' host-waits per frame; n/a where only nvcodec's elements ran (they "
              "count none).")
        print(decode_table(drows))
    s = summary(rows, limits, peers)
    s = "\n".join([s] + decode_summary(drows, peers)) if drows else s
    if a.summary:
        with open(a.summary, "w", encoding="utf-8") as f:
            f.write(s + "\n")
    return s


if __name__ == "__main__":
    summary_text = main()
    print()
    print("SUMMARY")
    print(summary_text)
    sys.exit(0)

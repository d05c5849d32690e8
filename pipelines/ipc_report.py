#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The IPC rows of pipelines/bench: one case's processes into one result,
a line per case, and the summary against the targets of issue 52.

  ipc_report.py row DIR --impl I --case C --kind frames|batches --consumers N --rate R [--mps 0|1]
      DIR holds consumer<i>.txt/.log and producer.txt/.log (gcs-bench's RESULT
      lines on stdout, the cudastreams tracer's summary on stderr); prints
      "RESULT {json}" for raw_ipc.jsonl.
  ipc_report.py line FILE --case C --impl I     the human line of a row
  ipc_report.py summary FILE                     SUMMARY lines, PASS/FAIL per target
"""
import argparse
import glob
import json
import os
import re
import statistics
import sys


def result(path):
    """The last RESULT of a gcs-bench run, or None."""
    try:
        lines = [ln for ln in open(path) if ln.startswith("RESULT ")]
    except OSError:
        return None
    return json.loads(lines[-1][7:]) if lines else None


def tracer_cpu(path, element):
    """The tracer's CPU us per buffer of `element` (its summary row)."""
    try:
        text = open(path, errors="replace").read().splitlines()
    except OSError:
        return None
    for ln in text:
        cols = ln.split()
        if len(cols) >= 8 and cols[0] == element:
            try:
                return float(cols[6])
            except ValueError:
                return None
    return None


RENDERS = re.compile(
    r"(\d+) frames rendered: ([\d.]+) us a frame on the clock, ([\d.]+) us of the "
    r"thread's CPU: taking frames back ([\d.]+), GPU calls ([\d.]+), records "
    r"([\d.]+), wake-ups ([\d.]+)")


def sink_renders(path):
    """The sink's own account of its renders at stop (GST_DEBUG=csipcsink:4,
    the benchmark's IPC_SINK_TIMING=1), us a frame, or None."""
    try:
        m = RENDERS.search(open(path, errors="replace").read())
    except OSError:
        return None
    if not m:
        return None
    keys = ("frames", "clock_us", "cpu_us", "back_us", "gpu_us", "records_us", "wake_us")
    return {k: (int(v) if k == "frames" else float(v)) for k, v in zip(keys, m.groups())}


def row(a):
    d = a.dir
    out = {"impl": a.impl, "case": a.case, "kind": a.kind, "consumers": a.consumers,
           "rate": a.rate, "format": "NV12", "width": 1920, "height": 1080,
           "source": "device", "mps": a.mps == "1"}
    if a.peer_version:
        out["peer_version"] = a.peer_version
    # consumer<i>.txt only: the sampler's consumer1.profile.txt is beside them.
    outputs = [p for p in sorted(glob.glob(os.path.join(d, "consumer*.txt")))
               if re.fullmatch(r"consumer[0-9]+\.txt", os.path.basename(p))]
    consumers = [result(p) for p in outputs]
    producer = result(os.path.join(d, "producer.txt"))
    bad = [c for c in consumers if not c or c.get("status") != "ok"]
    if not consumers or bad:
        why = (bad[0] or {}).get("reason", "no result (crash or timeout)") if bad else "none ran"
        out.update(status="error", reason=f"consumer: {why}")
        print("RESULT " + json.dumps(out))
        return
    fps = [c["fps"] for c in consumers]
    out.update(status="ok", fps_min=min(fps), fps_mean=statistics.mean(fps),
               consumer_cpu_us=statistics.mean(c["cpu_us"] for c in consumers))
    lat50 = [c["lat_p50_us"] for c in consumers if "lat_p50_us" in c]
    lat99 = [c["lat_p99_us"] for c in consumers if "lat_p99_us" in c]
    if lat50:
        out.update(lat_p50_us=max(lat50), lat_p99_us=max(lat99))
    waits = [c["waits_detail"].get("ipcsrc") for c in consumers if c.get("waits_detail")]
    if waits and None not in waits:
        out["src_waits"] = max(waits)
    if consumers[0].get("thread_cpu_us"):
        out["consumer_threads_cpu_us"] = consumers[0]["thread_cpu_us"]
    cpus = [tracer_cpu(os.path.join(d, f"consumer{i + 1}.log"), "ipcsrc")
            for i in range(len(consumers))]
    if None not in cpus:
        out["src_cpu_us"] = statistics.mean(cpus)
    # The consumer's cudaconvertscale (frames), timed the same way: the
    # same element's figure at full speed and at 30 or 1,000 a second
    # says what a frame at a time costs any element on that host.
    convert = [tracer_cpu(os.path.join(d, f"consumer{i + 1}.log"), "cs")
               for i in range(len(consumers))]
    if convert and None not in convert:
        out["convert_cpu_us"] = statistics.mean(convert)
    if producer and producer.get("status") == "ok":
        out["producer_fps"] = producer["fps"]
        out["producer_cpu_us"] = producer["cpu_us"]
        if producer.get("thread_cpu_us"):
            out["producer_threads_cpu_us"] = producer["thread_cpu_us"]
        if producer.get("waits_detail"):
            out["sink_waits"] = producer["waits_detail"].get("gcs_bench_sink")
        cpu = tracer_cpu(os.path.join(d, "producer.log"), "gcs_bench_sink")
        if cpu is not None:
            out["sink_cpu_us"] = cpu
        renders = sink_renders(os.path.join(d, "producer.log"))
        if renders:
            out["sink_renders"] = renders
    elif a.rate != "local":
        out["producer_status"] = (producer or {}).get("reason", "no result")
    print("RESULT " + json.dumps(out))


def rows(path):
    try:
        return [json.loads(ln[7:]) for ln in open(path) if ln.startswith("RESULT ")]
    except OSError:
        return []


def fmt(v, spec="{:,.1f}"):
    return "-" if v is None else spec.format(v)


def describe(r):
    if r["status"] != "ok":
        return f"{r['status']}: {r.get('reason', '')}"
    s = f"{fmt(r['fps_min'], '{:,.0f}')} fps per consumer (min)"
    if "lat_p50_us" in r:
        s += f", latency p50 {fmt(r['lat_p50_us'])} us p99 {fmt(r['lat_p99_us'])} us"
    s += (f", CPU us/frame src {fmt(r.get('src_cpu_us'))} sink {fmt(r.get('sink_cpu_us'))}"
          f" (processes: consumer {fmt(r.get('consumer_cpu_us'))}, producer"
          f" {fmt(r.get('producer_cpu_us'))})")
    if r.get("convert_cpu_us") is not None:
        s += f", the consumer's cudaconvertscale {fmt(r['convert_cpu_us'])}"
    if "src_waits" in r or "sink_waits" in r:
        s += f", host waits/frame src {fmt(r.get('src_waits'), '{:.3f}')}" \
             f" sink {fmt(r.get('sink_waits'), '{:.3f}')}"
    if r.get("producer_status"):
        s += f" (producer: {r['producer_status']})"
    if r.get("sink_renders"):
        x = r["sink_renders"]
        s += (f"\n      the sink's renders, us/frame: clock {x['clock_us']:.1f}, thread CPU"
              f" {x['cpu_us']:.1f} (frames taken back {x['back_us']:.1f}, GPU calls"
              f" {x['gpu_us']:.1f}, records {x['records_us']:.1f}, wake-ups"
              f" {x['wake_us']:.1f})")
    for side in ("consumer", "producer"):
        threads = r.get(f"{side}_threads_cpu_us")
        if threads:
            s += f"\n      {side}'s threads, CPU us/frame: " + ", ".join(
                f"{name} {us:.1f}" for name, us in
                sorted(threads.items(), key=lambda kv: -kv[1]))
    return s


def line(a):
    rs = [r for r in rows(a.file) if r["case"] == a.case and r["impl"] == a.impl]
    if rs:
        print(f"  {a.impl:14} {a.case:24} {describe(rs[-1])}")


def summary(a):
    rs = rows(a.file)
    ok = {(r["impl"], r["case"]): r for r in rs if r["status"] == "ok"}
    for r in rs:
        print(f"  ipc {r['impl']} {r['case']}: {describe(r)}")
    checks = []
    for r in rs:
        if r["impl"] != "ours" or r["status"] != "ok" or r["rate"] == "local":
            continue
        name = r["case"]
        for side in ("src_waits", "sink_waits"):
            if side in r and r[side] is not None:
                checks.append((f"{name} 0 host waits ({side})", r[side] == 0))
        for side in ("src_cpu_us", "sink_cpu_us"):
            if side in r:
                checks.append((f"{name} {side} {r[side]:.1f} <= 20", r[side] <= 20))
        if r["rate"] in ("30fps", "1000fps"):
            # A paced row that ran at another rate measured something else.
            asked = int(r["rate"][:-3])
            checks.append((f"{name} {r['fps_min']:,.1f} fps, asked {asked}",
                           abs(r["fps_min"] - asked) <= 0.1 * asked))
        if r["rate"] in ("30fps", "1000fps") and "lat_p99_us" in r:
            checks.append((f"{name} latency p99 {r['lat_p99_us']:.0f} us <= 1000",
                           r["lat_p99_us"] <= 1000))
        if r["rate"] == "full":
            # The one-process row of the same setting (with or without MPS).
            mps = "-mps" if r.get("mps") else ""
            local = ok.get(("ours", f"ipc-{r['kind']}-local{mps}"))
            if local:
                checks.append((f"{name} {r['fps_min']:,.0f} fps >= half of one process "
                               f"({local['fps_min']:,.0f})",
                               r["fps_min"] >= local["fps_min"] / 2))
            # Beside it, not a target of the issue: N consumers' GPU work and
            # threads in one process (N chains).
            same = ok.get(("ours", f"ipc-{r['kind']}-local-{r['consumers']}c{mps}"))
            if same:
                print(f"  ipc beside: {name} {r['fps_min']:,.0f} fps each, the same "
                      f"{r['consumers']} chains in one process {same['fps_min']:,.0f} each "
                      f"({r['fps_min'] / same['fps_min']:.2f})")
            for (impl, case), p in ok.items():
                if impl.startswith("nvcodec") and case == name:
                    checks.append((f"{name} {r['fps_min']:,.0f} fps >= 2 x {impl}"
                                   f" ({p['fps_min']:,.0f})", r["fps_min"] >= 2 * p["fps_min"]))
    for what, passed in checks:
        print(f"  ipc target {'PASS' if passed else 'FAIL'}: {what}")
    if not rs:
        print("  ipc: no rows ran")


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("row")
    r.add_argument("dir")
    for k in ("--impl", "--case", "--kind", "--rate"):
        r.add_argument(k, required=True)
    r.add_argument("--consumers", type=int, required=True)
    r.add_argument("--peer-version")
    r.add_argument("--mps", choices=("0", "1"), default="0",
                   help="1: the row ran under CUDA's multi-process service")
    ln = sub.add_parser("line")
    ln.add_argument("file")
    ln.add_argument("--case", required=True)
    ln.add_argument("--impl", required=True)
    s = sub.add_parser("summary")
    s.add_argument("file")
    a = ap.parse_args()
    {"row": row, "line": line, "summary": summary}[a.cmd](a)
    return 0


if __name__ == "__main__":
    sys.exit(main())

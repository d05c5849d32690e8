#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The cudastreams tracer through gst-launch-1.0: its summary, its records,
its trace file (the spans' order against the events they came from) and its
answers to bad parameters. GST_PLUGIN_PATH names the plugin to trace (the
stand-in's in the fakecuda suite, the real one on a GPU).

    check_tracer.py [--gpu]   # --gpu: exit 77 where there is no GPU
"""
import json
import os
import re
import subprocess
import sys
import tempfile

FRAMES = 12
PIPELINE = [
    "videotestsrc", f"num-buffers={FRAMES}", "!",
    "video/x-raw,format=NV12,width=320,height=240,framerate=30/1", "!",
    "cudaupload", "name=up", "!", "cudaconvertscale", "name=cs", "!",
    "video/x-raw(memory:CUDAStreamsMemory),format=RGBA,width=160,height=120", "!",
    "cudadownload", "name=down", "!", "fakesink", "name=sink",
]
# cudabatch: two sources, one frame of each per batch; NV12 takes the
# fused launch, RGBA a launch per frame and the normalisation.
BATCHES = 6


def batch_pipeline(fmt):
    return ["cudabatch", "name=b", "width=32", "height=32", "dtype=float16", "!",
            "fakesink", "name=bsink"] + [w for i in range(2) for w in (
                "videotestsrc", f"num-buffers={BATCHES}", "!",
                f"video/x-raw,format={fmt},width=64,height=48,framerate=30/1", "!",
                "cudaupload", f"name=up{i}", "!", f"b.sink_{i}")]

EPS_US = 0.01  # the file's times are printed to the ns
# Across streams: a span ends with a timing event recorded after the
# producer's sync event (the one its consumer waits on), so a consumer may
# start while that later record is still to be stamped: on the H200s under
# load the convert started 1.5 us before the upload's end was stamped
# (2026-11-27). The consumer must still start after the producer did.
CROSS_STREAM_US = 5.0
failures = []


def check(ok, what):
    if not ok:
        failures.append(what)
        print("FAIL:", what)


def run(params, extra_env=None, pipeline=PIPELINE):
    env = dict(os.environ, GST_TRACERS=f"cudastreamstrace({params})" if params else "cudastreamstrace")
    env.update(extra_env or {})
    p = subprocess.run(["gst-launch-1.0", "-q"] + pipeline, env=env, capture_output=True,
                       text=True, timeout=300)
    if p.returncode != 0:
        print(p.stdout, p.stderr)
        sys.exit(f"gst-launch-1.0 failed ({p.returncode})")
    return p.stderr


def check_names():
    """The tracer has a name of its own: gst-inspect-1.0 finds the feature
    of a name before the plugin of that name, so a tracer named after the
    plugin hid the plugin's elements. The plugin's name in GST_TRACERS is
    then an unknown tracer, which GStreamer reports and ignores."""
    def inspect(name):
        return subprocess.run(["gst-inspect-1.0", name], capture_output=True, text=True,
                              timeout=120).stdout
    plugin = inspect("cudastreams")
    check("Plugin Details" in plugin and "Factory Details" not in plugin
          and "cudastreamsupload" in plugin and "cudastreamstrace (GstTracerFactory)" in plugin,
          f"gst-inspect-1.0 cudastreams lists the plugin's features: {plugin[:300]!r}")
    tracer = inspect("cudastreamstrace")
    check("Factory Details" in tracer and "GstCsTracer" in tracer,
          f"gst-inspect-1.0 cudastreamstrace shows the tracer: {tracer[:300]!r}")
    p = subprocess.run(["gst-launch-1.0", "-q"] + PIPELINE, capture_output=True, text=True,
                       timeout=300, env=dict(os.environ, GST_TRACERS="cudastreams",
                                             GST_DEBUG="default:2"))
    check(p.returncode == 0 and not summary_rows(p.stderr)
          and "no tracer named 'cudastreams'" in p.stderr,
          f"GST_TRACERS=cudastreams: GStreamer's unknown tracer ({p.returncode}): {p.stderr[-600:]}")


def summary_rows(stderr):
    rows, inside = {}, False
    for line in stderr.splitlines():
        if line.startswith("element "):
            inside = True
        elif inside and line.startswith("("):
            inside = False
        elif inside and line.strip():
            f = line.split()
            rows[f[0]] = f
    return rows


LATENCY_MARK = "includes launch latency"


def check_gated(stderr, gated):
    """Our elements' GPU figures say whether a stream gate kept the host's
    launch out of them (the stand-in has the gate unless told otherwise).
    Gated, a few frames may still say it: a kernel's first launch loads its
    module, which can outlast the gates' 2 ms watchdog, and so can a launch
    on a busy shared host (H200: 1 or 2 frames of 12); a quarter of the
    frames or more is not a gated run."""
    rows = summary_rows(stderr)
    for name in ("up", "cs", "down"):
        line = " ".join(rows.get(name, []))
        some = re.search(LATENCY_MARK + r" in (\d+) of (\d+)", line)
        marked = LATENCY_MARK in line and not (some and 4 * int(some[1]) < int(some[2]))
        if not gated:
            marked = LATENCY_MARK in line and " of " not in line
        check(marked != gated, f"{name}'s GPU time {'without' if gated else 'with'} the mark "
              f"'{LATENCY_MARK}': {rows.get(name)}")


def check_summary(stderr):
    rows = summary_rows(stderr)
    for name in ("up", "cs", "down"):
        r = rows.get(name)
        check(r is not None and int(r[1]) == FRAMES, f"summary row of {name} with {FRAMES} frames: {r}")
        if r:
            check(r[2] != "-" and float(r[2]) >= 0, f"{name} has a GPU time: {r}")
    # The download waits on the host for each frame; the others never.
    if "down" in rows and "up" in rows and "cs" in rows:
        check(0.5 <= float(rows["down"][7]) <= 1.0, f"download host waits/frame ~1: {rows['down']}")
        check(float(rows["up"][7]) == 0 and float(rows["cs"][7]) == 0,
              f"no host waits in upload and convert: {rows['up']} {rows['cs']}")
    # Other plugins' elements: a filter timed by probes, a sink listed only.
    caps = rows.get("capsfilter0")
    check(caps is not None and caps[1] == str(FRAMES) and caps[6] != "-"
          and "CPU only" in " ".join(caps), f"capsfilter0 has CPU time only: {caps}")
    check("sink" in rows and "not a cudastreams element" in " ".join(rows["sink"])
          and "not timed" in " ".join(rows["sink"]), f"fakesink listed, not timed: {rows.get('sink')}")
    # Upstream first.
    order = list(rows)
    check(order[:4] == ["videotestsrc0", "capsfilter0", "up", "cs"] and order[-1] == "sink",
          f"the summary in pipeline order: {order}")


def check_trace(path):
    with open(path) as f:
        events = json.load(f)["traceEvents"]
    gpu = [e for e in events if e.get("ph") == "X" and e.get("cat") == "gpu"]
    cpu = [e for e in events if e.get("ph") == "X" and e.get("cat") == "cpu"]
    check(len(gpu) == 3 * FRAMES, f"{3 * FRAMES} GPU spans, got {len(gpu)}")
    check(len(cpu) >= 3 * FRAMES, f"a CPU span per element per frame, got {len(cpu)}")
    names = {e["args"]["name"] for e in events if e.get("name") == "thread_name"}
    check(any(n.startswith("stream ") for n in names), "tracks named after CUDA streams")
    # Spans on one stream follow one another.
    by_track = {}
    for e in gpu:
        check(e["dur"] >= 0, f"span of non-negative length: {e}")
        by_track.setdefault((e["pid"], e["tid"]), []).append(e)
    check(len(by_track) == 3, f"three streams (one per element), got {len(by_track)}")
    for spans in by_track.values():
        spans.sort(key=lambda e: e["ts"])
        for a, b in zip(spans, spans[1:]):
            check(a["ts"] + a["dur"] <= b["ts"] + EPS_US, f"no overlap on a stream: {a} {b}")
    # Per frame: upload, then the convert, then the download, as their events order them.
    frame = {}
    for e in gpu:
        frame.setdefault(e["args"]["pts"], {})[e["name"]] = e
    check(len(frame) == FRAMES, f"{FRAMES} frames by PTS, got {len(frame)}")
    for pts, f in frame.items():
        if set(f) != {"up", "cs", "down"}:
            check(False, f"frame {pts} in every element: {sorted(f)}")
            continue
        for a, b in (("up", "cs"), ("cs", "down")):
            check(f[a]["ts"] < f[b]["ts"] and
                  f[a]["ts"] + f[a]["dur"] <= f[b]["ts"] + CROSS_STREAM_US,
                  f"frame {pts}: {a} ends before {b} starts: {f[a]} {f[b]}")
    # Flows: from the producer's span to the consumer's, never backwards in time.
    starts = {e["id"]: e for e in events if e.get("ph") == "s"}
    ends = {e["id"]: e for e in events if e.get("ph") == "f"}
    check(len(starts) >= FRAMES and set(starts) == set(ends),
          f"a flow per wait between streams: {len(starts)} starts, {len(ends)} ends")
    for i, s in starts.items():
        f = ends.get(i)
        if f:
            check(s["ts"] <= f["ts"] + EPS_US, f"flow {i} goes forward: {s} {f}")
            inside = [e for e in by_track.get((s["pid"], s["tid"]), [])
                      if e["ts"] - EPS_US <= s["ts"] <= e["ts"] + e["dur"] + EPS_US]
            check(len(inside) == 1, f"flow {i} leaves a producer's span: {s}")


def check_batch(d, fmt):
    """cudabatch is timed as ours, per batch: its GPU work after its waits
    for the frames of all its inputs, which come from two streams."""
    trace = os.path.join(d, f"batch-{fmt}.json")
    err = run(f"file={trace},every=1", pipeline=batch_pipeline(fmt))
    b = summary_rows(err).get("b")
    check(b is not None and "not a cudastreams element" not in " ".join(b),
          f"{fmt}: cudabatch is listed as ours: {b}")
    if b:
        check(b[1] == str(BATCHES), f"{fmt}: cudabatch's frames are its {BATCHES} batches: {b}")
        check(all(v != "-" and float(v) >= 0 for v in b[2:7]),
              f"{fmt}: cudabatch has GPU times, a GPU wait and a CPU time: {b}")
        check(b[7] != "-" and float(b[7]) == 0, f"{fmt}: cudabatch waits on the GPU only: {b}")
        check(len(b) > 8 and b[8].startswith("0:"), f"{fmt}: cudabatch's stream: {b}")
    with open(trace) as f:
        events = json.load(f)["traceEvents"]
    spans = [e for e in events if e.get("ph") == "X" and e.get("cat") == "gpu"]
    batch = [e for e in spans if e["name"] == "b"]
    check(len(batch) == BATCHES, f"{fmt}: a GPU span per batch, got {len(batch)}")
    check(sum(e.get("ph") == "X" and e.get("cat") == "cpu" and e["name"] == "b"
              for e in events) == BATCHES, f"{fmt}: a CPU span per batch")
    # Each batch waits for the frames of both uploads (of its PTS); the
    # flow into its span comes from the one that ended last.
    starts = {e["id"]: e for e in events if e.get("ph") == "s"}
    flows = {(e["pid"], e["tid"], e["ts"]): starts.get(e["id"])
             for e in events if e.get("ph") == "f"}
    for e in batch:
        ups = [u for u in spans if u["name"] in ("up0", "up1")
               and u["args"]["pts"] == e["args"]["pts"]]
        check(len(ups) == 2 and all(u["ts"] < e["ts"] and
                                    u["ts"] + u["dur"] <= e["ts"] + CROSS_STREAM_US
                                    for u in ups),
              f"{fmt}: batch {e['args']['pts']} starts after both its frames: {e} {ups}")
        flow = flows.get((e["pid"], e["tid"], e["ts"]))
        last = max(ups, key=lambda u: u["ts"] + u["dur"]) if ups else None
        check(flow is not None and last is not None and
              (flow["pid"], flow["tid"]) == (last["pid"], last["tid"]),
              f"{fmt}: batch {e['args']['pts']}'s flow from its last frame {last}: {flow}")


def main():
    if "--gpu" in sys.argv and not os.path.exists("/dev/nvidia0"):
        print("no GPU here")
        return 77
    check_names()
    with tempfile.TemporaryDirectory() as d:
        trace = os.path.join(d, "trace.json")
        err = run(f"file={trace},nvtx=true,every=1", {"GST_DEBUG": "GST_TRACER:7"})
        check_summary(err)
        # Gated by default: no mark; without the gate the figures say they
        # include the launch.
        check_gated(err, True)
        check_gated(run("every=1,gate=false"), False)
        if "--gpu" not in sys.argv:
            # A driver without stream memory operations: no gate, a marked figure.
            check_gated(run("every=1", {"FAKECUDA_NO_STREAM_WAIT_VALUE": "1"}), False)
            check_gated(run("every=1", {"FAKECUDA_NO_STREAM_MEM_OPS": "1"}), False)
        check("cudastreams-frame" in err and "cudastreams-summary" in err
              and "cudastreams-cpu" in err, "the records are logged at GST_TRACER:7")
        check_trace(trace)
        # Bad input: a warning naming the parameter, the defaults otherwise.
        err = run("bogus=1")
        check("unknown parameter bogus" in err, "a warning names an unknown parameter")
        check(len(summary_rows(err)) >= 3, "the summary despite an unknown parameter")
        err = run(f"file={d}/no/such/dir/trace.json")
        check("cannot write the trace file" in err, "a warning for a file that cannot be written")
        check(len(summary_rows(err)) >= 3, "the summary despite an unwritable file")
        err = run("print=false")
        check(not summary_rows(err), "print=false keeps the summary off stderr")
        for fmt in ("NV12", "RGBA"):
            check_batch(d, fmt)
    print(f"{len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

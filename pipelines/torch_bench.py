#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""What a PyTorch consumer of 4K frames gets from the elements, beside what
people do today, on a GPU machine.

    torch_bench.py [--seconds 2] [--warmup 0.5] [--limits copy_limits.txt]
                   [--csv torch_bench.csv]

Rows, each its own pipeline, timed at the consumer (--warmup s untimed after
the first frame, then --seconds s; the consumer's queued GPU work is waited
for at the end of the window, never per frame):
  a  consume:  cudaupload ! cudacrop ! appsink, each frame torch.from_dlpack()
               and .float().mean() on a high-priority torch stream
  b  download: cudaupload ! cudacrop ! cudadownload ! appsink, each frame
               torch.from_numpy(numpy.from_dlpack(frame)).cuda() and the same op
               (what applications do without the module)
  c  drop:     as a, frames pulled and dropped (what the pipeline alone does)
  d  model-gpu: a model's input on the GPU (docs/python.md's recipe): 1080p
               NV12 through cudaupload ! cudaconvertscale add-borders=true to
               640x640 RGBP, torch.from_dlpack() (3 x 640 x 640, no copy),
               .float() / 255, ImageNet mean and std, .mean()
  e  model-cpu: the same input made the usual way: videoconvertscale
               add-borders=true to 640x640 RGB, numpy.from_dlpack,
               torch.from_numpy().cuda().permute(2, 0, 1), the same op
  limit        the pinned host->device copy of one 4K RGBA frame: gcs-copy-limits'
               figure from --limits (pipelines/bench measures it in the same
               run), else measured here with torch
The crop is the benchmark's: the centre 1920x1080 of 3840x2160 RGBA. The
source of rows a-c is one 4K RGBA frame in pinned memory (torch
pin_memory), pushed again and again through an appsrc by a thread (cudaupload
waits once per frame for a copy from memory that is not its own pool); rows
d and e push one 1080p NV12 frame the same way.

BENCH_ONLY (as pipelines/bench: an extended regex over "impl case format size
source", here "torch consume RGBA 3840x2160 pinned", "torch model-gpu NV12
1920x1080 pinned" etc.) picks rows.
Prints a table and lines "SUMMARY ..."; exits 77 without PyTorch or a CUDA
device, 1 when a row failed.
"""
import argparse
import csv
import json
import os
import re
import sys
import threading
import time
import warnings

from torch_common import Window, require

W, H = 3840, 2160
CROP = "left=960 right=960 top=540 bottom=540"
FMT, SIZE, SOURCE = "RGBA", f"{W}x{H}", "pinned"
# The model-input rows: a decoder's 1080p NV12 to a 640x640 RGB model input.
MW, MH, MFMT, SIDE = 1920, 1080, "NV12", 640
MSIZE = f"{MW}x{MH}"

torch, np, cudastreams = require("torch_bench", numpy=True)

# The download row reads a read-only frame: torch says so once per process.
warnings.filterwarnings("ignore", message="The given NumPy array is not writable")

SRC = (f"appsrc name=src format=time block=true max-bytes={3 * W * H * 4} "
       f'caps="video/x-raw,format={FMT},width={W},height={H},framerate=0/1"')
UPCROP = f"cudaupload ! cudacrop {CROP}"
MSRC = (f"appsrc name=src format=time block=true max-bytes={3 * MW * MH * 3 // 2} "
        f'caps="video/x-raw,format={MFMT},width={MW},height={MH},framerate=0/1"')
MODEL_CAPS = f"width={SIDE},height={SIDE},pixel-aspect-ratio=1/1"
# ImageNet's, as most image models want their input (set in main, on the GPU).
MEAN = STD = None


def consume(frame, acc):
    acc += torch.from_dlpack(frame).float().mean()


def download(frame, acc):
    acc += torch.from_numpy(np.from_dlpack(frame)).cuda().float().mean()


def drop(frame, acc):
    frame.release()


def normalise(x, acc):
    """A model's input from 3 x H x W uint8 on the GPU."""
    acc += x.float().div_(255).sub_(MEAN).div_(STD).mean()


def model_gpu(frame, acc):
    normalise(torch.from_dlpack(frame), acc)


def model_cpu(frame, acc):
    normalise(torch.from_numpy(np.from_dlpack(frame)).cuda().permute(2, 0, 1), acc)


CASES = [
    # row, case, label, pipeline, consumer, source ("4k" or "1080p")
    ("a", "consume", "up→crop→torch.from_dlpack", f"{SRC} ! {UPCROP} ! appsink sync=false",
     consume, "4k"),
    ("b", "download", "up→crop→down→numpy→.cuda()",
     f"{SRC} ! {UPCROP} ! cudadownload max-in-flight=3 ! appsink sync=false", download, "4k"),
    ("c", "drop", "up→crop, frames dropped", f"{SRC} ! {UPCROP} ! appsink sync=false", drop,
     "4k"),
    ("d", "model-gpu", "up→convertscale→RGBP→torch.from_dlpack",
     f"{MSRC} ! cudaupload ! cudaconvertscale add-borders=true ! "
     f"video/x-raw(memory:CUDAStreamsMemory),format=RGBP,{MODEL_CAPS} ! appsink sync=false",
     model_gpu, "1080p"),
    ("e", "model-cpu", "videoconvertscale→RGB→numpy→.cuda()",
     f"{MSRC} ! videoconvertscale add-borders=true ! video/x-raw,format=RGB,{MODEL_CAPS} ! "
     "appsink sync=false", model_cpu, "1080p"),
]
# source -> (format, size) of its rows, for BENCH_ONLY and the csv
SOURCES = {"4k": (FMT, SIZE), "1080p": (MFMT, MSIZE)}


def run_case(desc, consumer, frame, stream, seconds, warmup):
    """Steady-state fps, CPU ms and host waits per frame of one pipeline."""
    p = cudastreams.Pipeline(desc, max_held_frames=8)
    stop = threading.Event()
    feed_errors = []

    def feed():
        try:
            while not stop.is_set():
                p.push(frame, "src")
            p.end_of_stream("src")
        except Exception as e:  # noqa: BLE001 - reported by the consumer
            if not stop.is_set():
                feed_errors.append(e)

    p.start()
    feeder = threading.Thread(target=feed, name="feed", daemon=True)
    feeder.start()
    try:
        with torch.cuda.stream(stream):
            acc = torch.zeros((), dtype=torch.float32, device="cuda")
            window, more = Window(seconds, warmup, cudastreams.host_waits), True
            while more:
                f = p.pull(timeout=20)
                if f is None:
                    why = f": the feeder failed: {feed_errors[0]!r}" if feed_errors else ""
                    raise RuntimeError(
                        f"EOS after {window.n} frames, before the timed window ended{why}")
                consumer(f, acc)
                del f
                more = window.tick()
            r = window.close(torch.cuda.synchronize)
            if not bool(torch.isfinite(acc)):
                raise RuntimeError(f"the consumer's result is {acc.item()}")
    finally:
        stop.set()
        # Let a push blocked on the full appsrc return and the EOS come.
        for _ in range(1000):
            try:
                if p.pull(timeout=10) is None:
                    break
            except Exception:  # noqa: BLE001 - the run's own error is what counts
                break
        p.close()
        feeder.join(timeout=10)
    return {"fps": r["rate"], "cpu_ms": r["cpu_us"] / 1e3, "waits": r["waits"],
            "frames": r["items"], "seconds": r["seconds"]}


def limit_from_file(path):
    """gcs-copy-limits' pinned H2D fps for one 4K RGBA frame, or None."""
    try:
        lines = open(path, encoding="utf-8").read().splitlines()
    except OSError:
        return None
    for line in lines:
        if line.startswith("LIMIT "):
            r = json.loads(line[len("LIMIT "):])
            if (r["what"], r["mem"], r["layout"], r["up"]) == ("h2d", "pinned", "linear",
                                                               f"{FMT} {SIZE}"):
                return r["fps"]
    return None


def limit_from_torch():
    """The same copy with torch: 4K RGBA frames from 4 pinned buffers to the
    device, median of 5 rounds of 40 copies timed with CUDA events."""
    nbytes = W * H * 4
    hosts = [torch.empty(nbytes, dtype=torch.uint8, pin_memory=True) for _ in range(4)]
    dev = torch.empty(nbytes, dtype=torch.uint8, device="cuda")
    s = torch.cuda.Stream()
    rates = []
    with torch.cuda.stream(s):
        dev.copy_(hosts[0], non_blocking=True)
        for _ in range(5):
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record(s)
            for i in range(40):
                dev.copy_(hosts[i % 4], non_blocking=True)
            end.record(s)
            end.synchronize()
            rates.append(40 / (start.elapsed_time(end) / 1e3))
    return sorted(rates)[len(rates) // 2]


def num(v, digits=0):
    return "n/a" if v is None else f"{v:,.{digits}f}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seconds", type=float, default=2.0, help="timed window per row")
    ap.add_argument("--warmup", type=float, default=0.5, help="untimed start per row")
    ap.add_argument("--limits", help="gcs-copy-limits output (LIMIT lines)")
    ap.add_argument("--csv", help="write the rows here")
    a = ap.parse_args()

    only = os.environ.get("BENCH_ONLY", "")
    cases = [c for c in CASES if not only or re.search(
        only, f"torch {c[1]} {SOURCES[c[5]][0]} {SOURCES[c[5]][1]} {SOURCE}")]
    gpu = torch.cuda.get_device_name(0)
    print(f"=== PyTorch consumers on {gpu}: {FMT} {SIZE} from a pinned frame through "
          f"appsrc, cropped to 1920x1080; {a.seconds:g} s timed per row; torch "
          f"{torch.__version__}, cudastreams {cudastreams.__version__}", flush=True)
    if not cases:
        print(f"no torch row matches BENCH_ONLY={only!r}")
        return 0
    if any(c[5] == "1080p" for c in cases):
        print(f"=== model input (d, e): {MFMT} {MSIZE} from a pinned frame through appsrc "
              f"to {SIDE}x{SIDE} RGB, letterboxed, normalised in torch", flush=True)

    # The source frames: non-uniform content in pinned memory.
    def pinned_random(shape):
        host = torch.empty(shape, dtype=torch.uint8, pin_memory=True)
        host.copy_(torch.randint(0, 256, shape, dtype=torch.uint8, device="cuda"))
        return host.numpy()

    needed = {c[5] for c in cases}
    frames = {"4k": pinned_random((H, W, 4)) if "4k" in needed else None,
              "1080p": pinned_random((MH * 3 // 2, MW)) if "1080p" in needed else None}
    global MEAN, STD
    MEAN = torch.tensor([0.485, 0.456, 0.406], device="cuda").view(3, 1, 1)
    STD = torch.tensor([0.229, 0.224, 0.225], device="cuda").view(3, 1, 1)
    torch.cuda.synchronize()  # before the rows' stream uses them
    stream = torch.cuda.Stream(priority=-1)

    results, failed = {}, 0
    for row, case, label, desc, consumer, src in cases:
        try:
            r = run_case(desc, consumer, frames[src], stream, a.seconds, a.warmup)
            results[row] = r
            print(f"  {row} {case:9s} {r['fps']:8,.0f} fps  {r['cpu_ms']:.3f} ms CPU/frame  "
                  f"{r['waits']:.2f} host waits/frame  ({r['frames']} frames in "
                  f"{r['seconds']:.2f} s)", flush=True)
        except Exception as e:  # noqa: BLE001 - one row's failure, reported
            failed += 1
            print(f"  {row} {case:9s} FAILED: {type(e).__name__}: {e}\n    pipeline: {desc}",
                  flush=True)

    limit, limit_src = (limit_from_file(a.limits), "gcs-copy-limits") if a.limits else (None, "")
    if limit is None:
        try:
            limit, limit_src = limit_from_torch(), "torch copy, this run"
        except Exception as e:  # noqa: BLE001
            print(f"  copy limit: could not measure it: {e}")
    fa, fb, fc, fd, fe = (results.get(k, {}).get("fps") for k in "abcde")

    def ratio(x, y):
        return x / y if x is not None and y else None

    ratios = {"a/b": ratio(fa, fb), "a/limit": ratio(fa, limit), "a/c": ratio(fa, fc)}
    model_ratio = ratio(fd, fe)

    print()
    print("| row | case | fps | CPU ms/frame | host waits/frame | % of copy limit |")
    print("|---|---|---|---|---|---|")
    for row, case, label, desc, _, src in cases:
        r = results.get(row)
        if r is None:
            print(f"| {row} | {label} | failed | | | |")
            continue
        # The copy limit is one 4K RGBA frame's: the model rows move less.
        pct = ratio(r["fps"], limit) if src == "4k" else None
        print(f"| {row} | {label} | {num(r['fps'])} | {r['cpu_ms']:.3f} | {r['waits']:.2f} | "
              f"{'' if src != '4k' else num(pct and pct * 100)} |")
    print(f"| limit | pinned H2D, one {FMT} {SIZE} frame ({limit_src or 'n/a'}) | {num(limit)} "
          "| | | 100 |")
    print(f"ratios: a/b {num(ratios['a/b'], 2)}×, a/limit {num(ratios['a/limit'], 2)}, "
          f"a/c {num(ratios['a/c'], 2)}")
    if "1080p" in needed:
        print(f"model input: d/e {num(model_ratio, 2)}× (GPU recipe over the CPU path)")

    if a.csv:
        with open(a.csv, "w", newline="", encoding="utf-8") as f:
            w = csv.writer(f)
            w.writerow(["kind", "name", "label", "format", "size", "source", "fps",
                        "cpu_ms_per_frame", "host_waits_per_frame", "frames", "seconds",
                        "value", "pipeline"])
            for row, case, label, desc, _, src in cases:
                r = results.get(row)
                w.writerow(["case", f"{row}:{case}", label, *SOURCES[src], SOURCE] +
                           ([f"{r['fps']:.1f}", f"{r['cpu_ms']:.4f}", f"{r['waits']:.3f}",
                             r["frames"], f"{r['seconds']:.3f}"] if r else ["", "", "", "", ""]) +
                           ["" if r else "failed", desc])
            w.writerow(["limit", "h2d pinned", limit_src, FMT, SIZE, "pinned",
                        "" if limit is None else f"{limit:.1f}", "", "", "", "", "", ""])
            for k, v in ratios.items():
                w.writerow(["ratio", k, "", FMT, SIZE, SOURCE, "", "", "", "", "",
                            "" if v is None else f"{v:.3f}", ""])
            if "1080p" in needed:
                w.writerow(["ratio", "d/e", "", MFMT, MSIZE, SOURCE, "", "", "", "", "",
                            "" if model_ratio is None else f"{model_ratio:.3f}", ""])
        print(f"csv: {a.csv}")

    names = {"a": "a from_dlpack", "b": "b download+.cuda()", "c": "c dropped",
             "d": "d GPU (RGBP from_dlpack)", "e": "e CPU (videoconvertscale+.cuda())"}

    def parts(src):
        out = []
        for row, *_, s in cases:
            r = results.get(row)
            if s == src:
                out.append(f"{names[row]} {num(r['fps'])} fps, {r['cpu_ms']:.2f} ms CPU/f" if r
                           else f"{names[row]} FAILED")
        return "; ".join(out)

    if "4k" in needed:
        print(f"SUMMARY torch 4K RGBA→1080p crop: {parts('4k')}")
    print(f"SUMMARY torch ratios: a/b {num(ratios['a/b'], 2)}×, a/limit "
          f"{num(ratios['a/limit'] and ratios['a/limit'] * 100)}% of {num(limit)} fps "
          f"({limit_src or 'no limit'}), a/c {num(ratios['a/c'], 2)}"
          + (f"; {failed} row(s) FAILED" if failed else ""))
    if "1080p" in needed:
        print(f"SUMMARY torch model input 1080p NV12→640x640: {parts('1080p')}; "
              f"d/e {num(model_ratio, 2)}×")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

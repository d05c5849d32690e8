#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""cudabatch into PyTorch beside the usual way, on a GPU machine.

    batch_torch_bench.py [--seconds 2] [--warmup 0.5] [--streams 16] [--csv F]

Both rows start from the same device-resident 1080p NV12 streams (each
uploaded once, then imagefreeze) and make the same model input on a torch
stream: a --streams x 3 x 640 x 640 float16 tensor, each frame letterboxed
(centred, black borders) and normalised with ImageNet's mean and std.
  cudabatch: ... ! cudabatch ! appsink; torch.from_dlpack(batch), no copy
  usual:     one appsink per stream; each frame's planes as torch tensors
             (torch.from_dlpack(frame.planes[i])), NV12 to RGB (BT.709)
             in torch, F.interpolate to 640 x 360, padding, normalisation,
             then torch.stack: what an application does with frames one
             by one
Each batch is then consumed the same way (one value per slot summed). Timed
from --warmup s after the first batch for --seconds s; the torch stream is
synchronised before the clock stops, so the figure is of finished batches.
Host waits are the library's (cudastreams.host_waits()).

BENCH_ONLY (as pipelines/bench: an extended regex over "torch
batch-cudabatch|batch-usual NV12 1920x1080 device") picks rows. Prints a
table and lines "SUMMARY ..."; exits 77 without PyTorch or a CUDA device,
1 when a row failed.
"""
import argparse
import csv
import os
import re
import sys
import time

from torch_common import Window, require

W, H, SIDE = 1920, 1080, 640
PW, PH = SIDE, SIDE * H // W  # the picture in a slot: 640 x 360
TOP = (SIDE - PH) // 2
ROW_KEY = "torch {} NV12 1920x1080 device"

torch, _, cudastreams = require("batch_torch_bench")
import torch.nn.functional as F  # noqa: E402 - after the check that torch is there

MEAN_STD = "mean=\"<0.485,0.456,0.406>\" std=\"<0.229,0.224,0.225>\""


def sources(n, sink):
    """n device-resident 1080p NV12 streams, stream i linked to sink(i)."""
    return " ".join(
        f"videotestsrc num-buffers=1 pattern={i % 20} ! video/x-raw,format=NV12,width={W},"
        f"height={H},framerate=30/1,colorimetry=bt709 ! cudaupload ! imagefreeze ! {sink(i)}"
        for i in range(n))


class Cudabatch:
    """The batch as cudabatch makes it, read with torch.from_dlpack."""
    name = "batch-cudabatch"

    def __init__(self, n):
        self.desc = (sources(n, lambda i: f"b.sink_{i}") +
                     f" cudabatch name=b batch-size={n} width={SIDE} height={SIDE} "
                     f"dtype=float16 {MEAN_STD} ! appsink name=out sync=false")

    def batch(self, p):
        b = p.pull("out", timeout=20)
        if b is None:
            raise RuntimeError("end of stream")
        return torch.from_dlpack(b)


class Usual:
    """The same batch made in torch from the frames, one by one."""
    name = "batch-usual"

    def __init__(self, n):
        self.n = n
        self.desc = sources(n, lambda i: f"appsink name=s{i} sync=false")
        dev = "cuda"
        self.mean = torch.tensor([0.485, 0.456, 0.406], device=dev).view(3, 1, 1)
        self.std = torch.tensor([0.229, 0.224, 0.225], device=dev).view(3, 1, 1)

    def slot(self, frame):
        y = torch.from_dlpack(frame.planes[0])[..., 0].float()
        uv = torch.from_dlpack(frame.planes[1]).float().permute(2, 0, 1)
        uv = F.interpolate(uv[None], scale_factor=2, mode="nearest")[0]
        y = (y - 16) / 219
        cb, cr = (uv[0] - 128) / 224, (uv[1] - 128) / 224
        rgb = torch.stack((y + 1.5748 * cr, y - 0.1873 * cb - 0.4681 * cr, y + 1.8556 * cb))
        rgb = F.interpolate(rgb.clamp_(0, 1)[None], size=(PH, PW), mode="bilinear",
                            align_corners=False, antialias=True)[0]
        rgb = F.pad(rgb, (0, 0, TOP, SIDE - PH - TOP))
        return ((rgb - self.mean) / self.std).half()

    def batch(self, p):
        slots = []
        for i in range(self.n):
            f = p.pull(f"s{i}", timeout=20)
            if f is None:
                raise RuntimeError("end of stream")
            slots.append(self.slot(f))
        return torch.stack(slots)


def consume(x, acc):
    acc += x[:, :, SIDE // 2, SIDE // 2].float().sum()


def run_row(row, stream, seconds, warmup):
    """Batches/s, CPU us and host waits per batch, and the last batch."""
    window = Window(seconds, warmup, cudastreams.host_waits, on_open=stream.synchronize)
    with cudastreams.Pipeline(row.desc, max_held_frames=8) as p, torch.cuda.stream(stream):
        acc = torch.zeros((), dtype=torch.float32, device="cuda")
        x = row.batch(p)
        consume(x, acc)
        while window.tick():
            x = row.batch(p)
            consume(x, acc)
        r = window.close(stream.synchronize)
        if not bool(torch.isfinite(acc)):
            raise RuntimeError(f"the consumer's result is {acc.item()}")
        last = x.clone()
        stream.synchronize()
    return {"bps": r["rate"], "cpu_us": r["cpu_us"], "waits": r["waits"],
            "batches": r["items"], "seconds": r["seconds"]}, last


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seconds", type=float, default=2.0, help="timed window per row")
    ap.add_argument("--warmup", type=float, default=0.5, help="untimed start per row")
    ap.add_argument("--streams", type=int, default=16, help="streams, slots per batch")
    ap.add_argument("--csv", help="write the rows here")
    a = ap.parse_args()

    only = os.environ.get("BENCH_ONLY", "")
    rows = [r(a.streams) for r in (Cudabatch, Usual)
            if not only or re.search(only, ROW_KEY.format(r.name))]
    print(f"=== {a.streams} x 1080p NV12 (device) -> {a.streams}x3x{SIDE}x{SIDE} float16 in "
          f"torch on {torch.cuda.get_device_name(0)}; torch {torch.__version__}, "
          f"cudastreams {cudastreams.__version__}; {a.seconds:g} s timed per row", flush=True)
    stream = torch.cuda.Stream()
    results, outputs, failed = {}, {}, 0
    for row in rows:
        try:
            r, outputs[row.name] = run_row(row, stream, a.seconds, a.warmup)
            results[row.name] = r
            print(f"  {row.name:16s} {r['bps']:9,.1f} batches/s  {r['cpu_us']:9,.1f} us CPU/batch"
                  f"  {r['waits']:.3f} host waits/batch  ({r['batches']} in "
                  f"{r['seconds']:.2f} s)", flush=True)
        except Exception as e:  # noqa: BLE001 - one row's failure, reported
            failed += 1
            print(f"  {row.name:16s} FAILED: {type(e).__name__}: {e}", flush=True)
    ours, usual = (results.get(k, {}).get("bps") for k in ("batch-cudabatch", "batch-usual"))
    ratio = ours / usual if ours and usual else None
    # The two ways sample differently (the converter's filter, torch's
    # antialiased bilinear): a sanity check that both made the same picture.
    diff = None
    if len(outputs) == 2:
        diff = (outputs["batch-cudabatch"].float() - outputs["batch-usual"].float()).abs().mean()
        diff = float(diff)
        print(f"  mean |cudabatch - usual| over the last batch: {diff:.4f} (normalised units)")
    if a.csv:
        with open(a.csv, "w", newline="", encoding="utf-8") as f:
            w = csv.writer(f)
            w.writerow(["row", "streams", "batches_per_s", "cpu_us_per_batch",
                        "host_waits_per_batch", "batches", "seconds"])
            for name, r in results.items():
                w.writerow([name, a.streams, f"{r['bps']:.1f}", f"{r['cpu_us']:.1f}",
                            f"{r['waits']:.3f}", r["batches"], f"{r['seconds']:.3f}"])
    parts = [f"{k} {r['bps']:,.1f} batches/s, {r['cpu_us']:,.0f} us CPU/batch, "
             f"{r['waits']:.2f} host waits/batch" for k, r in results.items()]
    print(f"SUMMARY batch torch ({a.streams} streams): " + "; ".join(parts) +
          (f"; cudabatch/usual {ratio:.2f}x (target >= 3x)" if ratio else "") +
          (f"; mean diff {diff:.4f}" if diff is not None else "") +
          (f"; {failed} row(s) FAILED" if failed else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

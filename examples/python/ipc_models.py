#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Cameras in one process, models in others: one process decodes and
batches 8 streams into cudastreamsipcsink; two model processes read the
same batches from cudastreamsipcsrc as torch tensors on the GPU (no copy,
no host wait to get them), box the brightest blob of each slot and map
each box back to its stream with batch.slots. One model process is killed
(SIGKILL) and started again while the other and the cameras go on.

    cameras:  8 x (videotestsrc pattern=ball -> x264enc -> nvh264dec)   (with nvcodec)
              8 x (videotestsrc pattern=ball -> cudastreamsupload)      (without)
              -> cudabatch (8 x 3 x 320 x 320 float16) -> cudastreamsipcsink
    model A, model B:
              cudastreamsipcsrc -> torch.from_dlpack(batch) -> BlobBoxer -> slot.box_to_source

    python3 ipc_models.py [--seconds S] [--check]

Runs all of it (this script in three roles: cameras, model A, model B)
and prints what each model saw. --check fails (exit 1) unless model A got
every batch in order, the restarted model B got consecutive batches, every
box lay in its frame, and the cameras ended cleanly. Needs PyTorch with
CUDA and the cudastreams module and plugin; exits 77 without PyTorch or a
CUDA device.
"""
import os
import signal
import subprocess
import sys
import tempfile
import time

try:
    import torch
except ImportError:
    print("SKIP: this example needs PyTorch")
    sys.exit(77)
if not torch.cuda.is_available():
    print("SKIP: this example needs a CUDA device that PyTorch can use")
    sys.exit(77)
import cudastreams

# The batch example's model and cameras (it reads its own arguments when
# imported: it sees none).
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
_argv, sys.argv = sys.argv, sys.argv[:1]
from batch_infer import MEAN, SIZES, STD, BlobBoxer  # noqa: E402
sys.argv = _argv

S = 320
FPS = 30


def cameras(sock, frames, decode):
    """The cameras' pipeline: 8 live streams into one batch, to the socket."""
    out = []
    for i, (w, h) in enumerate(SIZES):
        src = (f"videotestsrc pattern=ball is-live=true num-buffers={frames} ! "
               f"video/x-raw,width={w},height={h},framerate={FPS}/1")
        if decode:
            src += (",format=I420 ! x264enc speed-preset=ultrafast tune=zerolatency "
                    "key-int-max=30 ! h264parse ! nvh264dec")
        else:
            src += ",format=NV12 ! cudastreamsupload"
        out.append(f"{src} ! b.sink_{i}")
    mean, std = (",".join(map(str, v)) for v in (MEAN, STD))
    return (" ".join(out) + f" cudabatch name=b width={S} height={S} dtype=float16 "
            f'mean="<{mean}>" std="<{std}>" ! cudastreamsipcsink socket-path={sock}')


def run_cameras(sock, frames):
    """Role "cameras": decode where nvcodec is there, else upload."""
    try:
        cudastreams.Pipeline(cameras(sock + ".probe", 1, True)).close()
        decode = True
    except cudastreams.Error:
        decode = False
    print(f"cameras: {len(SIZES)} streams ({'nvh264dec' if decode else 'cudastreamsupload'})",
          flush=True)
    with cudastreams.Pipeline(cameras(sock, frames, decode)) as p:
        p.wait(timeout=frames / FPS + 60)
    print("cameras: done", flush=True)
    return 0


def run_model(sock, name):
    """Role "model NAME": every batch through the model; a line per batch."""
    stream = torch.cuda.Stream()
    model = BlobBoxer().cuda().eval()
    torch.cuda.synchronize()
    n = bad = 0
    with cudastreams.Pipeline(f"cudastreamsipcsrc socket-path={sock} connection-timeout=30000 "
                              "! appsink name=out sync=false", streams=[stream]) as p, \
            torch.cuda.stream(stream), torch.inference_mode():
        for batch in p.batches("out", timeout=60):
            x = torch.from_dlpack(batch)  # 8 x 3 x S x S float16, the producer's memory
            boxes = model(x).cpu()        # the one host wait: the application reads boxes
            outside = 0
            for k, slot in enumerate(batch.slots):
                if slot.empty:
                    continue
                x0, y0, x1, y1 = slot.box_to_source(*boxes[k].tolist())
                w, h = slot.source_width, slot.source_height
                outside += not (-1 <= x0 <= x1 <= w + 1 and -1 <= y0 <= y1 <= h + 1)
            bad += outside
            n += 1
            print(f"{name} batch {batch.pts} {outside}", flush=True)
            del x, batch
    print(f"{name} done batches={n} outside={bad}", flush=True)
    return 0


def spawn(*args):
    return subprocess.Popen([sys.executable, os.path.abspath(__file__), *args],
                            stdout=subprocess.PIPE, text=True, bufsize=1)


def read_until(proc, lines, pred, timeout):
    """Reads `proc`'s lines into `lines` until pred(lines) or the timeout."""
    end = time.monotonic() + timeout
    while not pred(lines) and time.monotonic() < end:
        line = proc.stdout.readline()
        if not line:
            return pred(lines)
        lines.append(line.strip())
    return pred(lines)


def batches(lines, name):
    return [int(ln.split()[2]) for ln in lines if ln.startswith(f"{name} batch ")]


def in_order(pts):
    """Increasing, no batch missing: live batching may split a batch (a
    stream late past batched-push-timeout), never skip one."""
    period = 1_000_000_000 // FPS
    return all(0 < b - a < 2 * period for a, b in zip(pts, pts[1:]))


def orchestrate(seconds, check):
    frames = int(seconds * FPS)
    with tempfile.TemporaryDirectory() as d:
        sock = os.path.join(d, "cameras.sock")
        procs = {"A": spawn("model", sock, "A"), "B": spawn("model", sock, "B")}
        cams = spawn("cameras", sock, str(frames))
        out = {k: [] for k in ("A", "B", "B2")}
        try:
            # B runs a while, is killed, and comes back; A never stops.
            read_until(procs["B"], out["B"], lambda ls: len(batches(ls, "B")) >= 20, 60)
            procs["B"].send_signal(signal.SIGKILL)
            procs["B"].wait(10)
            print(f"model B killed after {len(batches(out['B'], 'B'))} batches; restarting it")
            procs["B2"] = spawn("model", sock, "B")
            for k in ("A", "B2"):
                read_until(procs[k], out[k], lambda ls: any("done" in ln for ln in ls),
                           seconds + 90)
            cams_out, _ = cams.communicate(timeout=60)
        finally:
            for p in list(procs.values()) + [cams]:
                if p.poll() is None:
                    p.kill()
    a, b2 = batches(out["A"], "A"), batches(out["B2"], "B")
    outside = sum(int(ln.split()[3]) for k in out for ln in out[k] if " batch " in ln)
    print(f"cameras: {frames} frames per stream; model A: {len(a)} batches; model B: "
          f"{len(batches(out['B'], 'B'))} batches before the kill, {len(b2)} after the restart; "
          f"{outside} boxes outside their frame")
    ok = (cams.returncode == 0 and len(a) >= 0.9 * frames and in_order(a) and len(b2) >= 10
          and in_order(b2) and outside == 0)
    if check and not ok:
        print("FAIL: want model A to get every batch in order, the restarted B consecutive "
              f"batches, every box in its frame, the cameras to end cleanly "
              f"(cameras exit {cams.returncode}: {cams_out.strip()[-200:]})")
        return 1
    return 0


def main():
    if len(sys.argv) > 2 and sys.argv[1] == "cameras":
        return run_cameras(sys.argv[2], int(sys.argv[3]))
    if len(sys.argv) > 2 and sys.argv[1] == "model":
        return run_model(sys.argv[2], sys.argv[3])
    seconds = 8.0
    if "--seconds" in sys.argv:
        seconds = float(sys.argv[sys.argv.index("--seconds") + 1])
    return orchestrate(seconds, "--check" in sys.argv)


if __name__ == "__main__":
    sys.exit(main())

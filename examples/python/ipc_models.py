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
every batch the cameras sent from its first on (that first among the
cameras' first few: A is there before the cameras start), none twice; the
restarted model B got consecutive batches; every box lay in its frame;
and the cameras ended cleanly.

The cameras' sink holds a batch back for a model that is behind
(slow-consumer=wait, up to wait-timeout) rather than let that model miss
it (the default, slow-consumer=drop, which suits a viewer): a model that
keeps up on average loses nothing to a hiccup longer than max-frames
batches (its first batch through the model, another process starting
CUDA on the same GPU). A killed model holds nothing up: its connection
ends with it.

Needs PyTorch with CUDA and the cudastreams module and plugin; exits 77
without PyTorch or a CUDA device.
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
    # The batches also go to an appsink, so that the cameras can say which
    # they sent (the check compares them with what model A got).
    return (" ".join(out) + f" cudabatch name=b width={S} height={S} dtype=float16 "
            f'mean="<{mean}>" std="<{std}>" ! tee name=t '
            f"t. ! queue ! cudastreamsipcsink socket-path={sock} slow-consumer=wait "
            "wait-timeout=2000 t. ! queue ! appsink name=sent sync=false")


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
        for batch in p.batches("sent", timeout=60):
            print(f"cameras sent {batch.pts}", flush=True)
            del batch
        p.wait(timeout=60)
    print("cameras: done", flush=True)
    return 0


def run_model(sock, name):
    """Role "model NAME": every batch through the model; a line per batch."""
    stream = torch.cuda.Stream()
    model = BlobBoxer().cuda().eval()
    # Once through the model before the first batch: its first run loads
    # kernels, and a model that far behind would hold the cameras up.
    with torch.inference_mode():
        model(torch.zeros(len(SIZES), 3, S, S, device="cuda", dtype=torch.float16))
    torch.cuda.synchronize()
    print(f"{name} ready", flush=True)
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
        out = {k: [] for k in ("A", "B", "B2")}
        # Both models waiting for the cameras' socket before they start.
        for k in ("A", "B"):
            read_until(procs[k], out[k], lambda ls: f"{k} ready" in ls, 120)
        cams = spawn("cameras", sock, str(frames))
        cams_out = ""
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
    sent = [int(ln.split()[2]) for ln in cams_out.splitlines() if ln.startswith("cameras sent ")]
    first = sent.index(a[0]) if a and a[0] in sent else -1
    missed = sorted(set(sent[max(first, 0):]) - set(a))
    outside = sum(int(ln.split()[3]) for k in out for ln in out[k] if " batch " in ln)
    print(f"cameras: {frames} frames per stream, {len(sent)} batches sent; model A: {len(a)} "
          f"batches from the cameras' batch {first} on, {len(missed)} missed; model B: "
          f"{len(batches(out['B'], 'B'))} batches before the kill, {len(b2)} after the restart; "
          f"{outside} boxes outside their frame")
    a_all = 0 <= first <= 5 and a == sent[first:]
    ok = (cams.returncode == 0 and a_all and in_order(a) and len(b2) >= 10
          and in_order(b2) and outside == 0)
    if check and not ok:
        print("FAIL: want model A to get every batch the cameras sent from its first on "
              f"(missed: {missed[:10]}), the restarted B consecutive batches, every box in "
              f"its frame, the cameras to end cleanly "
              f"(cameras exit {cams.returncode}: {cams_out.strip()[-200:]})")
        return 1
    return 0


def main():
    if len(sys.argv) > 2 and sys.argv[1] == "cameras":
        return run_cameras(sys.argv[2], int(sys.argv[3]))
    if len(sys.argv) > 2 and sys.argv[1] == "model":
        return run_model(sys.argv[2], sys.argv[3])
    seconds = 15.0
    if "--seconds" in sys.argv:
        seconds = float(sys.argv[sys.argv.index("--seconds") + 1])
    return orchestrate(seconds, "--check" in sys.argv)


if __name__ == "__main__":
    sys.exit(main())

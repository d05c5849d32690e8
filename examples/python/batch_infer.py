#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""From many cameras to a model: 8 streams of different sizes, batched by
cudabatch into one 8 x 3 x 320 x 320 float16 tensor on the GPU, read by
PyTorch without a copy, through a small model that boxes the brightest
blob of each slot; each box mapped back to its own stream's pixels with
batch.slots.

    8 x (videotestsrc pattern=ball -> x264enc -> nvh264dec)   (with nvcodec)
    8 x (videotestsrc pattern=ball -> cudastreamsupload)      (without)
      -> cudabatch (letterbox, NV12 -> RGB, ImageNet mean/std, stack)
      -> torch.from_dlpack(batch): 8 x 3 x 320 x 320, the batch's memory
      -> BlobBoxer (a conv net defined here, weights set in code)
      -> boxes in tensor pixels -> slot.box_to_source -> boxes in each stream

    python3 batch_infer.py [frames] [--check]      (default 60 frames)

Prints the boxes of the first batches and a summary; --check fails (exit 1)
unless every box lies in its frame and the batches came. Needs PyTorch with
CUDA and the cudastreams package (`pip install .`, or a build's python/ on
PYTHONPATH), which brings its plugin; exits 77 (skipped) without PyTorch or
a CUDA device.
"""
import sys
import time

try:
    import torch
    from torch import nn
except ImportError:
    print("SKIP: this example needs PyTorch")
    sys.exit(77)
if not torch.cuda.is_available():
    print("SKIP: this example needs a CUDA device that PyTorch can use")
    sys.exit(77)
import cudastreams

args = [a for a in sys.argv[1:] if not a.startswith("--")]
frames = int(args[0]) if args else 60
check = "--check" in sys.argv
S = 320  # the model's input side
MEAN, STD = (0.485, 0.456, 0.406), (0.229, 0.224, 0.225)
# Each camera its own size: the batch letterboxes every one into S x S.
SIZES = [(640, 360), (480, 270), (800, 600), (320, 240),
         (1280, 720), (720, 480), (352, 288), (960, 540)]


def cameras(decode):
    """gst-launch text of the 8 streams, linked to cudabatch b's pads."""
    out = []
    for i, (w, h) in enumerate(SIZES):
        src = (f"videotestsrc pattern=ball num-buffers={frames} ! "
               f"video/x-raw,width={w},height={h},framerate=30/1")
        if decode:
            # encoded and decoded in the pipeline: what an H.264 camera gives
            src += (",format=I420 ! x264enc speed-preset=ultrafast tune=zerolatency "
                    "key-int-max=30 ! h264parse ! nvh264dec")
        else:
            src += ",format=NV12 ! cudastreamsupload"
        out.append(f"{src} ! b.sink_{i}")
    mean, std = (",".join(map(str, v)) for v in (MEAN, STD))
    return (" ".join(out) + f" cudabatch name=b width={S} height={S} dtype=float16 "
            f'mean="<{mean}>" std="<{std}>" ! appsink name=out sync=false')


class BlobBoxer(nn.Module):
    """A stand-in detector: per slot, the box of its bright blob.

    A 5 x 5 convolution turns the normalised RGB back into local brightness
    (weights from the mean and std, set here: nothing is downloaded); a
    softmax over the slot makes it a distribution; its mean is the box's
    centre, two standard deviations each way its extent. Boxes come out in
    tensor pixels, (x0, y0, x1, y1) per slot."""

    def __init__(self, sharpness=40.0):
        super().__init__()
        self.bright = nn.Conv2d(3, 1, 5, padding=2)
        with torch.no_grad():
            for c in range(3):
                self.bright.weight[0, c].fill_(STD[c] / 3 / 25)
            self.bright.bias.fill_(sum(MEAN) / 3)
        self.sharpness = sharpness

    def forward(self, x):
        n, _, h, w = x.shape
        heat = self.bright(x.float()).flatten(1) * self.sharpness
        p = torch.softmax(heat, dim=1).view(n, h, w)
        ys = torch.arange(h, device=x.device, dtype=p.dtype) + 0.5
        xs = torch.arange(w, device=x.device, dtype=p.dtype) + 0.5
        px, py = p.sum(1), p.sum(2)  # marginals over x and y
        cx, cy = (px * xs).sum(1), (py * ys).sum(1)
        sx = ((px * (xs - cx[:, None]) ** 2).sum(1)).sqrt()
        sy = ((py * (ys - cy[:, None]) ** 2).sum(1)).sqrt()
        return torch.stack((cx - 2 * sx, cy - 2 * sy, cx + 2 * sx, cy + 2 * sy), dim=1)


def run(decode):
    stream = torch.cuda.Stream()
    model = BlobBoxer().cuda().eval()
    torch.cuda.synchronize()  # the weights, made on the default stream
    n, bad, t0 = 0, [], time.perf_counter()
    with cudastreams.Pipeline(cameras(decode), streams=[stream]) as p, \
            torch.cuda.stream(stream), torch.inference_mode():
        for batch in p.batches("out", timeout=60):
            x = torch.from_dlpack(batch)   # 8 x 3 x S x S float16, no copy, no host wait
            boxes = model(x).cpu()         # the one host wait: the application reads boxes
            for k, slot in enumerate(batch.slots):
                if slot.empty:
                    continue
                x0, y0, x1, y1 = slot.box_to_source(*boxes[k].tolist())
                w, h = slot.source_width, slot.source_height
                inside = -1 <= x0 <= x1 <= w + 1 and -1 <= y0 <= y1 <= h + 1
                if not inside:
                    bad.append((n, slot.pad, (x0, y0, x1, y1), (w, h)))
                if n < 2:
                    print(f"  batch {n} {slot.pad} ({w}x{h}, pts {slot.pts / 1e9:.3f} s): "
                          f"blob at ({x0:.0f},{y0:.0f})-({x1:.0f},{y1:.0f})")
            n += 1
            del x, batch
    secs = time.perf_counter() - t0
    return n, bad, secs


def main():
    # nvcodec's decoder where there is one; else the frames are uploaded.
    try:
        cudastreams.Pipeline(cameras(True)).close()
        decode = True
    except cudastreams.Error as e:
        print(f"no H.264 decode here ({e}): uploading the test frames instead")
        decode = False
    try:
        n, bad, secs = run(decode)
    except cudastreams.Error as e:
        if not decode:
            raise
        print(f"decoding failed ({e}): uploading the test frames instead")
        decode = False
        n, bad, secs = run(decode)
    how = "nvh264dec" if decode else "cudastreamsupload"
    print(f"{n} batches of {len(SIZES)} streams ({how}) in {secs:.2f} s; "
          f"{len(bad)} boxes outside their frame")
    for b in bad[:5]:
        print(f"  outside: batch {b[0]} {b[1]} box {b[2]} frame {b[3]}")
    if check and (n != frames or bad):
        print(f"FAIL: want {frames} batches and every box in its frame")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""GStreamer frames into PyTorch and back, without a copy through the CPU.

    test pattern -> cudaupload -> cudacrop -> torch (per-channel normalisation,
    on a high-priority stream) -> appsrc -> cudadownload -> pngenc -> PNG

    python3 torch_normalize.py [out.png]      (default /tmp/torch_normalize.png)

Needs PyTorch with CUDA and the cudastreams package (`pip install .`, or a
build's python/ on PYTHONPATH), which brings its plugin; exits 77 (skipped)
without PyTorch or a CUDA device.
"""
import os
import sys

try:
    import torch
except ImportError:
    print("SKIP: this example needs PyTorch")
    sys.exit(77)
if not torch.cuda.is_available():
    print("SKIP: this example needs a CUDA device that PyTorch can use")
    sys.exit(77)
import cudastreams

out_path = sys.argv[1] if len(sys.argv) > 1 else "/tmp/torch_normalize.png"
W, H = 480, 360  # the 640x480 test pattern, cropped by 80 and 60 on each side

# Our work goes on a high-priority stream; the elements work on it too.
stream = torch.cuda.Stream(priority=-1)

source = cudastreams.Pipeline(
    "videotestsrc pattern=smpte num-buffers=1 ! video/x-raw,format=RGBA,width=640,height=480 ! "
    "cudaupload ! cudacrop left=80 right=80 top=60 bottom=60 ! appsink sync=false",
    streams=[stream])
sink = cudastreams.Pipeline(
    "appsrc name=src format=time "
    f'caps="video/x-raw(memory:CUDAStreamsMemory),format=RGBA,width={W},height={H},'
    'framerate=0/1" ! '
    f'cudadownload ! pngenc ! filesink location="{out_path}"')

with source, sink, torch.cuda.stream(stream):
    for frame in source.frames(timeout=30):
        assert (frame.width, frame.height) == (W, H), f"got {frame.width}x{frame.height}"
        x = torch.from_dlpack(frame)                 # H x W x 4 uint8, on the GPU, no copy
        rgb = x[..., :3].float()
        mean = rgb.mean(dim=(0, 1))                  # per channel
        std = rgb.std(dim=(0, 1)).clamp_min(1e-3)
        z = (rgb - mean) / std                       # what a model would take
        # Back to 8 bits to look at: -2..2 standard deviations -> 0..255.
        y = torch.empty((H, W, 4), dtype=torch.uint8, device=x.device)
        y[..., :3] = ((z.clamp(-2, 2) + 2) * (255 / 4)).round().to(torch.uint8)
        y[..., 3] = 255
        sink.push(y, pts=frame.pts, duration=frame.duration)  # on `stream`, no copy
        del x, y                                     # the pipeline keeps what it needs
    sink.end_of_stream()
    sink.wait(timeout=30)

ok = os.path.exists(out_path) and os.path.getsize(out_path) > 0
if ok:
    with open(out_path, "rb") as f:
        ok = f.read(8) == b"\x89PNG\r\n\x1a\n"
if not ok:
    print(f"FAIL: {out_path} is missing, empty or not a PNG")
    sys.exit(1)
print(f"wrote {out_path} ({os.path.getsize(out_path)} bytes, {W}x{H})")

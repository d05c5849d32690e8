#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""A model's input made on the GPU: letterboxed 640x640 planar RGB from
cudaconvertscale, taken by PyTorch without a copy and normalised there.

    test pattern (1080p NV12) -> cudaupload -> cudaconvertscale (scale,
    letterbox, NV12 -> RGBP) -> torch.from_dlpack: 3 x 640 x 640 uint8, the
    frame's own memory -> float, /255, ImageNet mean/std, a batch of one ->
    a stand-in model (one Conv2d)

    python3 model_input.py [frames]      (default 100)

Prints the shapes and the time per frame. Needs PyTorch with CUDA and the
cudastreams package (`pip install .`, or a build's python/ on PYTHONPATH),
which brings its plugin; exits 77 (skipped) without PyTorch or a CUDA device.
"""
import sys
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

frames = int(sys.argv[1]) if len(sys.argv) > 1 else 100
S = 640  # the model's input side

# The recipe: square pixels asked, so the 16:9 picture keeps its shape and
# gets borders (640x360 in the middle, 140 black rows above and below).
desc = (f"videotestsrc pattern=smpte num-buffers={frames + 1} ! "
        "video/x-raw,format=NV12,width=1920,height=1080 ! "
        "cudaupload ! cudaconvertscale add-borders=true ! "
        f"video/x-raw(memory:CUDAStreamsMemory),format=RGBP,width={S},height={S},"
        "pixel-aspect-ratio=1/1 ! appsink sync=false")

stream = torch.cuda.Stream(priority=-1)  # the elements work on it too
mean = torch.tensor([0.485, 0.456, 0.406], device="cuda").view(3, 1, 1)
std = torch.tensor([0.229, 0.224, 0.225], device="cuda").view(3, 1, 1)
model = torch.nn.Conv2d(3, 16, kernel_size=3, stride=2, padding=1).cuda().eval()
torch.cuda.synchronize()  # made on the default stream: ready before `stream` reads them


def model_input(frame):
    x = torch.from_dlpack(frame)           # 3 x 640 x 640 uint8, no copy
    x = x.float().div_(255).sub_(mean).div_(std)
    return x.unsqueeze(0)                  # 1 x 3 x 640 x 640 float32


n, t0, batch, out = 0, None, None, None
with cudastreams.Pipeline(desc, streams=[stream]) as p, torch.cuda.stream(stream), \
        torch.inference_mode():
    for frame in p.frames(timeout=30):
        batch = model_input(frame)
        out = model(batch)
        del frame                          # to the pool once the reads queued on `stream` ran
        n += 1
        if t0 is None:                     # the first frame warms torch and the pipeline up
            torch.cuda.synchronize()
            t0 = time.perf_counter()
    torch.cuda.synchronize()
    seconds = time.perf_counter() - t0 if t0 is not None else 0.0

if n != frames + 1:
    print(f"FAIL: {n} frames came out, want {frames + 1}")
    sys.exit(1)
if tuple(batch.shape) != (1, 3, S, S) or batch.dtype != torch.float32:
    print(f"FAIL: the model's input is {tuple(batch.shape)} {batch.dtype}, "
          f"want (1, 3, {S}, {S}) torch.float32")
    sys.exit(1)
# The letterbox: the top rows are the black border, normalised.
border = ((0 - mean) / std).view(3, 1)
if not torch.allclose(batch[0, :, 0, :], border.expand(3, S), atol=1e-5):
    print(f"FAIL: the top row is not the normalised black border: "
          f"{batch[0, :, 0, :4].tolist()}, want {border.view(3).tolist()}")
    sys.exit(1)
timed = n - 1
print(f"input {tuple(batch.shape)} {batch.dtype}, output {tuple(out.shape)}")
print(f"{timed} frames in {seconds:.3f} s: {seconds * 1e3 / max(timed, 1):.3f} ms per frame "
      f"({timed / seconds if seconds else 0:,.0f} fps), host waits {cudastreams.host_waits()}")

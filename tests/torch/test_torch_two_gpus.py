#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""PyTorch reading frames of the second GPU while the thread's current
device is the first (issue 38, suspect 1), on a machine with two GPUs.

Pipeline(device=1) with its elements on device 1, torch.cuda.set_device(0),
and the frames exported with stream=None (torch.from_dlpack(frame), which
passes 1 for cuda:1's default stream), stream=1 and stream=2 (the calling
thread's per-thread stream of device 1). Each read is a late reader: a
kernel that sleeps first, then a copy of the frame, both enqueued on the
reading stream, and the frame and its tensor let go at once, while the
pipeline goes on writing the same pool memory (max_held_frames=2). Checks:

  - every copy equals CPU videocrop's frame, bit for bit (a wait on the
    wrong device's stream, or a pool that rewrites the memory before the
    late read ran, gives other pixels);
  - nothing is logged as "cannot order the release" (the release's reader
    event recorded on the wrong device fails);
  - the pool did reuse its memory (else nothing was tested), and the
    thread's current device is still 0.

Exit 0 when everything passed, 1 when something failed, 77 (skipped) without
PyTorch, NumPy, or two CUDA devices.
"""
import os
import sys
import tempfile
import traceback

from torchcheck import Fail, check, require

torch, np = require(devices=2)
# The module's errors at least, whatever the environment asked for.
os.environ["GST_DEBUG"] = os.environ.get("GST_DEBUG", "") + ",cspython:1"
os.environ["GST_DEBUG_NO_COLOR"] = "1"
import cudastreams  # noqa: E402  (after GST_DEBUG: GStreamer reads it at init)

W, H, N = 64, 48, 24
CROP = (3, 2, 5, 4)  # left, top, right, bottom
SLEEP_CYCLES = 20_000_000  # ~10 ms: the read runs well after the release


class StderrCapture:
    """fd 2 into a file while the block runs (GStreamer logs there)."""

    def __enter__(self):
        sys.stderr.flush()
        self.file = tempfile.TemporaryFile(mode="w+b")
        self.saved = os.dup(2)
        os.dup2(self.file.fileno(), 2)
        return self

    def __exit__(self, *exc):
        sys.stderr.flush()
        os.dup2(self.saved, 2)
        os.close(self.saved)
        self.file.seek(0)
        self.text = self.file.read().decode(errors="replace")
        self.file.close()
        sys.stderr.write(self.text[-4000:])
        return False


def reading_stream(mode):
    """The stream torch reads on for each DLPack stream argument."""
    if mode == 2:
        return torch.cuda.ExternalStream(2, device="cuda:1")
    return torch.cuda.default_stream(1)  # None and 1: device 1's legacy stream


def tensor_of(frame, mode):
    if mode is None:
        return torch.from_dlpack(frame)  # torch passes stream=1 for cuda:1
    return torch.from_dlpack(frame.__dlpack__(stream=mode))


def run_mode(mode):
    left, top, right, bottom = CROP
    props = f"left={left} top={top} right={right} bottom={bottom}"
    desc = (f"videotestsrc pattern=snow num-buffers={N} ! "
            f"video/x-raw,format=RGBA,width={W},height={H},framerate=30/1 ! tee name=t "
            f"t. ! queue ! cudaupload device-id=1 ! cudacrop device-id=1 {props} ! "
            "appsink name=gpu sync=false "
            f"t. ! queue ! videocrop {props} ! appsink name=cpu sync=false")
    what = f"stream={mode}"
    torch.cuda.set_device(0)
    stream = reading_stream(mode)
    copies, refs, pointers = [], [], set()
    with cudastreams.Pipeline(desc, device=1, max_held_frames=2) as p:
        for i in range(N):
            f = p.pull("gpu", timeout=30)
            c = p.pull("cpu", timeout=30)
            check(f is not None and c is not None, f"{what}: frame {i} missing")
            check(f.device == 1, f"{what}: frame {i} on device {f.device}, want 1")
            refs.append(np.from_dlpack(c).copy())
            del c
            check(torch.cuda.current_device() == 0, f"{what}: current device changed")
            with torch.cuda.device(1), torch.cuda.stream(stream):
                t = tensor_of(f, mode)
                check(t.device == torch.device("cuda:1"), f"{what}: tensor on {t.device}")
                pointers.add(t.data_ptr())
                torch.cuda._sleep(SLEEP_CYCLES)  # the late reader
                copies.append(t.clone())
            check(torch.cuda.current_device() == 0,
                  f"{what}: the export left device {torch.cuda.current_device()} current")
            del t
            f.release()
            del f
        check(p.pull("gpu", timeout=30) is None, f"{what}: more than {N} frames")
    torch.cuda.synchronize(1)
    check(len(pointers) < N, f"{what}: the pool never reused its memory: nothing was tested")
    for i, (got, want) in enumerate(zip(copies, refs)):
        g = got.cpu().numpy()
        if not np.array_equal(g, want):
            diff = g != want
            raise Fail(f"{what}: frame {i}: {int(diff.sum())} of {diff.size} values differ "
                       "from CPU videocrop's")
    return f"{N} frames, {len(pointers)} pool memories"


def main():
    print(f"torch {torch.__version__} (CUDA {torch.version.cuda}) on "
          f"{torch.cuda.get_device_name(0)} + {torch.cuda.get_device_name(1)}; "
          f"cudastreams {cudastreams.__version__}", flush=True)
    passed = failed = 0
    for mode in (None, 1, 2):
        name = f"stream={mode}"
        try:
            with StderrCapture() as log:
                note = run_mode(mode)
            logged = [line for line in log.text.splitlines()
                      if "cannot order the release" in line]
            check(not logged, f"logged: {logged[0] if logged else ''}")
            passed += 1
            print(f"PASS {name} ({note})", flush=True)
        except Fail as e:
            failed += 1
            print(f"FAIL {name}: {e}", flush=True)
        except Exception as e:
            failed += 1
            print(f"FAIL {name}: {type(e).__name__}: {e}", flush=True)
            traceback.print_exc()
    print(f"torch two GPUs: {passed} passed, {failed} failed", flush=True)
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The DLPack stream handles that CUDA resolves per calling thread and per
current device (1: the legacy default stream, 2: the per-thread default
stream), on the CUDA runtime stand-in with two devices (issue 38, suspect 1).
The stand-in resolves them as CUDA does and runs stream work only when
something waits for it, so a missing or misplaced wait shows as wrong pixels:

- frames of device 1 exported with stream=1 (what torch.from_dlpack passes
  for cuda:1's default stream) while the thread's current device is 0: the
  reads on device 1's legacy stream see the frame's pixels, and the pool
  does not rewrite the memory before them (the release is ordered, not
  logged as failed);
- one frame exported with stream=2 by two threads, each reading on its own
  per-thread stream: neither read is overtaken by the pool's next write (one
  reader entry for both would keep only one of them);
- Pipeline(streams=[2]) is refused: every streaming thread would resolve it
  to a stream of its own.
"""
import ctypes
import threading

import numpy as np

import cudastreams
from pycheck import Runner
from test_fakecuda import D2H, managed_tensor, new_stream, ok, pinned, rt, tensor_fields

vp = ctypes.c_void_p
rt.cudaSetDevice.argtypes = [ctypes.c_int]
rt.cudaGetDevice.argtypes = [ctypes.POINTER(ctypes.c_int)]
LEGACY, PER_THREAD = vp(1), vp(2)

W, H = 24, 10
RGBA = f"video/x-raw,format=RGBA,width={W},height={H}"


def current_device():
    d = ctypes.c_int(-1)
    ok(rt.cudaGetDevice(ctypes.byref(d)), "cudaGetDevice")
    return d.value


def tee_pipeline(n, device):
    """Snow through cudaupload on `device` beside the CPU's own copy; two
    frames held at most, so the device pool reuses its memory."""
    return cudastreams.Pipeline(
        f"videotestsrc pattern=snow num-buffers={n} ! {RGBA} ! tee name=t "
        f"t. ! queue ! cudaupload device-id={device} ! appsink name=gpu "
        "t. ! queue ! appsink name=cpu", device=device, max_held_frames=2)


def enqueue_read(frame, handle, stream, dst, device):
    """Exports `frame` with __dlpack__(stream=handle), enqueues a copy of
    its rows into `dst` on `stream` with `device` current (as the consumer
    of a tensor on that device does), then drops the capsule (the release,
    on the calling thread with device 0 current)."""
    cap = frame.__dlpack__(stream=handle)
    data, dev, shape, strides, _ = tensor_fields(managed_tensor(cap).dl_tensor)
    assert dev == (2, device) and shape == (H, W, 4), (dev, shape)
    ok(rt.cudaSetDevice(device), "cudaSetDevice")
    for row in range(H):
        ok(rt.cudaMemcpyAsync(dst.value + row * W * 4, data + row * strides[0], W * 4, D2H,
                              stream), "cudaMemcpyAsync")
    ok(rt.cudaSetDevice(0), "cudaSetDevice")
    del cap


def read_pinned(p):
    return np.frombuffer(ctypes.string_at(p.value, H * W * 4), np.uint8).reshape(H, W, 4)


def check_legacy_on_other_device():
    """Pipeline(device=1), this thread's current device 0, stream=1."""
    n = 8
    assert current_device() == 0
    dst, cpu, seen = [], [], set()
    with tee_pipeline(n, 1) as p:
        while (f := p.pull("gpu", timeout=30)) is not None:
            assert f.device == 1, f.device
            cpu.append(np.from_dlpack(p.pull("cpu", timeout=30)).copy())
            cap = f.__dlpack__(stream=-1)
            seen.add(tensor_fields(managed_tensor(cap).dl_tensor)[0])
            del cap
            d = pinned(H * W * 4)
            enqueue_read(f, 1, LEGACY, d, 1)
            assert current_device() == 0, "the export left another device current"
            dst.append(d)
            f.release()
            del f
    assert len(seen) < n, "the pool did not reuse its memory: nothing was tested"
    ok(rt.cudaSetDevice(1), "cudaSetDevice")
    ok(rt.cudaStreamSynchronize(LEGACY), "cudaStreamSynchronize")
    ok(rt.cudaSetDevice(0), "cudaSetDevice")
    assert len(dst) == len(cpu) == n, (len(dst), len(cpu))
    for i, (d, ref) in enumerate(zip(dst, cpu)):
        assert np.array_equal(read_pinned(d), ref), \
            f"frame {i}: device 1's legacy stream read other pixels"
        rt.cudaFreeHost(d)


def check_per_thread_streams():
    """Two threads read one frame, each on its own per-thread stream (the
    same handle, 2); both reads are enqueued and released before the pool
    writes the memory again, and run (lazily) only afterwards."""
    n = 6
    results = []
    with tee_pipeline(n, 0) as p:
        f = p.pull("gpu", timeout=30)
        ref = np.from_dlpack(p.pull("cpu", timeout=30)).copy()
        dst = [pinned(H * W * 4) for _ in range(2)]
        go = [threading.Event() for _ in range(2)]
        enqueued = [threading.Event() for _ in range(2)]

        def reader(k):
            enqueue_read(f, 2, PER_THREAD, dst[k], 0)
            enqueued[k].set()
            go[k].wait()
            ok(rt.cudaStreamSynchronize(PER_THREAD), "cudaStreamSynchronize")
            results.append((k, read_pinned(dst[k]).copy()))

        threads = [threading.Thread(target=reader, args=(k,)) for k in range(2)]
        threads[0].start()
        enqueued[0].wait()
        threads[1].start()  # the later reader: the one a merged entry keeps
        enqueued[1].wait()
        f.release()
        del f
        # The pool hands the memory out again for the frames after it; each
        # is read on a stream of ours, synchronised, so that its upload runs
        # now (the stand-in runs work only when something waits for it).
        rest = 0
        s = new_stream()
        scratch = pinned(H * W * 4)
        while (g := p.pull("gpu", timeout=30)) is not None:
            p.pull("cpu", timeout=30)
            enqueue_read(g, s.value, s, scratch, 0)
            ok(rt.cudaStreamSynchronize(s), "cudaStreamSynchronize")
            del g
            rest += 1
        rt.cudaFreeHost(scratch)
        assert rest == n - 1, rest
        for k in range(2):
            go[k].set()
            threads[k].join(30)
    assert len(results) == 2, results
    for k, got in sorted(results, key=lambda r: r[0]):
        assert np.array_equal(got, ref), \
            f"thread {k}'s per-thread stream read the memory after the pool rewrote it"
    for d in dst:
        rt.cudaFreeHost(d)


def check_streams_per_thread_refused():
    try:
        cudastreams.Pipeline(f"videotestsrc ! {RGBA} ! cudaupload ! appsink", streams=[2])
        raise AssertionError("streams=[2] was accepted")
    except ValueError as e:
        assert "per-thread" in str(e), e


def main():
    r = Runner("test_fakecuda_streams")
    for fn in (check_legacy_on_other_device, check_per_thread_streams,
               check_streams_per_thread_refused):
        r.run(fn)
    r.finish()


if __name__ == "__main__":
    main()

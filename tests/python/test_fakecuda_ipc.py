#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Frames and batches from another process through the Python module, on
the CUDA runtime stand-in (which runs CUDA IPC across real processes). The
producer is a process of tests/ipc/ipc_peer.cpp (CS_IPC_PEER): every
frame's bytes say its number. Checks:
- `cudastreams.Pipeline("cudastreamsipcsrc socket-path=... ! appsink")`
  gives Frames of device memory; exported on our stream (which waits for
  the producer's event on the GPU: the stand-in runs the producer's work
  only then), each frame's luma is the producer's, in order, with no host
  block for pull, export and release;
- frames released go back to the producer (it ends with none held), and
  are not rewritten before our reads queued before the release ran;
- a crop meta travels (cudacrop's zero-copy crop before the sink);
- cudabatch's tensors come as Batches: their bytes are those the producer
  sent (its checksum per PTS), their slots name the producer's pads and
  frames.
"""
import ctypes
import hashlib
import os
import subprocess
import sys
import tempfile

import numpy as np

import cudastreams
from pycheck import Runner, managed_tensor, tensor_fields
from test_fakecuda import D2H, blocks, new_stream, ok, pinned, rt

W, H = 64, 48
PEER = os.environ.get("CS_IPC_PEER")


def frame_byte(i, k):
    """Byte k of frame i, as gcs-ipc-peer writes it."""
    return ((k * 31 + i * 101 + (k >> 8) * 7) ^ (i >> 3)) & 0xFF


def produce(sock, *args):
    return subprocess.Popen([PEER, "produce", sock, *args], stdout=subprocess.PIPE, text=True,
                            env=dict(os.environ, FAKECUDA_DEAD_PEER_WAIT="stuck",
                                     FAKECUDA_HANG_SECONDS="5"))


def finish(producer):
    out, _ = producer.communicate(timeout=60)
    assert producer.returncode == 0, out
    last = [line for line in out.splitlines() if line.startswith("PRODUCER sent")][-1]
    assert " held=0 " in last and " host_waits=0 " in last, last
    return out


def read_luma(frame, stream):
    """Frame's luma plane, exported on `stream` and copied to the host on it."""
    cap = frame.planes[0].__dlpack__(stream=stream.value)
    data, dev, shape, strides, dtype = tensor_fields(managed_tensor(cap).dl_tensor)
    assert dev == (2, 0) and shape == (H, W, 1) and dtype == (1, 8, 1), (dev, shape, dtype)
    dst = pinned(W * H)
    for row in range(H):
        ok(rt.cudaMemcpyAsync(dst.value + row * W, data + row * strides[0], W, D2H, stream),
           "cudaMemcpyAsync")
    del cap
    return dst


def check_frames():
    with tempfile.TemporaryDirectory() as d:
        sock = os.path.join(d, "frames.sock")
        n = 12
        # We hold them all at once: the producer lets us (max-frames).
        p = produce(sock, "--frames", str(n), "--sink-props", "max-frames=16")
        s = new_stream()
        with cudastreams.Pipeline(f"cudastreamsipcsrc socket-path={sock} ! appsink name=out",
                                  max_held_frames=16) as pipe:
            frames = [pipe.pull("out", timeout=30) for _ in range(n)]
            assert all(f is not None for f in frames)
            before = blocks()
            dst = [read_luma(f, s) for f in frames]
            for f in frames:
                assert (f.width, f.height, f.format, f.device) == (W, H, "NV12", 0)
                f.release()
            assert blocks() == before, f"export and release blocked: {before} -> {blocks()}"
            ok(rt.cudaStreamSynchronize(s), "cudaStreamSynchronize")
            for i, (f, d) in enumerate(zip(frames, dst)):
                got = np.frombuffer(ctypes.string_at(d.value, W * H), np.uint8).reshape(H, W)
                want = np.fromfunction(lambda r, c: frame_byte(i, r * W + c), (H, W),
                                       dtype=np.int64).astype(np.uint8)
                assert np.array_equal(got, want), f"frame {i}"
                assert f.pts == i * 33_333_333, (i, f.pts)
                rt.cudaFreeHost(d)
            del frames, f
            assert pipe.held_frames == 0
            assert pipe.pull("out", timeout=30) is None  # the producer's end of stream
        finish(p)


def check_release_ordering():
    """A frame given back while our read of it is still queued on our stream
    is not rewritten before that read ran: the producer (two frames at a
    time, so it soon reuses its memory) waits for our read event, which the
    stand-in runs only then. Every frame read is the one it was."""
    with tempfile.TemporaryDirectory() as d:
        sock = os.path.join(d, "order.sock")
        n = 8
        # Two frames at a time (the appsink keeps the last one until the
        # next comes): the producer's pool has 5, reused from frame 5 on.
        p = produce(sock, "--frames", str(n), "--sink-props", "max-frames=2")
        s = new_stream()
        dst = []
        with cudastreams.Pipeline(f"cudastreamsipcsrc socket-path={sock} ! appsink name=out",
                                  max_held_frames=4) as pipe:
            for f in pipe.frames("out", timeout=30):
                dst.append(read_luma(f, s))  # queued on s, not run yet
                f.release()
                del f
            assert pipe.held_frames == 0
        ok(rt.cudaStreamSynchronize(s), "cudaStreamSynchronize")
        assert len(dst) == n, len(dst)
        for i, dp in enumerate(dst):
            got = np.frombuffer(ctypes.string_at(dp.value, W * H), np.uint8).reshape(H, W)
            want = np.fromfunction(lambda r, c: frame_byte(i, r * W + c), (H, W),
                                   dtype=np.int64).astype(np.uint8)
            assert np.array_equal(got, want), f"frame {i} was rewritten before our read"
            rt.cudaFreeHost(dp)
        finish(p)


def check_crop_meta():
    """A crop meta travels: cudacrop's zero-copy crop in the producer (the
    sink takes crop metas) is the frame's crop in the consumer, its visible
    luma the producer's."""
    with tempfile.TemporaryDirectory() as d:
        sock = os.path.join(d, "crop.sock")
        p = produce(sock, "--frames", "3", "--upload-props",
                    "! cudacrop left=8 top=4 right=16 bottom=6")
        s = new_stream()
        with cudastreams.Pipeline(f"cudastreamsipcsrc socket-path={sock} ! appsink name=out",
                                  max_held_frames=16) as pipe:
            for i, f in enumerate(pipe.frames("out", timeout=30)):
                assert f.crop == (8, 4, W - 24, H - 10), f.crop
                cap = f.planes[0].__dlpack__(stream=s.value)
                data, _, shape, strides, _ = tensor_fields(managed_tensor(cap).dl_tensor)
                assert shape[:2] == (H - 10, W - 24), shape
                dst = pinned(W)
                ok(rt.cudaMemcpyAsync(dst, data, W - 24, D2H, s), "cudaMemcpyAsync")
                del cap
                ok(rt.cudaStreamSynchronize(s), "cudaStreamSynchronize")
                got = np.frombuffer(ctypes.string_at(dst.value, W - 24), np.uint8)
                want = np.array([frame_byte(i, 4 * W + 8 + c) for c in range(W - 24)], np.uint8)
                assert np.array_equal(got, want), (i, got, want)
                rt.cudaFreeHost(dst)
                f.release()
        finish(p)


def check_batches():
    with tempfile.TemporaryDirectory() as d:
        sock = os.path.join(d, "batches.sock")
        n = 6
        p = produce(sock, "--frames", str(n), "--batch", "1")
        s = new_stream()
        got = {}
        with cudastreams.Pipeline(f"cudastreamsipcsrc socket-path={sock} ! appsink name=out",
                                  max_held_frames=16) as pipe:
            for k, b in enumerate(pipe.batches("out", timeout=30)):
                assert b.shape == (2, 3, 32, 32) and b.dtype == "uint8", (b.shape, b.dtype)
                slots = b.slots
                assert [(sl.pad, sl.pad_index) for sl in slots] == [("sink_0", 0), ("sink_1", 1)]
                for sl in slots:
                    assert not sl.empty and sl.pts == b.pts
                    assert (sl.source_width, sl.source_height) == (W, H)
                    assert sl.box_to_source(0, 0, 32, 32)[2] > 0
                cap = b.__dlpack__(stream=s.value)
                data = tensor_fields(managed_tensor(cap).dl_tensor)[0]
                dst = pinned(2 * 3 * 32 * 32)
                ok(rt.cudaMemcpyAsync(dst, data, 2 * 3 * 32 * 32, D2H, s), "cudaMemcpyAsync")
                del cap
                ok(rt.cudaStreamSynchronize(s), "cudaStreamSynchronize")
                got[b.pts] = hashlib.md5(ctypes.string_at(dst.value, 2 * 3 * 32 * 32)).hexdigest()
                rt.cudaFreeHost(dst)
                b.release()
            assert pipe.held_frames == 0
        out = finish(p)
        sent = {int(line.split()[1]): line.split()[2] for line in out.splitlines()
                if line.startswith("SENT ")}
        assert len(got) == n and got == {k: sent[k] for k in got}, (got, sent)


def main():
    if not PEER:
        print("SKIP: CS_IPC_PEER is not set")
        sys.exit(77)
    r = Runner("test_fakecuda_ipc")
    only = sys.argv[1:]
    for fn in (check_frames, check_release_ordering, check_crop_meta, check_batches):
        if not only or fn.__name__ in only:
            r.run(fn)
    r.finish()


if __name__ == "__main__":
    main()

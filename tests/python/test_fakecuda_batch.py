#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""cudabatch's tensors through the Python module, on the CUDA runtime
stand-in (tests/fakecuda). Two sources of one colour each (red 16x8, blue
8x16) go into 8x8 slots, letterboxed with a grey border. Checks:
- pull() gives a Batch: N x 3 x H x W (NCHW) or N x H x W x 3 (NHWC), of
  uint8 or float16, exported as one DLPack tensor of device memory;
- the tensor read on our own stream (it waits for the batch's event on the
  GPU: the stand-in runs the batch's work only because of that wait) holds
  each source's colour inside its picture and the border around it, the
  float values normalised with the mean and std;
- batch.slots: pad names and numbers, PTS, source size, the map back to the
  frame (the picture's corners are the frame's), an empty slot marked;
- pull, export and release neither block the host nor count a host wait.
"""
import ctypes
import sys

import numpy as np

import cudastreams
from pycheck import Runner, managed_tensor, tensor_fields
from test_fakecuda import D2H, blocks, new_stream, ok, pinned, rt

T = 8  # the slot's width and height
BORDER = 10
MEAN, STD = (0.5, 0.25, 0.0), (0.5, 0.25, 1.0)
# (pattern, width, height, RGB) of sink_0 and sink_1
SOURCES = [("red", 16, 8, (255, 0, 0)), ("blue", 8, 16, (0, 0, 255))]
# DLPack (code, bits, lanes) and NumPy type of each dtype
DTYPES = {"uint8": ((1, 8, 1), np.uint8), "float16": ((2, 16, 1), np.float16)}


def pipeline(dtype, layout, batch_size, frames):
    srcs = "".join(
        f"videotestsrc pattern={pat} num-buffers={frames} ! video/x-raw,format=RGBA,width={w},"
        f"height={h},framerate=30/1 ! cudaupload ! b.sink_{i} "
        for i, (pat, w, h, _) in enumerate(SOURCES))
    mean, std = (",".join(str(v) for v in x) for x in (MEAN, STD))
    # cudabatch last: the sources' links name it before it is made.
    return cudastreams.Pipeline(
        f"{srcs}cudabatch name=b batch-size={batch_size} width={T} height={T} dtype={dtype} "
        f'layout={layout} border-value={BORDER} mean="<{mean}>" std="<{std}>" '
        "! appsink name=out", max_held_frames=8)


def read_on(batch, stream):
    """The batch's tensor, exported on `stream` and copied to the host on it:
    (values as N x 3 x H x W, DLPack dtype, shape, element strides)."""
    cap = batch.__dlpack__(stream=stream.value)
    data, dev, shape, strides, dtype = tensor_fields(managed_tensor(cap).dl_tensor)
    assert dev == (2, 0), dev
    nptype = {v[0]: v[1] for v in DTYPES.values()}[dtype]
    nbytes = int(np.prod(shape)) * np.dtype(nptype).itemsize
    dst = pinned(nbytes)
    ok(rt.cudaMemcpyAsync(dst, data, nbytes, D2H, stream), "cudaMemcpyAsync")
    del cap  # the release: ordered after the copy on `stream`
    return dst, nptype, shape, strides, dtype


def check_slot(values, n, slot, rgb, dtype):
    """Slot `n` holds the colour inside the picture and the border outside;
    the picture is where the slot's map puts the frame."""
    (sx, sy), (ox, oy) = slot.scale, slot.offset
    x0, y0 = -ox / sx, -oy / sy
    x1, y1 = (slot.source_width - ox) / sx, (slot.source_height - oy) / sy
    want_rect = (0, 2, 8, 6) if slot.source_width > slot.source_height else (2, 0, 6, 8)
    assert (x0, y0, x1, y1) == want_rect, ("picture", (x0, y0, x1, y1), want_rect)
    assert slot.to_source(x0, y0) == (0.0, 0.0)
    assert slot.box_to_source(x0, y0, x1, y1) == (0.0, 0.0, slot.source_width,
                                                 slot.source_height)
    inside = np.zeros((T, T), bool)
    inside[int(y0):int(y1), int(x0):int(x1)] = True
    for c in range(3):
        want = np.where(inside, rgb[c], BORDER).astype(np.float64)
        if dtype != "uint8":
            want = (want / 255 - MEAN[c]) / STD[c]
        err = np.abs(values[n, c].astype(np.float64) - want).max()
        assert err <= (0 if dtype == "uint8" else 2e-3 * max(1, np.abs(want).max())), \
            (n, c, err, values[n, c], want)


def check_batches(dtype, layout, batch_size):
    s = new_stream()
    frames = 2
    with pipeline(dtype, layout, batch_size, frames) as p:
        thread0 = rt.fakecuda_host_blocks_thread()
        batches = list(p.batches("out", timeout=30))
        assert rt.fakecuda_host_blocks_thread() == thread0, "pull blocked on the GPU"
        assert len(batches) == frames, len(batches)
        before = blocks()
        reads = [read_on(b, s) for b in batches]
        for b in batches:
            b.release()
        assert blocks() == before, f"export and release blocked: {before} -> {blocks()}"
        ok(rt.cudaStreamSynchronize(s), "cudaStreamSynchronize")
        shape = (batch_size, 3, T, T) if layout == "nchw" else (batch_size, T, T, 3)
        for k, (b, (dst, nptype, got_shape, strides, dl_dtype)) in enumerate(zip(batches,
                                                                                   reads)):
            assert b.shape == got_shape == shape and len(b) == batch_size, (b.shape, got_shape)
            assert dl_dtype == DTYPES[dtype][0] and b.dtype == dtype, (dl_dtype, b.dtype)
            assert strides == tuple(int(np.prod(shape[i + 1:])) for i in range(4)), strides
            assert b.device == 0 and b.pts == k * 33_333_333, (b.device, b.pts)
            values = np.frombuffer(ctypes.string_at(dst.value, int(np.prod(shape)) *
                                                    np.dtype(nptype).itemsize),
                                   nptype).reshape(shape)
            rt.cudaFreeHost(dst)
            if layout == "nhwc":
                values = values.transpose(0, 3, 1, 2)
            slots = b.slots
            assert len(slots) == batch_size
            for n, (pat, w, h, rgb) in enumerate(SOURCES):
                sl = slots[n]
                assert not sl.empty and (sl.pad, sl.pad_index) == (f"sink_{n}", n), \
                    (sl.pad, sl.pad_index)
                assert sl.pts == b.pts and (sl.source_width, sl.source_height) == (w, h)
                check_slot(values, n, sl, rgb, dtype)
            for n in range(len(SOURCES), batch_size):
                assert slots[n].empty and slots[n].pad is None and slots[n].pts is None
                assert not values[n].any(), f"empty slot {n} is not zero"
        # The slots outlive the batch's memory.
        del b, batches, reads
        assert p.held_frames == 0


def check_uint8_nchw():
    check_batches("uint8", "nchw", 2)


def check_float16_nhwc_empty_slot():
    check_batches("float16", "nhwc", 3)


def main():
    r = Runner("test_fakecuda_batch")
    only = sys.argv[1:]
    for fn in (check_uint8_nchw, check_float16_nhwc_empty_slot):
        if not only or fn.__name__ in only:
            r.run(fn)
    r.finish()


if __name__ == "__main__":
    main()

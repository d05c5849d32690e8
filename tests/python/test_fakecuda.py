#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Device frames through the Python module, on the CUDA runtime stand-in
(tests/fakecuda: device memory is host memory, stream work runs only when
something waits for it, host blocks are counted). The test drives the
stand-in through ctypes as an application drives CUDA: its own stream, its
own copies, its own device memory. Checks:
- frames pulled from cudacrop and exported on our stream read the right
  pixels, with no host block and no host wait for pull, export and release;
- a released export keeps the pool from rewriting the memory before our
  reads ran, with no host wait;
- device tensors pushed into an appsrc come out right, and are given back
  (the producer's deleter) with no host block, only when GStreamer is done;
- holding max_held_frames frames makes pull raise, not hang;
- a cropped RGBP frame is one 3 x H x W device tensor over its planes.
"""
import ctypes
import gc
import os
import sys

import numpy as np

import cudastreams
from pycheck import (DLManagedTensor, Runner, _api, managed_tensor, tensor_fields)

rt = ctypes.CDLL(os.environ["FAKECUDART"])
vp, sz = ctypes.c_void_p, ctypes.c_size_t
for name, args in {"cudaStreamCreateWithFlags": [ctypes.POINTER(vp), ctypes.c_uint],
                   "cudaStreamSynchronize": [vp], "cudaStreamDestroy": [vp],
                   "cudaMalloc": [ctypes.POINTER(vp), sz], "cudaFree": [vp],
                   "cudaMallocHost": [ctypes.POINTER(vp), sz], "cudaFreeHost": [vp],
                   "cudaMemcpy": [vp, vp, sz, ctypes.c_int],
                   "cudaMemcpyAsync": [vp, vp, sz, ctypes.c_int, vp]}.items():
    getattr(rt, name).argtypes = args
    getattr(rt, name).restype = ctypes.c_int
rt.fakecuda_host_blocks_total.restype = ctypes.c_ulonglong
rt.fakecuda_host_blocks_thread.restype = ctypes.c_ulonglong
H2D, D2H = 1, 2

W, H = 20, 12
CROP = (3, 2, 1, 4)  # left, top, right, bottom
CW, CH = W - CROP[0] - CROP[2], H - CROP[1] - CROP[3]
RGBA = f"video/x-raw,format=RGBA,width={W},height={H}"


def ok(err, what):
    assert err == 0, f"{what}: CUDA error {err}"


def new_stream():
    s = vp()
    ok(rt.cudaStreamCreateWithFlags(ctypes.byref(s), 1), "cudaStreamCreateWithFlags")
    return s


def pinned(n):
    p = vp()
    ok(rt.cudaMallocHost(ctypes.byref(p), n), "cudaMallocHost")
    return p


def blocks():
    """(host blocks of the whole process, the library's host waits)."""
    return rt.fakecuda_host_blocks_total(), cudastreams.host_waits()


def tee_pipeline(n, **kwargs):
    left, top, right, bottom = CROP
    crop = f"left={left} top={top} right={right} bottom={bottom}"
    return cudastreams.Pipeline(
        f"videotestsrc pattern=snow num-buffers={n} ! {RGBA} ! tee name=t "
        f"t. ! queue ! cudaupload ! cudacrop {crop} ! appsink name=gpu "
        f"t. ! queue ! videocrop {crop} ! appsink name=cpu", **kwargs)


def enqueue_read(frame, stream, dst):
    """Exports `frame` on `stream`, checks the tensor, enqueues a copy of
    its rows into `dst` on `stream`, drops the capsule (the release)."""
    cap = frame.__dlpack__(stream=stream.value)
    data, dev, shape, strides, dtype = tensor_fields(managed_tensor(cap).dl_tensor)
    assert dev == (2, 0) and shape == (CH, CW, 4) and dtype == (1, 8, 1), (dev, shape, dtype)
    assert strides == (frame.pitches[0], 4, 1), strides
    for row in range(CH):
        ok(rt.cudaMemcpyAsync(dst.value + row * CW * 4, data + row * strides[0], CW * 4, D2H,
                              stream), "cudaMemcpyAsync")
    del cap


def read_pinned(p):
    return np.frombuffer(ctypes.string_at(p.value, CH * CW * 4), np.uint8).reshape(CH, CW, 4)


def check_pull_export():
    s = new_stream()
    n = 4
    with tee_pipeline(n, streams=[s.value], max_held_frames=8) as p:
        gpu, cpu = [p.pull("gpu", timeout=30)], []
        thread0 = rt.fakecuda_host_blocks_thread()
        while (f := p.pull("gpu", timeout=30)) is not None:
            gpu.append(f)
        assert rt.fakecuda_host_blocks_thread() == thread0, "pull blocked on the GPU"
        cpu = [np.from_dlpack(f).copy() for f in p.frames("cpu", timeout=30)]
        assert len(gpu) == len(cpu) == n
        for f in gpu:
            assert (f.device, f.width, f.height, f.format) == (0, CW, CH, "RGBA")
            assert f.stream == s.value, "the elements use the application's stream"
            assert f.__dlpack_device__() == (2, 0)
        # A DLPack 1.0 capsule of a device frame: writable, on CUDA device 0.
        cap = gpu[0].__dlpack__(stream=-1, max_version=(1, 0))
        t = managed_tensor(cap)
        assert (t.version.major, t.version.minor, t.flags) == (1, 0, 0)
        assert tensor_fields(t.dl_tensor)[1:3] == ((2, 0), (CH, CW, 4))
        del cap, t
        dst = [pinned(CH * CW * 4) for _ in gpu]
        before = blocks()
        for f, d in zip(gpu, dst):
            enqueue_read(f, s, d)
            f.release()
        del f, gpu
        assert blocks() == before, f"export and release blocked: {before} -> {blocks()}"
        assert p.held_frames == 0
        ok(rt.cudaStreamSynchronize(s), "cudaStreamSynchronize")
        for i, (d, ref) in enumerate(zip(dst, cpu)):
            assert np.array_equal(read_pinned(d), ref), f"frame {i}"
            rt.cudaFreeHost(d)


def check_release_ordering():
    """Frames read on our stream after their export was released, while the
    pipeline goes on writing the same memory: the lazy copies must still see
    the frames they were enqueued for."""
    s = new_stream()
    n = 12
    with tee_pipeline(n, max_held_frames=2) as p:
        dst, cpu, seen = [], [], set()
        while (f := p.pull("gpu", timeout=30)) is not None:
            c = p.pull("cpu", timeout=30)
            cpu.append(np.from_dlpack(c).copy())
            del c
            seen.add(managed_pointer(f))
            d = pinned(CH * CW * 4)
            enqueue_read(f, s, d)
            dst.append(d)
            f.release()
            del f
        assert len(seen) < n, "the pool did not reuse its memory: nothing was tested"
    ok(rt.cudaStreamSynchronize(s), "cudaStreamSynchronize")
    for i, (d, ref) in enumerate(zip(dst, cpu)):
        assert np.array_equal(read_pinned(d), ref), f"frame {i} was overwritten before it was read"
        rt.cudaFreeHost(d)


def managed_pointer(frame):
    cap = frame.__dlpack__(stream=-1)
    return tensor_fields(managed_tensor(cap).dl_tensor)[0]


class DeviceTensor:
    """A minimal DLPack producer of stand-in device memory (H x W x 4 uint8)."""
    Deleter = DLManagedTensor._fields_[2][1]

    def __init__(self, ptr, shape, pitch):
        self.ptr, self.shape, self.pitch = ptr, shape, pitch
        self.streams = []
        self.deleted = False
        self.deleted_blocks = None

    def __dlpack_device__(self):
        return (2, 0)

    def __dlpack__(self, stream=None, max_version=None):
        self.streams.append(stream)
        mt = DLManagedTensor()
        self._shape = (ctypes.c_int64 * 3)(*self.shape)
        self._strides = (ctypes.c_int64 * 3)(self.pitch, 4, 1)
        t = mt.dl_tensor
        t.data, t.ndim, t.shape, t.strides = self.ptr, 3, self._shape, self._strides
        t.device.device_type, t.device.device_id = 2, 0
        t.dtype.code, t.dtype.bits, t.dtype.lanes = 1, 8, 1

        def deleter(_):
            self.deleted = True
            self.deleted_blocks = blocks()
        self._deleter = self.Deleter(deleter)
        mt.deleter = self._deleter
        self._mt = mt
        return _api.PyCapsule_New(ctypes.addressof(mt), b"dltensor", None)


def check_push_device():
    s = new_stream()
    rng = np.random.default_rng(3)
    pitch = W * 4 + 16
    tensors, images = [], []
    for _ in range(3):
        img = rng.integers(0, 256, (H, W, 4), np.uint8)
        ptr = vp()
        ok(rt.cudaMalloc(ctypes.byref(ptr), H * pitch), "cudaMalloc")
        for row in range(H):
            ok(rt.cudaMemcpy(ptr.value + row * pitch, img[row].ctypes.data, W * 4, H2D), "copy")
        tensors.append(DeviceTensor(ptr.value, (H, W, 4), pitch))
        images.append(img)
    left, top, right, bottom = CROP
    caps = f"video/x-raw(memory:CUDAStreamsMemory),format=RGBA,width={W},height={H},framerate=30/1"
    p = cudastreams.Pipeline(
        f"appsrc name=src format=time caps={caps} ! cudacrop left={left} top={top} right={right} "
        f"bottom={bottom} ! tee name=t t. ! queue ! cudadownload ! appsink name=cpu "
        "t. ! queue ! appsink name=gpu")
    for i, t in enumerate(tensors):
        p.push(t, pts=i, stream=s.value)
        assert t.streams == [s.value], t.streams
    p.end_of_stream()
    out = [np.from_dlpack(f).copy() for f in p.frames("cpu", timeout=30)]
    held = list(p.frames("gpu", timeout=30))
    p.wait(timeout=30)
    p.close()
    gc.collect()
    assert len(out) == len(held) == 3
    for i, (o, img) in enumerate(zip(out, images)):
        assert np.array_equal(o, img[top:H - bottom, left:W - right]), f"pushed frame {i}"
    assert not any(t.deleted for t in tensors), "a tensor was given back while a frame uses it"
    before = blocks()
    del held
    gc.collect()
    assert all(t.deleted for t in tensors), "a tensor was never given back"
    assert all(t.deleted_blocks == before for t in tensors), (before, [t.deleted_blocks
                                                                       for t in tensors])
    ok(rt.cudaStreamSynchronize(s), "cudaStreamSynchronize")
    for t in tensors:
        rt.cudaFree(t.ptr)


def check_stall():
    with cudastreams.Pipeline(f"videotestsrc ! {RGBA} ! cudaupload ! cudacrop left=2 ! appsink",
                              max_held_frames=2) as p:
        kept = []
        try:
            for _ in range(32):
                kept.append(p.pull(timeout=60))
            raise AssertionError("32 frames held and the pipeline still produces")
        except cudastreams.Error as e:
            assert "holds" in str(e) and "max_held_frames=2" in str(e), str(e)
            assert len(kept) >= 2, len(kept)
        kept.clear()
        assert p.pull(timeout=30) is not None, "releasing the frames lets it go on"
        # Closing while the application holds frames (a producer waits for
        # one of them) does not hang either, and the frames stay valid.
        try:
            while True:
                kept.append(p.pull(timeout=60))
        except cudastreams.Error:
            pass
        p.close()
        assert p.held_frames == len(kept) and kept[0].width == W - 2
    assert p.held_frames == 0 or kept
    kept.clear()
    assert p.held_frames == 0


def check_planar_rgb():
    """cudacrop's RGBP frames (a crop meta on the device layout's planes) as
    one (3, H, W) tensor at plane 0's visible start, planes a stride apart,
    read on our stream: videocrop would be the reference, but it takes no
    planar RGB, so the uncropped frame cut in NumPy is."""
    s = new_stream()
    left, top, right, bottom = CROP
    with cudastreams.Pipeline(
            f"videotestsrc pattern=snow num-buffers=2 ! video/x-raw,format=RGBP,width={W},"
            f"height={H} ! tee name=t t. ! queue ! cudaupload ! cudacrop left={left} top={top} "
            f"right={right} bottom={bottom} ! appsink name=gpu t. ! queue ! appsink name=cpu",
            streams=[s.value]) as p:
        for i, f in enumerate(p.frames("gpu", timeout=30)):
            ref = np.from_dlpack(p.pull("cpu", timeout=30))[:, top:H - bottom, left:W - right]
            cap = f.__dlpack__(stream=s.value)
            data, dev, shape, strides, dtype = tensor_fields(managed_tensor(cap).dl_tensor)
            assert (dev, shape, dtype) == ((2, 0), (3, CH, CW), (1, 8, 1)), (dev, shape, dtype)
            planes = [managed_pointer(f.planes[k]) for k in range(3)]
            assert data == planes[0], "the tensor does not start at plane 0's visible start"
            assert strides == (planes[1] - planes[0], f.pitches[0], 1), (strides, planes)
            assert planes[2] - planes[1] == strides[0], planes
            got = np.empty((3, CH, CW), np.uint8)
            dst = pinned(got.size)
            for k in range(3):
                for row in range(CH):
                    ok(rt.cudaMemcpyAsync(dst.value + (k * CH + row) * CW,
                                          data + k * strides[0] + row * strides[1], CW, D2H, s),
                       "cudaMemcpyAsync")
            del cap
            ok(rt.cudaStreamSynchronize(s), "cudaStreamSynchronize")
            got[...] = np.frombuffer(ctypes.string_at(dst.value, got.size), np.uint8).reshape(
                got.shape)
            rt.cudaFreeHost(dst)
            assert np.array_equal(got, ref), f"frame {i}"
        assert i == 1


def main():
    r = Runner("test_fakecuda")
    only = sys.argv[1:]
    for fn in (check_pull_export, check_release_ordering, check_push_device, check_stall,
               check_planar_rgb):
        if not only or fn.__name__ in only:
            r.run(fn)
    r.finish()


if __name__ == "__main__":
    main()

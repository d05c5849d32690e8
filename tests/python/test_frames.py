#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""CPU frames out of cudastreams, pixel by pixel: videocrop's output through
numpy.from_dlpack against the uncropped frame of the same source (a tee, as
videotestsrc's snow differs from one pipeline to the next), with crop metas
(the appsink's allocation answer takes them) and with a real crop (identity
drops the allocation query). Planar RGB (RGBP, BGRP) as one 3 x H x W
tensor over the planes' own memory (GStreamer 1.20's videotestsrc makes
them too: checked with 1.20.3). Also the DLPack capsules themselves.

    test_frames.py VERSION
"""
import re
import sys

import numpy as np

import cudastreams
from pycheck import Runner, capsule_name, capsule_valid, managed_tensor, tensor_fields

W, H = 16, 10
# format -> (channels of plane 0, dtype)
SINGLE = {"RGBA": (4, np.uint8), "GRAY8": (1, np.uint8), "GRAY16_LE": (1, np.uint16),
          "YUY2": (2, np.uint8)}
# format -> per plane: (channels, horizontal and vertical subsampling shift)
MULTI = {"NV12": [(1, 0, 0), (2, 1, 1)], "I420": [(1, 0, 0), (1, 1, 1), (1, 1, 1)]}
PLANAR_RGB = ("RGBP", "BGRP")
CROP_META = ""
REAL_CROP = "! identity drop-allocation=true "


def crop_pipeline(fmt, left, top, right, bottom, path, n=3):
    return cudastreams.Pipeline(
        f"videotestsrc pattern=snow num-buffers={n} ! video/x-raw,format={fmt},width={W},"
        f"height={H} ! tee name=t t. ! queue ! videocrop left={left} top={top} right={right} "
        f"bottom={bottom} {path}! appsink name=out t. ! queue ! appsink name=ref")


def check_version(version):
    assert cudastreams.__version__ == version, (cudastreams.__version__, version)
    assert re.fullmatch(r"\d+\.\d+\.\d+", version)
    assert isinstance(cudastreams.host_waits(), int)
    assert issubclass(cudastreams.Error, RuntimeError)


def check_single_plane(fmt, path):
    channels, dtype = SINGLE[fmt]
    item = np.dtype(dtype).itemsize
    left, top, right, bottom = 2, 1, 4, 3
    with crop_pipeline(fmt, left, top, right, bottom, path) as p:
        n = 0
        while (f := p.pull("out")) is not None:
            r = p.pull("ref")
            w, h = W - left - right, H - top - bottom
            assert (f.width, f.height, f.format, f.n_planes) == (w, h, fmt, 1)
            assert f.crop == ((left, top, w, h) if path == CROP_META else (0, 0, w, h)), f.crop
            assert f.device is None and f.stream is None
            assert f.__dlpack_device__() == (1, 0)
            a = np.from_dlpack(f)
            ref = np.from_dlpack(r)
            assert a.dtype == dtype and a.shape == (h, w, channels), (a.dtype, a.shape)
            assert a.strides == (f.pitches[0], channels * item, item), (a.strides, f.pitches)
            assert ref.shape == (H, W, channels)
            assert np.array_equal(a, ref[top:top + h, left:left + w]), f"{fmt} frame {n}"
            n += 1
        assert n == 3 and p.pull("ref") is None


def check_planes(fmt, path):
    left, top, right, bottom = 3, 1, 2, 4  # odd: chroma origins round down
    with crop_pipeline(fmt, left, top, right, bottom, path) as p:
        n = 0
        for f in p.frames("out"):
            r = p.pull("ref")
            w, h = W - left - right, H - top - bottom
            assert (f.width, f.height, f.n_planes) == (w, h, len(MULTI[fmt]))
            try:
                np.from_dlpack(f)
                raise AssertionError("a multi-plane frame exported as one tensor")
            except TypeError as e:
                assert "planes" in str(e) and fmt in str(e), e
            for i, (channels, xs, ys) in enumerate(MULTI[fmt]):
                plane = f.planes[i]
                pw, ph = -(-w >> xs), -(-h >> ys)
                assert (plane.width, plane.height, plane.channels, plane.dtype) == \
                    (pw, ph, channels, "uint8"), (i, plane.width, plane.height)
                a = np.from_dlpack(plane)
                assert a.shape == (ph, pw, channels) and a.strides == (plane.pitch, channels, 1)
                ref = np.from_dlpack(r.planes[i])
                x0, y0 = left >> xs, top >> ys
                assert np.array_equal(a, ref[y0:y0 + ph, x0:x0 + pw]), f"{fmt} plane {i} #{n}"
            n += 1
        assert n == 3


def address(a):
    return a.__array_interface__["data"][0]


def check_planar_rgb(fmt, size):
    """RGBP/BGRP frames as one (3, H, W) tensor: plane i is channel i, the
    same memory as frame.planes[i], and the channel the format's name says
    (against videoconvert's RGBA of the same frame; the colors pattern, as
    snow is grey). videocrop takes no planar RGB: test_fakecuda.py crops it
    with cudacrop."""
    w, h = size
    order = [0, 1, 2] if fmt == "RGBP" else [2, 1, 0]  # RGBA channel of each plane
    with cudastreams.Pipeline(
            f"videotestsrc pattern=colors num-buffers=3 ! video/x-raw,format={fmt},width={w},"
            f"height={h} ! tee name=t t. ! queue ! appsink name=out "
            "t. ! queue ! videoconvert ! video/x-raw,format=RGBA ! appsink name=ref") as p:
        n = 0
        for f in p.frames("out"):
            r = p.pull("ref")
            assert (f.format, f.width, f.height, f.n_planes) == (fmt, w, h, 3)
            a = np.from_dlpack(f)
            planes = [np.from_dlpack(f.planes[i]) for i in range(3)]
            step = address(planes[1]) - address(planes[0])
            assert a.dtype == np.uint8 and a.shape == (3, h, w), (a.dtype, a.shape)
            assert a.strides == (step, f.pitches[0], 1), (a.strides, step, f.pitches)
            assert step >= f.pitches[0] * h, f"planes {step} bytes apart overlap"
            for i, plane in enumerate(planes):
                assert plane.shape == (h, w, 1), plane.shape
                assert address(a[i]) == address(plane), f"{fmt} plane {i} was copied"
                assert np.array_equal(a[i], plane[..., 0]), f"{fmt} plane {i} #{n}"
            ref = np.from_dlpack(r)
            assert np.array_equal(a, ref[..., order].transpose(2, 0, 1)), f"{fmt} frame {n}"
            n += 1
        assert n == 3


def check_capsules():
    with cudastreams.Pipeline("videotestsrc num-buffers=1 ! video/x-raw,format=RGBA,width=8,"
                              "height=4 ! appsink") as p:
        f = p.pull()
        cap = f.__dlpack__(max_version=(1, 0))
        assert capsule_name(cap) == "dltensor_versioned" and capsule_valid(cap, "dltensor_versioned")
        t = managed_tensor(cap)
        assert (t.version.major, t.version.minor) == (1, 0)
        assert t.flags & 1, "CPU exports are read-only"
        data, dev, shape, strides, dtype = tensor_fields(t.dl_tensor)
        assert dev == (1, 0) and shape == (4, 8, 4) and strides == (32, 4, 1) and dtype == (1, 8, 1)
        old = f.__dlpack__()
        assert capsule_name(old) == "dltensor" and capsule_valid(old, "dltensor")
        assert tensor_fields(managed_tensor(old).dl_tensor)[0] == data
        assert capsule_name(f.__dlpack__(max_version=(0, 8))) == "dltensor"
        for kwargs in ({"copy": True}, {"dl_device": (2, 0)}):
            try:
                f.__dlpack__(**kwargs)
                raise AssertionError(f"__dlpack__({kwargs}) did not raise")
            except BufferError:
                pass
        try:
            f.__dlpack__(stream=5)
            raise AssertionError("a CUDA stream accepted for a CPU frame")
        except ValueError:
            pass
        assert p.held_frames == 1
        f.release()
        assert p.held_frames == 1, "the capsules still hold the buffer"
        try:
            f.__dlpack__()
            raise AssertionError("a released frame exported")
        except ValueError:
            pass
        del cap, old
        assert p.held_frames == 0


def main():
    r = Runner("test_frames")
    r.run(check_version, sys.argv[1])
    for fmt in SINGLE:
        r.run(check_single_plane, fmt, CROP_META)
        r.run(check_single_plane, fmt, REAL_CROP)
    for fmt in MULTI:
        r.run(check_planes, fmt, CROP_META)
        r.run(check_planes, fmt, REAL_CROP)
    for fmt in PLANAR_RGB:
        for size in ((W, H), (17, 9), (1, 1)):
            r.run(check_planar_rgb, fmt, size)
    r.run(check_capsules)
    r.finish()


if __name__ == "__main__":
    main()

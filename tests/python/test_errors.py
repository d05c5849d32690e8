#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""How cudastreams reports what goes wrong: parse errors, bus errors with the
element's name, wrong names, arrays that do not fit the caps, multi-plane
frames asked for one tensor, timeouts."""
import numpy as np

import cudastreams
from pycheck import Runner

RGBA_CAPS = "video/x-raw,format=RGBA,width=8,height=4,framerate=30/1"


def raises(exc, fn, *args, **kwargs):
    try:
        fn(*args, **kwargs)
    except exc as e:
        return e
    raise AssertionError(f"{fn.__name__} did not raise {exc.__name__}")


def check_bad_description():
    e = raises(cudastreams.Error, cudastreams.Pipeline, "videotestsrc ! nosuchelement ! appsink")
    assert "nosuchelement" in str(e), str(e)
    e = raises(cudastreams.Error, cudastreams.Pipeline, "videotestsrc nosuchprop=1 ! appsink")
    assert "nosuchprop" in str(e), str(e)


def check_bus_error():
    # Started by pull and wait (the start fails here, with the bus's error).
    p = cudastreams.Pipeline("filesrc name=reader location=/nonexistent/file ! appsink")
    e = raises(cudastreams.Error, p.pull, timeout=10)
    assert e.element == "reader" and str(e).startswith("reader: "), (e.element, str(e))
    assert e.debug and "/nonexistent/file" in e.debug, e.debug
    raises(cudastreams.Error, p.pull, timeout=10)  # and again later
    p.close()
    p = cudastreams.Pipeline("filesrc name=reader location=/nonexistent/file ! fakesink")
    e = raises(cudastreams.Error, p.wait, timeout=10)
    assert e.element == "reader"
    p.close()
    # An error while streaming: caps downstream refuses.
    p = cudastreams.Pipeline(f"appsrc name=src caps={RGBA_CAPS} ! "
                             "capsfilter caps=video/x-raw,format=NV12 ! appsink")
    e = raises(cudastreams.Error, lambda: [p.push(np.zeros((4, 8, 4), np.uint8))
                                           for _ in range(100)] and p.pull(timeout=10))
    assert e.element == "src", str(e)
    p.close()


def check_names():
    with cudastreams.Pipeline("videotestsrc num-buffers=1 ! tee name=t ! queue ! appsink name=a "
                              "t. ! queue ! appsink name=b") as p:
        e = raises(ValueError, p.pull, "missing")
        assert "'missing'" in str(e), str(e)
        e = raises(ValueError, p.pull, "t")
        assert "'t'" in str(e) and "appsink" in str(e), str(e)
        e = raises(ValueError, p.pull)
        assert "several" in str(e) and "a" in str(e), str(e)
        e = raises(ValueError, p.push, np.zeros((4, 8, 4), np.uint8))
        assert "no appsrc" in str(e), str(e)


def check_push_mismatch():
    with cudastreams.Pipeline(f"appsrc name=src caps={RGBA_CAPS} ! appsink") as p:
        for bad in (np.zeros((4, 8, 3), np.uint8), np.zeros((4, 8, 4), np.uint16),
                    np.zeros((8, 4, 4), np.uint8), np.zeros((4, 16, 4), np.uint8)[:, ::2]):
            e = raises(ValueError, p.push, bad)
            assert "expected (4, 8, 4) uint8" in str(e) and "got (" in str(e), str(e)
    with cudastreams.Pipeline("appsrc ! appsink") as p:
        e = raises(ValueError, p.push, np.zeros((4, 8, 4), np.uint8))
        assert "caps" in str(e), str(e)
    with cudastreams.Pipeline("appsrc caps=audio/x-raw ! appsink") as p:
        e = raises(ValueError, p.push, np.zeros((4, 8, 4), np.uint8))
        assert "video/x-raw" in str(e), str(e)
    with cudastreams.Pipeline("appsrc caps=video/x-raw(memory:CUDAStreamsMemory),format=RGBA,"
                              "width=8,height=4,framerate=30/1 ! fakesink") as p:
        e = raises(ValueError, p.push, np.zeros((4, 8, 4), np.uint8))
        assert "CUDA tensor" in str(e), str(e)


def check_multi_plane():
    with cudastreams.Pipeline("videotestsrc num-buffers=1 ! video/x-raw,format=NV12,width=8,"
                              "height=4 ! appsink") as p:
        f = p.pull()
        e = raises(TypeError, np.from_dlpack, f)
        assert "NV12 has 2 planes" in str(e) and "planes[i]" in str(e), str(e)


def check_timeout():
    with cudastreams.Pipeline(f"appsrc caps={RGBA_CAPS} ! appsink") as p:
        raises(TimeoutError, p.pull, timeout=0.3)
        raises(TimeoutError, p.wait, timeout=0.3)


def check_closed():
    p = cudastreams.Pipeline(
        "videotestsrc num-buffers=1 ! video/x-raw,format=GRAY8,width=320,height=240 ! appsink")
    f = p.pull()
    p.close()
    p.close()
    assert f.width == 320 and np.from_dlpack(f).shape[0] == 240, "frames outlive the pipeline"
    # A closed pipeline has no more frames and has ended; it takes nothing.
    assert p.pull() is None
    p.wait()
    raises(ValueError, p.start)


def main():
    r = Runner("test_errors")
    for fn in (check_bad_description, check_bus_error, check_names, check_push_mismatch,
               check_multi_plane, check_timeout, check_closed):
        r.run(fn)
    r.finish()


if __name__ == "__main__":
    main()

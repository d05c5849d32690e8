#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""1,000 frames pulled, exported and dropped, and 1,000 arrays pushed: the
process' resident memory stays flat after a warm-up, and the pipeline's
count of held frames comes back to 0. The appsinks do not sync to the clock,
so the frames come as fast as they are made."""
import numpy as np

import cudastreams
from pycheck import Runner

N, WARM = 1100, 100
PAGE = 4096


def rss():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * PAGE


def check_pull():
    with cudastreams.Pipeline(f"videotestsrc num-buffers={N} ! video/x-raw,format=NV12,width=320,"
                              "height=240 ! videocrop left=2 top=2 ! appsink sync=false",
                              max_held_frames=4) as p:
        base = None
        for i, f in enumerate(p.frames(timeout=30)):
            y = np.from_dlpack(f.planes[0])
            cap = f.planes[1].__dlpack__(max_version=(1, 0))
            assert y.shape == (238, 318, 1)
            del y, cap, f
            if i == WARM:
                base = rss()
        grown = rss() - base
        assert p.held_frames == 0, p.held_frames
    assert grown < 4 << 20, f"resident memory grew by {grown} bytes over {N - WARM} frames"


def check_push():
    a = np.zeros((240, 320, 4), np.uint8)
    with cudastreams.Pipeline("appsrc caps=video/x-raw,format=RGBA,width=320,height=240,"
                              "framerate=30/1 ! appsink sync=false") as p:
        base = None
        for i in range(N):
            p.push(a)
            f = p.pull(timeout=10)
            assert f.width == 320
            del f
            if i == WARM:
                base = rss()
        grown = rss() - base
        assert p.held_frames == 0
    assert grown < 4 << 20, f"resident memory grew by {grown} bytes over {N - WARM} frames"


def main():
    r = Runner("test_leak")
    r.run(check_pull)
    r.run(check_push)
    r.finish()


if __name__ == "__main__":
    main()

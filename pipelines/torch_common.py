# SPDX-License-Identifier: LGPL-2.1-or-later
"""What the PyTorch benchmarks (torch_bench.py, batch_torch_bench.py) share:
their requirements, and the timed window of a consumer loop."""
import os
import sys
import time


def require(script, numpy=False):
    """(torch, numpy or None, cudastreams), or the process exits: 77 (skipped)
    without PyTorch, a CUDA device PyTorch can use or (when asked for) NumPy;
    1 when cudastreams does not import (pipelines/bench runs the scripts only
    where it found one built)."""
    try:
        import torch
    except ImportError as e:
        print(f"SKIP: {script} needs PyTorch ({e})")
        sys.exit(77)
    if not torch.cuda.is_available():
        print(f"SKIP: {script} needs a CUDA device that PyTorch can use")
        sys.exit(77)
    np = None
    if numpy:
        try:
            import numpy as np
        except ImportError as e:
            print(f"SKIP: {script} needs NumPy ({e})")
            sys.exit(77)
    try:
        import cudastreams
    except ImportError as e:
        print(f"FAIL: cannot import cudastreams ({e}); PYTHONPATH={os.environ.get('PYTHONPATH')}")
        sys.exit(1)
    return torch, np, cudastreams


class Window:
    """The timed window of a loop that consumes items (frames, batches):
    tick() after each one. It opens `warmup` s after the first item, once
    `on_open` (say, a sync, so that it opens on finished work) has run, and
    closes `seconds` s later."""

    def __init__(self, seconds, warmup, host_waits, on_open=None):
        self.seconds, self.warmup = seconds, warmup
        self.host_waits, self.on_open = host_waits, on_open
        self.n = self.n0 = 0
        self.t0 = self.warm_until = None

    def tick(self):
        """Counts one item; False once the window has closed."""
        self.n += 1
        now = time.perf_counter()
        if self.warm_until is None:
            self.warm_until = now + self.warmup
        elif self.t0 is None:
            if now >= self.warm_until:
                if self.on_open:
                    self.on_open()
                self.t0, self.cpu0 = time.perf_counter(), time.process_time()
                self.w0, self.n0 = self.host_waits(), self.n
        elif now - self.t0 >= self.seconds:
            return False
        return True

    def close(self, finish):
        """The window's figures per item: CPU time and host waits up to now,
        wall time up to the end of `finish()` (the wait for the GPU work the
        items queued, which is the benchmark's, not theirs)."""
        cpu1, w1 = time.process_time(), self.host_waits()
        finish()
        t1 = time.perf_counter()
        items = self.n - self.n0
        return {"rate": items / (t1 - self.t0), "cpu_us": (cpu1 - self.cpu0) * 1e6 / items,
                "waits": (w1 - self.w0) / items, "items": items, "seconds": t1 - self.t0}

# SPDX-License-Identifier: LGPL-2.1-or-later
"""What the PyTorch tests share: skipping (exit 77, meson's "skipped") where
PyTorch, NumPy or enough CUDA devices are missing, and failing checks."""
import sys

SKIP = 77


def skip(why):
    print(f"SKIP: {why}", flush=True)
    sys.exit(SKIP)


def require(devices=1):
    """(torch, numpy), or a skip that says which is missing."""
    try:
        import torch
    except ImportError as e:
        skip(f"PyTorch is not installed ({e})")
    if not torch.cuda.is_available():
        skip("PyTorch sees no usable CUDA device (torch.cuda.is_available() is False)")
    if torch.cuda.device_count() < devices:
        skip(f"{torch.cuda.device_count()} CUDA device(s): this test needs {devices}")
    try:
        import numpy
    except ImportError as e:
        skip(f"NumPy is not installed ({e})")
    return torch, numpy


class Fail(Exception):
    pass


def check(cond, msg):
    if not cond:
        raise Fail(msg)

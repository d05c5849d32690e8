#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""How many of the texture unit's filtered samples (texture_filter_probe.cu's
files) a CPU model reproduces bit for bit, per texel type.

The model (what the probe established on an H200, docs/cudaconvertscale.md):
  - x - 0.5 = i + f: the weight a = f * 256 rounded half up (0..256), the
    same along y (b);
  - in 2D the weight of the far corner is a * b / 256 rounded half up, and
    the others follow from it, so the four sum to 256:
    w11 = round(a b / 256), w10 = a - w11, w01 = b - w11,
    w00 = 256 - a - b + w11;
  - S = sum of w * texel (an exact integer); 8-bit texels read as floats:
    round(S * 65535 / 65280) / 65535, 16-bit: round(S / 256) / 65535, each
    a 16-bit code rounded half up, then divided and rounded to float once;
    32-bit float texels: sum(w / 256 * texel) rounded to float once.

  texture_filter_report.py DIR   (DIR holds texture-*.bin)
Pure Python (no NumPy): a few seconds a file.
"""

import array
import math
import os
import struct
import sys
from fractions import Fraction


def f32(x):
    return struct.unpack("f", struct.pack("f", x))[0]


def load(path):
    data = open(path, "rb").read()
    kind, texel_bytes, comps, width, height, n_sweep, n_random = struct.unpack("<7i", data[:28])
    off = 28
    texels = array.array({1: "B", 2: "H", 4: "f"}[texel_bytes])
    size = width * height * comps * texel_bytes
    texels.frombytes(data[off : off + size])
    records = array.array("f")
    records.frombytes(data[off + size :])
    return kind, comps, width, height, texels, records


def round_half_up(n, d):
    return (2 * n + d) // (2 * d)


def weight(coord):
    """The texel to the left of (or above) coord and the weight of the next."""
    below = coord - 0.5
    i = math.floor(below)
    a = math.floor((below - i) * 256 + 0.5)
    return (i + 1, 0) if a == 256 else (i, a)


def model(kind, texel, x, y):
    i, a = weight(x)
    j, b = weight(y)
    w11 = round_half_up(a * b, 256)
    weights = (256 - a - b + w11, a - w11, b - w11, w11)
    corners = (texel(i, j), texel(i + 1, j), texel(i, j + 1), texel(i + 1, j + 1))
    if kind == 3:
        return f32(float(sum(Fraction(w, 256) * Fraction(t) for w, t in zip(weights, corners))))
    s = sum(w * t for w, t in zip(weights, corners))
    code = round_half_up(s * 65535, 65280) if kind in (0, 2) else round_half_up(s, 256)
    return f32(code / 65535)


NAMES = {0: "8-bit, read as float", 1: "16-bit, read as float",
         2: "8-bit x 4 (RGBA), read as float", 3: "32-bit float"}


def report(path):
    kind, comps, width, height, texels, records = load(path)
    fields = 2 + comps
    matched = total = 0
    worst = 0.0
    for c in range(comps):
        def texel(i, j):
            i = min(max(i, 0), width - 1)
            j = min(max(j, 0), height - 1)
            return texels[(j * width + i) * comps + c]
        for k in range(0, len(records), fields):
            x, y, got = records[k], records[k + 1], records[k + 2 + c]
            want = model(kind, texel, x, y)
            total += 1
            if got == want:
                matched += 1
            else:
                ulp = 2.0 ** (math.frexp(abs(want))[1] - 24) if want else 2.0 ** -149
                worst = max(worst, abs(got - want) / ulp)
    print(f"{NAMES.get(kind, str(kind)):32} {matched:8} of {total:8} samples bit for bit"
          + (f"; the rest at most {worst:.0f} ulp off" if matched < total else ""))
    return matched == total


def main():
    folder = sys.argv[1] if len(sys.argv) > 1 else "."
    names = sorted(n for n in os.listdir(folder) if n.startswith("texture-") and n.endswith(".bin"))
    if not names:
        sys.exit(f"no texture-*.bin in {folder}")
    for name in names:
        report(os.path.join(folder, name))


if __name__ == "__main__":
    main()

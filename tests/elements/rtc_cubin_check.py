#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""rtc_cubin_check.py CONVERT_TIME ROWS CUBIN_INFO: without a GPU, a
converter kernel compiled for one row's conversion (gcs-convert-time
--cubin, as a run compiles it: gpu/convert_scale_rtc.h) and read by
scripts/cubin-info.py: the kernel named, its registers and instructions
within what a kernel has. A kernel the source does not have fails with
NVRTC's word for it (and leaves no file of an earlier run in its place),
a row that is not in the file with its name; the folder is made where it
is not there. Skips
(77) where NVRTC cannot be loaded."""
import os
import re
import subprocess
import sys
import tempfile

ROW = "i420-1080p-i420-90r-720p"
KERNEL = ("gst_cs::gpu::kernels::convert_scale_planes_staged_kernel<"
          "(gst_cs::gpu::Filter)1, 1, 1, 0>")


def run(args):
    return subprocess.run(args, capture_output=True, text=True, timeout=240)


def fail(why, p=None):
    print(f"FAIL: {why}")
    if p is not None:
        print(p.stdout, p.stderr)
    sys.exit(1)


def main(convert_time, rows, cubin_info):
    with tempfile.TemporaryDirectory() as top:
        d = os.path.join(top, "made")  # made by gcs-convert-time
        p = run([convert_time, "--rows", rows, "--cubin", KERNEL, d, ROW])
        if "libnvrtc cannot be loaded" in p.stderr:
            print("no NVRTC here: skipped")
            return 77
        if p.returncode != 0:
            fail(f"{ROW} did not compile", p)
        if '"compiled":true' not in p.stdout or '"path":"planes"' not in p.stdout:
            fail(f"{ROW}: {p.stdout.strip()}", p)
        cubin = os.path.join(d, ROW + ".cubin")
        q = run([sys.executable, cubin_info, cubin])
        m = re.search(r" (\S+) registers (\d+) instructions (\d+)", q.stdout)
        if q.returncode != 0 or not m:
            fail(f"cubin-info read nothing of {cubin}", q)
        name, regs, instructions = m.group(1), int(m.group(2)), int(m.group(3))
        if "convert_scale_planes_staged_kernel" not in name:
            fail(f"the kernel is {name}")
        # 255 registers a thread at most; the staged planes' kernel has
        # thousands of instructions (2,992 at 4cf0048).
        if not (16 <= regs <= 255 and 500 <= instructions <= 100000):
            fail(f"{regs} registers and {instructions} instructions")
        print(f"{ROW}: {name}, {regs} registers, {instructions} instructions")

        p = run([convert_time, "--rows", rows, "--cubin",
                 "gst_cs::gpu::kernels::no_such_kernel", d, ROW])
        if p.returncode == 0 or "no_such_kernel" not in p.stderr or \
                '"compiled":false' not in p.stdout:
            fail("a kernel the source lacks was not refused", p)
        if os.path.exists(cubin):
            fail(f"{cubin}, of the run before, stands for a failed compile")
        p = run([convert_time, "--rows", rows, "--cubin", KERNEL, d, "no-such-row"])
        if p.returncode == 0 or "no-such-row" not in p.stderr:
            fail("a row the file lacks was not said", p)
    print("ok")
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 4:
        print(__doc__.strip(), file=sys.stderr)
        sys.exit(2)
    sys.exit(main(*sys.argv[1:]))

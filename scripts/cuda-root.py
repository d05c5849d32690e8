#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Prints the root of the CUDA toolkit that the given nvcc belongs to.

nvcc on PATH may be a symlink or a wrapper script (/usr/local/bin/nvcc that
execs the real one), so its own folder says nothing; nvcc's dry run names
its toolkit (TOP=...). Used by meson.build for the headers and the rpath.
"""
import os
import subprocess
import sys


def main() -> int:
    nvcc = sys.argv[1]
    run = subprocess.run([nvcc, '--dryrun', '-x', 'cu', '-E', os.devnull],
                         capture_output=True, text=True, check=False)
    for line in (run.stdout + run.stderr).splitlines():
        key, _, value = line.removeprefix('#$ ').partition('=')
        if key.strip() == 'TOP' and value.strip():
            print(os.path.realpath(value.strip().strip('"')))
            return 0
    # Older nvcc without TOP in its dry run: the folder of the real binary.
    print(os.path.dirname(os.path.dirname(os.path.realpath(nvcc))))
    return 0


if __name__ == '__main__':
    sys.exit(main())

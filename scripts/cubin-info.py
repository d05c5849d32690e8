#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""What a kernel's machine code costs, read from its CUBIN without a GPU
and without cuobjdump (this workplace's toolkit has neither disassembler):
per kernel, its registers a thread (the .nv.info section's REGCOUNT, what
ptxas -v and Nsight Compute report) and its SASS instructions (the size of
its .text section: 16 bytes an instruction from sm_70 on, the padding at
its end included). For the converter's kernels compiled at run time
without a device call:

  build/pipelines/gcs-convert-time --rows pipelines/convert_matrix.txt \\
      --cubin "gst_cs::gpu::kernels::convert_scale_planes_staged_kernel<(gst_cs::gpu::Filter)1, 1, 1, 0>" \\
      /tmp/cubins i420-1080p-i420-90r-720p
  scripts/cubin-info.py /tmp/cubins/*.cubin

A file may be a run's cache file (the kernel's lowered name on one line,
then the CUBIN) or a plain CUBIN. Prints "FILE KERNEL registers N
instructions N" a kernel; exits 1 where a file is not a CUBIN. Where the
instructions go (the opcodes): scripts/gpu-kernel-sass.sh on the GPU
machine."""
import struct
import sys

EIATTR_REGCOUNT = 0x2F
EIFMT_BVAL, EIFMT_HVAL, EIFMT_SVAL = 2, 3, 4


def elf_of(data):
    """The CUBIN in `data`: after the cache file's first line, if any."""
    if not data.startswith(b"\x7fELF"):
        newline = data.find(b"\n")
        data = data[newline + 1:] if newline >= 0 else b""
    if not data.startswith(b"\x7fELF") or data[4] != 2:
        raise ValueError("not a 64-bit ELF (CUBIN)")
    return data


def sections(elf):
    """(name, offset, size, info) of each section of ELF64 `elf`."""
    shoff, = struct.unpack_from("<Q", elf, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", elf, 0x3A)
    heads = [struct.unpack_from("<IIQQQQIIQQ", elf, shoff + i * shentsize)
             for i in range(shnum)]
    names = heads[shstrndx][4]

    def name(at):
        end = elf.index(b"\0", names + at)
        return elf[names + at:end].decode()

    return [(name(h[0]), h[4], h[5], h[7]) for h in heads]


def symbols(elf, secs):
    """Symbol index -> name (.symtab, with .strtab)."""
    by_name = {s[0]: s for s in secs}
    if ".symtab" not in by_name or ".strtab" not in by_name:
        return {}
    _, off, size, _ = by_name[".symtab"]
    strs = by_name[".strtab"][1]
    out = {}
    for i in range(size // 24):
        at, = struct.unpack_from("<I", elf, off + 24 * i)
        end = elf.index(b"\0", strs + at)
        out[i] = elf[strs + at:end].decode()
    return out


def registers(elf, secs, syms):
    """Kernel name -> registers a thread, from .nv.info's REGCOUNT."""
    out = {}
    for name, off, size, _ in secs:
        if name != ".nv.info":
            continue
        p, end = off, off + size
        while p + 2 <= end:
            fmt, attr = elf[p], elf[p + 1]
            p += 2
            if fmt == EIFMT_SVAL:
                n, = struct.unpack_from("<H", elf, p)
                if attr == EIATTR_REGCOUNT and n >= 8:
                    sym, count = struct.unpack_from("<II", elf, p + 2)
                    out[syms.get(sym, str(sym))] = count
                p += 2 + n
            elif fmt == EIFMT_HVAL:
                p += 2
            elif fmt == EIFMT_BVAL:
                p += 1
    return out


def main(paths):
    bad = False
    for path in paths:
        try:
            with open(path, "rb") as f:
                elf = elf_of(f.read())
            secs = sections(elf)
            regs = registers(elf, secs, symbols(elf, secs))
        except (OSError, ValueError, struct.error) as e:
            print(f"{path}: {e}", file=sys.stderr)
            bad = True
            continue
        for name, _, size, _ in secs:
            if name.startswith(".text."):
                kernel = name[len(".text."):]
                print(f"{path} {kernel} registers {regs.get(kernel, '?')} "
                      f"instructions {size // 16}")
    return 1 if bad else 0


if __name__ == "__main__":
    if len(sys.argv) < 2:
        print(__doc__.strip(), file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1:]))

#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""count_ptx.py FILE.ptx: per kernel entry, its PTX instructions, loads
(of them from local memory) and branches: what the code of each is, before
ptxas (a kernel without loops runs about as many as it has)."""
import re
import sys

src = open(sys.argv[1]).read()
for m in re.finditer(r"\.entry\s+(\w+)\((.*?)\n\}\n", src, re.S):
    ins = [l.strip() for l in m.group(2).splitlines()
           if re.match(r"\s+[a-z@]", l) and not l.strip().startswith((".reg", ".local", ".shared", ".param", ".loc", ".pragma"))]
    loads = sum(1 for l in ins if re.search(r"\bld\.", l))
    local = sum(1 for l in ins if re.search(r"\b(ld|st)\.local", l))
    branches = sum(1 for l in ins if re.search(r"\bbra\b", l))
    print("%s %d %d %d %d" % (m.group(1), len(ins), loads, local, branches))

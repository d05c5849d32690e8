#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Names the stacks that libgcs-sampler.so wrote, and prints where the CPU
time went: by module, by function (self: the sampled frame itself), by
function with what it called (inclusive) and by thread, each as a share
of the samples and, with --us-per-frame, as microseconds of a frame.

    sampler_report.py SAMPLES [--top 30] [--us-per-frame CPU_US]
                      [--thread REGEX] [--per-thread N] [--within REGEX]

--thread keeps the samples of the threads whose name matches; --within
keeps those taken inside a function whose name matches (an element's
render: what its time went to, each share then of its samples); --per-thread
N prints, for each of the N busiest threads, its own top functions
(inclusive) too.

Functions are named by addr2line (for modules with debug information: a
debugoptimized build of ours) or else by the nearest symbol nm lists
(GStreamer, GLib, the CUDA driver: their exported ones), marked "~": a
static function there shows as the exported one before it.
"""
import argparse
import bisect
import collections
import os
import re
import subprocess


def nm_symbols(module):
    syms = []
    for args in (["nm", "-D", "--defined-only"], ["nm", "--defined-only"]):
        try:
            out = subprocess.run(args + [module], capture_output=True, text=True,
                                 check=False).stdout
        except OSError:
            return []
        for line in out.splitlines():
            parts = line.split()
            if len(parts) >= 3 and parts[1].lower() in ("t", "w", "i"):
                syms.append((int(parts[0], 16), parts[2]))
    syms.sort()
    return syms


def demangle(names):
    try:
        out = subprocess.run(["c++filt"], input="\n".join(names), capture_output=True,
                             text=True, check=False).stdout.splitlines()
        if len(out) == len(names):
            return out
    except OSError:
        pass
    return names


def name_module(module, offsets):
    """offset -> function name for one module."""
    base = os.path.basename(module)
    names = {}
    if os.path.exists(module):
        offs = sorted(offsets)
        try:
            out = subprocess.run(["addr2line", "-f", "-C", "-e", module] +
                                 [hex(o) for o in offs], capture_output=True, text=True,
                                 check=False).stdout.splitlines()
        except OSError:
            out = []
        if len(out) == 2 * len(offs):
            for i, o in enumerate(offs):
                if out[2 * i] != "??":
                    names[o] = out[2 * i]
        missing = [o for o in offs if o not in names]
        if missing:
            syms = nm_symbols(module)
            keys = [s[0] for s in syms]
            raw = []
            for o in missing:
                i = bisect.bisect_right(keys, o) - 1
                raw.append(syms[i][1] if i >= 0 else "?")
            # Only the nearest exported symbol before it: a static
            # function shows as the one above it, so marked "~".
            for o, n in zip(missing, demangle(raw)):
                names[o] = "~" + n
    return {o: "%s [%s]" % (_short(names.get(o, "?")), base) for o in offsets}


def _short(name):
    # Templates and argument lists make names unreadable in a table.
    cut = name.find("(")
    if cut > 0:
        name = name[:cut]
    return name if len(name) < 90 else name[:87] + "..."


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("samples")
    ap.add_argument("--top", type=int, default=30)
    ap.add_argument("--us-per-frame", type=float, default=0.0)
    ap.add_argument("--thread", default="")
    ap.add_argument("--per-thread", type=int, default=0)
    ap.add_argument("--within", default="")
    a = ap.parse_args()
    stacks = []
    threads = []
    wanted = collections.defaultdict(set)
    keep = re.compile(a.thread) if a.thread else None
    with open(a.samples, encoding="utf-8") as f:
        for line in f:
            toks = line.split()
            thread = "?"
            # Files of an older sampler have no "@thread" first.
            if toks and toks[0].startswith("@"):
                thread = toks.pop(0)[1:]
            if keep and not keep.search(thread):
                continue
            frames = []
            for tok in toks:
                mod, _, off = tok.rpartition("+")
                frames.append((mod, int(off, 16)))
                wanted[mod].add(int(off, 16))
            if frames:
                stacks.append(frames)
                threads.append(thread)
    if not stacks:
        print("no samples")
        return
    named = {}
    for mod, offs in wanted.items():
        for o, n in name_module(mod, offs).items():
            named[(mod, o)] = n
    if a.within:
        inside = re.compile(a.within)
        kept = [(f, t) for f, t in zip(stacks, threads)
                if any(inside.search(named[fr]) for fr in f)]
        if not kept:
            print("no samples within %s" % a.within)
            return
        stacks = [f for f, _ in kept]
        threads = [t for _, t in kept]
    total = len(stacks)
    own = collections.Counter()
    mods = collections.Counter()
    for frames in stacks:
        own[named[frames[0]]] += 1
        mods[os.path.basename(frames[0][0])] += 1

    def inclusive(chosen):
        """Samples each function was on the stack of (once a sample)."""
        count = collections.Counter()
        for frames in chosen:
            count.update({named[fr] for fr in frames})
        return count

    incl = inclusive(stacks)
    scale = a.us_per_frame / total if a.us_per_frame else 0.0

    def row(n, name):
        us = "%7.2f us" % (n * scale) if scale else ""
        return "%6.1f%% %s  %s" % (100.0 * n / total, us, name)

    print("%d samples%s" % (total, " = %.2f us of CPU per frame" % a.us_per_frame
                             if a.us_per_frame else ""))
    print("-- self, by module")
    for name, n in mods.most_common(12):
        print(row(n, name))
    print("-- self, by function")
    for name, n in own.most_common(a.top):
        print(row(n, name))
    print("-- inclusive (with what it calls)")
    for name, n in incl.most_common(a.top + 15):
        print(row(n, name))
    by_thread = collections.Counter(threads)
    print("-- by thread")
    for name, n in by_thread.most_common(12):
        print(row(n, name))
    for thread, _ in by_thread.most_common(a.per_thread):
        mine = inclusive(f for f, t in zip(stacks, threads) if t == thread)
        print("-- thread %s, inclusive (share of all samples)" % thread)
        for name, n in mine.most_common(a.top):
            print(row(n, name))


if __name__ == "__main__":
    main()

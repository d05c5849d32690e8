#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Checks the formatting of the C, C++ and CUDA sources and headers.

    check-format.py [SOURCE_ROOT]

1. Every file follows .clang-format (headers too; their aligned declaration
   tables sit between "clang-format off/on" comments).
2. Formatting cannot change what a macro expands to. A macro whose argument
   becomes text (G_DEFINE_QUARK's first argument is the quark's string)
   changes meaning when a formatter puts spaces in it. Each file is put
   through another style and back through ours, and the preprocessed tokens
   of the file's own lines, string literals included, must be the same as
   the original's: a whitespace-sensitive macro that .clang-format does not
   protect shows up here even in a file that is already formatted.

Exit 0 when all is well, 1 with the places otherwise, 77 (skipped) where
clang-format or a C++ compiler is missing.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

EXTENSIONS = (".c", ".cpp", ".cu", ".h", ".hpp")
# The other style of the round trip: different line breaks and spacing, the
# same protected macros.
OTHER_STYLE = ("{BasedOnStyle: LLVM, ColumnLimit: 60, SpaceBeforeParens: Never, "
               "BreakStringLiterals: false, WhitespaceSensitiveMacros: [%s]}")


def protected_macros(root):
    text = open(os.path.join(root, ".clang-format"), encoding="utf-8").read()
    m = re.search(r"^WhitespaceSensitiveMacros:\s*\[([^\]]*)\]", text, re.M)
    return m.group(1) if m else ""


def sources(root):
    out = subprocess.run(["git", "-C", root, "ls-files", "--cached", "--others",
                          "--exclude-standard"], capture_output=True, text=True)
    if out.returncode != 0:
        return []
    return sorted({f for f in out.stdout.split()
                   if f.endswith(EXTENSIONS) and os.path.isfile(os.path.join(root, f))})


def include_flags(root, staging):
    flags = ["-I" + os.path.join(root, d)
             for d in ("common", "plugins", "gpu", "tests/common", "tests/fakecuda",
                       "examples/c")]
    # The examples include the public headers as installed:
    # <gst/cudastreams/...>.
    os.makedirs(os.path.join(staging, "gst"))
    os.symlink(os.path.join(root, "common"), os.path.join(staging, "gst", "cudastreams"))
    flags.append("-I" + staging)
    pc = subprocess.run(["pkg-config", "--cflags", "gstreamer-1.0", "gstreamer-video-1.0",
                         "gstreamer-app-1.0", "gstreamer-check-1.0"],
                        capture_output=True, text=True)
    flags += pc.stdout.split()
    nvcc = shutil.which("nvcc")
    if nvcc:
        flags.append("-I" + os.path.join(os.path.dirname(os.path.dirname(nvcc)), "include"))
    return flags


TOKEN = re.compile(r'"(?:\\.|[^"\\])*"|\'(?:\\.|[^\'\\])*\'|\S')


def own_tokens(preprocessed, path):
    """The tokens of the lines that came from `path` itself (not its includes),
    with whitespace dropped except inside string and character literals, and
    adjacent string literals joined (the compiler joins them too)."""
    keep, out = False, []
    for line in preprocessed.splitlines():
        m = re.match(r'#\s*\d+\s+"([^"]*)"', line)
        if m:
            keep = os.path.abspath(m.group(1)) == path
            continue
        if not keep:
            continue
        for tok in TOKEN.findall(line):
            if tok.startswith('"') and out and out[-1].startswith('"'):
                out[-1] = out[-1][:-1] + tok[1:]
            else:
                out.append(tok)
    return out


def preprocess(compiler, flags, path, text):
    lang = "c++" if not path.endswith(".c") else "c"
    res = subprocess.run([compiler, "-E", "-x", lang, "-std=c++17" if lang == "c++" else "-std=c11",
                          "-D__CUDACC__=0", "-D__LINE__=0", "-w"] + flags + ["-"],
                         input=text, capture_output=True, text=True,
                         cwd=os.path.dirname(path))
    # Rename the stdin marker so own_tokens() finds the file's lines.
    return res.stdout.replace('"<stdin>"', '"%s"' % path)


def clang_format(text, path, style):
    res = subprocess.run(["clang-format", "--assume-filename=" + path, "--style=" + style],
                         input=text, capture_output=True, text=True)
    return res.stdout if res.returncode == 0 else text


def check_file(root, compiler, flags, other_style, rel):
    """The problems of one file: not formatted, or a formatting that changes
    what the preprocessor makes of it."""
    path = os.path.join(root, rel)
    original = open(path, encoding="utf-8").read()
    formatted = clang_format(original, path, "file")
    problems = []
    if formatted != original:
        problems.append(f"{rel}: does not follow .clang-format (clang-format -i {rel})")
    round_trip = clang_format(clang_format(original, path, other_style), path, "file")
    # Each preprocessing reads the file's includes (GStreamer's, CUDA's):
    # a text equal to the original needs none.
    before = None
    for label, text in (("formatting", formatted), ("a round trip through another style", round_trip)):
        if text == original:
            continue
        if before is None:
            before = own_tokens(preprocess(compiler, flags, path, original), path)
        after = own_tokens(preprocess(compiler, flags, path, text), path)
        if after != before:
            i = next((k for k, (a, b) in enumerate(zip(before, after)) if a != b),
                     min(len(before), len(after)))
            problems.append(f"{rel}: {label} changes what the preprocessor makes of it: "
                            f"{' '.join(before[max(0, i - 3):i + 4])!r} became "
                            f"{' '.join(after[max(0, i - 3):i + 4])!r}; protect the macro "
                            "(WhitespaceSensitiveMacros in .clang-format, or clang-format off/on)")
    return problems


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                           os.path.join(os.path.dirname(__file__), ".."))
    if not shutil.which("clang-format"):
        print("SKIP: clang-format is not installed")
        return 77
    compiler = shutil.which("c++") or shutil.which("g++")
    if not compiler:
        print("SKIP: no C++ compiler")
        return 77
    files = sources(root)
    if not files:
        print("SKIP: not a git checkout")
        return 77
    os.chdir(root)
    problems = []
    other_style = OTHER_STYLE % protected_macros(root)
    with tempfile.TemporaryDirectory() as staging, \
            ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        flags = include_flags(root, staging)
        for found in pool.map(lambda f: check_file(root, compiler, flags, other_style, f),
                              files):
            problems += found
    if problems:
        print("\n".join(problems))
        return 1
    print(f"formatting: {len(files)} files follow .clang-format, and formatting them "
          "changes no macro expansion")
    return 0


if __name__ == "__main__":
    sys.exit(main())

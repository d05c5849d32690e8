#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# On the GPU machine: the machine code (SASS) of the converter's kernels as
# the plugin compiles them at run time for given rows, and a count of
# their instructions by opcode, to read where a kernel's instructions go
# (Nsight Compute counts them; this names them). Each row runs once in
# gcs-convert-time with a cache of its own (GST_CS_CONVERT_RTC_CACHE); each
# cache file is the kernel's lowered name on one line, then its CUBIN.
#   source .gpu/env.sh; OUT=/tmp/sass ROWS_FILE=pipelines/convert_matrix.txt \
#     scripts/gpu-kernel-sass.sh ROW...
set -u
cd "$(dirname "$0")/.." || exit 1
B=${BUILD_DIR:-/tmp/gcs-kernel-iter}
OUT=${OUT:-/tmp/gcs-sass}
mkdir -p "$OUT"
[ -f "$B/build.ninja" ] || meson setup "$B" -Dgpu_archs="${ARCH:-90}" > "$OUT/setup.txt" 2>&1 ||
  { tail -30 "$OUT/setup.txt"; exit 1; }
ninja -C "$B" pipelines/gcs-convert-time plugins/libgstcudastreams.so gpu/gcs-rtc-compile > "$OUT/build.txt" 2>&1 ||
  { grep -B2 -A12 "error" "$OUT/build.txt" | head -60; exit 1; }
for row in "$@"; do
  cache=$(mktemp -d)
  GST_CS_CONVERT_RTC=wait GST_CS_CONVERT_RTC_CACHE=$cache timeout 120 \
    "$B/pipelines/gcs-convert-time" ${ROWS_FILE:+--rows "$ROWS_FILE"} "$row" > "$OUT/$row.txt" 2>&1
  n=0
  for f in "$cache"/*.cubin; do
    [ -f "$f" ] || continue
    n=$((n + 1))
    tail -n +2 "$f" > "$cache/k.cubin"
    { head -1 "$f"; cuobjdump -sass "$cache/k.cubin"; } > "$OUT/$row.$n.sass"
    # Opcodes without their modifiers, most frequent first.
    echo "== $row ($n): $(grep -cE '^\s+/\*[0-9a-f]{4}\*/' "$OUT/$row.$n.sass") instructions"
    grep -oE '^\s+/\*[0-9a-f]{4}\*/\s+(@!?U?P[0-9T] )?[A-Z0-9]+' "$OUT/$row.$n.sass" |
      awk '{print $NF}' | sort | uniq -c | sort -rn | head -24 | tr '\n' ' '
    echo
  done
  [ $n -gt 0 ] || { echo "== $row: no kernel compiled"; tail -5 "$OUT/$row.txt"; }
  rm -rf "$cache"
done

#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# On the GPU machine, a change to the converter's kernels checked in one
# call: the converter's GPU suites (GStreamer 1.22 bundle, gpu-check.sh's
# build), the kernel times of ROWS in this build with and without AB_FLAG
# (a gcs-convert-time option, in turn, ROUNDS rounds, the best of each),
# then the matrix's rows matching ONLY beside nvcodec 1.28.6 (its release
# build made at the start, beside the first one) for the time left.
# Results under $OUT: meson-test.txt, ab.txt, matrix/convert-matrix.csv.
#   AB_FLAG=--no-lines ONLY='bicubic' OUT=$OUT scripts/gpu-convert-change.sh
# Env: TESTS (default the converter's four GPU suites), ROWS (default
#   scripts/convert_rows_taps.txt), ROUNDS (3), ONLY (a regex of the
#   matrix's rows; empty: no matrix), SECONDS_LEFT (the call's time, 570).
set -u
cd "$(dirname "$0")/.." || exit 1
OUT=${OUT:-/tmp/gcs-out}
mkdir -p "$OUT"
deadline=${SECONDS_LEFT:-570}
export GST_CS_CONVERT_RTC=wait

# The matrix's build (GStreamer 1.28.6, release) beside the tests' build.
M=/tmp/gcs-matrix-build
matrix_pid=
if [ -n "${ONLY:-}" ]; then
  ( GST_VERSION=1.28.6
    # shellcheck source=scripts/gpu-gst-env.sh
    source scripts/gpu-gst-env.sh || exit 1
    [ -f $M/build.ninja ] || meson setup $M -Dgpu_archs=90 -Dtests=disabled -Dbuildtype=release \
      "${gst_link_args[@]}" > "$OUT/matrix-setup.log" 2>&1
    ninja -C $M -j 6 > "$OUT/matrix-build.log" 2>&1 ) &
  matrix_pid=$!
fi

MEMCHECK=0 FAKE_SUITE=0 NINJA_JOBS=10 OUT=$OUT \
  ONLY_TESTS="${TESTS:-convertscale_gpu convertscale_rtc_gpu convert_formats_gpu convert_rtc_compile}" \
  scripts/gpu-check.sh > "$OUT/check.txt" 2>&1
check_rc=$?
echo "=== tests (rc $check_rc) at ${SECONDS} s"
grep -E "^ *[0-9]+/[0-9]+ |^(Ok|Fail|Skipped|Timeout):|SUMMARY|build" "$OUT/check.txt" | head -20

# Kernel times: this build, with and without AB_FLAG, in turn.
exe=/tmp/gcs-build/pipelines/gcs-convert-time
if [ -x "$exe" ]; then
  for _ in $(seq "${ROUNDS:-3}"); do
    for flag in "" ${AB_FLAG:-}; do
      # shellcheck disable=SC2086 # no flag: no argument
      "$exe" --rows "${ROWS:-scripts/convert_rows_taps.txt}" $flag 2> /dev/null |
        sed "s/^/${flag:-plain} /"
    done
  done > "$OUT/ab-raw.txt"
  python3 - "$OUT/ab-raw.txt" > "$OUT/ab.txt" << 'PY'
import json, sys
best, copy, order, sides = {}, {}, [], []
for line in open(sys.argv[1]):
    side, _, rest = line.partition(" ")
    if not rest.startswith("CONVERT-TIME "):
        continue
    r = json.loads(rest[13:])
    if r["row"] not in order:
        order.append(r["row"])
    if side not in sides:
        sides.append(side)
    if r.get("copy_us"):
        copy[r["row"]] = min(copy.get(r["row"], r["copy_us"]), r["copy_us"])
    us = r.get("kernel_us")
    if us is not None:
        k = (r["row"], side)
        best[k] = min(best.get(k, us), us)
print("%-44s" % "row" + "".join("%12s" % s for s in sides) + "   copy")
for row in order:
    print("%-44s" % row + "".join("%12s" % ("%.2f" % best[(row, s)] if (row, s) in best else "-")
                                  for s in sides) + "%7.2f" % copy.get(row, 0.0))
PY
  echo "=== kernel µs, best of ${ROUNDS:-3} rounds (at ${SECONDS} s)"
  cat "$OUT/ab.txt"
fi

if [ -n "$matrix_pid" ]; then
  wait "$matrix_pid" || { tail -20 "$OUT/matrix-build.log"; echo "SUMMARY: matrix build failed"; }
  left=$((deadline - SECONDS - 30))
  if [ -f $M/build.ninja ] && [ $left -gt 60 ]; then
    ( GST_VERSION=1.28.6
      # shellcheck source=scripts/gpu-gst-env.sh
      source scripts/gpu-gst-env.sh || exit 1
      python3 pipelines/convert_matrix.py --build $M --out "$OUT/matrix" --rounds 5 \
        --window 0.15 --only "$ONLY" --deadline $left ) 2>&1 | tail -15
  else
    echo "matrix not run: $left s left"
  fi
fi
echo "SUMMARY: tests rc $check_rc; $(grep -E '^(Ok|Fail):' "$OUT/check.txt" | tr '\n' ' ')"

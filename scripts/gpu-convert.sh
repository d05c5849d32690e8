#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# On the GPU machine, the cudaconvertscale work in one call: the whole test
# suite (GPU, stand-in, Python and torch), cudaconvertscale's GPU suite
# under compute-sanitizer memcheck, then the benchmark's convert rows beside
# nvcodec 1.28.6 (.gst-dist: a copy of ../shared/gst), its torch
# model-input rows and the main job. Results in $OUT.
#   OUT=/tmp/out scripts/gpu-convert.sh
# PART=tests or PART=bench runs one half (two calls where one would run
# past a device call's time limit).
set -u
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/gcs-out}
mkdir -p "$OUT"
source .gpu/env.sh; .gst-dist/use 1.28.6 /tmp/gst-1.28.6 >/dev/null 2>&1
PART=${PART:-all}
BB=/tmp/gcs-bench-build
[ "$PART" = tests ] || (meson setup $BB -Dgpu_archs=90 -Dtests=disabled -Dbuildtype=release >/dev/null 2>&1 && ninja -C $BB >/dev/null 2>&1; echo built > /tmp/bb) &
B=/tmp/gcs-build; [ -f $B/build.ninja ] || meson setup $B -Dgpu_archs=90 -Dnvcodec_interop=enabled >/dev/null; ninja -C $B >/dev/null || { ninja -C $B | grep -A5 error | head -30; exit 1; }
if [ "$PART" != bench ]; then
  meson test -C $B --print-errorlogs --num-processes 6 > $OUT/tests.txt 2>&1
  grep -E "^ *[0-9]+/.*(FAIL|SKIP|TIMEOUT)|^Ok:|^Fail:|^Skipped:" $OUT/tests.txt
  timeout 240 meson test -C $B convertscale_gpu --no-rebuild --timeout-multiplier 10 --logbase memcheck --wrapper "compute-sanitizer --tool memcheck --report-api-errors no --error-exitcode 66 --print-limit 20" | grep -E "^ *[0-9]+/"; grep -h "ERROR SUMMARY" $B/meson-logs/memcheck*.txt | sort | uniq -c
fi
[ "$PART" = tests ] && exit 0
while [ ! -f /tmp/bb ]; do sleep 1; done
BUILD_DIR=$BB OUT=$OUT/bench BENCH_SECONDS=1 BENCH_ONLY="${BENCH_ONLY:-convert|model}" BENCH_PEER_GST=/tmp/gst-1.28.6 pipelines/bench > $OUT/bench.txt 2>&1
grep -E "convert-|model-" $OUT/bench.txt; sed -n '/^cudaconvertscale:/,$p' $OUT/bench.txt | head; cat $OUT/bench/convert_time.txt
# The main job (README's first command) on the test build.
python3 scripts/main-job.py --build-dir "$B" --png "$OUT/cudastreams.png" 2>&1 | tail -12

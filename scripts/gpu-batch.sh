#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# On the GPU machine, cudabatch's work in one call (under 4 minutes): builds
# for sm_90, runs batch_gpu (and its stand-in twin), batch_gpu under
# compute-sanitizer memcheck, the bench row (16 device-resident 1080p NV12
# streams -> 16x3x640x640 float16, letterboxed and normalised) and the
# normalisation kernel beside a device copy. Results in $OUT; a summary last.
#   source .gpu/env.sh; OUT=/tmp/out scripts/gpu-batch.sh
set -u
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/gcs-out}
mkdir -p "$OUT"
B=${BUILD_DIR:-/tmp/gcs-batch-build}
[ -f $B/build.ninja ] || meson setup $B -Dgpu_archs=90 >"$OUT/setup.txt" 2>&1
ninja -C $B >"$OUT/build.txt" 2>&1 || { grep -A5 error "$OUT/build.txt" | head -30; exit 1; }
meson test -C $B batch_gpu batch_gpu_fake --no-rebuild --print-errorlogs >"$OUT/tests.txt" 2>&1
timeout 150 meson test -C $B batch_gpu --no-rebuild --timeout-multiplier 10 --logbase memcheck \
  --wrapper "compute-sanitizer --tool memcheck --report-api-errors no --error-exitcode 66 --print-limit 20" \
  >"$OUT/memcheck.txt" 2>&1
BATCH_BENCH=1 GST_CHECKS=test_bench timeout 120 meson test -C $B batch_gpu --no-rebuild -v \
  >"$OUT/bench.txt" 2>&1
nvcc -std=c++17 -O3 -arch=sm_90 -Igpu pipelines/batch_kernel_time.cu gpu/batch_normalize.cu \
  gpu/batch_normalize_host.cpp -o $B/batch-kernel-time >"$OUT/kernel-build.txt" 2>&1 &&
  $B/batch-kernel-time 16 640 640 >"$OUT/kernel.txt" 2>&1
echo "== summary (cudabatch, $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1))"
grep -E "^ *[0-9]+/.*batch_gpu" "$OUT/tests.txt"
echo "memcheck: $(grep -E '^ *[0-9]+/' "$OUT/memcheck.txt" | sed 's/  */ /g')"
grep -h "ERROR SUMMARY" $B/meson-logs/memcheck*.txt 2>/dev/null | sort | uniq -c
grep -h "^BENCH" "$OUT/bench.txt" || echo "bench: no result (see $OUT/bench.txt)"
cat "$OUT/kernel.txt" 2>/dev/null || echo "kernel: no result (see $OUT/kernel-build.txt)"

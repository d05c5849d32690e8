#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# On the GPU machine, cudabatch's work in one call (about 6 minutes): builds
# for sm_90, runs batch_gpu, its stand-in twin, the Python batch tests (the
# stand-in's, and torch's: torch_gpu, batch_infer_example), batch_gpu under
# compute-sanitizer memcheck, the benchmark's batch rows (pipelines/bench
# with BENCH_ONLY=batch: 16 device-resident 1080p NV12 streams -> 16 x 3 x
# 640 x 640 float16 letterboxed and normalised, the same from 8 nvh264dec
# streams, into torch beside the usual way, and the latency the batching
# adds to 8 live 30 fps sources, one of them stalled in a second run:
# gcs-batch-latency, its lines "batch latency live|stall" in the summary)
# and the normalisation and fused kernels beside a device copy, and the CPU
# of a stalled live source's process (gcs-batch-stall-cpu). Results in $OUT;
# a summary last.
#   source .gpu/env.sh; OUT=/tmp/out scripts/gpu-batch.sh
set -u
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/gcs-out}
mkdir -p "$OUT"
B=${BUILD_DIR:-/tmp/gcs-batch-build}
[ -f $B/build.ninja ] || meson setup $B -Dgpu_archs=90 >"$OUT/setup.txt" 2>&1
ninja -C $B >"$OUT/build.txt" 2>&1 || { grep -A5 error "$OUT/build.txt" | head -30; exit 1; }
# Only the tests this build has (no Python module: no Python tests): meson
# runs none of a list that names one it does not know.
listed=$(meson test -C $B --list --no-rebuild 2>/dev/null)
TESTS="" missing=""
for t in batch_gpu batch_gpu_fake batch_aggregator_gpu batch_aggregator_gpu_fake python_fakecuda_batch \
    torch_gpu batch_infer_example; do
  if grep -qE "[:/ ]$t\$" <<< "$listed"; then TESTS="$TESTS $t"; else missing="$missing $t"; fi
done
# shellcheck disable=SC2086
timeout 200 meson test -C $B $TESTS --no-rebuild --print-errorlogs >"$OUT/tests.txt" 2>&1
timeout 150 meson test -C $B batch_gpu --no-rebuild --timeout-multiplier 10 --logbase memcheck \
  --wrapper "compute-sanitizer --tool memcheck --report-api-errors no --error-exitcode 66 --print-limit 20" \
  >"$OUT/memcheck.txt" 2>&1
# The bench rows, on this build (its Python module for the torch rows).
BUILD_DIR=$B BENCH_ONLY=batch OUT="$OUT/bench" timeout 240 pipelines/bench >"$OUT/bench.txt" 2>&1
nvcc -std=c++17 -O3 -arch=sm_90 -Igpu pipelines/batch_kernel_time.cu gpu/batch_normalize.cu \
  gpu/batch_normalize_host.cpp -o $B/batch-kernel-time >"$OUT/kernel-build.txt" 2>&1 &&
  $B/batch-kernel-time 16 640 640 >"$OUT/kernel.txt" 2>&1
# The fused kernel (one launch for all slots): checked bit for bit against
# the two-stage twins, then timed.
nvcc -std=c++17 -O3 -arch=sm_90 -fmad=false -Igpu pipelines/batch_fused_time.cu \
  gpu/batch_convert.cu gpu/batch_convert_host.cpp gpu/convert_scale_host.cpp \
  gpu/batch_normalize_host.cpp -Xcompiler=-ffp-contract=off -o $B/batch-fused-time \
  >"$OUT/fused-build.txt" 2>&1 && $B/batch-fused-time 16 >>"$OUT/kernel.txt" 2>&1
# The batch's GPU time as CUPTI saw it (needs the CUPTI library in this build).
scripts/batch-cupti.sh $B "$OUT" >> "$OUT/kernel.txt" 2>&1
# The CPU of the process while its live source stalls or has sent no frame
# (issue 55: a whole core before; target <= 1% of a core), 10 s each.
GST_PLUGIN_PATH=$B/plugins timeout 60 $B/pipelines/gcs-batch-stall-cpu --check \
  >"$OUT/stall-cpu.txt" 2>&1
echo "== summary (cudabatch, $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1))"
grep -E "^ *[0-9]+/[0-9]+ " "$OUT/tests.txt"
[ -z "$missing" ] || echo "not in this build:$missing"
echo "memcheck: $(grep -E '^ *[0-9]+/' "$OUT/memcheck.txt" | sed 's/  */ /g')"
grep -h "ERROR SUMMARY" $B/meson-logs/memcheck*.txt 2>/dev/null | sort | uniq -c
sed -n '/^SUMMARY/,$p' "$OUT/bench.txt" | grep -iE "batch" ||
  { echo "bench: no batch result (see $OUT/bench.txt)"; tail -5 "$OUT/bench.txt"; }
cat "$OUT/kernel.txt" 2>/dev/null || echo "kernel: no result (see $OUT/kernel-build.txt)"
grep SUMMARY "$OUT/stall-cpu.txt" 2>/dev/null || echo "stall-cpu: no result (see $OUT/stall-cpu.txt)"

#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# On the GPU machine: the run-time compiled converter kernels
# (gpu/convert_scale_rtc.h) in their background mode, where gcs-convert-time
# hung or crashed in some runs on an H200 (2026-11-30) while "wait" passed.
# Runs gcs-convert-time RUNS times in each VARIANT (an environment setting,
# "plain" for none), no disk cache (every process compiles), and says how
# each run ended; a run that crashes or hangs is run again under cuda-gdb
# (there is no gdb there), which prints every thread's stack.
# Variants that test the suspects:
#   CUDA_MODULE_LOADING=EAGER  kernels loaded at load, not at first launch
#                              (lazy loading may synchronise the context
#                              while a stream gate holds a stream)
#   GCS_TIME_UNGATED=1         no stream gates in the tool's timing
#   source .gpu/env.sh; OUT=/tmp/out scripts/gpu-rtc-debug.sh
set -u
cd "$(dirname "$0")/.."
B=${BUILD_DIR:-/tmp/gcs-kernel-iter}
OUT=${OUT:-/tmp/gcs-out}
RUNS=${RUNS:-3}
VARIANTS=${VARIANTS:-plain CUDA_MODULE_LOADING=EAGER GCS_TIME_UNGATED=1}
mkdir -p "$OUT"
[ -f $B/build.ninja ] || meson setup $B -Dgpu_archs=${ARCH:-90} > "$OUT/setup.txt" 2>&1 ||
  { tail -30 "$OUT/setup.txt"; exit 1; }
ninja -C $B pipelines/gcs-convert-time > "$OUT/build.txt" 2>&1 ||
  { grep -B2 -A12 "error" "$OUT/build.txt" | head -60; exit 1; }
export GST_CS_CONVERT_RTC_REPORT=1 GST_CS_CONVERT_RTC_CACHE=
for v in $VARIANTS; do
  envs=()
  [ "$v" = plain ] || envs=("$v")
  for i in $(seq "$RUNS"); do
    log="$OUT/run-${v%%=*}-$i.txt"
    t=$SECONDS
    env "${envs[@]}" timeout 60 "$B/pipelines/gcs-convert-time" > "$log" 2>&1
    rc=$?
    echo "$v run $i: exit $rc in $((SECONDS - t)) s, $(grep -c CONVERT-TIME "$log") rows;" \
      "$(grep -h 'convert rtc' "$log")"
    if [ $rc -ne 0 ]; then
      # SIGINT after 50 s stops a hung run; cuda-gdb then prints the stacks.
      env "${envs[@]}" timeout -s INT 50 cuda-gdb -q -batch -ex run -ex "info threads" \
        -ex "thread apply all bt 25" --args "$B/pipelines/gcs-convert-time" \
        > "$OUT/gdb-${v%%=*}-$i.txt" 2>&1
      grep -E "^Thread|^#[0-9]+ |signal|SIG" "$OUT/gdb-${v%%=*}-$i.txt" | head -60
    fi
  done
done

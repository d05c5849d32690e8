#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# On the GPU machine, one iteration on the converter's kernels in one call:
# builds what it needs for one architecture, runs the converter's GPU suite
# (every frame against the CPU twin, bit for bit), then times every row of
# pipelines/convert_rows.txt (gcs-convert-time: the kernel beside a device
# copy of its bytes). SWEEP="VAR=a,b,c" times the rows again for each value
# of an environment variable that a launch reads while it is tuned.
# EXTRA_ROWS: further rows files timed after the matrix (default
# scripts/convert_rows_turned.txt; EXTRA_ROWS= for none).
# The built kernels beside those compiled at run time for each conversion:
# SWEEP="GST_CS_CONVERT_RTC=0,wait".
#   source .gpu/env.sh; OUT=/tmp/out scripts/gpu-kernel-iter.sh
set -u
cd "$(dirname "$0")/.."
B=${BUILD_DIR:-/tmp/gcs-kernel-iter}
OUT=${OUT:-/tmp/gcs-out}
mkdir -p "$OUT"
t0=$SECONDS
[ -f $B/build.ninja ] || meson setup $B -Dgpu_archs=${ARCH:-90} > "$OUT/setup.txt" 2>&1 ||
  { tail -30 "$OUT/setup.txt"; exit 1; }
ninja -C $B pipelines/gcs-convert-time tests/test_convertscale_gpu plugins/libgstcudastreams.so \
  tests/test_convert_rtc_compile tests/test_convert_formats_gpu tests/test-run-apart-peer \
  gpu/gcs-rtc-compile \
  > "$OUT/build.txt" 2>&1 || { grep -B2 -A12 "error" "$OUT/build.txt" | head -60; exit 1; }
echo "built in $((SECONDS - t0)) s"
# The same comparisons with kernels compiled at run time for each
# conversion (gpu/convert_scale_rtc.h), and their source through NVRTC.
# SKIP_TESTS=1: not them (a call that only profiles or times).
if [ -z "${SKIP_TESTS:-}" ]; then
  timeout 400 meson test -C $B --no-rebuild convertscale_gpu convertscale_rtc_gpu \
    convert_formats_gpu convert_rtc_compile --print-errorlogs > "$OUT/test.txt" 2>&1
  grep -hE "Checks:|:F:|Ok:|Fail:|Timeout:|^rtc: " "$OUT/test.txt" $B/meson-logs/testlog.txt |
    sort -u | head -14
fi
table () {
  python3 -c '
import json, sys
for line in sys.stdin:
    if line.startswith("CONVERT-TIME "):
        r = json.loads(line[13:])
        print("%-36s %-14s %8.2f %7.2f %5.2fx" % (r["row"], r.get("path", ""), r["kernel_us"],
              r["copy_us"], r["kernel_us"] / r["copy_us"]))'
}
# Each timing run is bounded: the background compiler of the run-time
# kernels once hung it (docs/cudaconvertscale.md).
timeout 120 $B/pipelines/gcs-convert-time > "$OUT/time.txt" 2>&1 ||
  echo "gcs-convert-time: exit $? (124: stopped after 120 s)"
echo "row                                  path            kernel    copy  ratio"
table < "$OUT/time.txt"
for rows in ${EXTRA_ROWS-scripts/convert_rows_turned.txt}; do
  echo "== $rows"
  timeout 120 $B/pipelines/gcs-convert-time --rows "$rows" 2>&1 | tee -a "$OUT/time.txt" | table
done
if [ -n "${SWEEP:-}" ]; then
  var=${SWEEP%%=*}
  for v in $(echo "${SWEEP#*=}" | tr , ' '); do
    echo "== $var=$v"
    env "$var=$v" timeout 120 $B/pipelines/gcs-convert-time ${SWEEP_ROWS:-} 2>&1 | table
  done
fi
# PROFILE_ROWS: Nsight Compute on those rows' kernels (one launch each),
# rows of pipelines/convert_rows.txt or of PROFILE_ROWS_FILE (e.g.
# pipelines/convert_matrix.txt, the matrix's rows).
# Stall reasons per issued instruction, and instructions per pipe.
METRICS=smsp__inst_executed.sum,smsp__thread_inst_executed.sum
for k in long_scoreboard short_scoreboard math_pipe_throttle mio_throttle lg_throttle wait \
  barrier not_selected tex_throttle dispatch_stall no_instruction; do
  METRICS=$METRICS,smsp__average_warps_issue_stalled_${k}_per_issue_active.ratio
done
for k in lsu alu fma fmaheavy xu adu uniform; do
  METRICS=$METRICS,smsp__inst_executed_pipe_$k.sum
done
for row in ${PROFILE_ROWS:-}; do
  ncu --kernel-name regex:convert_scale --launch-skip 5 --launch-count 1 \
    --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats \
    --section MemoryWorkloadAnalysis --section ComputeWorkloadAnalysis \
    --section InstructionStats --metrics $METRICS \
    $B/pipelines/gcs-convert-time ${PROFILE_ROWS_FILE:+--rows "$PROFILE_ROWS_FILE"} "$row" \
    > "$OUT/ncu-$row.txt" 2>&1
  echo "== $row"
  grep -E "Duration|Registers Per|Achieved Occupancy|inst_executed|Memory Throughput|DRAM Throughput|L1/TEX Hit|Warp Cycles Per Issued|Grid Size|Stall|Issue Slots Busy|SM Busy|pipeline|Pipe|stalled|pipe_" "$OUT/ncu-$row.txt" | head -44
done
echo "done in $((SECONDS - t0)) s"

#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# On the GPU machine: Nsight Compute on the convert-scale kernel of the
# gcs-convert-time rows named in PROFILE_ROWS (one launch each), into
# $OUT/profile. For working on the kernel's speed; the benchmark figures
# come from pipelines/bench.
#   OUT=/tmp/out [PROFILE_ROWS="ROW..."] [PROFILE_ROWS_FILE=FILE] scripts/gpu-profile-convert.sh
# Prints, for each row, its occupancy, the busiest pipes, the kinds of
# its instructions and its main stalls.
set -u
cd "$(dirname "$0")/.." || exit 1
OUT=${OUT:-/tmp/gcs-out}
P=$OUT/profile
mkdir -p "$P"
source .gpu/env.sh
BB=${BUILD_DIR:-/tmp/gcs-prof-build}
[ -f "$BB"/build.ninja ] || meson setup "$BB" -Dgpu_archs=90 -Dtests=disabled -Dbuildtype=release > /dev/null
ninja -C "$BB" pipelines/gcs-convert-time gpu/gcs-rtc-compile > "$P"/build.txt 2>&1 || { tail -30 "$P"/build.txt; exit 1; }
# The kernels compiled for each conversion, as elements run them once
# compiled (GST_CS_CONVERT_RTC=0: the built ones).
export GST_CS_CONVERT_RTC=${GST_CS_CONVERT_RTC-wait}
rows_opt=()
[ -n "${PROFILE_ROWS_FILE:-}" ] && rows_opt=(--rows "$PROFILE_ROWS_FILE")
"$BB"/pipelines/gcs-convert-time "${rows_opt[@]}" > "$P"/time.txt
# One row per process (PROFILE_ROWS: names of pipelines/convert_rows.txt,
# or of PROFILE_ROWS_FILE);
# its launches: 1 checked, 10 untimed, 200 timed, 200 for the CPU time.
for row in ${PROFILE_ROWS:-nv12-4k-nv12-1080p rgba-720p-rgba-1080p}; do
  ncu --kernel-name regex:convert_scale --launch-skip 5 --launch-count 1 \
    --section SpeedOfLight --section Occupancy --section LaunchStats --section InstructionStats \
    --section WarpStateStats --section SchedulerStats --section MemoryWorkloadAnalysis \
    --metrics smsp__inst_executed.sum,smsp__sass_inst_executed_op_global_ld.sum,smsp__sass_inst_executed_op_global_st.sum,smsp__sass_thread_inst_executed_op_conversion_pred_on.sum,smsp__sass_thread_inst_executed_op_fp32_pred_on.sum,smsp__sass_thread_inst_executed_op_integer_pred_on.sum,smsp__sass_thread_inst_executed_op_memory_pred_on.sum,regex:sm__inst_executed_pipe_.*\.avg\.pct_of_peak_sustained_active,regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio \
    "$BB"/pipelines/gcs-convert-time "${rows_opt[@]}" "$row" > "$P"/$row.txt 2>&1
  echo "== $row"
  grep -E "Duration|Registers Per|Achieved Occupancy|Executed Ipc A|inst_executed|Issue Slots Busy|Memory Throughput|DRAM Throughput|L1/TEX Hit|No Eligible|Warp Cycles Per Issued|Block Size|Grid Size" "$P/$row.txt" | head -18
  # Pipes above 5 % of their peak, the instruction kinds, stalls above 0.5 cycles an issue.
  awk '/pipe_.*pct_of_peak/ && $NF+0 > 5 {print} /op_(conversion|fp32|integer|memory)_pred_on/ {print} /issue_stalled_.*ratio/ && $NF+0 > 0.5 {print}' "$P/$row.txt"
done

#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# On the GPU machine: Nsight Compute on the convert-scale kernel of each
# gcs-convert-time row (one launch per row), with the kernel's SASS and
# per-instruction counts, into $OUT/profile. For working on the kernel's
# speed; the benchmark figures come from pipelines/bench.
#   OUT=/tmp/out scripts/gpu-profile-convert.sh
set -u
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/gcs-out}
P=$OUT/profile
mkdir -p "$P"
source .gpu/env.sh
BB=${BUILD_DIR:-/tmp/gcs-prof-build}
[ -f $BB/build.ninja ] || meson setup $BB -Dgpu_archs=90 -Dtests=disabled -Dbuildtype=release > /dev/null
ninja -C $BB pipelines/gcs-convert-time > $P/build.txt 2>&1 || { tail -30 $P/build.txt; exit 1; }
$BB/pipelines/gcs-convert-time | tee $P/time.txt
# Each row launches the kernel 411 times (1 checked, 10 untimed, 200 timed,
# 200 for the CPU time).
row=0
for skip in 5 416 827 1238; do
  ncu --kernel-name regex:convert_scale --launch-skip $skip --launch-count 1 \
    --section SpeedOfLight --section Occupancy --section LaunchStats --section InstructionStats \
    --section WarpStateStats --section SchedulerStats --section MemoryWorkloadAnalysis \
    --metrics smsp__inst_executed.sum,smsp__sass_inst_executed_op_global_ld.sum,smsp__sass_inst_executed_op_global_st.sum \
    $BB/pipelines/gcs-convert-time > $P/row$row.txt 2>&1
  ncu --kernel-name regex:convert_scale --launch-skip $skip --launch-count 1 \
    --section SourceCounters --import-source no --page source --print-source sass --csv \
    $BB/pipelines/gcs-convert-time > $P/row$row-sass.csv 2>&1
  row=$((row + 1))
done
for f in $P/row?.txt; do
  echo "== $f"
  grep -E "Duration|Registers Per|Achieved Occupancy|Executed Ipc A|inst_executed|Issue Slots Busy|Memory Throughput|No Eligible|Warp Cycles Per Issued" $f | head -14
done

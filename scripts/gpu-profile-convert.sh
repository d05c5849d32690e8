#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# On the GPU machine: Nsight Compute on the convert-scale kernel of the
# gcs-convert-time rows named in PROFILE_ROWS (one launch each), into
# $OUT/profile. For working on the kernel's speed; the benchmark figures
# come from pipelines/bench.
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
$BB/pipelines/gcs-convert-time > $P/time.txt
# One row per process (PROFILE_ROWS: names of pipelines/convert_rows.txt);
# its launches: 1 checked, 10 untimed, 200 timed, 200 for the CPU time.
for row in ${PROFILE_ROWS:-nv12-4k-nv12-1080p rgba-720p-rgba-1080p}; do
  ncu --kernel-name regex:convert_scale --launch-skip 5 --launch-count 1 \
    --section SpeedOfLight --section Occupancy --section LaunchStats --section InstructionStats \
    --section WarpStateStats --section SchedulerStats --section MemoryWorkloadAnalysis \
    --metrics smsp__inst_executed.sum,smsp__sass_inst_executed_op_global_ld.sum,smsp__sass_inst_executed_op_global_st.sum \
    $BB/pipelines/gcs-convert-time "$row" > $P/$row.txt 2>&1
  echo "== $row"
  grep -E "Duration|Registers Per|Achieved Occupancy|Executed Ipc A|inst_executed|Issue Slots Busy|Memory Throughput|DRAM Throughput|L1/TEX Hit|No Eligible|Warp Cycles Per Issued|Block Size|Grid Size" $P/$row.txt | head -18
done

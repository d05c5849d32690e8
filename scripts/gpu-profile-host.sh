#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# On the GPU machine: where the time goes. The build of one GPU
# architecture (seconds, and the slowest files from ninja's log), then the
# benchmark's host-cost and cudaconvertscale rows beside nvcodec 1.28.6
# (.gst-dist: a copy of ../shared/gst), each case's process sampled
# (BENCH_PROFILE, pipelines/sampler.c), then Nsight Compute on the kernels
# of PROFILE_ROWS. Results in $OUT (profile.tgz: the per-case reports).
#   OUT=/tmp/out scripts/gpu-profile-host.sh
set -u
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/gcs-out}
mkdir -p "$OUT"
source .gpu/env.sh; .gst-dist/use 1.28.6 /tmp/gst-1.28.6 > /dev/null 2>&1
B=/tmp/gcs-prof-build
t0=$(date +%s.%N)
meson setup $B -Dgpu_archs=90 -Dtests=disabled -Dbuildtype=debugoptimized > $OUT/build.log 2>&1 &&
  ninja -C $B >> $OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
t1=$(date +%s.%N)
echo "BUILD one architecture (sm_90, $(nproc) cores, debugoptimized): $(python3 -c "print(round($t1 - $t0, 1))") s"
awk 'NR > 1 { printf "%8.1f s  %s\n", ($2 - $1) / 1000, $4 }' $B/.ninja_log | sort -rn | head -8
BUILD_DIR=$B OUT=$OUT/bench BENCH_SECONDS=${BENCH_SECONDS:-1} BENCH_PROFILE=1 \
  BENCH_ONLY="${BENCH_ONLY:-^(ours|nvcodec-[0-9.]*) (host|convert)}" BENCH_PEER_GST=/tmp/gst-1.28.6 \
  pipelines/bench > $OUT/bench.txt 2>&1
grep -E "^  (ours|nvcodec).* host-" $OUT/bench.txt
sed -n '/^row /,/^cudaconvertscale vs/p' $OUT/bench.txt
grep "misses:" $OUT/bench.txt | sort -u | head -40
cp $OUT/bench/convert-benchmark.csv $OUT/bench/convert-benchmark.png $OUT/ 2> /dev/null
# Nsight Compute on the kernels of PROFILE_ROWS (scripts/gpu-profile-convert.sh).
[ -n "${PROFILE_ROWS:-}" ] && BUILD_DIR=$B OUT=$OUT scripts/gpu-profile-convert.sh
tar czf $OUT/profile.tgz -C $OUT bench/profile profile 2> /dev/null

#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# On the GPU machine: where a converter frame's time goes, ours beside
# nvcodec 1.28.6's (.gst-dist: a copy of ../shared/gst). One build of one
# GPU architecture; then
#  - gcs-frame-cost: the host and GPU cost of a frame's CUDA commands;
#  - the convert rows of pipelines/bench with CUPTI's kernel records
#    (BENCH_CUPTI): per row the frame time beside the GPU's kernel time and
#    its start-to-start period (pipelines/cupti_rows.py);
#  - the host-cost rows, each process sampled (BENCH_PROFILE);
#  - gcs-convert-time: each row's kernel alone beside a copy of its bytes.
# Results in $OUT.   OUT=/tmp/out scripts/gpu-diagnose.sh
set -u
cd "$(dirname "$0")/.."
ROOT=$PWD
OUT=${OUT:-/tmp/gcs-out}
mkdir -p "$OUT"
source .gpu/env.sh; .gst-dist/use 1.28.6 /tmp/gst-1.28.6 > /dev/null 2>&1
B=${BUILD_DIR:-/tmp/gcs-diag-build}
t0=$SECONDS
{ [ -f $B/build.ninja ] || meson setup $B -Dgpu_archs=90 -Dtests=disabled \
    -Dbuildtype=debugoptimized; } > $OUT/build.log 2>&1 &&
  ninja -C $B >> $OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
echo "BUILD: $((SECONDS - t0)) s"
$B/pipelines/gcs-frame-cost > $OUT/frame-cost.txt 2>&1
grep -v '^FRAME-COST' $OUT/frame-cost.txt | tail -20
common=(BUILD_DIR=$B BENCH_SECONDS=${BENCH_SECONDS:-0.6} BENCH_WARMUP=0.3
  BENCH_PEER_GST=/tmp/gst-1.28.6)
env "${common[@]}" OUT=$OUT/cupti BENCH_CUPTI=1 \
  BENCH_ONLY="${ROWS:-^(ours|nvcodec-[0-9.]*) convert}" pipelines/bench > $OUT/cupti.txt 2>&1
echo "CUPTI rows: $((SECONDS - t0)) s"
python3 pipelines/cupti_rows.py $OUT/cupti/raw_convert.jsonl $OUT/cupti/cupti | tee $OUT/cupti-rows.txt
env "${common[@]}" OUT=$OUT/prof BENCH_PROFILE=1 BENCH_ONLY="^(ours|nvcodec-[0-9.]*) host" \
  pipelines/bench > $OUT/prof.txt 2>&1
grep -E "^  (ours|nvcodec).* host-" $OUT/prof.txt
for f in $OUT/prof/profile/ours-host-convert-*.txt $OUT/prof/profile/nvcodec*-host-convert-*.txt; do
  [ -f "$f" ] && { echo "== $f"; sed -n '1,60p' "$f"; }
done > $OUT/host-profile.txt
tar czf $OUT/profiles.tgz -C $OUT/prof profile 2> /dev/null
echo "done in $((SECONDS - t0)) s"

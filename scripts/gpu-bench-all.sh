#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# On the GPU machine, after scripts/gpu-final.sh (its bundle build in
# BUILD_DIR): the figures of the open issues in one call, alone on the
# machine: the cudaconvertscale matrix beside nvcodec 1.28.6 (pipelines/
# bench, rows convert-* and host-*, and gcs-convert-time), the tracer's
# checks (scripts/gpu-tracer.sh) and cudabatch's rows (BENCH_ONLY=batch).
# The files worth keeping are copied to $OUT; the rest stays in $W.
#   OUT=/tmp/out scripts/gpu-bench-all.sh
set -u
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/gcs-out}
W=${WORK_DIR:-/tmp/gcs-bench-all}
B=${BUILD_DIR:-/tmp/gcs-build}
mkdir -p "$OUT" "$W"
source .gpu/env.sh
[ -d /tmp/gst-1.28.6 ] || .gst-dist/use 1.28.6 /tmp/gst-1.28.6 > /dev/null 2>&1
t0=$SECONDS
ninja -C $B > "$W/build.txt" 2>&1 || { tail -20 "$W/build.txt"; exit 1; }
BUILD_DIR=$B OUT=$W/convert BENCH_SECONDS=${BENCH_SECONDS:-1} \
  BENCH_ONLY="^(ours|nvcodec-[0-9.]*) (host|convert)" BENCH_PEER_GST=/tmp/gst-1.28.6 \
  timeout 330 pipelines/bench > "$W/convert.txt" 2>&1
echo "== convert matrix: exit $? after $((SECONDS - t0)) s"
cp "$W/convert/convert-benchmark.csv" "$W/convert/convert-benchmark.png" "$OUT/" 2> /dev/null
sed -n '/^row /,/^cudaconvertscale vs/p' "$W/convert.txt" > "$OUT/convert-table.txt"
grep -E "^  (ours|nvcodec).* host-" "$W/convert.txt" >> "$OUT/convert-table.txt"
tail -4 "$OUT/convert-table.txt"
BUILD_DIR=$B OUT=$W/tracer timeout 200 scripts/gpu-tracer.sh > "$W/tracer.txt" 2>&1
echo "== tracer: exit $? after $((SECONDS - t0)) s"
cp "$W/tracer/summary.txt" "$OUT/tracer-summary.txt" 2> /dev/null
cat "$W/tracer/summary-full.txt" >> "$OUT/tracer-summary.txt" 2> /dev/null
cp "$W/tracer/timeline.png" "$OUT/tracer-timeline.png" 2> /dev/null
grep -E "^TRACER (truth|overhead|[0-9])" "$W/tracer/summary.txt"
BUILD_DIR=$B BENCH_ONLY=batch OUT=$W/batch timeout 200 pipelines/bench > "$W/batch.txt" 2>&1
echo "== batch: exit $? after $((SECONDS - t0)) s"
sed -n '/^SUMMARY/,$p' "$W/batch.txt" | grep -iE "batch" | tee "$OUT/batch.txt"
# cudabatch's GPU time per batch as the GPU ran it (CUPTI).
scripts/batch-cupti.sh $B "$OUT" | tee -a "$OUT/batch.txt"

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
# cudabatch's GPU time per batch as the GPU ran it (CUPTI's records of the
# same run, pipelines/cupti_truth.cpp): 300 batches of the batch-device row.
if [ -f "$B/pipelines/libgcs-cupti-truth.so" ]; then
  srcs=""
  for i in $(seq 0 15); do
    srcs="$srcs videotestsrc num-buffers=1 pattern=$((i % 20)) ! video/x-raw,format=NV12,width=1920,height=1080,framerate=30/1 ! cudaupload ! imagefreeze num-buffers=300 ! b.sink_$i"
  done
  # shellcheck disable=SC2086
  CUDA_INJECTION64_PATH=$B/pipelines/libgcs-cupti-truth.so GCS_CUPTI_OUT=$OUT/batch-cupti.json \
    GST_PLUGIN_PATH=$B/plugins timeout 120 gst-launch-1.0 -q $srcs cudabatch name=b batch-size=16 \
    width=640 height=640 dtype=float16 ! fakesink > "$W/batch-cupti.log" 2>&1
  python3 - "$OUT/batch-cupti.json" << 'PY' | tee -a "$OUT/batch.txt"
import json, sys
d = json.load(open(sys.argv[1]))
k, batches = d["kernels"], 300
# Kernels of one batch overlap (the slots' lanes): the time any kernel ran.
busy = d.get("kernels_busy_us", 0) / batches
parts = ", ".join(f"{name[:60]}: {v['n']} x {v['p50_us']:.2f} us" for name, v in k.items())
print(f"batch GPU time (CUPTI, 16 x 1080p NV12 -> 16 x 3 x 640 x 640 float16): {busy:.1f} us "
      f"per batch with a kernel running ({parts})")
PY
fi

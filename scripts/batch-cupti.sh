#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# On the GPU machine: cudabatch's GPU time per batch as the GPU ran it
# (CUPTI's records of the run, pipelines/cupti_truth.cpp): 300 batches of
# the batch-device row (16 device-resident 1080p NV12 frames -> 16 x 3 x
# 640 x 640 float16, letterboxed). Prints one line; writes the records to
# $OUT/batch-cupti.json.
#   scripts/batch-cupti.sh BUILD_DIR OUT
set -u
B=$1 OUT=$2
[ -f "$B/pipelines/libgcs-cupti-truth.so" ] || { echo "batch GPU time: no CUPTI library in $B"; exit 0; }
srcs=""
for i in $(seq 0 15); do
  srcs="$srcs videotestsrc num-buffers=1 pattern=$((i % 20)) ! video/x-raw,format=NV12,width=1920,height=1080,framerate=30/1 ! cudaupload ! imagefreeze num-buffers=300 ! b.sink_$i"
done
# shellcheck disable=SC2086
CUDA_INJECTION64_PATH=$B/pipelines/libgcs-cupti-truth.so GCS_CUPTI_OUT=$OUT/batch-cupti.json \
  GST_PLUGIN_PATH=$B/plugins timeout 120 gst-launch-1.0 -q $srcs cudabatch name=b batch-size=16 \
  width=640 height=640 dtype=float16 ! fakesink > "$OUT/batch-cupti.log" 2>&1
python3 - "$OUT/batch-cupti.json" << 'PY'
import json, sys
d = json.load(open(sys.argv[1]))
k, batches = d["kernels"], 300
# Kernels of one batch may overlap: the time any kernel ran.
busy = d.get("kernels_busy_us", 0) / batches
parts = ", ".join(f"{name[:60]}: {v['n']} x {v['p50_us']:.2f} us" for name, v in k.items())
print(f"batch GPU time (CUPTI, 16 x 1080p NV12 -> 16 x 3 x 640 x 640 float16): {busy:.1f} us "
      f"per batch with a kernel running ({parts})")
PY

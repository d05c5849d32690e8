#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Each element's own per-frame host path in instructions, on the CUDA
# stand-in (no GPU): callgrind counts what runs inside the element's
# submit_input_buffer and generate_output (GstCsBaseTransform's wrappers,
# the stand-in's CUDA calls included) over FRAMES frames of 320x240 NV12
# pushed by imagefreeze, and prints instructions per frame. Counts repeat
# exactly for the same build, so two builds compare without the noise of
# timing (pipelines/bench's host-* rows time the real thing on a GPU).
#   scripts/host-instructions.sh BUILD_DIR    # a build with the stand-in (tests on)
set -eu
B=${1:?a build directory with tests/fakecuda/plugin}
FRAMES=${FRAMES:-2000}
export GST_PLUGIN_PATH=$B/tests/fakecuda/plugin GST_REGISTRY_1_0=$(mktemp -u)
export FAKECUDA_DEVICES=1
trap 'rm -f "$GST_REGISTRY_1_0" /tmp/gcs-hi.$$.*' EXIT
src="videotestsrc num-buffers=1 ! video/x-raw,format=NV12,width=320,height=240,framerate=30/1"
declare -A rows=(
  [upload]="$src ! imagefreeze num-buffers=$FRAMES ! cudaupload ! fakesink"
  [crop]="$src ! cudaupload ! imagefreeze num-buffers=$FRAMES ! cudacrop left=16 top=8 ! fakesink"
  [convert]="$src ! cudaupload ! imagefreeze num-buffers=$FRAMES ! cudaconvertscale ! video/x-raw(memory:CUDAStreamsMemory),format=RGBA,width=160,height=120 ! fakesink"
  [download]="$src ! cudaupload ! imagefreeze num-buffers=$FRAMES ! cudadownload ! fakesink"
)
for e in upload crop convert download; do
  out=/tmp/gcs-hi.$$.$e
  # shellcheck disable=SC2086
  valgrind --tool=callgrind --callgrind-out-file="$out" \
    --toggle-collect='gst_cs_base_transform_generate_output*' \
    --toggle-collect='gst_cs_base_transform_submit_input_buffer*' \
    gst-launch-1.0 -q ${rows[$e]} > /dev/null 2>&1
  total=$(callgrind_annotate "$out" 2> /dev/null | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1 }')
  echo "$e $((total / FRAMES))"
done

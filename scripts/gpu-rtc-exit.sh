#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# On the GPU machine: processes that exit while the converter's run-time
# compile (gpu/convert_scale_rtc.h) is under way. On an H200 (2026-11-30,
# commit 49c1617, GStreamer 1.28.6) `gcs-launch-time` on 300 frames of NV12
# turned ul-lr, each run with an empty cache, printed its result and then
# hung at exit (2 of 4) or aborted on "corrupted double-linked list" (1 of
# 4). Runs each of DIRECTIONS RUNS times, a fresh GST_CS_CONVERT_RTC_CACHE
# each, and says how each ended (exit 124: still running after 30 s); a
# run that hangs is run again under cuda-gdb (there is no gdb there),
# stopped after 20 s, which prints every thread's stack.
#   OUT=/tmp/out scripts/gpu-rtc-exit.sh
# Env: GST_VERSION (another GStreamer than the bundle's 1.22, from
#   .gst-dist/; the defect was seen on 1.28.6), BUILD_DIR (a release build
#   with pipelines/gcs-launch-time; made here if absent), RUNS (4),
#   DIRECTIONS ("ul-lr 90r"), FRAMES (300).
set -u
cd "$(dirname "$0")/.." || exit 1
# shellcheck source=scripts/gpu-gst-env.sh
source scripts/gpu-gst-env.sh || exit 1
B=${BUILD_DIR:-/tmp/gcs-rtc-exit${GST_VERSION:+-$GST_VERSION}}
OUT=${OUT:-/tmp/gcs-out}
N=${FRAMES:-300}
mkdir -p "$OUT"
[ -f "$B/build.ninja" ] || meson setup "$B" -Dgpu_archs="${ARCH:-90}" -Dtests=disabled \
  -Dbuildtype=release "${gst_link_args[@]}" > "$OUT/setup.txt" 2>&1 || { tail -30 "$OUT/setup.txt"; exit 1; }
ninja -C "$B" > "$OUT/build.txt" 2>&1 || { grep -B2 -A12 "error" "$OUT/build.txt" | head -60; exit 1; }
export GST_PLUGIN_PATH=$B/plugins GST_REGISTRY_1_0=$OUT/registry.bin GST_CS_CONVERT_RTC_REPORT=1
clean=0 bad=0
for i in $(seq "${RUNS:-4}"); do
  export GST_CS_CONVERT_RTC_CACHE=$OUT/cache-$i
  for d in ${DIRECTIONS:-ul-lr 90r}; do
    # shellcheck disable=SC2054 # commas of caps, not of the array
    cmd=("$B/pipelines/gcs-launch-time" --frames "$N" --timeout 20 -- videotestsrc num-buffers=1 !
      video/x-raw,format=NV12,width=1920,height=1080 ! cudastreamsupload !
      imagefreeze num-buffers="$N" ! cudastreamsconvertscale video-direction="$d" !
      "video/x-raw(memory:CUDAStreamsMemory),format=NV12,width=1080,height=1920" !
      fakesink sync=false)
    log="$OUT/run-$d-$i.txt"
    timeout 30 "${cmd[@]}" > "$log" 2>&1
    rc=$?
    echo "run $i $d: exit $rc; $(grep -o 'LAUNCH.*' "$log" | cut -c1-60) $(grep -h 'convert rtc' "$log") $(grep -h 'corrupted\|Abort\|free()' "$log" | head -1)"
    if [ $rc -eq 0 ]; then clean=$((clean + 1)); else bad=$((bad + 1)); fi
    if [ $rc -eq 124 ]; then
      export GST_CS_CONVERT_RTC_CACHE=$OUT/cache-$i-gdb
      timeout -s INT 20 cuda-gdb -q -batch -ex run -ex "info threads" \
        -ex "thread apply all bt 25" --args "${cmd[@]}" > "$OUT/gdb-$d-$i.txt" 2>&1
      grep -E "^Thread|^#[0-9]+ |signal|SIG" "$OUT/gdb-$d-$i.txt" | head -60
      export GST_CS_CONVERT_RTC_CACHE=$OUT/cache-$i
    fi
  done
done
echo "SUMMARY: $clean runs exited cleanly, $bad did not"
[ $bad -eq 0 ]

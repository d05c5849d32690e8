#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# On the GPU machine: processes that exit while the converter's run-time
# compile (gpu/convert_scale_rtc.h) is under way. On an H200 (2026-11-30,
# commit 49c1617, GStreamer 1.28.6) `gcs-launch-time` on 300 frames of NV12
# turned ul-lr, each run with an empty cache, printed its result and then
# hung at exit (2 of 4) or aborted on "corrupted double-linked list" (1 of
# 4). Runs each of DIRECTIONS in each of MODES RUNS times, a fresh
# GST_CS_CONVERT_RTC_CACHE each, and says how each ended (exit 124: still
# running after 10 s). Of a run that hangs: each thread's name, state and
# kernel wait, and every thread's stack by cuda-gdb (there is no gdb
# there) attached to it; of one that crashed, the stacks from its core.
#   OUT=/tmp/out scripts/gpu-rtc-exit.sh
# Env: GST_VERSION (another GStreamer than the bundle's 1.22, from
#   .gst-dist/; the defect was seen on 1.28.6), BUILD_DIR (a release build
#   with pipelines/gcs-launch-time; made here if absent), RUNS (4),
#   DIRECTIONS ("ul-lr 90r"), FRAMES (300), MODES (values of
#   GST_CS_CONVERT_RTC, "default" for unset: "default"), STACK_LINES (70).
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
# A crash leaves a core where the machine lets us say where (root on the
# GPU machine); cuda-gdb reads its stacks.
ulimit -c unlimited
echo "$OUT/core.%p" > /proc/sys/kernel/core_pattern 2> /dev/null
gdb_bin=$(command -v cuda-gdb || echo /usr/local/cuda/bin/cuda-gdb)
stacks() { grep -E "^Thread|^#[0-9]+ |signal|SIG" "$1" | cut -c1-200 | head -"${STACK_LINES:-70}"; }
clean=0 bad=0
for i in $(seq "${RUNS:-4}"); do
  for mode in ${MODES:-default}; do
    if [ "$mode" = default ]; then unset GST_CS_CONVERT_RTC; else export GST_CS_CONVERT_RTC=$mode; fi
    export GST_CS_CONVERT_RTC_CACHE=$OUT/cache-$i-$mode
    for d in ${DIRECTIONS:-ul-lr 90r}; do
      # shellcheck disable=SC2054 # commas of caps, not of the array
      cmd=("$B/pipelines/gcs-launch-time" --frames "$N" --timeout 20 -- videotestsrc num-buffers=1 !
        video/x-raw,format=NV12,width=1920,height=1080 ! cudastreamsupload !
        imagefreeze num-buffers="$N" ! cudastreamsconvertscale video-direction="$d" !
        "video/x-raw(memory:CUDAStreamsMemory),format=NV12,width=1080,height=1920" !
        fakesink sync=false)
      log="$OUT/run-$mode-$d-$i.txt"
      "${cmd[@]}" > "$log" 2>&1 &
      pid=$!
      # A process still there 10 s after it began is hung (a run takes
      # under 2 s): what its threads wait for is recorded, and cuda-gdb
      # tries to attach to it as it is (run under the debugger from its
      # start, it did not hang); then it is killed.
      t=0
      while kill -0 $pid 2> /dev/null && [ $t -lt 100 ]; do sleep 0.1; t=$((t + 1)); done
      hung=0
      if kill -0 $pid 2> /dev/null; then
        hung=1
        # Each thread's name, state and where the kernel has it wait, and
        # the process's children (cuda-gdb may not be let attach).
        for task in "/proc/$pid/task/"*; do
          echo "  thread $(basename "$task") $(cat "$task/comm") $(awk '{print $3}' "$task/stat")" \
            "wchan=$(cat "$task/wchan" 2> /dev/null) syscall=$(cut -d' ' -f1 "$task/syscall" 2> /dev/null)"
        done > "$OUT/threads-$mode-$d-$i.txt"
        pgrep -P $pid -a >> "$OUT/threads-$mode-$d-$i.txt"
        timeout 20 "$gdb_bin" -q -batch -p $pid -ex "info threads" -ex "thread apply all bt 30" \
          > "$OUT/gdb-$mode-$d-$i.txt" 2>&1
        kill -9 $pid 2> /dev/null
      fi
      wait $pid
      rc=$?
      [ $hung = 1 ] && rc=124
      echo "run $i $mode $d: exit $rc; $(grep -o 'LAUNCH.*' "$log" | cut -c1-50) $(grep -h 'convert rtc' "$log") $(grep -h 'corrupted\|Abort\|free()' "$log" | head -1)"
      if [ $rc -eq 0 ]; then clean=$((clean + 1)); else bad=$((bad + 1)); fi
      [ $hung = 1 ] && { cat "$OUT/threads-$mode-$d-$i.txt"; stacks "$OUT/gdb-$mode-$d-$i.txt"; }
      core=$OUT/core.$pid
      if [ -f "$core" ]; then
        timeout 60 "$gdb_bin" -q -batch -ex "info threads" -ex "thread apply all bt 30" \
          "${cmd[0]}" "$core" > "$OUT/gdb-core-$mode-$d-$i.txt" 2>&1
        stacks "$OUT/gdb-core-$mode-$d-$i.txt"
        rm -f "$core"
      fi
    done
  done
done
echo "SUMMARY: $clean runs exited cleanly, $bad did not"
[ $bad -eq 0 ]

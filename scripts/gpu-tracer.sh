#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# On the GPU machine, the cudastreams tracer (issue 37) in one call, within
# about 5 minutes and about a minute of GPU work:
#  1. builds (-Dgpu_archs=90) and runs the tracer's tests (tracer_gpu and
#     stream_gate_gpu on the GPU, their _fake twins on the stand-in);
#  2. the truth: each element's GPU µs/frame by the tracer (median and mean,
#     one frame in 32 timed, gated as by default) beside the same work
#     timed one piece at a time, gated too, by gcs-convert-time --copies
#     (and ungated, for reference)
#     (row nv12-4k-rgba-1080p, 4K NV12 -> 1080p RGBA bilinear): the kernel
#     for cudaconvertscale (its back-to-back figure printed beside), the
#     input frame's pinned host-to-device copy for cudaupload, the output
#     frame's device-to-host copy for cudadownload; PASS within 5%
#     (pipelines/tracer_truth.py), on upload -> crop -> convertscale ->
#     download and on device-resident frames; then the same runs beside
#     the GPU's own account of them, CUPTI's activity records in the same
#     process (pipelines/cupti_truth.cpp), where the toolkit has CUPTI;
#     what an event span adds to a kernel of known length, and what CUPTI's
#     records would cost instead (gcs-cupti-cost); and beside nsys where
#     the machine has it;
#  3. the overhead: frames/s without and with the tracer, alternated in one
#     run, on the 1080p NV12 up->crop->down row run as 16 streams at once
#     (16 gcs-bench processes, one stream each) and on the device-resident
#     cudaconvertscale row (there also with CUPTI's records alone); PASS
#     at 3% fewer frames/s or less;
#  4. a trace file of a real run and its PNG timeline.
# Results in $OUT; a summary is printed last ("TRACER ..." lines, then the
# count of PASS and FAIL).
#   OUT=/tmp/out scripts/gpu-tracer.sh
set -u
cd "$(dirname "$0")/.."
ROOT=$PWD
OUT=${OUT:-/tmp/gcs-tracer-out}
mkdir -p "$OUT"
# shellcheck disable=SC1091
[ -f .gpu/env.sh ] && source .gpu/env.sh
B=${BUILD_DIR:-/tmp/gcs-tracer-build}
[ -f $B/build.ninja ] || meson setup $B -Dgpu_archs=90 -Dbuildtype=release \
  -Dpython_module=disabled > "$OUT/build.log" 2>&1
if ! ninja -C $B >> "$OUT/build.log" 2>&1; then
  grep -A5 error "$OUT/build.log" | head -30
  echo "TRACER build: failed"
  exit 1
fi
export GST_PLUGIN_PATH=$B/plugins GST_REGISTRY_1_0=$OUT/registry.bin
export GST_PLUGIN_LOADING_WHITELIST="gstreamer:gst-plugins-base:gst-plugins-good:gst-cudastreams"
SUMMARY=$OUT/summary.txt
: > "$SUMMARY"

# ---- 1. the tests ----
meson test -C $B --no-rebuild --print-errorlogs tracer_gpu tracer_fake stream_gate_gpu \
  stream_gate_gpu_fake stream_gate_gpu_fake_refused > "$OUT/tests.txt" 2>&1
echo "TRACER tests: $(grep -E '^ *[0-9]+/[0-9]+ ' "$OUT/tests.txt" | awk '{print $4"="$5}' | tr '\n' ' ')" >> "$SUMMARY"

# ---- 2. the truth ----
CAPS_IN="video/x-raw,format=NV12,width=3840,height=2160,framerate=1000/1"
CAPS_OUT="video/x-raw(memory:CUDAStreamsMemory),format=RGBA,width=1920,height=1080"
FULL="videotestsrc num-buffers=300 ! $CAPS_IN ! cudaupload name=up ! cudacrop name=crop ! cudaconvertscale name=cs ! $CAPS_OUT ! cudadownload name=down ! fakesink"
RESIDENT="videotestsrc num-buffers=1 ! $CAPS_IN ! cudaupload ! imagefreeze num-buffers=2000 ! cudaconvertscale name=cs ! $CAPS_OUT ! fakesink"
# The truth timed as the tracer times by default (behind a gate: the GPU's
# work alone), and without one for reference (the launch's latency inside).
"$B/pipelines/gcs-convert-time" --copies nv12-4k-rgba-1080p > "$OUT/convert_time.txt" 2>&1
GCS_TIME_UNGATED=1 "$B/pipelines/gcs-convert-time" --copies nv12-4k-rgba-1080p \
  > "$OUT/convert_time_ungated.txt" 2>&1
kernel=$(sed -n 's/.*"kernel_one_us":\([0-9.]*\).*/\1/p' "$OUT/convert_time.txt" | head -1)
echo "TRACER truth ungated (launch latency included, for reference): $(grep -o '"kernel_one_us":[0-9.]*\|"gated":[a-z]*\|"up_us":[0-9.]*\|"down_us":[0-9.]*' "$OUT/convert_time_ungated.txt" | tr '\n' ' ')" >> "$SUMMARY"
for run in full resident; do
  desc=$FULL; [ $run = resident ] && desc=$RESIDENT
  # shellcheck disable=SC2086
  GST_DEBUG=GST_TRACER:7 GST_TRACERS="cudastreamstrace(print=true)" timeout 120 \
    gst-launch-1.0 -q $desc > "$OUT/truth-$run.log" 2>&1
  pairs="cs=kernel_one_us"
  [ $run = full ] && pairs="up=up_us cs=kernel_one_us down=down_us"
  # shellcheck disable=SC2086
  python3 "$ROOT/pipelines/tracer_truth.py" $run "$OUT/truth-$run.log" "$OUT/convert_time.txt" \
    $pairs >> "$SUMMARY"
  sed -n '/^cudastreamstrace summary/,/^(µs/p' "$OUT/truth-$run.log" > "$OUT/summary-$run.txt"
done
# The same runs beside the GPU's own account of them (CUPTI's activity
# records, injected by the driver: pipelines/cupti_truth.cpp): same process,
# same load, no event of ours in the figures it gives.
CUPTI_LIB=$B/pipelines/libgcs-cupti-truth.so
if [ -f "$CUPTI_LIB" ]; then
  for run in full resident; do
    desc=$FULL; [ $run = resident ] && desc=$RESIDENT
    # shellcheck disable=SC2086
    CUDA_INJECTION64_PATH=$CUPTI_LIB GCS_CUPTI_OUT=$OUT/cupti-$run.json \
      GST_DEBUG=GST_TRACER:7 GST_TRACERS="cudastreamstrace(print=true)" timeout 120 \
      gst-launch-1.0 -q $desc > "$OUT/cupti-$run.log" 2>&1
    pairs="cs=kernel:convert"
    [ $run = full ] && pairs="up=h2d cs=kernel:convert down=d2h"
    # shellcheck disable=SC2086
    python3 "$ROOT/pipelines/tracer_truth.py" "$run-cupti" "$OUT/cupti-$run.log" \
      "$OUT/cupti-$run.json" $pairs >> "$SUMMARY" 2>&1
  done
else
  echo "TRACER truth cupti: no CUPTI in this toolkit" >> "$SUMMARY"
fi
# What an event span adds to a kernel's own time, and what CUPTI's records
# would cost instead (pipelines/cupti_cost.cu).
if [ -x "$B/pipelines/gcs-cupti-cost" ]; then
  "$B/pipelines/gcs-cupti-cost" > "$OUT/cupti-cost.txt" 2>&1
  grep -v '^RESULT' "$OUT/cupti-cost.txt" | sed 's/^/TRACER cupti-cost: /' >> "$SUMMARY"
fi
if command -v nsys > /dev/null; then
  # shellcheck disable=SC2086
  timeout 120 nsys profile -t cuda,nvtx -o "$OUT/resident" -f true \
    env GST_TRACERS="cudastreamstrace(nvtx=true,print=false)" gst-launch-1.0 -q $RESIDENT > "$OUT/nsys.log" 2>&1
  timeout 60 nsys stats -r cuda_gpu_kern_sum -f csv "$OUT/resident.nsys-rep" > "$OUT/nsys-kernels.csv" 2>> "$OUT/nsys.log"
  nk=$(python3 -c "
import csv,sys
rows=[r for r in csv.DictReader(l for l in open('$OUT/nsys-kernels.csv') if ',' in l) if 'convert' in r.get('Name','').lower()]
print(float(rows[0]['Avg (ns)'])/1000 if rows else 'nan')" 2>/dev/null)
  echo "TRACER truth nsys: convert kernel ${nk:-nan} us/frame (nsys, with nvtx ranges on), one launch at a time ${kernel:-nan} us" >> "$SUMMARY"
else
  echo "TRACER truth nsys: no nsys on this machine" >> "$SUMMARY"
fi

# ---- 3. the overhead ----
BENCH=$B/pipelines/gcs-bench
fps() { sed -n 's/^RESULT .*"fps":\([0-9.]*\).*/\1/p' | head -1; }
updown16() { # TRACERS: total frames/s of 16 at once
  local i
  for i in $(seq 16); do
    env ${1:+GST_TRACERS="$1"} "$BENCH" --format NV12 --width 1920 --height 1080 --source pinned \
      --seconds 1.5 --warmup 0.5 --pipeline \
      "cudaupload ! cudacrop left=320 right=320 top=180 bottom=180 ! cudadownload max-in-flight=3" \
      2>> "$OUT/bench.log" | fps > "$OUT/.fps.$i" &
  done
  wait
  cat "$OUT"/.fps.* | awk '{s += $1} END {printf "%.0f", s}'
  rm -f "$OUT"/.fps.*
}
resident() { # TRACERS, or "cupti": no tracer, CUPTI's kernel and copy records on
  local inj=()
  if [ "$1" = cupti ]; then
    inj=(CUDA_INJECTION64_PATH="$CUPTI_LIB" GCS_CUPTI_OUT="$OUT/cupti-overhead.json")
    set -- ""
  fi
  env "${inj[@]}" ${1:+GST_TRACERS="$1"} "$BENCH" --format NV12 --width 3840 --height 2160 --source device \
    --seconds 1.5 --warmup 0.5 --pipeline "videotestsrc num-buffers=1 ! $CAPS_IN ! cudaupload ! imagefreeze ! cudaconvertscale name=cs ! $CAPS_OUT" \
    2>> "$OUT/bench.log" | fps
}
# The default (one frame in 32 timed) decides; beside it, one in 16 (what
# a user who wants more samples pays) and GStreamer's own floor: a core tracer
# with a single hook (factories), which turns on the core's dispatch at
# every hook point (a clock read and two hash lookups each, some 37 a
# frame on the stand-in's converter row), as any tracer with a hook does.
TR="cudastreamstrace(print=false)" TR64="cudastreamstrace(print=false,every=16)" FLOOR="factories"
# On the converter row, also what CUPTI's activity records of every kernel
# and copy cost by themselves (pipelines/cupti_truth.cpp injected, no
# tracer): the least a tracer that took its GPU times from CUPTI would pay.
for row in updown16 resident; do
  off=() on=() on64=() floor=() cupti=()
  for rep in 1 2 3; do # alternated, so drift hits all
    off+=("$($row "")")
    on+=("$($row "$TR")")
    on64+=("$($row "$TR64")")
    floor+=("$($row "$FLOOR")")
    [ $row = resident ] && [ -f "$CUPTI_LIB" ] && cupti+=("$($row cupti)")
  done
  python3 - "$row" "${off[*]}" "${on[*]}" "${on64[*]}" "${floor[*]}" "${cupti[*]}" >> "$SUMMARY" << 'PY'
import statistics, sys
row = sys.argv[1]
off, on, on64, floor, cupti = ([float(x) for x in a.split()] for a in sys.argv[2:7])
name = {"updown16": "16 x 1080p NV12 up->crop->down (16 processes)",
        "resident": "device-resident cudaconvertscale 4K NV12 -> 1080p RGBA"}[row]
a = statistics.median(off)
for runs, what, final in ((floor, "GStreamer's floor: GST_TRACERS=factories", False),
                          (cupti, "CUPTI's kernel and copy records alone, no tracer", False),
                          (on64, "every=16", False), (on, "every=32, the default", True)):
    if not runs:
        continue
    b = statistics.median(runs)
    loss = (a - b) / a * 100 if a else float("nan")
    verdict = "PASS" if loss <= 3 else "FAIL"
    print(f"TRACER overhead {name}, {what}: {a:.0f} fps off, {b:.0f} fps on (medians of {off} / "
          f"{runs}): {loss:+.1f}% fewer " + (verdict if final else f"(would {verdict})"))
PY
done

# ---- 4. a picture of a run ----
# shellcheck disable=SC2086
GST_TRACERS="cudastreamstrace(file=$OUT/trace.json,print=false,every=1)" timeout 60 gst-launch-1.0 -q \
  videotestsrc num-buffers=120 ! $CAPS_IN ! cudaupload ! cudacrop left=960 right=960 top=540 bottom=540 ! \
  cudaconvertscale ! "video/x-raw(memory:CUDAStreamsMemory),format=RGBA,width=640,height=360" ! \
  cudadownload ! fakesink > "$OUT/timeline.log" 2>&1
python3 "$ROOT/pipelines/trace_timeline.py" "$OUT/trace.json" "$OUT/timeline.png" --window 3 \
  --title "cudastreams tracer: 4K NV12 upload -> crop -> convertscale -> download, $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" \
  >> "$OUT/timeline.log" 2>&1
echo "TRACER timeline: $(tail -1 "$OUT/timeline.log")" >> "$SUMMARY"

echo "=== gcs-convert-time (the truth)"
cat "$OUT/convert_time.txt"
echo "=== summaries of the truth runs"
cat "$OUT/summary-full.txt" "$OUT/summary-resident.txt"
echo "=== summary"
cat "$SUMMARY"
echo "TRACER $(grep -c ' PASS$' "$SUMMARY") PASS, $(grep -c ' FAIL$' "$SUMMARY") FAIL"

#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# On a GPU machine with two GPUs (nvidia-h100-x2 / nvidia-h200-x2): the tests
# of frames that cross devices, against each GStreamer: what CUDA allows
# across devices (cuda_rules), our elements on both devices
# (crossdevice_gpu), the nvcodec interop suite in both scan orders (nvcodec
# frames of one GPU into ours on the other, ours into nvcodec's on the
# other), and, for the first version, the PyTorch suite. Builds run in
# parallel first; a table per version last. Results under $OUT/<version>/.
#   scripts/gpu-crossdevice.sh
# Env: VERSIONS (default "bundle 1.24.2 1.28.6"; versions other than the
#   .gpu bundle's 1.22 come from .gst-dist/, a copy of ../shared/gst),
#   OUT (default /tmp/gcs-out), EXTRA_TESTS (more test names for every
#   version).
set -u
cd "$(dirname "$0")/.."
source .gpu/env.sh
OUT=${OUT:-/tmp/gcs-out}
VERSIONS=${VERSIONS:-bundle 1.24.2 1.28.6}
first=${VERSIONS%% *}
mkdir -p "$OUT"
echo "=== $(nvidia-smi -L 2>/dev/null | wc -l) GPU(s): $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)"

build_dir() { if [ "$1" = bundle ]; then echo /tmp/gcs-build; else echo "/tmp/gcs-build-$1"; fi; }
gst_of() { if [ "$1" = bundle ]; then echo ""; else echo "$1"; fi; }

jobs_=()
for v in $VERSIONS; do
  mkdir -p "$OUT/$v"
  GST_VERSION=$(gst_of "$v") BUILD_ONLY=1 NINJA_JOBS=10 OUT=$OUT/$v scripts/gpu-check.sh \
    > "$OUT/build-$v.log" 2>&1 &
  jobs_+=($!)
done
for j in "${jobs_[@]}"; do wait "$j"; done
echo "=== builds done $(date -u +%T)"

rc=0
for v in $VERSIONS; do
  B=$(build_dir "$v")
  suites=(--suite interop)
  [ "$v" = "$first" ] && suites+=(--suite torch)
  (
    if [ "$v" != bundle ]; then source "/tmp/gst-$v/env.sh"; fi
    echo "=== GStreamer $(pkg-config --modversion gstreamer-1.0)"
    # Names and suites in two runs: meson takes the tests that match both.
    # shellcheck disable=SC2086
    meson test -C "$B" --no-rebuild --print-errorlogs --num-processes 1 \
      --logbase named cuda_rules crossdevice_gpu ${EXTRA_TESTS:-}
    r1=$?
    meson test -C "$B" --no-rebuild --print-errorlogs --num-processes 1 \
      --logbase suites "${suites[@]}"
    r2=$?
    [ $r1 = 0 ] && [ $r2 = 0 ]
  ) > "$OUT/$v/meson-test.txt" 2>&1
  r=$?
  [ $r = 0 ] || rc=1
  cat "$B/meson-logs/named.txt" "$B/meson-logs/suites.txt" > "$OUT/$v/testlog.txt" 2> /dev/null
  echo "##### $v: exit $r"
  grep -E "^=== |^ *[0-9]+/[0-9]+ |^(Ok|Fail|Skipped):" "$OUT/$v/meson-test.txt"
  grep -hE "^HOST-WAITS.*(device|other)|^cuda_rules:|^FAIL |device 7|^b\. .*device|^c\. .*device|^torch: " \
    "$OUT/$v/testlog.txt" 2> /dev/null | sort -u
done
exit $rc

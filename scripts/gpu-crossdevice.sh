#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# On a GPU machine with two GPUs (nvidia-h100-x2 / nvidia-h200-x2): the tests
# of frames that cross devices, against each GStreamer: what CUDA allows
# across devices (cuda_rules), our elements on both devices
# (crossdevice_gpu: every converter format through a copy across), the
# nvcodec interop suite in both scan orders (nvcodec frames of one GPU into
# ours on the other, ours into nvcodec's on the other), IPC consumers on the
# other device than their producer's (ipc_gpu: frames and batches), metas
# and memory copied across (metas_gpu, memorysync_gpu), the PyTorch suite
# (torch_two_gpus); for the first version also FIRST_TESTS.
# Each version builds and then tests, all versions at once (the tests of one
# may share the GPUs with the build or tests of another); a table per
# version last. Results under $OUT/<version>/.
#   scripts/gpu-crossdevice.sh
# Env: VERSIONS (default "bundle 1.28.6"; versions other than the
#   .gpu bundle's 1.22 come from .gst-dist/, a copy of ../shared/gst),
#   OUT (default /tmp/gcs-out), FIRST_TESTS (more test names for the first
#   version), SECONDS_LEFT (stop waiting after this, default 560).
set -u
cd "$(dirname "$0")/.."
source .gpu/env.sh
OUT=${OUT:-/tmp/gcs-out}
VERSIONS=${VERSIONS:-bundle 1.28.6}
first=${VERSIONS%% *}
mkdir -p "$OUT"
echo "=== $(date -u +%T) $(nvidia-smi -L 2>/dev/null | wc -l) GPU(s): $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)"

build_dir() { if [ "$1" = bundle ]; then echo /tmp/gcs-build; else echo "/tmp/gcs-build-$1"; fi; }
gst_of() { if [ "$1" = bundle ]; then echo ""; else echo "$1"; fi; }

# One version: build, then its tests (names and suites in two meson runs:
# meson takes the tests that match both).
one() {
  local v=$1 B
  B=$(build_dir "$v")
  mkdir -p "$OUT/$v"
  GST_VERSION=$(gst_of "$v") BUILD_ONLY=1 NINJA_JOBS=10 OUT=$OUT/$v scripts/gpu-check.sh \
    > "$OUT/$v/build.txt" 2>&1 || { echo "build failed" > "$OUT/$v/meson-test.txt"; return 1; }
  echo "=== $(date -u +%T) $v built"
  local names=(cuda_rules crossdevice_gpu ipc_gpu metas_gpu memorysync_gpu)
  local suites=(--suite interop --suite torch)
  if [ "$v" = "$first" ]; then
    # shellcheck disable=SC2206
    names+=(${FIRST_TESTS:-})
  fi
  (
    if [ "$v" != bundle ]; then source "/tmp/gst-$v/env.sh"; fi
    echo "=== GStreamer $(pkg-config --modversion gstreamer-1.0)"
    meson test -C "$B" --no-rebuild --print-errorlogs --num-processes 1 --logbase named \
      "${names[@]}"
    r1=$?
    meson test -C "$B" --no-rebuild --print-errorlogs --num-processes 1 --logbase suites \
      "${suites[@]}"
    r2=$?
    [ $r1 = 0 ] && [ $r2 = 0 ]
  ) > "$OUT/$v/meson-test.txt" 2>&1
  local r=$?
  cat "$B/meson-logs/named.txt" "$B/meson-logs/suites.txt" > "$OUT/$v/testlog.txt" 2> /dev/null
  echo "$r" > "$OUT/$v/rc"
  echo "=== $(date -u +%T) $v tested: exit $r"
}

pids=()
for v in $VERSIONS; do
  one "$v" &
  pids+=($!)
done
# Bounded: the machine's call has a time limit; what ran is summarised.
deadline=$((SECONDS + ${SECONDS_LEFT:-560}))
for p in "${pids[@]}"; do
  while kill -0 "$p" 2> /dev/null && [ $SECONDS -lt $deadline ]; do sleep 2; done
done

rc=0
for v in $VERSIONS; do
  echo "##### $v: exit $(cat "$OUT/$v/rc" 2> /dev/null || echo 'not finished')"
  [ "$(cat "$OUT/$v/rc" 2> /dev/null)" = 0 ] || rc=1
  grep -E "^=== |^ *[0-9]+/[0-9]+ |^(Ok|Fail|Skipped):|build failed" "$OUT/$v/meson-test.txt" 2> /dev/null
  grep -hE "^HOST-WAITS.*(device|other)|^cuda_rules:|^FAIL |device 7|^b\. .*device|^c\. .*device|^torch: |formats across devices|^batches to a consumer|test_other_device" \
    "$OUT/$v/testlog.txt" 2> /dev/null | sort -u
done
exit $rc

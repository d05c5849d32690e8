#!/usr/bin/env bash
# On the GPU machine (see README): build, run the whole test suite and the
# main job, print a short summary last. Needs the .gpu/ bundle
# (../shared/gpu/bundle) when the machine has no GStreamer.
#   tests/gpu-check.sh [extra command to run after the tests]
set -u
cd "$(dirname "$0")/.."
[ -f .gpu/env.sh ] && source .gpu/env.sh
B=${BUILD_DIR:-/tmp/gcs-build}
OUT=${OUT:-/tmp/gcs-out}
mkdir -p "$OUT"
if ! { meson setup "$B" --wipe -Dgpu_archs="${GPU_ARCHS:-90}" > "$OUT/setup.log" 2>&1 &&
       ninja -C "$B" > "$OUT/build.log" 2>&1; }; then
  tail -40 "$OUT/setup.log"; grep -B2 -A6 -E "error" "$OUT/build.log" | head -80
  echo "SUMMARY: build failed"; exit 1
fi
gpu=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)
meson test -C "$B" --print-errorlogs --num-processes 2 > "$OUT/meson-test.txt" 2>&1
rc=$?
cp "$B/meson-logs/testlog.txt" "$OUT/" 2>/dev/null
if [ $rc -ne 0 ]; then
  grep -E "FAIL|Assertion|Failure|:E:|error" "$OUT/meson-test.txt" | head -40
fi
if [ $# -gt 0 ]; then "$@"; fi
echo "=== $(date -u +%F) on ${gpu:-unknown GPU}"
grep -E "^ *[0-9]+/[0-9]+ |^(Ok|Fail|Skipped|Timeout):" "$OUT/meson-test.txt"
exit $rc

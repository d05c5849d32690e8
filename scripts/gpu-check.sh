#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# On the GPU machine (see README): build, run the whole test suite, run the
# GPU suites again under compute-sanitizer memcheck (out-of-bounds accesses in
# kernels and copies), then an optional extra command; a short summary last.
# Needs the .gpu/ bundle (../shared/gpu/bundle) when the machine has no
# GStreamer.
#   scripts/gpu-check.sh [extra command to run after the tests]
# Env: BUILD_DIR (default /tmp/gcs-build, or /tmp/gcs-build-VERSION), OUT
#   (default /tmp/gcs-out), GPU_ARCHS (default 90), MEMCHECK=0 (skip memcheck),
#   MEMCHECK_GPU=N (run memcheck on GPU N alone, beside the plain run and the
#   extra command, on a machine with several GPUs), MEMCHECK_SECONDS (its time
#   limit, default 420), MEMCHECK_TESTS (test names for memcheck instead of
#   every GPU suite), GST_VERSION (another GStreamer than the bundle's
#   1.22: a version kept in .gst-dist/, a copy of this workplace's
#   ../shared/gst, unpacked into /tmp/gst-VERSION and put in front),
#   BUILD_ONLY=1 (set up and build, nothing else), NINJA_JOBS, FAKE_SUITE=0
#   (not the stand-in's suite, which CI runs), ONLY_TESTS (test names: the
#   plain run runs these alone, and no stand-in suite).
set -u
cd "$(dirname "$0")/.."
# shellcheck source=scripts/gpu-gst-env.sh
source scripts/gpu-gst-env.sh || exit 1
interop_opt=enabled
if [ -n "${GST_VERSION:-}" ]; then
  BUILD_DIR=${BUILD_DIR:-/tmp/gcs-build-$GST_VERSION}
  # 1.20 has no gstreamer-cuda library (nvcodec's memory is not public
  # there): nothing to build the interop against.
  case $GST_VERSION in 1.1[0-9].* | 1.20.*) interop_opt=disabled ;; esac
fi
B=${BUILD_DIR:-/tmp/gcs-build}
OUT=${OUT:-/tmp/gcs-out}
mkdir -p "$OUT"
t_build=$SECONDS
if ! { { [ -f "$B/build.ninja" ] ||
         meson setup "$B" -Dgpu_archs="${GPU_ARCHS:-90}" -Dnvcodec_interop=$interop_opt "${gst_link_args[@]}" \
           > "$OUT/setup.log" 2>&1; } &&
       ninja -C "$B" ${NINJA_JOBS:+-j "$NINJA_JOBS"} > "$OUT/build.log" 2>&1; }; then
  tail -40 "$OUT/setup.log" 2> /dev/null; grep -B2 -A6 -E "error" "$OUT/build.log" | head -80
  echo "SUMMARY: build failed"; exit 1
fi
t_build=$((SECONDS - t_build))
[ "${BUILD_ONLY:-0}" = 1 ] && exit 0
gpu=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)
ngpu=$(nvidia-smi -L 2>/dev/null | wc -l)

# compute-sanitizer: every GPU test binary under memcheck; any error fails it.
memcheck() {
  local sanitizer
  sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
  # Memory errors only: some tests provoke CUDA API errors on purpose (out of
  # memory, a device that does not exist) and check the messages.
  # Not the PyTorch tests (suite torch): CPython and PyTorch alone take
  # minutes to start under memcheck, and test nothing of ours there.
  local which=(--suite gpu --no-suite torch)
  # shellcheck disable=SC2206
  [ -n "${MEMCHECK_TESTS:-}" ] && which=($MEMCHECK_TESTS)
  # CK_TIMEOUT_MULTIPLIER: check's factor for slow runs, which ipc_gpu and its
  # peer processes stretch their own waits by too (each process starts many
  # times slower under the sanitizer).
  CK_TIMEOUT_MULTIPLIER=10 timeout "${MEMCHECK_SECONDS:-420}" meson test -C "$B" "${which[@]}" --no-rebuild \
    --print-errorlogs --timeout-multiplier 10 --logbase memcheck \
    --wrapper "$sanitizer --tool memcheck --report-api-errors no --error-exitcode 66 --print-limit 20" \
    > "$OUT/memcheck.txt" 2>&1
  echo $? > "$OUT/memcheck.rc"
}
if [ "${MEMCHECK:-1}" != 0 ] && [ -n "${MEMCHECK_GPU:-}" ]; then
  (CUDA_VISIBLE_DEVICES=$MEMCHECK_GPU memcheck) &
  memcheck_pid=$!
fi

# The stand-in's suite (CI runs it too) beside the rest: most GPU tests run
# one at a time, and both together outlast a device call (600 s) otherwise.
# FAKE_SUITE=0 leaves it to CI (several versions built and tested at once).
t_tests=$SECONDS
: > "$OUT/meson-test-fake.txt"
fake_pid=
if [ "${FAKE_SUITE:-1}" != 0 ] && [ -z "${ONLY_TESTS:-}" ]; then
  meson test -C "$B" --no-rebuild --print-errorlogs --suite fakecuda --num-processes 4 \
    --logbase fakelog > "$OUT/meson-test-fake.txt" 2>&1 &
  fake_pid=$!
fi
# shellcheck disable=SC2206
plain=(--no-suite fakecuda)
# shellcheck disable=SC2206
[ -n "${ONLY_TESTS:-}" ] && plain=($ONLY_TESTS)
meson test -C "$B" --no-rebuild --print-errorlogs "${plain[@]}" --num-processes 2 \
  > "$OUT/meson-test.txt" 2>&1
rc=$?
[ -z "$fake_pid" ] || wait "$fake_pid" || rc=1
cat "$OUT/meson-test-fake.txt" >> "$OUT/meson-test.txt"
cat "$B/meson-logs/testlog.txt" "$B/meson-logs/fakelog.txt" > "$OUT/testlog.txt" 2>/dev/null
t_tests=$((SECONDS - t_tests))
if [ $rc -ne 0 ]; then
  grep -E "FAIL|Assertion|Failure|:E:|error" "$OUT/meson-test.txt" | head -40
fi
if [ $# -gt 0 ]; then "$@"; fi
if [ "${MEMCHECK:-1}" != 0 ]; then
  if [ -n "${memcheck_pid:-}" ]; then wait "$memcheck_pid"; else memcheck; fi
fi

echo "=== $(date -u +%F) on ${ngpu}x ${gpu:-unknown GPU}, GStreamer $(pkg-config --modversion gstreamer-1.0); build ${t_build}s, tests ${t_tests}s"
grep -E "^ *[0-9]+/[0-9]+ |^(Ok|Fail|Skipped|Timeout):" "$OUT/meson-test.txt"
# The nvcodec interop must be built and its tests must run here, not skip.
interop=$(meson introspect --buildoptions "$B" 2>/dev/null |
  python3 -c 'import json,sys; print([o["value"] for o in json.load(sys.stdin) if o["name"]=="nvcodec_interop"][0])' 2>/dev/null)
n_run=$(grep -cE "interop.* (OK|FAIL|ERROR)" "$OUT/meson-test.txt")
n_skip=$(grep -cE "interop.* SKIP" "$OUT/meson-test.txt")
echo "--- nvcodec interop: ${interop:-unknown}; interop tests: $n_run run, $n_skip skipped"
[ "$n_skip" = 0 ] || rc=1
# The PyTorch tests' own count (tests/torch, where the Python module is built).
if grep -qE "torch_gpu" "$OUT/meson-test.txt"; then
  line=$(grep -hE "^torch: [0-9]+ passed" "$OUT/testlog.txt" 2> /dev/null | tail -1)
  echo "--- PyTorch tests: ${line:-no 'torch: N passed' line (skipped or crashed: see testlog.txt)}"
fi
# Host waits per frame on each side of each nvcodec edge (tests/interop).
grep -h "^HOST-WAITS" "$OUT/testlog.txt" 2> /dev/null | sort -u | sed 's/^HOST-WAITS /--- /'
if [ -f "$OUT/memcheck.rc" ]; then
  echo "--- compute-sanitizer memcheck (exit $(cat "$OUT/memcheck.rc"); 124 = time limit)"
  grep -E "^ *[0-9]+/[0-9]+ " "$OUT/memcheck.txt"
  grep -hE "ERROR SUMMARY" "$OUT/memcheck.txt" | sort | uniq -c
  [ "$(cat "$OUT/memcheck.rc")" = 0 ] || rc=1
fi
exit $rc

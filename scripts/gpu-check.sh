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
#   plain run runs these alone, and no stand-in suite), GPU_JOBS (below),
#   TEST_SECONDS (the tests' time, from their start: what has not finished
#   by then is stopped and named "not run", the summary printed all the
#   same; for a device call's limit, which would otherwise end the script
#   before its summary).
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
# TEST_SECONDS: each test command gets the time left (time_left), and one
# that has none left is not started.
deadline=
[ -n "${TEST_SECONDS:-}" ] && deadline=$(($(date +%s) + TEST_SECONDS))
time_left() {
  if [ -z "$deadline" ]; then echo 0; else echo $((deadline - $(date +%s))); fi
}
# `timeout` with the time left, or the command as it is without a deadline.
in_time() {
  local left
  left=$(time_left)
  if [ -z "$deadline" ]; then "$@"; elif [ "$left" -gt 0 ]; then timeout "$left" "$@"; else return 124; fi
}
: > "$OUT/meson-test-fake.txt"
fake_pid=
if [ "${FAKE_SUITE:-1}" != 0 ] && [ -z "${ONLY_TESTS:-}" ]; then
  in_time meson test -C "$B" --no-rebuild --print-errorlogs --suite fakecuda --num-processes 4 \
    --logbase fakelog > "$OUT/meson-test-fake.txt" 2>&1 &
  fake_pid=$!
fi
# shellcheck disable=SC2206
plain=(--no-suite fakecuda)
# shellcheck disable=SC2206
[ -n "${ONLY_TESTS:-}" ] && plain=($ONLY_TESTS)
# GPU_JOBS=N: the tests meson runs one at a time (is_parallel false: the
# GPU tests, the install check) N at a time instead, each its own
# `meson test`, then the rest; a test that fails beside others runs again
# alone, and the run says so ("again alone"). The whole suite then fits
# one device call; timing-bound checks see a loaded GPU and host.
# LONG_TESTS: the tests to start first (the longest), by name.
if [ "${GPU_JOBS:-1}" -gt 1 ] && [ -z "${ONLY_TESTS:-}" ]; then
  # Both lists of the build's tests but the stand-in's: serial, the longest
  # first (priority), and the rest.
  lists() {
    meson introspect --tests "$B" | python3 -c '
import json, sys
tests = [t for t in json.load(sys.stdin) if not any(s.endswith("fakecuda") for s in t["suite"])]
want = sys.argv[1] == "serial"
first = sys.argv[2].split()
def order(t):
    return (first.index(t["name"]) if t["name"] in first else len(first), -t.get("priority", 0))
print(" ".join(t["name"] for t in sorted(tests, key=order) if (not t["is_parallel"]) == want))' \
      "$1" "${LONG_TESTS:-convertscale_rtc_gpu convertscale_gpu torch_gpu ipc_gpu convert_formats_gpu}"
  }
  one_test() {
    in_time meson test -C "$B" --no-rebuild --print-errorlogs --logbase "par-$1" "$1" > "$OUT/serial/$1.txt" 2>&1
    [ $? = 124 ] && echo "NOT RUN: out of time (TEST_SECONDS)" >> "$OUT/serial/$1.txt"
  }
  passed() { grep -qE "^ *[0-9]+/[0-9]+ .* (OK|SKIP) " "$1"; }
  out_of_time() { grep -q "^NOT RUN: out of time" "$1"; }
  export -f one_test in_time time_left
  export B OUT deadline
  mkdir -p "$OUT/serial"
  serial=$(lists serial)
  rest=$(lists rest)
  # shellcheck disable=SC2016 # $0 is the test's name, expanded by the inner bash
  xargs -n 1 -P "$GPU_JOBS" bash -c 'one_test "$0"' <<< "$(tr " " "\n" <<< "$serial")"
  rc=0
  : > "$OUT/meson-test.txt"
  not_run=()
  for t in $serial; do
    if out_of_time "$OUT/serial/$t.txt"; then
      not_run+=("$t")
      rc=1
      continue
    fi
    if ! passed "$OUT/serial/$t.txt"; then
      mv "$OUT/serial/$t.txt" "$OUT/serial/$t.beside.txt"
      echo "--- $t failed beside others: again alone" >> "$OUT/meson-test.txt"
      one_test "$t"
    fi
    grep -E "^ *[0-9]+/[0-9]+ " "$OUT/serial/$t.txt" >> "$OUT/meson-test.txt"
    passed "$OUT/serial/$t.txt" ||
      { rc=1; grep -E "Assertion|Failure|:E:|error" "$OUT/serial/$t.txt" | head -20 >> "$OUT/meson-test.txt"; }
  done
  # Named: without names meson would run every test, the serial ones again.
  : > "$OUT/meson-test-rest.txt"
  # shellcheck disable=SC2086
  if [ -n "$rest" ]; then
    in_time meson test -C "$B" --no-rebuild --print-errorlogs --num-processes 4 \
      --logbase rest $rest > "$OUT/meson-test-rest.txt" 2>&1
    case $? in
      0) ;;
      124)
        rc=1
        # Those stopped (INTERRUPT) or never started.
        for t in $rest; do
          grep -qE "^ *[0-9]+/[0-9]+ .*[ :]$t +(OK|FAIL|SKIP|TIMEOUT) " "$OUT/meson-test-rest.txt" ||
            not_run+=("$t")
        done ;;
      *) rc=1 ;;
    esac
  fi
  grep -E "^ *[0-9]+/[0-9]+ " "$OUT/meson-test-rest.txt" | grep -v " INTERRUPT " >> "$OUT/meson-test.txt"
  cat "$B"/meson-logs/par-*.txt "$B/meson-logs/rest.txt" > "$B/meson-logs/testlog.txt" 2> /dev/null
  for k in OK:Ok FAIL:Fail SKIP:Skipped TIMEOUT:Timeout; do
    echo "${k#*:}: $(grep -cE "^ *[0-9]+/[0-9]+ .* ${k%%:*} " "$OUT/meson-test.txt")" >> "$OUT/meson-test.txt"
  done
  [ ${#not_run[@]} = 0 ] ||
    echo "Not run (out of time, TEST_SECONDS=$TEST_SECONDS): ${not_run[*]}" >> "$OUT/meson-test.txt"
else
  in_time meson test -C "$B" --no-rebuild --print-errorlogs "${plain[@]}" --num-processes 2 \
    > "$OUT/meson-test.txt" 2>&1
  rc=$?
  [ $rc = 124 ] && echo "Not run (out of time, TEST_SECONDS=$TEST_SECONDS): the tests after those above" >> "$OUT/meson-test.txt"
fi
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
grep -E "^ *[0-9]+/[0-9]+ |^(Ok|Fail|Skipped|Timeout):|^Not run" "$OUT/meson-test.txt"
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

#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# On the GPU machine: GPU tests under compute-sanitizer memcheck one check
# at a time, several at once, so that a suite too long for one process
# under the sanitizer (the converter's: scripts/gpu-check.sh's memcheck
# ran out of time) still runs whole within a device call, and what did not
# finish is named. A check fails on any memory error (exit 66) or its own
# failure.
#   BUILD_DIR=/tmp/b scripts/gpu-memcheck-checks.sh convertscale_gpu convert_formats_gpu
# Env: BUILD_DIR (a configured and built tree), OUT (default /tmp/gcs-out),
#   JOBS (checks at once, default 8), MEMCHECK_SECONDS (the whole run's
#   limit, default 480), CHECK_SECONDS (one check's, default 300), ONLY
#   (a regular expression: those checks alone). The checks' environment
#   passes through (GST_CS_CONVERT_RTC=wait: the converter's kernels
#   compiled at run time, GST_CS_CONVERT_RTC_REPORT=1 says how many ran),
#   MEMCHECK_ARGS (more sanitizer options: "--target-processes all" for
#   the IPC tests, whose producer and consumer processes are their own).
# Prints "PASS|FAIL|TIME test:check (seconds, errors)" per check, then a
# count. A check passes only where the sanitizer found no memory error
# (--error-exitcode 66) and the check itself passed.
set -u
cd "$(dirname "$0")/.."
B=${BUILD_DIR:?BUILD_DIR: a built tree}
OUT=${OUT:-/tmp/gcs-out}/memcheck-checks
mkdir -p "$OUT"
sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
export B OUT sanitizer MEMCHECK_ARGS=${MEMCHECK_ARGS:-} CHECK_SECONDS=${CHECK_SECONDS:-300}

# test name -> its source's check names (tcase_add_test lines).
: > "$OUT/list.txt"
for t in "$@"; do
  src=$(find tests -name "$t.cpp" | head -1)
  # Else the first source tests/meson.build lists for it ('ipc_events_gpu' : [files('ipc/events_gpu.cpp', ...).
  [ -n "$src" ] || src=$(grep -oE "'$t' : \[files\('[^']+'" tests/meson.build | sed -E "s/.*files\('([^']+)'/tests\/\1/")
  [ -n "$src" ] || { echo "SKIP $t: no source tests/*/${t}.cpp"; continue; }
  grep -oE "tcase_add_test \(tc, [a-z0-9_]+" "$src" | awk -v t="$t" '{ print t, $3 }' |
    grep -E " (${ONLY:-.*})\$" >> "$OUT/list.txt"
done

one() { # one TEST CHECK
  local t=$1 c=$2 start=$SECONDS rc errors
  # CK_TIMEOUT_MULTIPLIER: check's own factor for slow runs (the sanitizer
  # runs kernels many times slower).
  GST_CHECKS=$c CK_TIMEOUT_MULTIPLIER=10 timeout "$CHECK_SECONDS" meson test -C "$B" "$t" \
    --no-rebuild --timeout-multiplier 10 --logbase "mc-$c" \
    --wrapper "$sanitizer --tool memcheck --report-api-errors no --error-exitcode 66 --print-limit 20 ${MEMCHECK_ARGS:-}" \
    > "$OUT/$c.txt" 2>&1
  rc=$?
  # meson names the log after the wrapper too: mc-CHECK-compute-sanitizer.txt
  errors=$(grep -hoE "ERROR SUMMARY: [0-9]+ error" "$B/meson-logs/mc-$c"-*.txt 2> /dev/null | head -1)
  case $rc in
    0) echo "PASS $t:$c ($((SECONDS - start)) s, ${errors:-no ERROR SUMMARY})" ;;
    124) echo "TIME $t:$c (${CHECK_SECONDS} s)" ;;
    *) echo "FAIL $t:$c (exit $rc, $((SECONDS - start)) s, ${errors:-no ERROR SUMMARY})"
       grep -hE "Invalid|\.cpp:[0-9]+:[FE]:" "$B/meson-logs/mc-$c"-*.txt 2> /dev/null | head -5
       # The whole log (the failure's message, a peer's output) comes back.
       cp "$B/meson-logs/mc-$c"-*.txt "$OUT/" 2> /dev/null ;;
  esac
}
export -f one
: > "$OUT/results.txt"
timeout "${MEMCHECK_SECONDS:-480}" xargs -P "${JOBS:-8}" -L 1 bash -c 'one "$0" "$1" >> "$OUT/results.txt"' \
  < "$OUT/list.txt"
sort -k2 "$OUT/results.txt"
ran=$(cut -d' ' -f2 "$OUT/results.txt" | sort -u)
while read -r t c; do
  grep -qx "$t:$c" <<< "$ran" || echo "NOT RUN $t:$c (the run's time limit)"
done < "$OUT/list.txt"
echo "memcheck, one check at a time: $(grep -c '^PASS' "$OUT/results.txt") passed," \
  "$(grep -c '^FAIL' "$OUT/results.txt") failed, $(grep -c '^TIME' "$OUT/results.txt") out of time," \
  "of $(wc -l < "$OUT/list.txt") checks"

#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# On a GPU machine with two GPUs, the check of a commit before it lands, in
# one call: every suite against each GStreamer (the .gpu bundle's 1.22,
# 1.24.2 and 1.28.6 from .gst-dist), built and tested at once, with
# MEMCHECK_TESTS under compute-sanitizer memcheck on the second GPU; then,
# on a quiet machine, EXTRA (a command, e.g. scripts/gpu-tracer.sh). A
# summary per version last. Results under $OUT/<version>/: meson-test.txt,
# summary.txt and the bundle's memcheck.txt alone (a call brings back at
# most 8 files); the build
# and setup logs stay in /tmp/gcs-final/<version>/.
#   MEMCHECK_TESTS="convertscale_gpu" EXTRA="scripts/gpu-tracer.sh" scripts/gpu-final.sh
# The newer versions leave the stand-in's suite to CI (FAKE_SUITE=0).
# Env: VERSIONS (default "bundle 1.24.2 1.28.6"), SECONDS_LEFT (stop waiting
#   for the versions after this, default 420), OUT (default /tmp/gcs-out).
set -u
cd "$(dirname "$0")/.." || exit 1
OUT=${OUT:-/tmp/gcs-out}
VERSIONS=${VERSIONS:-bundle 1.24.2 1.28.6}
mkdir -p "$OUT"
# A version missing from .gst-dist would be found only at the end, its
# device time spent: refuse at once.
for v in $VERSIONS; do
  [ "$v" = bundle ] || [ -f ".gst-dist/gst-$v.tar.xz" ] ||
    { echo "no GStreamer $v in .gst-dist/ (copy ../shared/gst/gst-$v.tar.xz there)"; exit 1; }
done
ngpu=$(nvidia-smi -L 2> /dev/null | wc -l)
pids=()
for v in $VERSIONS; do
  rm -rf "/tmp/gcs-final/$v"; mkdir -p "$OUT/$v" "/tmp/gcs-final/$v"
  # Each version's own output goes to files, not to this script's: a
  # version still running at the deadline must not hold the call's pipe.
  # With two GPUs or more the bundle's suites see them all (the two-GPU
  # tests run), 1.24.2's run on the last GPU (beside memcheck) and the
  # other versions' on the first. Even so the three do not fit one call:
  # the GPU tests run one at a time (is_parallel false), about 450 s a
  # version, and on two H200s (2026-11-30) each version had passed 34 of
  # its 53 tests at 390 s. VERSIONS=one version a call does fit.
  gpus=
  if [ "$ngpu" -ge 2 ] && [ "$v" != bundle ]; then
    gpus=0; [ "$v" = 1.24.2 ] && gpus=$((ngpu - 1))
  fi
  if [ "$v" = bundle ]; then
    ( [ "$ngpu" -ge 2 ] && export MEMCHECK_GPU=$((ngpu - 1))
      [ -n "${MEMCHECK_TESTS:-}" ] || export MEMCHECK=0
      OUT=/tmp/gcs-final/$v NINJA_JOBS=12 MEMCHECK_SECONDS=${MEMCHECK_SECONDS:-300} \
        scripts/gpu-check.sh > "$OUT/$v/summary.txt" 2>&1
      echo $? > "/tmp/gcs-final/$v/rc" ) > /dev/null 2>&1 &
  else
    ( [ -n "$gpus" ] && export CUDA_VISIBLE_DEVICES=$gpus
      GST_VERSION=$v OUT=/tmp/gcs-final/$v NINJA_JOBS=10 MEMCHECK=0 FAKE_SUITE=0 \
        scripts/gpu-check.sh > "$OUT/$v/summary.txt" 2>&1
      echo $? > "/tmp/gcs-final/$v/rc" ) > /dev/null 2>&1 &
  fi
  pids+=($!)
done
deadline=$((SECONDS + ${SECONDS_LEFT:-420}))
for p in "${pids[@]}"; do
  while kill -0 "$p" 2> /dev/null && [ $SECONDS -lt $deadline ]; do sleep 2; done
done
# What ran past the deadline stops; its tests so far are in meson-test.txt.
pkill -f scripts/gpu-check.sh 2> /dev/null
pkill -f "meson test" 2> /dev/null
for v in $VERSIONS; do
  cp "/tmp/gcs-final/$v/meson-test.txt" "$OUT/$v/" 2> /dev/null
  # memcheck's own log (its tests so far where the deadline stopped it)
  cp "/tmp/gcs-final/$v/memcheck.txt" "$OUT/$v/" 2> /dev/null
done
echo "=== versions done after ${SECONDS}s"
if [ -n "${EXTRA:-}" ]; then
  source .gpu/env.sh
  OUT=$OUT/extra bash -c "$EXTRA" > "$OUT/extra.txt" 2>&1
  echo "=== EXTRA ($EXTRA): exit $? after ${SECONDS}s"
  tail -25 "$OUT/extra.txt"
fi
rc=0
for v in $VERSIONS; do
  echo "##### $v: exit $(cat "/tmp/gcs-final/$v/rc" 2> /dev/null || echo 'not finished')"
  [ "$(cat "/tmp/gcs-final/$v/rc" 2> /dev/null)" = 0 ] || rc=1
  # The counts, failures and memcheck first; the per-pipeline host-wait
  # lines stay in summary.txt (they pushed these out of a call's tail).
  grep -E "^=== |^(Ok|Fail|Skipped|Timeout):|FAIL|TIMEOUT|ERROR SUMMARY|build failed|^--- (nvcodec interop|PyTorch|compute-sanitizer)" \
    "$OUT/$v/summary.txt" | grep -v "^ *[0-9]*/[0-9]* .* OK" | head -16
  # Failed or stopped at the deadline (143): how far its tests came, and
  # those that failed so far.
  [ "$(cat "/tmp/gcs-final/$v/rc" 2> /dev/null)" = 0 ] || {
    grep -cE " OK " "$OUT/$v/meson-test.txt" 2> /dev/null | sed 's/^/tests OK: /'
    grep -E "^ *[0-9]+/[0-9]+ .* (FAIL|TIMEOUT)" "$OUT/$v/meson-test.txt" 2> /dev/null; }
done
exit $rc

#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# On a GPU machine, a short check in one call: builds the .gpu bundle's
# GStreamer (and each of VERSIONS from .gst-dist, at once), runs the test
# names in TESTS against each, then each script of SCRIPTS on the bundle's
# build, one after the other, alone on the machine (their rows are
# timings). The files worth keeping go to $OUT (at most 8: KEEP).
#   TESTS="tracer_gpu batch_gpu" SCRIPTS="scripts/gpu-tracer.sh scripts/gpu-batch.sh" \
#     OUT=/tmp/out scripts/gpu-quick-check.sh
set -u
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/gcs-out}
W=/tmp/gcs-quick-check
mkdir -p "$OUT" "$W"
t0=$SECONDS
(OUT=$W/bundle BUILD_ONLY=1 NINJA_JOBS=12 scripts/gpu-check.sh > "$W/bundle.txt" 2>&1) &
for v in ${VERSIONS:-}; do
  (GST_VERSION=$v OUT=$W/$v BUILD_ONLY=1 NINJA_JOBS=6 scripts/gpu-check.sh > "$W/$v.txt" 2>&1) &
done
wait
echo "built in $((SECONDS - t0)) s"
grep -h "SUMMARY: build failed" "$W"/*.txt && tail -20 "$W"/*.txt
source .gpu/env.sh
for v in bundle ${VERSIONS:-}; do
  B=/tmp/gcs-build; [ $v = bundle ] || B=/tmp/gcs-build-$v
  (
    [ $v = bundle ] || source /tmp/gst-$v/env.sh
    # shellcheck disable=SC2086
    meson test -C $B --no-rebuild --print-errorlogs --num-processes 4 ${TESTS:-} 2>&1 |
      grep -E "^ *[0-9]+/[0-9]+ |FAIL:|^Ok:|^Fail:" | sed "s/^/$v: /"
  )
done
for s in ${SCRIPTS:-}; do
  n=$(basename "$s" .sh)
  BUILD_DIR=/tmp/gcs-build OUT=$W/$n "$s" > "$W/$n.txt" 2>&1
  echo "== $s: exit $? after $((SECONDS - t0)) s"
  tail -${TAIL:-14} "$W/$n.txt"
done
# shellcheck disable=SC2086
for f in ${KEEP:-}; do cp "$W/$f" "$OUT/" 2> /dev/null; done

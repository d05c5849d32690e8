#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# On a GPU machine: the tracer's tests against the .gpu bundle's GStreamer
# and 1.28.6 (built at once), then scripts/gpu-tracer.sh on the bundle's
# build, alone on the machine (its overhead and truth rows are timings).
# The files worth keeping go to $OUT (at most 8: summaries, the timeline).
#   OUT=/tmp/out scripts/gpu-tracer-check.sh
set -u
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/gcs-out}
W=/tmp/gcs-tracer-check
mkdir -p "$OUT" "$W"
t0=$SECONDS
(OUT=$W/bundle BUILD_ONLY=1 NINJA_JOBS=10 scripts/gpu-check.sh > "$W/bundle.txt" 2>&1) &
(GST_VERSION=1.28.6 OUT=$W/1.28.6 BUILD_ONLY=1 NINJA_JOBS=8 scripts/gpu-check.sh > "$W/1.28.6.txt" 2>&1) &
wait
echo "built both in $((SECONDS - t0)) s"
source .gpu/env.sh
for v in bundle 1.28.6; do
  B=/tmp/gcs-build; [ $v = bundle ] || B=/tmp/gcs-build-$v
  (
    [ $v = bundle ] || source /tmp/gst-$v/env.sh
    meson test -C $B --no-rebuild --print-errorlogs tracer_gpu tracer_fake 2>&1 |
      grep -E "^ *[0-9]+/[0-9]+ |FAIL:" | sed "s/^/$v: /"
  )
done
BUILD_DIR=/tmp/gcs-build OUT=$W/tracer scripts/gpu-tracer.sh > "$W/tracer.txt" 2>&1
echo "gpu-tracer.sh: exit $? after $((SECONDS - t0)) s"
sed -n '/^=== summary/,$p' "$W/tracer.txt"
cp "$W/tracer.txt" "$W/tracer/summary-full.txt" "$W/tracer/summary-resident.txt" \
  "$W/tracer/timeline.png" "$OUT/" 2> /dev/null

#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# On the GPU machine: every suite (gpu, interop in both scan orders, torch,
# and the CPU ones) against each GStreamer: the .gpu bundle's 1.22 and the
# versions kept in .gst-dist/ (a copy of this workplace's ../shared/gst),
# compute-sanitizer memcheck on the newest; the 1.22 build's GPU and interop
# suites run by the newest GStreamer; then the benchmark, ours beside
# nvcodec 1.22 and the newest nvcodec. Builds run in parallel first; a
# summary per version last. Results under $OUT/<version>/.
#   scripts/gpu-versions.sh                       # 1.22 (bundle), 1.24.2, 1.28.6, bench
# Env: VERSIONS (default "bundle 1.24.2 1.28.6"), MEMCHECK_VERSION (default
#   the last of VERSIONS), BENCH=0 (no benchmark), BENCH_ONLY (see
#   pipelines/bench), OUT (default /tmp/gcs-out).
set -u
cd "$(dirname "$0")/.."
ROOT=$PWD
source .gpu/env.sh
OUT=${OUT:-/tmp/gcs-out}
VERSIONS=${VERSIONS:-bundle 1.24.2 1.28.6}
last=${VERSIONS##* }
MEMCHECK_VERSION=${MEMCHECK_VERSION:-$last}
mkdir -p "$OUT"

# Builds in parallel: one per version, and the benchmark's release build.
jobs_=()
for v in $VERSIONS; do
  gv=$v
  [ "$v" = bundle ] && gv=
  mkdir -p "$OUT/$v"
  GST_VERSION=$gv BUILD_ONLY=1 NINJA_JOBS=6 OUT=$OUT/$v scripts/gpu-check.sh \
    > "$OUT/build-$v.log" 2>&1 &
  jobs_+=($!)
done
if [ "${BENCH:-1}" != 0 ]; then
  { meson setup /tmp/gcs-bench-build -Dgpu_archs=90 -Dtests=disabled -Dbuildtype=release &&
      ninja -C /tmp/gcs-bench-build -j 6; } > "$OUT/build-bench.log" 2>&1 &
  jobs_+=($!)
fi
for j in "${jobs_[@]}"; do wait "$j"; done
echo "=== builds done $(date -u +%T)"

# The suites, one version after the other (they share the GPU).
for v in $VERSIONS; do
  mkdir -p "$OUT/$v"
  gv=$v
  [ "$v" = bundle ] && gv=
  mc=0
  [ "$v" = "$MEMCHECK_VERSION" ] && mc=1
  GST_VERSION=$gv MEMCHECK=$mc OUT=$OUT/$v scripts/gpu-check.sh > "$OUT/$v/summary.txt" 2>&1
  echo "$?" > "$OUT/$v/rc"
  echo "=== $v done $(date -u +%T): exit $(cat "$OUT/$v/rc")"
done

# The plugin built against the bundle's 1.22 headers, run by the newest
# GStreamer (its libraries first on the library path, its registry and
# nvcodec): the 1.24 stream API is looked up at run time, so the GPU and
# interop suites must pass with 0 host waits in ours there too.
if [ "${VERSIONS%% *}" = bundle ] && [ "$last" != bundle ]; then
  mkdir -p "$OUT/bundle-on-$last"
  ( source "/tmp/gst-$last/env.sh"
    meson test -C /tmp/gcs-build --no-rebuild --suite interop --suite gpu --no-suite torch \
      --print-errorlogs --num-processes 2 --logbase on-$last
  ) > "$OUT/bundle-on-$last/meson-test.txt" 2>&1
  echo "$?" > "$OUT/bundle-on-$last/rc"
  grep -h "HOST-WAITS" "/tmp/gcs-build/meson-logs/on-$last.txt" | sort -u \
    >> "$OUT/bundle-on-$last/meson-test.txt"
  echo "=== 1.22 build on $last done $(date -u +%T): exit $(cat "$OUT/bundle-on-$last/rc")"
fi

if [ "${BENCH:-1}" != 0 ]; then
  # The torch rows use the Python module of the first version's test build.
  first=${VERSIONS%% *}
  torch_build=/tmp/gcs-build-$first
  [ "$first" = bundle ] && torch_build=/tmp/gcs-build
  BUILD_DIR=/tmp/gcs-bench-build OUT=$OUT/bench BENCH_SECONDS=${BENCH_SECONDS:-1} \
    BENCH_PEER_GST=/tmp/gst-$last TORCH_BUILD_DIR=$torch_build pipelines/bench \
    > "$OUT/bench.txt" 2>&1
  echo "=== bench done $(date -u +%T)"
fi

for v in $VERSIONS; do
  echo "##### GStreamer $v: exit $(cat "$OUT/$v/rc" 2> /dev/null)"
  sed -n '/^=== /,$p' "$OUT/$v/summary.txt"
done
if [ -f "$OUT/bundle-on-$last/rc" ]; then
  echo "##### built against 1.22, run by GStreamer $last: exit $(cat "$OUT/bundle-on-$last/rc")"
  grep -E "^(Ok|Fail|Skipped):|HOST-WAITS.*nvh264dec" "$OUT/bundle-on-$last/meson-test.txt"
fi
[ -f "$OUT/bench.txt" ] && sed -n '/^SUMMARY/,$p' "$OUT/bench.txt"

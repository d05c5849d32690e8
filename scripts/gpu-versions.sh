#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# On the GPU machine: every suite (gpu, interop in both scan orders, torch,
# and the CPU ones) against each GStreamer: the .gpu bundle's 1.22 and the
# versions kept in .gst-dist/ (a copy of this workplace's ../shared/gst),
# compute-sanitizer memcheck on the newest; then the benchmark, ours beside
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

# Unpack each version once (a subshell keeps its env.sh out of this one).
for v in $VERSIONS; do
  [ "$v" = bundle ] || [ -f "/tmp/gst-$v/env.sh" ] ||
    .gst-dist/use "$v" "/tmp/gst-$v" > /dev/null 2>&1 || echo "cannot unpack GStreamer $v"
done

# Builds in parallel: one per version, and the benchmark's release build.
build() { # VERSION DIR [meson options]
  local v=$1 b=$2
  shift 2
  (
    [ "$v" = bundle ] || source "/tmp/gst-$v/env.sh"
    { [ -f "$b/build.ninja" ] || meson setup "$b" "$@"; } && ninja -C "$b" -j 6
  ) > "$OUT/build-$v-$(basename "$b").log" 2>&1
}
jobs_=()
for v in $VERSIONS; do
  b=/tmp/gcs-build-$v
  [ "$v" = bundle ] && b=/tmp/gcs-build
  build "$v" "$b" -Dgpu_archs=90 -Dnvcodec_interop=enabled &
  jobs_+=($!)
done
if [ "${BENCH:-1}" != 0 ]; then
  build bundle /tmp/gcs-bench-build -Dgpu_archs=90 -Dtests=disabled -Dbuildtype=release &
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

if [ "${BENCH:-1}" != 0 ]; then
  BUILD_DIR=/tmp/gcs-bench-build OUT=$OUT/bench BENCH_SECONDS=${BENCH_SECONDS:-1} \
    BENCH_PEER_GST=/tmp/gst-$last TORCH_BUILD_DIR=/tmp/gcs-build pipelines/bench \
    > "$OUT/bench.txt" 2>&1
  echo "=== bench done $(date -u +%T)"
fi

for v in $VERSIONS; do
  echo "##### GStreamer $v: exit $(cat "$OUT/$v/rc" 2> /dev/null)"
  sed -n '/^=== /,$p' "$OUT/$v/summary.txt"
done
[ -f "$OUT/bench.txt" ] && sed -n '/^SUMMARY/,$p' "$OUT/bench.txt"

#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# One call on the GPU machine: the release build for the benchmark starts in
# the background, scripts/gpu-check.sh builds and runs every test (memcheck on
# a second GPU when there is one), then the benchmark cases of BENCH_ONLY
# run; the summaries come last. Results under $OUT.
#   scripts/gpu-run.sh
set -u
cd "$(dirname "$0")/.."
[ -f .gpu/env.sh ] && source .gpu/env.sh
OUT=${OUT:-/tmp/gcs-out}
mkdir -p "$OUT"
BB=/tmp/gcs-bench-build
rm -f /tmp/gcs-bench-built
{ { meson setup "$BB" -Dgpu_archs=90 -Dtests=disabled -Dbuildtype=release &&
    ninja -C "$BB"; } > "$OUT/bench-build.log" 2>&1
  echo $? > /tmp/gcs-bench-built; } &
ngpu=$(nvidia-smi -L 2>/dev/null | wc -l)
[ "$ngpu" -ge 2 ] && export MEMCHECK_GPU=$((ngpu - 1))
bench() {
  while [ ! -f /tmp/gcs-bench-built ]; do sleep 1; done
  BUILD_DIR=$BB OUT=$OUT/bench BENCH_SECONDS=${BENCH_SECONDS:-1} pipelines/bench \
    > "$OUT/bench.txt" 2>&1
}
export -f bench
export BB OUT
OUT=$OUT scripts/gpu-check.sh bash -c bench
rc=$?
sed -n '/^SUMMARY/,$p' "$OUT/bench.txt"
exit $rc

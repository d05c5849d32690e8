#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# On the GPU machine: the benchmark's IPC rows (pipelines/bench ipc-*) of a
# base commit and of this tree, interleaved ROUNDS times on one host (its
# drift falls on both), then each row's median per build. The base is a
# `git archive` of it, made where git is:
#   git archive BASE -o .base.tar   # ignored: name it in the call's carry
#   OUT=$OUT scripts/gpu-ipc-ab.sh
# Builds that exist are kept (back-to-back calls on a warm machine): the
# base's in /tmp/ab-base, this tree's in NEW_BUILD (default
# scripts/gpu-ipc.sh's, /tmp/gcs-ipc-build: the plugin's options the same,
# its tests built too). BUILD_ONLY=1: build the base and stop (beside
# other work: nice, 6 jobs).
# Env: ROUNDS (3), IPC_ROWS (a BENCH_ONLY regex, default the rows the
#   targets name: frames and batches at 1,000 a second, frames at 30 a
#   second and at full speed, one consumer under MPS beside one process),
#   BENCH_SECONDS (1.5).
set -u
cd "$(dirname "$0")/.." || exit 1
OUT=${OUT:-/tmp/gcs-out}
mkdir -p "$OUT"
# shellcheck disable=SC1091
source .gpu/env.sh
BASE=/tmp/ab-base NEW=${NEW_BUILD:-/tmp/gcs-ipc-build}
build() { # SOURCE DIR
  local t0=$SECONDS
  [ -f "$2/build.ninja" ] || meson setup "$2" "$1" -Dgpu_archs=90 -Dtests=disabled \
    -Dbuildtype="${BUILDTYPE:-release}" -Dnvcodec_interop=enabled > "$2.log" 2>&1 || { echo "setup of $1 failed"; tail -20 "$2.log"; return 1; }
  nice -n 19 ninja -C "$2" -j"${NINJA_JOBS:-6}" >> "$2.log" 2>&1 || { echo "build of $1 failed"; tail -20 "$2.log"; return 1; }
  echo "built $1 in $((SECONDS - t0)) s"
}
if [ ! -f $BASE/build.ninja ] || ! ninja -C $BASE -n 2> /dev/null | grep -q "no work to do"; then
  [ -f .base.tar ] || { echo "no .base.tar (git archive BASE -o .base.tar)"; exit 1; }
  rm -rf /tmp/ab-base-src && mkdir -p /tmp/ab-base-src && tar -xf .base.tar -C /tmp/ab-base-src
  build /tmp/ab-base-src $BASE || exit 1
fi
[ "${BUILD_ONLY:-0}" = 1 ] && exit 0
[ -f "$NEW/build.ninja" ] || build "$PWD" "$NEW" || exit 1
ninja -C "$NEW" > /dev/null 2>&1 || { echo "build of this tree failed"; exit 1; }
rows=${IPC_ROWS:-^ours ipc-(frames-(1c|4c)-(1000fps|30fps|full)|batches-(1c|4c)-1000fps|frames-local-mps|frames-1c-full-mps) }
for r in $(seq "${ROUNDS:-3}"); do
  for b in base new; do
    dir=$BASE
    [ $b = new ] && dir=$NEW
    BUILD_DIR=$dir OUT=/tmp/ipc-ab-$b-$r BENCH_SECONDS=${BENCH_SECONDS:-1.5} BENCH_ONLY="$rows" \
      timeout 400 pipelines/bench > "$OUT/bench-$b-$r.txt" 2>&1
    sed "s/^/$b $r /" /tmp/ipc-ab-$b-$r/raw_ipc.jsonl >> "$OUT/ipc-ab.jsonl"
    echo "round $r $b done at $SECONDS s"
  done
  # After each round: a call cut short keeps what it measured.
  python3 pipelines/ipc_ab_report.py "$OUT/ipc-ab.jsonl" > "$OUT/ipc-ab-median.txt"
done
cat "$OUT/ipc-ab-median.txt"

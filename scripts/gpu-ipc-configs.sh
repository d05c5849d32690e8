#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# On the GPU machine: the benchmark's IPC rows (pipelines/bench ipc-*) of
# this tree under several configurations of the benchmark, interleaved
# ROUNDS times on one host (its drift falls on all of them), then each
# row's median per configuration. Where gpu-ipc-ab.sh compares two builds,
# this compares ways of measuring one (the tracer on or off, on one side or
# both):
#   IPC_CONFIGS='traced; untraced IPC_TRACER=; both IPC_TRACE_LOCAL=1' \
#     OUT=$OUT scripts/gpu-ipc-configs.sh
# Each configuration: a label, then the VAR=value words it runs the
# benchmark with, its variables or any the elements read (';' between
# configurations; no spaces in a value, so a regular expression such as
# IPC_PROFILE='(1c-full-mps|local-mps)' fits). The build is
# gpu-ipc-ab.sh's NEW_BUILD (kept between calls on a warm machine). The
# device tool brings back only a few files: tar $OUT at the end of a call.
# Env: IPC_CONFIGS, ROUNDS (3), IPC_ROWS (a BENCH_ONLY regex, default the
#   one-process row and one consumer under MPS), BENCH_SECONDS (1.5),
#   NINJA_JOBS (16), FLOOR=1 (gcs-ipc-sink-floor after each configuration:
#   the least CPU the sink's protocol costs a frame on this host at that
#   moment, beside the rows; its p50s by round at the end).
set -u
cd "$(dirname "$0")/.." || exit 1
OUT=${OUT:-/tmp/gcs-out}
mkdir -p "$OUT"
# shellcheck disable=SC1091
source .gpu/env.sh
NEW=${NEW_BUILD:-/tmp/gcs-ipc-build}
if [ ! -f "$NEW/build.ninja" ]; then
  meson setup "$NEW" . -Dgpu_archs=90 -Dtests=disabled -Dbuildtype="${BUILDTYPE:-release}" \
    -Dnvcodec_interop=enabled > "$NEW.log" 2>&1 || { echo "setup failed"; tail -20 "$NEW.log"; exit 1; }
fi
t0=$SECONDS
ninja -C "$NEW" -j"${NINJA_JOBS:-16}" >> "$NEW.log" 2>&1 || { echo "build failed"; tail -20 "$NEW.log"; exit 1; }
echo "built in $((SECONDS - t0)) s"
rows=${IPC_ROWS:-^ours ipc-frames-(local-mps|1c-full-mps) }
IFS=';' read -r -a configs <<< "${IPC_CONFIGS:-traced; untraced IPC_TRACER=; both IPC_TRACE_LOCAL=1}"
: > "$OUT/ipc-configs.jsonl"
rm -f "$OUT/ipc-floors.txt"
for r in $(seq "${ROUNDS:-3}"); do
  for c in "${configs[@]}"; do
    read -r -a words <<< "$c"
    label=${words[0]}
    rm -rf "/tmp/ipc-cfg-$label-$r" # an earlier call's, on a warm machine
    BUILD_DIR=$NEW OUT=/tmp/ipc-cfg-$label-$r BENCH_SECONDS=${BENCH_SECONDS:-1.5} BENCH_ONLY="$rows" \
      timeout 400 env "${words[@]:1}" pipelines/bench > "$OUT/bench-$label-$r.txt" 2>&1
    sed "s/^/$label $r /" "/tmp/ipc-cfg-$label-$r/raw_ipc.jsonl" >> "$OUT/ipc-configs.jsonl"
    # The sampler's reports (IPC_PROFILE in a configuration's words).
    for f in /tmp/ipc-cfg-"$label-$r"/ipc/*/*.profile.txt; do
      [ -f "$f" ] && cp "$f" "$OUT/$label-$r-$(basename "$(dirname "$f")")-$(basename "$f")"
    done
    echo "round $r $label done at $SECONDS s"
    if [ "${FLOOR:-0}" = 1 ]; then
      "$NEW/pipelines/gcs-ipc-sink-floor" > "$OUT/floor-$label-$r.txt" 2>&1
      sed "s/^/$label $r /" "$OUT/floor-$label-$r.txt" | grep SINK-FLOOR >> "$OUT/ipc-floors.txt"
    fi
  done
  python3 pipelines/ipc_ab_report.py "$OUT/ipc-configs.jsonl" > "$OUT/ipc-configs-median.txt"
done
cat "$OUT/ipc-configs-median.txt"
if [ -f "$OUT/ipc-floors.txt" ]; then
  echo "the sink's floor after each configuration (gcs-ipc-sink-floor, p50 µs a frame):"
  sed -E 's/^([^ ]+) ([0-9]+) SINK-FLOOR .*"consumers":([0-9]+),"gap_us":([0-9]+),.*"p50_us":([0-9.]+),.*/  after \1, round \2: \3 consumer(s), \4 µs apart: \5/' "$OUT/ipc-floors.txt"
fi

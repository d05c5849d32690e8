#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# On the GPU machine: cudaconvertscale's matrix as a user's pipeline runs it
# (pipelines/convert_matrix.py), ours beside nvcodec 1.28.6's, both on
# GStreamer 1.28.6 (.gst-dist: a copy of ../shared/gst), in one call: a
# release build against 1.28.6, the CUPTI pass, as many of ROUNDS rounds
# as fit, the copy roofline, the table. Results in $OUT/matrix/.
#   OUT=/tmp/out scripts/gpu-convert-matrix.sh
# Env: ROUNDS (5), WINDOW (seconds a timed run aims at, 0.2), ONLY (a regex
#   of row names), SECONDS_LEFT (the call's time, 560), RESUME (an earlier
#   call's state.json: its rounds kept, the CUPTI pass not run again;
#   pipelines/convert_matrix.py's --resume). The state is copied to
#   $OUT/state.json too: the device tool brings back only so many files,
#   and the CUPTI pass leaves a hundred under $OUT/matrix/.
set -u
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/gcs-out}
mkdir -p "$OUT"
GST_VERSION=1.28.6
# shellcheck source=scripts/gpu-gst-env.sh
source scripts/gpu-gst-env.sh || exit 1
B=/tmp/gcs-matrix-build
[ -f $B/build.ninja ] || meson setup $B -Dgpu_archs=90 -Dtests=disabled -Dbuildtype=release \
  "${gst_link_args[@]}" > "$OUT/setup.log" 2>&1
ninja -C $B > "$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; echo "SUMMARY: build failed"; exit 1; }
echo "=== built in $SECONDS s; $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1); GStreamer $(pkg-config --modversion gstreamer-1.0)"
python3 pipelines/convert_matrix.py --build $B --out "$OUT/matrix" --rounds "${ROUNDS:-5}" \
  --window "${WINDOW:-0.2}" --only "${ONLY:-}" ${RESUME:+--resume "$RESUME"} \
  --deadline $((${SECONDS_LEFT:-560} - SECONDS - 45))
status=$?
cp "$OUT/matrix/state.json" "$OUT/state.json" 2> /dev/null
exit $status

#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The main job: builds, then shows what the GPU path costs - the steady-state
# frames/s, CPU time and host waits per frame of
# cudaupload ! cudacrop ! cudaconvertscale ! cudadownload (centre 1280x720 of
# 1080p NV12, scaled to 640x360 RGBA) beside the same by videocrop and
# videoconvertscale on the CPU - and writes one such frame of the test
# pattern to a PNG (default: cudastreams.png).
#   pipelines/run.sh [PNG] [--source pinned|pageable] [--seconds S]
# The work is done by scripts/main-job.py (its --help lists the options).
set -euo pipefail
# shellcheck disable=SC1091
source "$(dirname "$0")/../scripts/setup.sh"
png=cudastreams.png
if [ $# -gt 0 ] && [[ $1 != -* ]]; then
  png=$1
  shift
fi
exec python3 "$ROOT/scripts/main-job.py" --build-dir "$BUILD_DIR" --png "$png" "$@"

#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# On the GPU machine, after gpu-final.sh or gpu-check.sh built the bundle's
# tree (BUILD_DIR, default /tmp/gcs-build): the behaviours of GStreamer's
# contract that are measured rather than asserted, each printed as one
# PASS/FAIL line (run it as gpu-final.sh's EXTRA):
# - a stalled live cudabatch sleeps (gcs-batch-stall-cpu: <= 1% of a core
#   over a 10 s stall, and before any frame);
# - cudadownload lets each frame go as soon as its copy is done: three
#   frames 2 s apart leave at about 2, 4 and 6 s, not all at EOS.
set -u
cd "$(dirname "$0")/.."
B=${BUILD_DIR:-/tmp/gcs-build}
[ -f .gpu/env.sh ] && source .gpu/env.sh
export GST_PLUGIN_PATH=$B/plugins GST_REGISTRY_1_0=/tmp/gcs-contract-registry.bin

stall=$(timeout 60 "$B/pipelines/gcs-batch-stall-cpu" --check 2>&1)
rc=$?
echo "$stall" | grep SUMMARY
[ $rc = 0 ] && echo "PASS batch stall: <= 1% of a core" || echo "FAIL batch stall (exit $rc)"

# basesink logs each buffer it takes (twice: "got times" of its start and
# of its clipped start) with the time since the start of the process in
# the line's first column.
times=$(GST_DEBUG=basesink:5 GST_DEBUG_NO_COLOR=1 timeout 30 gst-launch-1.0 videotestsrc num-buffers=3 ! \
  identity sleep-time=2000000 ! cudastreamsupload ! cudastreamsdownload ! fakesink 2>&1 |
  grep "got times" | awk '{print $1}' | sed 's/^0:00://' | tr '\n' ' ')
echo "download: frames reached the sink at ${times:-nothing} s"
python3 - "$times" << 'EOF'
import sys
t = [float(x) for x in sys.argv[1].split()]
want = (2.0, 4.0, 6.0)
ok = bool(t) and all(min(abs(x - w) for w in want) < 0.6 for x in t) and \
    all(any(abs(x - w) < 0.6 for x in t) for w in want)
print(("PASS" if ok else "FAIL") + " download: each frame leaves when its copy is done (want ~2, 4, 6 s)")
EOF

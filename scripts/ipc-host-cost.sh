#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# cudastreamsipcsink/src's own per-frame host work on the CUDA stand-in (no
# GPU), FRAMES 1080p NV12 frames (exported in place) at full speed from a
# gcs-ipc-peer producer to a gst-launch-1.0 consumer (cudastreamsipcsrc !
# fakesink):
#   1. instructions a frame (callgrind) in the sink's render and its server
#      thread, and in the src's create, its reader thread and its releases;
#   2. syscalls a frame of each of their threads (strace).
# Counts repeat closely for the same build, so two builds compare without
# the noise of timing (pipelines/bench's ipc-* rows time the real thing).
#   scripts/ipc-host-cost.sh BUILD_DIR    # a build with the stand-in (tests on)
set -eu
B=$(realpath "${1:?a build directory with tests/fakecuda/plugin}")
N=${FRAMES:-200}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export GST_PLUGIN_PATH=$B/tests/fakecuda/plugin GST_REGISTRY_1_0=$T/registry.bin
export FAKECUDA_DEVICES=1
produce() { "$@" "$B/tests/gcs-ipc-peer" produce "$T/s.sock" --frames "$N" --width 1920 \
  --height 1080 --consumers 1 --timeout 120 > "$T/producer.txt" 2>&1; }
consume() { "$@" gst-launch-1.0 -q cudastreamsipcsrc socket-path="$T/s.sock" num-buffers="$N" \
  connection-timeout=120000 ! fakesink > "$T/consumer.txt" 2>&1; }

produce valgrind --tool=callgrind --callgrind-out-file="$T/sink.cg" \
  --toggle-collect='gst_cs_ipc_sink_render*' --toggle-collect='gst_cs::ipc::Server::run*' &
consume valgrind --tool=callgrind --callgrind-out-file="$T/src.cg" \
  --toggle-collect='gst_cs_ipc_src_create*' --toggle-collect='gst_cs::ipc::Client::run*' \
  --toggle-collect='gst_cs::ipc::Client::frame_freed*'
wait
for side in sink src; do
  total=$(callgrind_annotate "$T/$side.cg" 2> /dev/null |
    awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1 }')
  echo "$side: $((total / N)) instructions a frame"
done

rm -f "$T/s.sock"
produce strace -f -o "$T/sink.strace" &
consume strace -f -o "$T/src.strace"
wait
# Per thread of ours: the sink's streaming thread (gcs-ipc-peer's appsrc: its
# cudaupload's syscalls too)
# and server thread, the src's streaming thread and reader thread.
python3 - "$N" "$T" << 'PY'
import collections, re, sys
n, t = int(sys.argv[1]), sys.argv[2]
for side in ("sink", "src"):
    names, calls = {}, collections.defaultdict(collections.Counter)
    for line in open(f"{t}/{side}.strace"):
        m = re.match(r'(\d+) (?:prctl\(PR_SET_NAME, |write\(\d+, )"([\w:-]+)', line)
        if m:
            names.setdefault(m.group(1), m.group(2))
        m = re.match(r"(\d+) (\w+)\(", line)
        if m:
            calls[m.group(1)][m.group(2)] += 1
    for tid, c in calls.items():
        name = names.get(tid, "")
        if name.startswith("csipc-") or name.startswith("pool-"):
            top = ", ".join(f"{k} {v / n:.2f}" for k, v in c.most_common(5))
            print(f"{side}: thread {name}: {sum(c.values()) / n:.1f} syscalls a frame ({top})")
PY

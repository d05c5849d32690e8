#!/usr/bin/env bash
# The main job: builds, then runs a real pipeline on the built-in test source
# through the GPU — upload, crop, download — prints the frame rate and writes
# one frame of the same pipeline to a PNG (default: cudastreams.png, or $1).
set -euo pipefail
source "$(dirname "$0")/../scripts/setup.sh"
export GST_PLUGIN_PATH="$BUILD_DIR/plugins${GST_PLUGIN_PATH:+:$GST_PLUGIN_PATH}"
OUT_PNG=$(realpath -m "${1:-cudastreams.png}")
FRAMES=${FRAMES:-600}

# 1920x1080 test pattern -> GPU -> the centre 1280x720 -> host.
caps="video/x-raw,format=NV12,width=1920,height=1080,framerate=60/1"
gpu_chain="cudaupload ! cudacrop left=320 right=320 top=180 bottom=180 ! cudadownload"
gst-inspect-1.0 cudacrop >/dev/null 2>&1 || gpu_chain="cudaupload ! cudadownload"

log=$(mktemp)
trap 'rm -f "$log"' EXIT
start=$(date +%s.%N)
if ! gst-launch-1.0 -q videotestsrc num-buffers="$FRAMES" pattern=smpte ! "$caps" ! \
    $gpu_chain ! fakesink > "$log" 2>&1; then
  if grep -q "No CUDA device" "$log"; then
    echo "run.sh: this needs an NVIDIA GPU with a working driver:" >&2
  else
    echo "run.sh: the pipeline failed:" >&2
  fi
  grep -E "ERROR|error|Additional debug" "$log" | head -5 >&2
  exit 1
fi
end=$(date +%s.%N)
fps=$(python3 -c "print(f'{$FRAMES / ($end - $start):.0f}')")
echo "videotestsrc ! $gpu_chain: $FRAMES frames in $(python3 -c "print(f'{$end - $start:.2f}')") s" \
  "= $fps frames/s (includes start-up and the CPU test-pattern source)"

gst-launch-1.0 -q videotestsrc num-buffers=1 pattern=smpte ! "$caps" ! $gpu_chain ! \
  videoconvert ! pngenc ! filesink location="$OUT_PNG"
echo "wrote $OUT_PNG"

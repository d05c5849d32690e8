#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# What a converter kernel compiled at run time for the conversion at hand
# would save, measured without a GPU: for each case of cases.txt, the
# kernel the build has (its description a parameter) beside the same
# kernel with the description a constant of the source (kernels.cu), as
# PTX (nvcc -ptx: instructions, loads, local memory, branches), and how
# long NVRTC takes to compile the specialised one (with shims/, the few
# std names the kernels use, in place of the toolkit's libcu++ headers,
# which alone took NVRTC 1.1 s).
#   scripts/specialize-study/run.sh [BUILD_DIR]
# BUILD_DIR (default build): a build of the tree with real kernels; the
# tool that describes a conversion links its objects.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
B=$(cd "${1:-$root/build}" && pwd)
cuda=${CUDA_HOME:-/usr/local/cuda}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
P=$B/plugins/libgstcudastreams.so.p
g++ -std=c++17 -O1 -o "$T/describe" "$here/describe.cpp" -I"$root/gpu" -I"$root/plugins" \
  -I"$root/common" -I"$B" -I"$B/common" -I"$cuda/include" \
  $(pkg-config --cflags --libs gstreamer-video-1.0) \
  "$P/convert_gstcsconvertdesc.cpp.o" "$P/convert_gstcsconvertlayout.cpp.o" \
  "$B/gpu/libgcs-convert-host.a"
g++ -std=c++17 -O1 -o "$T/nvrtc_time" "$here/nvrtc_time.cpp" -I"$cuda/include" \
  -L"$cuda/lib64" -lnvrtc -Wl,-rpath,"$cuda/lib64"
printf '%-22s %-14s %28s %28s %s\n' case path "built: instr loads(local) br" \
  "specialised: instr loads(local) br" "NVRTC"
grep -v '^#' "$here/cases.txt" | while IFS='|' read -r name in out filter body launch; do
  [ -n "$name" ] || continue
  set -- $launch
  path=$("$T/describe" "video/x-raw,format=$in" "video/x-raw,format=$out" "$filter" \
    2>&1 > "$T/description.h" | tail -1)
  defs=(-DBODY="$body" -DNBX="$1" -DNBY="$2" -DROWS="$3")
  nvcc -std=c++17 -O3 -arch=sm_90 -fmad=false -ptx -I"$root/gpu" -I"$T" "${defs[@]}" \
    "$here/kernels.cu" -o "$T/k.ptx" 2> "$T/nvcc.log" || { cat "$T/nvcc.log"; exit 1; }
  g=$(python3 "$here/count_ptx.py" "$T/k.ptx" | awk '$1 == "k_generic" {print $2, $3 "(" $4 ")", $5}')
  s=$(python3 "$here/count_ptx.py" "$T/k.ptx" | awk '$1 == "k_specialized" {print $2, $3 "(" $4 ")", $5}')
  rtc=$("$T/nvrtc_time" "$here/kernels.cu" --gpu-architecture=sm_90 -std=c++17 --fmad=false \
    -default-device -I"$here/shims" -I"$root/gpu" -I"$T" "${defs[@]}" | head -3)
  printf '%-22s %-14s %28s %28s %s\n' "$name" "$path" "$g" "$s" "$rtc"
done

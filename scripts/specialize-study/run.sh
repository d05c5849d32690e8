#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# What a converter kernel compiled at run time for the conversion at hand
# would save, measured without a GPU: for each case of cases.txt, the
# kernel the build has (its description a parameter) beside the same
# kernel with the description a constant of the source (kernels.cu), as
# PTX (nvcc -ptx: instructions, loads, local memory, branches), and how
# long NVRTC takes to compile the specialised one (with gpu/rtc_std/, the few
# std names the kernels use, in place of the toolkit's libcu++ headers,
# which alone took NVRTC 1.1 s).
# With GPU=1, on a machine with a GPU, each case's two kernels also run
# on one random frame (bench.cu): their times and whether their bytes agree.
#   scripts/specialize-study/run.sh [BUILD_DIR]
# BUILD_DIR (default build): a meson build of the tree; the tool that
# describes a conversion links three of its targets, built here if missing
# (a new BUILD_DIR is set up; no kernel is compiled for them).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
B=${1:-$root/build}
cuda=${CUDA_HOME:-/usr/local/cuda}
P=plugins/libgstcudastreams.so.p
targets=("$P/convert_gstcsconvertdesc.cpp.o" "$P/convert_gstcsconvertlayout.cpp.o"
  gpu/libgcs-convert-host.a)
[ -f "$B/build.ninja" ] || meson setup "$B" "$root" -Dtests=disabled > /dev/null
ninja -C "$B" "${targets[@]}" > /dev/null
B=$(cd "$B" && pwd)
P=$B/$P
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
g++ -std=c++17 -O1 -o "$T/describe" "$here/describe.cpp" -I"$root/gpu" -I"$root/plugins" \
  -I"$root/common" -I"$B" -I"$B/common" -I"$cuda/include" \
  $(pkg-config --cflags --libs gstreamer-video-1.0) \
  "$P/convert_gstcsconvertdesc.cpp.o" "$P/convert_gstcsconvertlayout.cpp.o" \
  "$B/gpu/libgcs-convert-host.a"
g++ -std=c++17 -O1 -o "$T/nvrtc_time" "$here/nvrtc_time.cpp" -I"$cuda/include" \
  -L"$cuda/lib64" -lnvrtc -Wl,-rpath,"$cuda/lib64"
# Columns: PTX instructions, loads (of them local), branches, then ptxas's
# registers and stack bytes a thread; NVRTC's time and output.
printf '%-22s %-14s %36s %36s %s\n' case path "built: instr loads(local) br regs/stack" \
  "specialised: the same" "NVRTC"
grep -v '^#' "$here/cases.txt" | while IFS='|' read -r name in out filter body; do
  [ -n "$name" ] || continue
  path=$("$T/describe" "video/x-raw,format=$in" "video/x-raw,format=$out" "$filter" "$body" \
    2>&1 > "$T/description.h" | tail -1)
  defs=(-DBODY="$body")
  nvcc -std=c++17 -O3 -arch=sm_90 -fmad=false -ptx -I"$root/gpu" -I"$T" "${defs[@]}" \
    "$here/kernels.cu" -o "$T/k.ptx" 2> "$T/nvcc.log" || { cat "$T/nvcc.log"; exit 1; }
  # ptxas's account: registers and stack (local memory) per thread.
  ptxas -arch=sm_90 -v "$T/k.ptx" -o "$T/k.cubin" 2>&1 | awk '
    /Compiling entry/ { k = $7; gsub (/\047/, "", k) }
    /stack frame/ { stack[k] = $1 }
    /Used [0-9]+ registers/ { print k, $5, stack[k] }' > "$T/regs"
  ptx() {
    python3 "$here/count_ptx.py" "$T/k.ptx" | awk -v k="$1" '$1 == k {print $2, $3 "(" $4 ")", $5}'
  }
  regs() { awk -v k="$1" '$1 == k {print $2 "r/" $3 "B"}' "$T/regs"; }
  g="$(ptx k_generic) $(regs k_generic)"
  s="$(ptx k_specialized) $(regs k_specialized)"
  rtc=$("$T/nvrtc_time" "$here/kernels.cu" --gpu-architecture=sm_90 -std=c++17 --fmad=false \
    -default-device -I"$root/gpu/rtc_std" -I"$root/gpu" -I"$T" "${defs[@]}" | head -3)
  printf '%-22s %-14s %36s %36s %s\n' "$name" "$path" "$g" "$s" "$rtc"
  if [ "${GPU:-0}" = 1 ]; then
    nvcc -std=c++17 -O3 -arch=sm_90 -fmad=false -I"$root/gpu" -I"$T" -I"$here" "${defs[@]}" \
      -x cu "$here/bench.cu" -o "$T/bench" 2> "$T/nvcc.log" || { cat "$T/nvcc.log"; exit 1; }
    echo "  on the GPU: $("$T/bench" 2>&1 | tail -1)"
  fi
done

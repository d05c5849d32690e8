#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Shared by tests/run.sh and pipelines/run.sh: installs what is missing
# (Debian/Ubuntu packages), finds the CUDA toolkit, configures and builds.
#   source scripts/setup.sh        -> builds into $BUILD_DIR (default: build)
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD_DIR=${BUILD_DIR:-$ROOT/build}

# Optional: a machine without GStreamer and without a package manager (a GPU
# machine) can use a relocatable GStreamer in .gpu/ (see README.md).
from_bundle=0
if ! pkg-config --exists gstreamer-1.0 2>/dev/null && [ -f "$ROOT/.gpu/env.sh" ]; then
  # shellcheck disable=SC1091
  source "$ROOT/.gpu/env.sh"
  from_bundle=1
fi

# An interpreter the Python module (python/) can be built for and tested
# with: NumPy (the tests need it) and its C headers.
python_ok() {
  "$1" -c 'import numpy, os, sys, sysconfig
sys.exit(not os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h")))'
} > /dev/null 2>&1
# python3 on PATH when it will do (a GPU machine's, with NumPy and torch),
# else the system's: a pyenv python3 first on PATH often lacks NumPy.
pick_python() {
  local py
  for py in python3 /usr/bin/python3; do
    py=$(command -v "$py") && python_ok "$py" && { echo "$py"; return 0; }
  done
  return 1
}

# Everything the build, the tests and the main job use, checked by use rather
# than by package record (the bundle has no records).
have_all() {
  command -v meson && command -v ninja && command -v python3 && command -v g++ &&
    pkg-config --exists gstreamer-1.0 gstreamer-base-1.0 gstreamer-video-1.0 \
      gstreamer-check-1.0 gstreamer-app-1.0 gstreamer-cuda-1.0 &&
    gst-inspect-1.0 videotestsrc && gst-inspect-1.0 videocrop && gst-inspect-1.0 pngenc &&
    { [ "$from_bundle" = 1 ] ||
      { command -v clang-format && pkg-config --exists pybind11 && pick_python; }; }
} > /dev/null 2>&1
if ! have_all; then
  pkgs=(meson ninja-build pkg-config g++ python3 libgstreamer1.0-dev
    libgstreamer-plugins-base1.0-dev gstreamer1.0-tools gstreamer1.0-plugins-base
    gstreamer1.0-plugins-good gstreamer1.0-plugins-bad
    libgstreamer-plugins-bad1.0-dev libgl-dev clang-format git python3-dev python3-numpy pybind11-dev)
  echo "setup: installing ${pkgs[*]} (what is missing of them)" >&2
  sudo=; [ "$(id -u)" -ne 0 ] && sudo=sudo
  $sudo apt-get update -qq > /dev/null
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
    "${pkgs[@]}" > /dev/null
fi
# Packages that help where they can be had (apt-get, not from the bundle):
# installed quietly; where one is not packaged, `why` says what is lost.
#   optional_packages WHY PACKAGE...
optional_packages() {
  local why=$1 sudo=
  shift
  [ "$from_bundle" != 1 ] && [ -x /usr/bin/apt-get ] || return 0
  echo "setup: installing $* ($why)" >&2
  [ "$(id -u)" -ne 0 ] && sudo=sudo
  { $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq \
    --no-install-recommends "$@"; } > /dev/null 2>&1 ||
    echo "setup: $* not packaged here ($why: without)" >&2
}
# What the pip install check (tests/install/pip-check.sh) needs beside:
# meson-python and venv for the system's Python (Debian 12: python3-mesonpy
# 0.12). Where a distribution has no package of meson-python, the check says
# it is skipped (and fails under CI).
/usr/bin/python3 -c 'import mesonpy, ensurepip' > /dev/null 2>&1 ||
  optional_packages "the pip install check" python3-mesonpy python3-venv

# ccache: CI's five builds (the system's, the sanitizers', three GStreamer
# versions) compile the sources that include no GStreamer (the CPU twins,
# the stand-in) alike, and meson uses it when it is on PATH at configure
# time. Its cache lives in the clone (build-ccache/), so that a fresh clone
# costs what it costs on a fresh machine; the builds' folders differ, so
# the working folder is left out of the hash (a hit's debug info names the
# first build's folder).
command -v ccache > /dev/null || optional_packages "a cache of compilations" ccache
export CCACHE_DIR=${CCACHE_DIR:-$ROOT/build-ccache} CCACHE_NOHASHDIR=${CCACHE_NOHASHDIR:-1}

if ! command -v nvcc >/dev/null; then
  for d in /usr/local/cuda/bin /usr/local/cuda-*/bin; do
    [ -x "$d/nvcc" ] && export PATH="$d:$PATH" && break
  done
fi
if ! command -v nvcc >/dev/null; then
  echo "setup: the CUDA toolkit (nvcc) is required to build; install it from NVIDIA" \
       "(https://developer.nvidia.com/cuda-downloads) and put its bin/ on PATH" >&2
  exit 1
fi

# Quiet when all goes well; on failure the whole log, so CI shows why.
quietly() {
  local log
  log=$(mktemp)
  if ! "$@" > "$log" 2>&1; then
    cat "$log" >&2
    rm -f "$log"
    echo "setup: failed: $*" >&2
    exit 1
  fi
  rm -f "$log"
}
# The Python module is built for the interpreter found above (none: meson's
# default, python3, and the module only where that one has its headers).
PYTHON_ARGS=
if PYTHON=$(pick_python); then
  PYTHON_ARGS="-Dpython=$PYTHON"
fi
# The kernels for one GPU architecture: this machine's GPU, or, without
# one (the kernels are then only compiled, to check them), the PTX of
# compute_90 alone (gpu_machine_code=false: no ptxas, half the kernels'
# build on CI's two cores). Each further architecture costs as long again;
# MESON_ARGS=-Dgpu_archs=... chooses others.
ARCH_ARGS=
if [[ "${MESON_ARGS:-}" != *gpu_archs* ]]; then
  arch=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2> /dev/null | head -1 | tr -d ' .' || true)
  ARCH_ARGS="-Dgpu_archs=${arch:-90}"
  if [ -z "$arch" ] && [[ "${MESON_ARGS:-}" != *gpu_machine_code* ]]; then
    ARCH_ARGS+=" -Dgpu_machine_code=false"
  fi
fi
if [ -f "$BUILD_DIR/build.ninja" ]; then
  quietly meson setup --reconfigure "$BUILD_DIR" "$ROOT" -Dnvcodec_interop=enabled $ARCH_ARGS $PYTHON_ARGS ${MESON_ARGS:-}
else
  quietly meson setup "$BUILD_DIR" "$ROOT" -Dnvcodec_interop=enabled $ARCH_ARGS $PYTHON_ARGS ${MESON_ARGS:-}
fi
quietly ninja -C "$BUILD_DIR"
echo "setup: built in $BUILD_DIR" >&2

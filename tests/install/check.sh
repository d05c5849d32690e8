#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Installs the build into a temporary prefix (meson install --destdir), then:
# the library exports nothing but its C API (gst_cs_*, gst_is_cs_*), only
# the public headers are installed, a C program builds against the installed
# .pc alone and runs, gst-inspect-1.0 finds the elements in the plugin folder
# the .pc names (pluginsdir), the converter's compiler process is beside
# the plugin there, the C example (examples/c) builds and links as
# an application would build it (it needs a GPU to run), and, where the
# Python module is built, `python -m cudastreams` finds the installed
# plugin from the installed package.
#   check.sh BUILD_DIR SOURCE_DIR C_COMPILER CUDA_COMPILER [PYTHON]
set -euo pipefail
build=$1 src=$2 cc=$3 nvcc=$4 python=${5:-}
dest=$(mktemp -d)
trap 'rm -rf "$dest"' EXIT
meson install -C "$build" --destdir "$dest" --no-rebuild --quiet > /dev/null
pc=$(find "$dest" -name gstreamer-cudastreams-1.0.pc | head -1)
lib=$(find "$dest" -name 'libgstcudastreams-1.0.so.*.*' | head -1)
[ -n "$pc" ] && [ -n "$lib" ] || { echo "not installed: the .pc or the library"; exit 1; }

# Exported symbols: the C API only.
bad=$(nm -D --defined-only "$lib" | awk '{print $3}' | grep -Ev '^(gst_cs_|gst_is_cs_)' || true)
if [ -n "$bad" ]; then
  echo "the library exports symbols outside its C API:"; echo "$bad" | head -20; exit 1
fi
echo "exports: $(nm -D --defined-only "$lib" | wc -l) symbols, all gst_cs_*/gst_is_cs_*"

# Installed headers: the public ones, none of the *-private ones.
headers=$(find "$dest" -path '*gst/cudastreams/*.h' -printf '%f\n' | sort | tr '\n' ' ')
echo "installed headers: $headers"
case "$headers" in *private*) echo "a private header is installed"; exit 1 ;; esac

# The .pc names no path of this machine but the CUDA toolkit's variables.
if grep -Ev '^cuda(include|lib)dir=' "$pc" | grep -q "$src\|$build"; then
  echo "the .pc names a path of the build:"; cat "$pc"; exit 1
fi

# A C program against the installed .pc alone (its prefix moved to where the
# files went, as a packager's staged install is).
prefix=$(sed -n 's/^prefix=//p' "$pc")
sed -i "s|^prefix=.*|prefix=$dest$prefix|" "$pc"
export PKG_CONFIG_PATH="$(dirname "$pc")${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
flags=$(pkg-config --cflags --libs gstreamer-cudastreams-1.0)
# A build with sanitizers: the program needs their runtime first.
san=
# (Not grep -q: it stops reading at the first match, ldd may then die of
# SIGPIPE, and pipefail makes the test fail as if no sanitizer were there.)
ldd "$lib" | grep libasan > /dev/null && san="-fsanitize=address,undefined"
# shellcheck disable=SC2086
"$cc" -std=c11 -Wall -Werror $san -o "$dest/app" "$src/tests/install/app.c" $flags
LD_LIBRARY_PATH="$(dirname "$lib")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$dest/app"

# The elements, in the plugin folder the .pc names, as gst-inspect-1.0 sees
# them with that folder alone (no system plugins, a registry of its own),
# the library found from there (no LD_LIBRARY_PATH: the tree is staged). A
# sanitizer build's plugin loads in-process, after the sanitizer's runtime.
plugins=$(pkg-config --variable=pluginsdir gstreamer-cudastreams-1.0)
inspect=(env GST_PLUGIN_SYSTEM_PATH_1_0="$dest/none" GST_PLUGIN_PATH="$plugins"
  GST_REGISTRY_1_0="$dest/registry.bin")
[ -n "$san" ] && inspect+=(GST_REGISTRY_FORK=no LD_PRELOAD="$("$cc" -print-file-name=libasan.so)")
for e in cudastreamsupload cudastreamscrop cudastreamsdownload cudastreamsconvertscale \
  cudastreamsbatch; do
  if ! "${inspect[@]}" gst-inspect-1.0 "$e" 2>&1 | grep "Filename *$plugins/libgstcudastreams.so" > /dev/null; then
    echo "gst-inspect-1.0 $e: not found in $plugins:"
    "${inspect[@]}" gst-inspect-1.0 "$e" 2>&1 | head -20
    ls -l "$plugins" || true
    exit 1
  fi
done
echo "gst-inspect-1.0: the elements in pluginsdir ($plugins)"

# The converter's compiler process (gpu/rtc_compiler_main.cpp), where the
# build has kernels: beside the plugin, which looks for it there, and
# runnable from there (it refuses a terminal with a message, exit 2).
if [ -f "$build/gpu/gcs-rtc-compile" ]; then
  [ -x "$plugins/gcs-rtc-compile" ] ||
    { echo "gcs-rtc-compile is not installed beside the plugin ($plugins)"; exit 1; }
  rc=0; "$plugins/gcs-rtc-compile" < /dev/null > /dev/null 2>&1 || rc=$?
  [ $rc = 1 ] || { echo "gcs-rtc-compile without its caller: exit $rc, not 1"; exit 1; }
  echo "gcs-rtc-compile: beside the plugin, runs from there"
fi

# The C example outside the build tree: its kernel compiled by nvcc alone,
# the program by the C compiler, linked with nothing but what pkg-config
# gives (the CUDA runtime included: the example creates its own streams).
flags=$(pkg-config --cflags --libs gstreamer-cudastreams-1.0 gstreamer-app-1.0 \
  gstreamer-video-1.0)
# The kernel needs only the CUDA headers, which nvcc has. Its host code is
# C++ (nvcc's registration stubs use the C++ runtime): a C program that links
# it adds -lstdc++.
"$nvcc" -c -Xcompiler -fPIC -o "$dest/invert.o" "$src/examples/c/invert.cu"
# shellcheck disable=SC2086
"$cc" -std=c11 -Wall -Werror $san -o "$dest/example" "$src/examples/c/app.c" \
  "$dest/invert.o" $flags -lstdc++
echo "examples/c: built against the installed .pc ($(basename "$dest")/example)"

# The Python package, where meson installed one: it loads the installed
# plugin, and its extension the library, relative to the package (so from
# this staged tree too).
init=$(find "$dest" -path '*/cudastreams/__init__.py' | head -1)
if [ -n "$python" ] && [ -n "$init" ]; then
  doctor=$(cd "$dest" && env -u GST_PLUGIN_PATH GST_PLUGIN_SYSTEM_PATH_1_0="$dest/none" \
    GST_REGISTRY_1_0="$dest/registry-python.bin" PYTHONPATH="$(dirname "$(dirname "$init")")" \
    "$python" -m cudastreams 2>&1) || { echo "python -m cudastreams failed:"; echo "$doctor"; exit 1; }
  echo "$doctor" | grep "plugin: $plugins/libgstcudastreams.so (loaded at import)" > /dev/null ||
    { echo "python -m cudastreams: not the installed plugin:"; echo "$doctor"; exit 1; }
  echo "python -m cudastreams: the installed package loads $plugins/libgstcudastreams.so"
fi

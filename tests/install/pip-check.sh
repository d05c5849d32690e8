#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# `pip install .` as a Python user does it on Debian 12: a virtual
# environment with --system-site-packages (meson-python and NumPy from apt),
# pip install --no-build-isolation from the clone; then, from a folder
# outside the clone and with none of the project's variables (PYTHONPATH,
# GST_PLUGIN_PATH), against the installed package: the doctor
# (python -m cudastreams), gst-inspect-1.0 on its --plugin-path, and the
# Python tests that need no GPU. The stand-in's module is not involved: it is
# a build of its own (tests/python/fakecuda).
#   tests/install/pip-check.sh [WORK_DIR]       (default: build-pip/ in the clone)
# PIP_SETUP_ARG: the one meson option given to the build (default
# -Dgpu_kernels=false: no GPU here; its elements load and post an error
# where they would run a kernel). Prints "pip install: N passed, N failed"
# last; exits 1 when a check failed.
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
WORK=${1:-$ROOT/build-pip}
rm -rf "$WORK"
mkdir -p "$WORK/outside"
passed=0 failed=0
ok() { echo "pip install: ok   $1"; passed=$((passed + 1)); }
fail() {
  echo "pip install: FAIL $1"; failed=$((failed + 1))
  [ -f "${2:-}" ] && tail -40 "$2" | sed 's/^/    /'
}
finish() { echo "pip install: $passed passed, $failed failed"; [ $failed -eq 0 ]; exit; }

# The system's Python, where Debian's python3-mesonpy is (scripts/setup.sh).
py=/usr/bin/python3
if ! $py -c 'import mesonpy, ensurepip, numpy' > /dev/null 2>&1; then
  echo "pip install: skipped: $py has no meson-python, venv or NumPy" \
    "(apt-get install python3-mesonpy python3-venv python3-numpy)"
  [ "${CI:-}" = true ] && fail "meson-python, venv and NumPy for $py"
  finish
fi
t0=$SECONDS
$py -m venv --system-site-packages "$WORK/venv" > "$WORK/venv.log" 2>&1 ||
  { fail "python3 -m venv" "$WORK/venv.log"; finish; }
vpy=$WORK/venv/bin/python
# The clone as given, not a copy: pip builds in place, meson-python in a
# temporary folder inside it (.mesonpy-*, ignored).
if (cd "$WORK/outside" && timeout 900 "$vpy" -m pip install --no-build-isolation --no-index \
  --config-settings=setup-args="${PIP_SETUP_ARG:--Dgpu_kernels=false}" "$ROOT") \
  > "$WORK/pip.log" 2>&1; then
  ok "pip install --no-build-isolation ($((SECONDS - t0)) s)"
else
  fail "pip install --no-build-isolation" "$WORK/pip.log"
  finish
fi

# From outside the clone, with none of the project's variables; a registry
# of its own, so that no plugin scanned before can stand in for the package's.
outside() {
  (cd "$WORK/outside" && env -u PYTHONPATH -u GST_PLUGIN_PATH \
    GST_REGISTRY_1_0="$WORK/registry.bin" "$@")
}
site=$(outside "$vpy" -c 'import sysconfig; print(sysconfig.get_paths()["platlib"])')
pkg=$site/cudastreams

where=$(outside "$vpy" -c 'import cudastreams; print(cudastreams.__file__)' 2>&1)
if [ "$where" = "$pkg/__init__.py" ]; then
  ok "import cudastreams: the installed package"
else
  fail "import cudastreams: $where, not $pkg/__init__.py"
fi

# The doctor: exits 0 only where every cudastreams* name means the plugin
# it loaded at import.
if outside "$vpy" -m cudastreams > "$WORK/doctor.txt" 2>&1 &&
  grep -q "plugin: $pkg/gstreamer-1.0/libgstcudastreams.so (loaded at import)" \
    "$WORK/doctor.txt"; then
  ok "python -m cudastreams (the plugin of the package, every name ours)"
else
  fail "python -m cudastreams" "$WORK/doctor.txt"
fi

# --plugin-path, for gst-launch-1.0 and the like in other processes.
dir=$(outside "$vpy" -m cudastreams --plugin-path 2>&1)
if [ "$dir" = "$pkg/gstreamer-1.0" ] &&
  GST_PLUGIN_PATH=$dir GST_REGISTRY_1_0="$WORK/registry-inspect.bin" \
    gst-inspect-1.0 cudastreamsupload > "$WORK/inspect.txt" 2>&1 &&
  grep -q "Filename *$dir/libgstcudastreams.so" "$WORK/inspect.txt"; then
  ok "GST_PLUGIN_PATH=\$(python -m cudastreams --plugin-path) gst-inspect-1.0 cudastreamsupload"
else
  echo "--plugin-path: $dir" >> "$WORK/inspect.txt"
  fail "python -m cudastreams --plugin-path, then gst-inspect-1.0" "$WORK/inspect.txt"
fi

# The converter's compiler process beside the package's plugin, which
# looks for it there, where the package has kernels.
case "${PIP_SETUP_ARG:--Dgpu_kernels=false}" in
  *gpu_kernels=false*) ;;
  *) if [ -x "$pkg/gstreamer-1.0/gcs-rtc-compile" ]; then
       ok "gcs-rtc-compile beside the package's plugin"
     else
       fail "gcs-rtc-compile is not beside the package's plugin ($pkg/gstreamer-1.0)"
     fi ;;
esac

# The Python tests that need no GPU (tests/python/meson.build's), on the
# installed package. pycheck.py comes from the script's folder; cudastreams
# from site-packages (checked above).
version=$(sed -n "s/^  version : '\(.*\)',$/\1/p" "$ROOT/meson.build")
for t in frames errors push leak threads; do
  args=()
  [ $t = frames ] && args=("$version")
  if outside timeout 300 "$vpy" "$ROOT/tests/python/test_$t.py" "${args[@]}" \
    > "$WORK/test_$t.txt" 2>&1; then
    ok "tests/python/test_$t.py: $(tail -1 "$WORK/test_$t.txt")"
  else
    fail "tests/python/test_$t.py" "$WORK/test_$t.txt"
  fi
done
echo "pip install: $((SECONDS - t0)) s in all"
finish

#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The test command (tests/run.sh calls it): installs what is missing, builds,
# runs `meson test`.
# Without a GPU the GPU tests report "skipped" (exit 77); with one they run.
# The `fakecuda` suite runs the GPU tests on a stand-in of the CUDA runtime
# everywhere. Then the tests that run without a GPU (cpu and fakecuda suites)
# run again in a second build under AddressSanitizer and
# UndefinedBehaviorSanitizer (SANITIZE=0 skips that). Then `pip install .`
# into a virtual environment, checked from outside the clone (PIP_CHECK=0
# skips that).
#   tests/run.sh [--gst-versions DIR] [meson test arguments]
# --gst-versions DIR (or GST_VERSIONS_DIR=DIR) also builds and runs the
# suites that need no GPU against every GStreamer kept in DIR
# (scripts/gst-versions.sh; CI passes this workplace's ../shared/gst).
set -euo pipefail
VERSIONS_DIR=${GST_VERSIONS_DIR:-}
if [ "${1:-}" = --gst-versions ]; then
  VERSIONS_DIR=${2:?--gst-versions needs a directory}
  shift 2
fi
source "$(dirname "$0")/setup.sh"
set +e
meson test -C "$BUILD_DIR" --print-errorlogs "$@"
rc=$?
set -e
grep -m1 -o "SKIP [a-z_]*: no usable CUDA GPU.*" "$BUILD_DIR/meson-logs/testlog.txt" \
  | sed 's/^SKIP /GPU tests skipped (/; s/$/)/' || true

# One plain line per build, counted from meson's own log.
count() { python3 "$ROOT/scripts/test-counts.py" "$1" "$2" || true; }

san_rc=0
if [ "${SANITIZE:-1}" != 0 ] && [ $# -eq 0 ]; then
  SAN_DIR=${SANITIZE_BUILD_DIR:-$ROOT/build-sanitize}
  echo "tests: again under AddressSanitizer and UndefinedBehaviorSanitizer ($SAN_DIR)" >&2
  if [ -f "$SAN_DIR/build.ninja" ]; then
    quietly meson setup --reconfigure "$SAN_DIR" "$ROOT"
  else
    # b_lundef=false: the sanitizer runtimes resolve symbols at load time.
    # No Python module: an instrumented extension cannot be loaded into an
    # interpreter that is not (the ASan runtime must come first in the
    # process); its tests run in the plain build.
    # No kernels: its tests run on the stand-in, whose CPU twins stand for
    # them (the plain build compiles them).
    quietly meson setup "$SAN_DIR" "$ROOT" -Db_sanitize=address,undefined -Db_lundef=false \
      -Dgpu_kernels=false -Dpython_module=disabled
  fi
  quietly ninja -C "$SAN_DIR"
  set +e
  # GStreamer keeps process-wide objects (the registry, types) to the end;
  # leaks are not what this build looks for. Any UB report fails the test.
  # The format check reads the sources, not the build: the plain run has it.
  # The registry is scanned in-process: the plugin scanner is not built
  # with the sanitizers and cannot load a plugin that is.
  GST_REGISTRY_FORK=no ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 \
    UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
    meson test -C "$SAN_DIR" --suite cpu --suite fakecuda --no-suite format --print-errorlogs
  san_rc=$?
  set -e
fi
# pip install . as a Python user does it, into a virtual environment, and
# the package checked from outside the clone (tests/install/pip-check.sh;
# about 2 minutes; PIP_CHECK=0 skips it).
pip_rc=0
pip_out=
if [ "${PIP_CHECK:-1}" != 0 ] && [ $# -eq 0 ]; then
  echo "tests: pip install . into a virtual environment ($ROOT/build-pip)" >&2
  set +e
  pip_out=$("$ROOT/tests/install/pip-check.sh" "$ROOT/build-pip")
  pip_rc=$?
  set -e
  echo "$pip_out"
fi
versions_rc=0
versions_out=
if [ -n "$VERSIONS_DIR" ]; then
  echo "tests: against the GStreamer versions in $VERSIONS_DIR" >&2
  set +e
  versions_out=$(PYTHON=${PYTHON:-} "$ROOT/scripts/gst-versions.sh" "$VERSIONS_DIR")
  versions_rc=$?
  set -e
fi
system_gst=$(pkg-config --modversion gstreamer-1.0 2> /dev/null || echo "?")
count "$BUILD_DIR" "tests (GStreamer $system_gst, the system's)"
[ "${SANITIZE:-1}" != 0 ] && [ $# -eq 0 ] && count "$SAN_DIR" "tests under ASan+UBSan (GStreamer $system_gst)"
[ -n "$pip_out" ] && tail -1 <<< "$pip_out"
[ -n "$versions_out" ] && echo "$versions_out"
[ $rc -ne 0 ] && exit $rc
[ $san_rc -ne 0 ] && exit $san_rc
[ $pip_rc -ne 0 ] && exit $pip_rc
exit $versions_rc

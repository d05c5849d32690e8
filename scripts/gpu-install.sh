#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# On the GPU machine: `pip install .` into a virtual environment of its
# Python (PyTorch and NumPy from its site-packages), with no package index,
# then from a folder outside the clone and with none of the project's
# variables (PYTHONPATH, GST_PLUGIN_PATH): the doctor (python -m cudastreams)
# and examples/python/batch_infer.py --check; then both again beside
# GStreamer's nvcodec (GST_PLUGIN_PATH=$GST_PEER_PLUGINS, as where a user has
# it installed): the doctor must name nvcodec's cudaupload/cudadownload and
# ours under cudastreams*. GStreamer itself comes from .gpu/env.sh. A summary
# line (PASS/FAIL) last; the logs in $OUT.
#
# That machine has no meson-python and no index: carry Debian's pure-Python
# meson-python, pyproject-metadata and packaging in .pydeps/ (ignored), made
# here first:
#   scripts/gpu-install.sh --prepare              (here: fills .pydeps/)
#   OUT=/tmp/out scripts/gpu-install.sh           (there; carry .gpu and .pydeps)
# SETUP_ARG: the one meson option of the build (default -Dgpu_archs= the GPU's).
set -u
cd "$(dirname "$0")/.."
ROOT=$PWD
if [ "${1:-}" = --prepare ]; then
  rm -rf .pydeps && mkdir .pydeps
  for m in mesonpy pyproject_metadata packaging; do
    d=$(/usr/bin/python3 -c "import os, $m; print(os.path.dirname($m.__file__))") &&
      cp -r "$d" .pydeps/ || { echo "--prepare: no $m (apt-get install python3-mesonpy)"; exit 1; }
  done
  find .pydeps -name __pycache__ -prune -exec rm -rf {} +
  echo "--prepare: .pydeps/ has $(ls .pydeps | tr '\n' ' ')($(du -sh .pydeps | cut -f1))"
  exit 0
fi
OUT=${OUT:-/tmp/gcs-out}
W=/tmp/gcs-install
rm -rf "$W" && mkdir -p "$OUT" "$W/outside"
[ -d .pydeps/mesonpy ] || { echo "SUMMARY: FAIL: no .pydeps/mesonpy (run --prepare here, carry .pydeps)"; exit 1; }
if ! pkg-config --exists gstreamer-1.0 2> /dev/null; then
  # shellcheck disable=SC1091
  source .gpu/env.sh
fi
export PATH="/usr/local/cuda/bin:$PATH"
py=$(command -v python3)
arch=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2> /dev/null | head -1 | tr -d ' .')
arch=${arch:-90}
fails=()
t0=$SECONDS

# The environment: with pip where ensurepip is there; else without, and
# the interpreter's own pip installs into its site-packages (--target).
V=$W/venv
vpy=$V/bin/python
if "$py" -m venv --system-site-packages "$V" > "$OUT/venv.txt" 2>&1; then
  pip=("$vpy" -m pip install)
else
  "$py" -m venv --without-pip --system-site-packages "$V" >> "$OUT/venv.txt" 2>&1 ||
    { echo "SUMMARY: FAIL: python3 -m venv (see venv.txt)"; exit 1; }
  pip=("$py" -m pip install --no-cache-dir
    --target "$("$vpy" -c 'import sysconfig; print(sysconfig.get_paths()["platlib"])')")
fi
# The build backend (meson-python) from .pydeps; one GPU architecture, the
# documented way to choose it.
(cd "$W/outside" && PYTHONPATH="$ROOT/.pydeps" "${pip[@]}" --no-build-isolation --no-index \
  --no-deps --config-settings=setup-args="${SETUP_ARG:--Dgpu_archs=$arch}" "$ROOT") \
  > "$OUT/pip.txt" 2>&1
pip_rc=$?
pip_s=$((SECONDS - t0))
if [ $pip_rc -ne 0 ]; then
  tail -30 "$OUT/pip.txt"
  echo "SUMMARY: FAIL: pip install (exit $pip_rc after $pip_s s; see pip.txt)"
  exit 1
fi

# From outside the clone, none of the project's variables.
outside() { (cd "$W/outside" && env -u PYTHONPATH -u GST_PLUGIN_PATH "$@"); }
where=$(outside "$vpy" -c 'import cudastreams; print(cudastreams.__file__)' 2>&1)
case $where in "$V"/*) ;; *) fails+=("import cudastreams: $where, not in $V") ;; esac
outside "$vpy" -m cudastreams > "$OUT/doctor.txt" 2>&1 || fails+=("doctor: exit $?")
cat "$OUT/doctor.txt"
outside timeout 300 "$vpy" "$ROOT/examples/python/batch_infer.py" 30 --check \
  > "$OUT/batch_infer.txt" 2>&1
rc=$?
tail -3 "$OUT/batch_infer.txt"
[ $rc -eq 0 ] || fails+=("batch_infer.py: exit $rc")
infer=$(grep -m1 "batches of" "$OUT/batch_infer.txt")

# Beside nvcodec, as where a user has it installed.
if [ -d "${GST_PEER_PLUGINS:-}" ]; then
  nv() { outside env GST_PLUGIN_PATH="$GST_PEER_PLUGINS" GST_REGISTRY_1_0="$W/nvcodec.bin" "$@"; }
  nv "$vpy" -m cudastreams > "$OUT/doctor-nvcodec.txt" 2>&1 || fails+=("doctor beside nvcodec: exit $?")
  echo "-- beside nvcodec:"
  sed -n '/^names/,$p' "$OUT/doctor-nvcodec.txt"
  for n in cudaupload cudadownload; do
    grep -qE "^  $n +nvcodec's" "$OUT/doctor-nvcodec.txt" ||
      fails+=("beside nvcodec, $n is not nvcodec's")
  done
  nv timeout 300 "$vpy" "$ROOT/examples/python/batch_infer.py" 30 --check \
    > "$OUT/batch_infer-nvcodec.txt" 2>&1
  rc=$?
  tail -3 "$OUT/batch_infer-nvcodec.txt"
  [ $rc -eq 0 ] || fails+=("batch_infer.py beside nvcodec: exit $rc")
  infer="$infer / beside nvcodec: $(grep -m1 "batches of" "$OUT/batch_infer-nvcodec.txt")"
fi
summary="pip install (${SETUP_ARG:--Dgpu_archs=$arch}) $pip_s s; $infer"
if [ ${#fails[@]} -eq 0 ]; then
  echo "SUMMARY: PASS: $summary"
else
  echo "SUMMARY: FAIL: $(IFS=';'; echo "${fails[*]}"); $summary"
  exit 1
fi

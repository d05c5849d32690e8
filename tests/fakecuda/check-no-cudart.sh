#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Fails when any of the given binaries loads a real CUDA runtime: the
# fakecuda suite must run on libfakecudart alone.
status=0
for f in "$@"; do
  if ldd "$f" | grep -E 'libcudart|libcuda\.so'; then
    echo "$f loads a real CUDA library" >&2
    status=1
  fi
done
[ $status -eq 0 ] && echo "no real CUDA runtime in $# binaries"
exit $status

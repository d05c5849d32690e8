#!/usr/bin/env bash
# The test command: installs what is missing, builds, runs `meson test`.
# Without a GPU the GPU tests report "skipped" (exit 77); with one they run.
set -euo pipefail
source "$(dirname "$0")/../scripts/setup.sh"
set +e
meson test -C "$BUILD_DIR" --print-errorlogs "$@"
rc=$?
set -e
grep -m1 -o "SKIP [a-z_]*: no usable CUDA GPU.*" "$BUILD_DIR/meson-logs/testlog.txt" \
  | sed 's/^SKIP /GPU tests skipped (/; s/$/)/' || true
# One plain closing line, counted from meson's own log.
python3 - "$BUILD_DIR/meson-logs/testlog.json" <<'PY' || true
import json, sys
counts = {}
for line in open(sys.argv[1]):
    r = json.loads(line)["result"]
    counts[r] = counts.get(r, 0) + 1
passed = counts.get("OK", 0) + counts.get("EXPECTEDFAIL", 0)
failed = sum(v for k, v in counts.items() if k not in ("OK", "EXPECTEDFAIL", "SKIP"))
print(f"tests: {passed} passed, {failed} failed, {counts.get('SKIP', 0)} skipped")
PY
exit $rc

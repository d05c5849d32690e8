#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# On the GPU machine: the converter's kernel times (gcs-convert-time, every
# row of pipelines/convert_rows.txt and ROWS files) of a base commit and of
# this tree's build, ROUNDS times in turn on one GPU; prints each row's
# best of each. DEFAULT_ROWS= (set, empty): the ROWS files' rows alone.
# The base is a `git archive` of it (.base.tar, ignored: name it in the
# call's carry). NEW_BUILD: a build of this tree with
# kernels (default /tmp/gcs-build, gpu-check.sh's), built here if absent.
#   git archive BASE -o .base.tar; EXTRA=scripts/gpu-kernel-ab.sh scripts/gpu-final.sh
set -u
cd "$(dirname "$0")/.."
[ -f .base.tar ] || { echo "no .base.tar (git archive BASE -o .base.tar)"; exit 1; }
source .gpu/env.sh
NEW=${NEW_BUILD:-/tmp/gcs-build}
rm -rf /tmp/kab-src && mkdir -p /tmp/kab-src && tar -xf .base.tar -C /tmp/kab-src
t0=$SECONDS
{ meson setup /tmp/kab /tmp/kab-src -Dgpu_archs=90 -Dtests=disabled &&
  ninja -C /tmp/kab pipelines/gcs-convert-time; } > /tmp/kab.log 2>&1 ||
  { tail -20 /tmp/kab.log; exit 1; }
[ -f "$NEW/build.ninja" ] || meson setup "$NEW" -Dgpu_archs=90 -Dtests=disabled > /dev/null
ninja -C "$NEW" pipelines/gcs-convert-time > /tmp/kab-new.log 2>&1 || { tail -20 /tmp/kab-new.log; exit 1; }
echo "built in $((SECONDS - t0)) s"
sets=()
[ -n "${DEFAULT_ROWS-1}" ] && sets+=("")
for f in ${ROWS:-scripts/convert_rows_one_tap.txt}; do sets+=("$f"); done
for r in $(seq "${ROUNDS:-2}"); do
  for b in base new; do
    exe=/tmp/kab/pipelines/gcs-convert-time
    [ $b = new ] && exe=$NEW/pipelines/gcs-convert-time
    for rows in "${sets[@]}"; do
      $exe ${rows:+--rows "$rows"} 2>/dev/null | sed "s/^/$b /"
    done
  done
done > /tmp/kab-times.txt
python3 - /tmp/kab-times.txt << 'PY'
import json, sys
best = {}
order = []
for line in open(sys.argv[1]):
    b, _, rest = line.partition(" ")
    if not rest.startswith("CONVERT-TIME "):
        continue
    r = json.loads(rest[13:])
    key = r["row"]
    if key not in order:
        order.append(key)
    d = best.setdefault(key, {})
    d[b] = min(d.get(b, 1e9), r["kernel_us"])
    d["copy"] = r["copy_us"]
    d["path"] = r.get("path", "")
print("%-38s %-13s %7s %7s %6s %6s" % ("row", "path", "base", "new", "new/b", "copy"))
for k in order:
    d = best[k]
    if "base" in d and "new" in d:
        print("%-38s %-13s %7.2f %7.2f %6.2f %6.2f" % (k, d["path"], d["base"], d["new"],
              d["new"] / d["base"], d["copy"]))
PY

#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# On the GPU machine: the converter's kernel times (gcs-convert-time, every
# row of pipelines/convert_rows.txt and ROWS files) of a base commit and of
# this tree's build, ROUNDS times in turn on one GPU; prints each row's
# best of each. DEFAULT_ROWS= (set, empty): the ROWS files' rows alone.
# The base is a `git archive` of it (.base.tar, ignored: name it in the
# call's carry; BASE_ONLY=1: build the base alone). NEW_BUILD: a build of this tree with
# kernels (default /tmp/gcs-build, gpu-check.sh's), built here if absent.
# Both builds hold the compiler process of the kernels compiled at run
# time (GST_CS_CONVERT_RTC=wait times those; without it, a build finds
# none and times its built kernels). GST_VERSION: build against that
# GStreamer (scripts/gpu-gst-env.sh), BUILD_TYPE: meson's buildtype, as
# NEW_BUILD was set up (gpu-convert-matrix.sh's: 1.28.6, release).
# VARIANTS: more trees timed beside them in the same rounds, each a tar
# of its own (ignored, carried: `git archive $(git stash create) -o
# .var-NAME.tar` of a tree with one change), named by NAME in "NAME ...",
# built in parallel with the base, so that several changes to a kernel
# are measured in one device call. RTC: GST_CS_CONVERT_RTC of the timed
# runs (default: the caller's). SETUP_ARGS: more meson options for every
# build of the call, e.g. -Dgpu_machine_code=false (PTX alone: with
# RTC=wait the timed kernels are the ones compiled for each conversion
# all the same).
#   git archive BASE -o .base.tar; EXTRA=scripts/gpu-kernel-ab.sh scripts/gpu-final.sh
set -u
cd "$(dirname "$0")/.." || exit 1
[ -f .base.tar ] || { echo "no .base.tar (git archive BASE -o .base.tar)"; exit 1; }
# shellcheck source=scripts/gpu-gst-env.sh
source scripts/gpu-gst-env.sh || exit 1
targets=(pipelines/gcs-convert-time gpu/gcs-rtc-compile)
# shellcheck disable=SC2206 # SETUP_ARGS: words, as meson takes them
setup=(-Dgpu_archs=90 -Dtests=disabled -Dbuildtype="${BUILD_TYPE:-debugoptimized}" "${gst_link_args[@]}" ${SETUP_ARGS:-})
NEW=${NEW_BUILD:-/tmp/gcs-build}
t0=$SECONDS
# The base's build is kept: BASE_ONLY=1 builds it alone (in the
# background beside this tree's build and tests), a later call times.
if [ ! -f /tmp/kab/build.ninja ]; then
  rm -rf /tmp/kab-src && mkdir -p /tmp/kab-src && tar -xf .base.tar -C /tmp/kab-src
  meson setup /tmp/kab /tmp/kab-src "${setup[@]}" > /tmp/kab.log 2>&1 ||
    { tail -20 /tmp/kab.log; exit 1; }
fi
variant_pids=()
for v in ${VARIANTS:-}; do
  [ -f ".var-$v.tar" ] || { echo "no .var-$v.tar"; exit 1; }
  ( rm -rf "/tmp/kab-$v-src" && mkdir -p "/tmp/kab-$v-src" && tar -xf ".var-$v.tar" -C "/tmp/kab-$v-src" &&
    { [ -f "/tmp/kab-$v/build.ninja" ] ||
      meson setup "/tmp/kab-$v" "/tmp/kab-$v-src" "${setup[@]}" > "/tmp/kab-$v.log" 2>&1; } &&
    ninja -C "/tmp/kab-$v" "${targets[@]}" >> "/tmp/kab-$v.log" 2>&1 ||
    { echo "variant $v did not build"; tail -20 "/tmp/kab-$v.log"; } ) &
  variant_pids+=($!)
done
ninja -C /tmp/kab "${targets[@]}" >> /tmp/kab.log 2>&1 || { tail -20 /tmp/kab.log; exit 1; }
[ "${BASE_ONLY:-0}" = 1 ] && { echo "base built in $((SECONDS - t0)) s"; exit 0; }
[ -f "$NEW/build.ninja" ] || meson setup "$NEW" "${setup[@]}" > /dev/null
ninja -C "$NEW" "${targets[@]}" > /tmp/kab-new.log 2>&1 || { tail -20 /tmp/kab-new.log; exit 1; }
[ ${#variant_pids[@]} -gt 0 ] && wait "${variant_pids[@]}"
echo "built in $((SECONDS - t0)) s"
sets=()
[ -n "${DEFAULT_ROWS-1}" ] && sets+=("")
for f in ${ROWS:-scripts/convert_rows_one_tap.txt}; do sets+=("$f"); done
rm -f /tmp/kab-errors-*.txt
for _ in $(seq "${ROUNDS:-2}"); do
  for b in base ${VARIANTS:-} new; do
    exe=/tmp/kab-$b/pipelines/gcs-convert-time
    [ $b = base ] && exe=/tmp/kab/pipelines/gcs-convert-time
    [ $b = new ] && exe=$NEW/pipelines/gcs-convert-time
    [ -x "$exe" ] || continue
    for rows in "${sets[@]}"; do
      env ${RTC:+GST_CS_CONVERT_RTC=$RTC} "$exe" ${rows:+--rows "$rows"} 2>> "/tmp/kab-errors-$b.txt" | sed "s/^/$b /"
    done
  done
done > /tmp/kab-times.txt
# A row a build did not time (its kernel's launch failed, say) is "-" in
# the table: what the tool said of it.
for b in base ${VARIANTS:-} new; do
  f=/tmp/kab-errors-$b.txt
  [ -s "$f" ] && { echo "$b said:"; sort -u "$f" | head -5 | sed 's/^/  /'; }
  rm -f "$f"
done
python3 - /tmp/kab-times.txt ${VARIANTS:-} << 'PY'
import json, sys
builds = ["base"] + sys.argv[2:] + ["new"]
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
    if b == "new":
        d["path"] = r.get("path", "")
# Each build's best, and its ratio to the base's.
print("%-38s %-13s " % ("row", "path (new)") + " ".join("%7s %5s" % (b[:7], "/b") for b in builds[1:])
      + " %7s %6s" % ("base", "copy"))
for k in order:
    d = best[k]
    if "base" not in d:
        continue
    cols = " ".join("%7.2f %5.2f" % (d[b], d[b] / d["base"]) if b in d else "%7s %5s" % ("-", "-")
                    for b in builds[1:])
    print("%-38s %-13s %s %7.2f %6.2f" % (k, d.get("path", ""), cols, d["base"], d["copy"]))
PY

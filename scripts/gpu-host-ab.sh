#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# On the GPU machine, in one call: the elements' host rows (pipelines/bench
# host-*) of a base commit and of this tree, interleaved ROUNDS times on one
# host (the same host's drift falls on both), then the convert matrix of
# this tree beside nvcodec 1.28.6 (.gst-dist). The base is a `git archive`
# of it, made where git is:
#   git archive BASE -o .base.tar   # ignored: name it in the call's carry
#   OUT=$OUT scripts/gpu-host-ab.sh
# Prints each row's frames/s and CPU us/frame, a line a row and round.
# Env: ROUNDS (4), HOST_ROWS (a BENCH_ONLY regex, ours' host-base, -convert,
#   -crop), MATRIX=0 (the A/B alone), PROFILE_ROUNDS (0): rounds more of
#   each build under CUPTI and the sampler, printing per row the copies'
#   median µs and how busy the copy engines were within the run (a copy
#   engine that waits points at the host), and where the CPU time went
#   ($OUT/profile-*.txt).
set -u
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/gcs-out}
mkdir -p "$OUT"
[ -f .base.tar ] || { echo "no .base.tar (git archive BASE -o .base.tar)"; exit 1; }
source .gpu/env.sh
.gst-dist/use 1.28.6 /tmp/gst-1.28.6 > /dev/null 2>&1
rm -rf /tmp/ab-base-src && mkdir -p /tmp/ab-base-src && tar -xf .base.tar -C /tmp/ab-base-src
build() { # SOURCE DIR
  local t0=$SECONDS
  meson setup "$2" "$1" -Dgpu_archs=90 -Dtests=disabled -Dbuildtype=release > "$2.log" 2>&1 &&
    ninja -C "$2" -j8 >> "$2.log" 2>&1 || { echo "build of $1 failed"; tail -20 "$2.log"; return 1; }
  echo "built $1 in $((SECONDS - t0)) s (8 jobs, beside the other build)"
}
build /tmp/ab-base-src /tmp/ab-base & b1=$!
build "$PWD" /tmp/ab-new & b2=$!
wait $b1 || exit 1
wait $b2 || exit 1
# Both builds are measured by this tree's CUPTI and sampler libraries.
cp /tmp/ab-new/pipelines/libgcs-cupti-truth.so /tmp/ab-new/pipelines/libgcs-sampler.so \
  /tmp/ab-base/pipelines/ 2> /dev/null
rows=${HOST_ROWS:-^ours host-(base|convert|crop) }
# VAR_ENV (e.g. "DOWN_EXTRA=max-in-flight=4"): a third arm, this tree's
# build with those variables, named "var".
arms="base new"
[ -n "${VAR_ENV:-}" ] && arms="base new var"
arm_env() { [ "$1" = var ] && echo "$VAR_ENV"; }
arm_build() { [ "$1" = base ] && echo /tmp/ab-base || echo /tmp/ab-new; }
for r in $(seq "${ROUNDS:-4}"); do
  for b in $arms; do
    env $(arm_env $b) BUILD_DIR=$(arm_build $b) OUT=/tmp/ab-out-$b-$r BENCH_SECONDS=1 \
      BENCH_ONLY="$rows" pipelines/bench > /dev/null 2>&1
    python3 - "$b" "$r" /tmp/ab-out-$b-$r/raw.jsonl << 'PY' | tee -a "$OUT/host-ab.txt"
import json, sys
b, r, path = sys.argv[1:]
rows = []
for line in open(path):
    j = json.loads(line[7:] if line.startswith("RESULT ") else line)
    rows.append("%s %s %s %s: %.0f fps %.2f us" % (j["case"], j.get("format", ""),
        "%sx%s" % (j.get("width"), j.get("height")), j.get("source", ""),
        j.get("fps") or 0, j.get("cpu_us") or 0))
for row in rows:
    print("round %s %-4s %s" % (r, b, row))
PY
  done
done
for r in $(seq "${PROFILE_ROUNDS:-0}"); do
  for b in $arms; do
    env $(arm_env $b) BUILD_DIR=$(arm_build $b) OUT=/tmp/ab-prof-$b-$r BENCH_SECONDS=1 \
      BENCH_ONLY="$rows" BENCH_CUPTI=1 BENCH_PROFILE=1 pipelines/bench > /dev/null 2>&1
    for j in /tmp/ab-prof-$b-$r/cupti/*.json; do
      [ -f "$j" ] || continue
      python3 - "$b" "$r" "$j" << 'PY' | tee -a "$OUT/host-ab-copies.txt"
import json, os, sys
b, r, path = sys.argv[1:]
j = json.load(open(path))
parts = []
for d in ("h2d", "d2h"):
    c = j.get(d, {})
    if c.get("span_us"):
        parts.append("%s %d x %.1f us, busy %.0f%%" % (d, c["n"], c["p50_us"],
            100.0 * c["busy_us"] / c["span_us"]))
print("copies round %s %-4s %s: %s" % (r, b, os.path.basename(path)[:-5], "; ".join(parts)))
PY
    done
    for t in /tmp/ab-prof-$b-$r/profile/*.txt; do
      [ -f "$t" ] && cp "$t" "$OUT/profile-$b-$r-$(basename "$t")"
    done
  done
done
# Each row's median over the rounds, base against new.
python3 - "$OUT/host-ab.txt" << 'PY' | tee "$OUT/host-ab-median.txt"
import re,sys,statistics as st,collections
d=collections.defaultdict(lambda: collections.defaultdict(list))
for l in open(sys.argv[1]):
    m=re.match(r'round (\d+) (\w+)\s+(.*): (\d+) fps ([\d.]+) us',l)
    if m: d[m.group(3)][m.group(2)].append((int(m.group(4)),float(m.group(5))))
for row,v in d.items():
    b=v.get('base',[])
    if not b:
        continue
    bf=st.median(x[0] for x in b)
    line=f"{row:45s} base {bf:8.0f} fps {st.median(x[1] for x in b):6.1f}us"
    for arm in ('new','var'):
        n=v.get(arm,[])
        if n:
            nf=st.median(x[0] for x in n)
            line+=f"  {arm} {nf:8.0f} fps {st.median(x[1] for x in n):6.1f}us ratio {nf/bf:.2f}"
    print(line)
PY
[ "${MATRIX:-1}" = 0 ] && exit 0
BUILD_DIR=/tmp/ab-new OUT=$OUT/bench BENCH_SECONDS=0.8 BENCH_WARMUP=0.3 \
  BENCH_ONLY="^(ours|nvcodec-[0-9.]*) (convert|host)" BENCH_PEER_GST=/tmp/gst-1.28.6 \
  pipelines/bench > "$OUT/bench.txt" 2>&1
cp "$OUT"/bench/convert-benchmark.csv "$OUT"/bench/convert-benchmark.png "$OUT"/ 2> /dev/null
rm -rf "$OUT/bench"
grep -A3 "^cudaconvertscale:" "$OUT/bench.txt" | head -8
grep -E "host-" "$OUT/bench.txt" | head -12

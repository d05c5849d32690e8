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
#   -crop), MATRIX=0 (the A/B alone).
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
rows=${HOST_ROWS:-^ours host-(base|convert|crop) }
for r in $(seq "${ROUNDS:-4}"); do
  for b in base new; do
    BUILD_DIR=/tmp/ab-$b OUT=/tmp/ab-out-$b-$r BENCH_SECONDS=1 BENCH_ONLY="$rows" \
      pipelines/bench > /dev/null 2>&1
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
# Each row's median over the rounds, base against new.
python3 - "$OUT/host-ab.txt" << 'PY' | tee "$OUT/host-ab-median.txt"
import re,sys,statistics as st,collections
d=collections.defaultdict(lambda: collections.defaultdict(list))
for l in open(sys.argv[1]):
    m=re.match(r'round (\d+) (\w+)\s+(.*): (\d+) fps ([\d.]+) us',l)
    if m: d[m.group(3)][m.group(2)].append((int(m.group(4)),float(m.group(5))))
for row,v in d.items():
    b=v.get('base',[]); n=v.get('new',[])
    if b and n:
        bf=st.median(x[0] for x in b); nf=st.median(x[0] for x in n)
        print(f"{row:45s} base {bf:8.0f} fps {st.median(x[1] for x in b):6.1f}us  new {nf:8.0f} fps {st.median(x[1] for x in n):6.1f}us  ratio {nf/bf:.2f}")
PY
[ "${MATRIX:-1}" = 0 ] && exit 0
BUILD_DIR=/tmp/ab-new OUT=$OUT/bench BENCH_SECONDS=0.8 BENCH_WARMUP=0.3 \
  BENCH_ONLY="^(ours|nvcodec-[0-9.]*) (convert|host)" BENCH_PEER_GST=/tmp/gst-1.28.6 \
  pipelines/bench > "$OUT/bench.txt" 2>&1
cp "$OUT"/bench/convert-benchmark.csv "$OUT"/bench/convert-benchmark.png "$OUT"/ 2> /dev/null
rm -rf "$OUT/bench"
grep -A3 "^cudaconvertscale:" "$OUT/bench.txt" | head -8
grep -E "host-" "$OUT/bench.txt" | head -12

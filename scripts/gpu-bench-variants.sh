#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# On the GPU machine, in one call: this tree's release build, then the
# bench rows BENCH_ONLY picks under each variant, ROUNDS rounds interleaved
# (a host's drift falls on every variant alike). A variant is "label" or
# "label:VAR=value,VAR=value" (environment of the bench, e.g.
# DOWN_EXTRA=spin-wait=true or CUDA_DEVICE_MAX_CONNECTIONS=32).
#   VARIANTS="plain spin:DOWN_EXTRA=spin-wait=true" ROUNDS=8 \
#     BENCH_ONLY='^ours updown NV12 1920x1080 pinned' OUT=$OUT scripts/gpu-bench-variants.sh
# Prints every round's frames/s and CPU µs a frame, then each row's median
# and range per variant. TIMELINE=1: every process also runs under CUPTI
# and writes its timeline; pipelines/timeline_report.py's account of it is
# printed beside its round and kept in $OUT/timeline-LABEL-ROUND.txt (one
# row in BENCH_ONLY: a later row's timeline would replace the first's).
set -u
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/gcs-out}
mkdir -p "$OUT"
source .gpu/env.sh
B=/tmp/variants-build
t0=$SECONDS
# The plugin and the bench's tools only: the rest of the tree is not run.
meson setup "$B" . -Dgpu_archs=90 -Dtests=disabled -Dbuildtype=release > "$OUT/build.log" 2>&1 &&
  ninja -C "$B" plugins/libgstcudastreams.so pipelines/gcs-bench \
    pipelines/gcs-copy-limits pipelines/libgcs-cupti-truth.so pipelines/libgcs-sampler.so \
    >> "$OUT/build.log" 2>&1 || { tail -20 "$OUT/build.log"; exit 1; }
echo "built in $((SECONDS - t0)) s"
for r in $(seq "${ROUNDS:-6}"); do
  for v in ${VARIANTS:-plain}; do
    label=${v%%:*}
    vars=()
    [ "$label" != "$v" ] && IFS=, read -r -a vars <<< "${v#*:}"
    tl=()
    [ "${TIMELINE:-0}" = 1 ] && tl=(BENCH_CUPTI=1 GCS_CUPTI_TIMELINE=/tmp/variants-tl-$label-$r.txt)
    env "${vars[@]}" "${tl[@]}" BUILD_DIR=$B OUT=/tmp/variants-$label-$r \
      BENCH_SECONDS=${BENCH_SECONDS:-1} BENCH_ONLY="$BENCH_ONLY" pipelines/bench > /dev/null 2>&1
    python3 - "$label" "$r" /tmp/variants-$label-$r/raw.jsonl << 'PY' | tee -a "$OUT/variants.txt"
import json, sys
label, r, path = sys.argv[1:]
for line in open(path):
    j = json.loads(line[7:] if line.startswith("RESULT ") else line)
    print("round %s %-10s %s %s %sx%s %s: %.0f fps %.1f us" % (r, label, j["case"],
        j.get("format", ""), j.get("width"), j.get("height"), j.get("source", ""),
        j.get("fps") or 0, j.get("cpu_us") or 0))
PY
    if [ -f /tmp/variants-tl-$label-$r.txt ]; then
      python3 pipelines/timeline_report.py /tmp/variants-tl-$label-$r.txt \
        > "$OUT/timeline-$label-$r.txt" 2>&1
      grep -E "^(h2d|d2h|both)" "$OUT/timeline-$label-$r.txt" | sed "s/^/    /"
      rm -f /tmp/variants-tl-$label-$r.txt
    fi
  done
done
python3 - "$OUT/variants.txt" << 'PY'
import collections, re, statistics as st, sys
d = collections.defaultdict(list)
for l in open(sys.argv[1]):
    m = re.match(r'round \d+ (\S+)\s+(.*): (\d+) fps ([\d.]+) us', l)
    if m:
        d[(m.group(2), m.group(1))].append((int(m.group(3)), float(m.group(4))))
for (row, label), v in sorted(d.items()):
    f = sorted(x[0] for x in v)
    print("%-40s %-10s median %6.0f fps (%d..%d) %5.1f us  rounds %s" % (row, label,
        st.median(f), f[0], f[-1], st.median(x[1] for x in v), " ".join(str(x) for x in f)))
PY

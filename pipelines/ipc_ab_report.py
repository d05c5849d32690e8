#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Each IPC row's median per build (or configuration) over alternating
rounds (scripts/gpu-ipc-ab.sh, scripts/gpu-ipc-configs.sh): lines "LABEL
ROUND RESULT {json}" of
pipelines/ipc_report.py's rows. CPU us a frame: the tracer's figures of
the src and the sink, the consumer's cudaconvertscale (frames: what the
same element costs a frame at each rate), and the producer's server
thread (csipc-server) by its thread CPU clock.

    python3 pipelines/ipc_ab_report.py ipc-ab.jsonl
"""
import collections, json, statistics as st, sys
d = collections.defaultdict(lambda: collections.defaultdict(list))
labels = []  # in the order they first come
for line in open(sys.argv[1]):
    b, r, rest = line.split(" ", 2)
    if not rest.startswith("RESULT "):
        continue
    if b not in labels:
        labels.append(b)
    j = json.loads(rest[7:])
    if j.get("status") == "ok":
        d[j["case"]][b].append(j)
def med(rs, key):
    v = [x[key] for x in rs if x.get(key) is not None]
    return st.median(v) if v else float("nan")
def server_us(r):
    return (r.get("producer_threads_cpu_us") or {}).get("csipc-server")
width = max([5] + [len(b) for b in labels])
print(f"{'row':26} {'build':{width}} {'rounds':>6} {'fps/consumer':>12} {'src us':>7} {'sink us':>7}"
      f" {'cs us':>6} {'server us':>9} {'p50 us':>7} {'p99 us':>7} {'waits':>5}")
for case, v in d.items():
    for b in labels:
        rs = v.get(b, [])
        if rs:
            w = max((x.get("src_waits") or 0) + (x.get("sink_waits") or 0) for x in rs)
            srv = [server_us(x) for x in rs if server_us(x) is not None]
            print(f"{case:26} {b:{width}} {len(rs):6} {med(rs, 'fps_min'):12,.0f} {med(rs, 'src_cpu_us'):7.1f}"
                  f" {med(rs, 'sink_cpu_us'):7.1f} {med(rs, 'convert_cpu_us'):6.1f} {st.median(srv) if srv else float('nan'):9.1f}"
                  f" {med(rs, 'lat_p50_us'):7.0f} {med(rs, 'lat_p99_us'):7.0f} {w:5.2f}")

#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The cudastreams tracer's GPU time per element beside the truth
(scripts/gpu-tracer.sh): the GPU time of the same work, one piece at a time
behind a stream gate, by gcs-convert-time --copies (kernel_one_us,
up_us, down_us). One line per element, PASS where the tracer's median is
within the tolerance of the truth's.

    tracer_truth.py RUN LOG CONVERT_TIME ELEMENT=FIELD...
        LOG: gst-launch-1.0's output with GST_DEBUG=GST_TRACER:7 (the
             cudastreams-summary records)
        CONVERT_TIME: gcs-convert-time's output (its CONVERT-TIME line)
        ELEMENT=FIELD: an element's name and the truth's field, e.g.
             cs=kernel_one_us up=up_us down=down_us

    tracer_truth.py RUN LOG CUPTI_JSON ELEMENT=FIELD...
        the same run's own account by the GPU (pipelines/cupti_truth.cpp):
        FIELD is h2d, d2h (a frame's copies) or kernel:TEXT (the kernels
        whose name holds TEXT), e.g. up=h2d cs=kernel:convert down=d2h
"""
import json
import re
import sys

TOLERANCE = 0.05  # issue 37: within +-5%
WHAT = {
    "h2d": "its host-to-device copies per frame, by CUPTI in the same run",
    "d2h": "its device-to-host copies per frame, by CUPTI in the same run",
    "kernel_one_us": "the kernel, one launch at a time",
    "up_us": "the input frame's host-to-device copy, one at a time",
    "down_us": "the output frame's device-to-host copy, one at a time",
}


def summary_records(log):
    """The last cudastreams-summary record of each element: its fields."""
    rows = {}
    for line in log.splitlines():
        if "cudastreams-summary" not in line:
            continue
        fields = dict(re.findall(r"([a-z0-9-]+)=\([a-z0-9]+\)(\"(?:[^\"\\]|\\.)*\"|[^,;]*)", line))
        name = fields.get("element", "").strip('"')
        if name:
            rows[name] = {k: v.strip('"') for k, v in fields.items()}
    return rows


def truth_line(text):
    for line in text.splitlines():
        if line.startswith("CONVERT-TIME "):
            return json.loads(line[len("CONVERT-TIME "):])
    return {}


def compare(run, name, field, record, truth):
    p50 = float(record.get("gpu-p50-us", "nan")) if record else float("nan")
    mean = float(record.get("gpu-mean-us", "nan")) if record else float("nan")
    t = float(truth.get(field, "nan"))
    ratio = p50 / t if t > 0 else float("nan")
    ok = abs(ratio - 1) <= TOLERANCE
    mark = record.get("note", "") if record else "no summary record"
    extra = f"; back to back {truth['kernel_us']:.2f}" if field == "kernel_one_us" and "kernel_us" in truth else ""
    gated = " [gated]" if truth.get("gated" if field == "kernel_one_us" else "copies_gated",
                                    False) else " [ungated]"
    print(f"TRACER truth {run} {name}: gpu-p50 {p50:.2f} us, mean {mean:.2f} us (tracer"
          f"{', ' + mark if mark else ''}) vs {t:.2f} us ({WHAT.get(field, field)}{extra}){gated}: "
          f"ratio {ratio:.3f} {'PASS' if ok else 'FAIL'}")
    return ok


def cupti_truth(text):
    """gcs-cupti-truth's JSON as truth fields: h2d_us, d2h_us and
    kernel:TEXT for the kernel names it holds (the most frequent match)."""
    data = json.loads(text)
    truth = {f: data[f]["p50_us"] for f in ("h2d", "d2h") if data.get(f, {}).get("n")}
    truth["kernels"] = data.get("kernels", {})
    truth["cupti"] = True
    return truth


def cupti_field(truth, field):
    if not field.startswith("kernel:"):
        return truth.get(field, float("nan"))
    text = field[len("kernel:"):].lower()
    hits = [k for name, k in truth["kernels"].items() if text in name.lower()]
    return max(hits, key=lambda k: k["n"])["p50_us"] if hits else float("nan")


def compare_cupti(run, name, field, record, truth):
    p50 = float(record.get("gpu-p50-us", "nan")) if record else float("nan")
    t = cupti_field(truth, field)
    ratio = p50 / t if t > 0 else float("nan")
    ok = abs(ratio - 1) <= TOLERANCE
    what = WHAT.get(field, f"the kernels named *{field[7:]}*, by CUPTI in the same run")
    print(f"TRACER truth {run} {name}: gpu-p50 {p50:.2f} us (tracer) vs {t:.2f} us ({what}): "
          f"ratio {ratio:.3f} {'PASS' if ok else 'FAIL'}")
    return ok


def main(argv):
    if len(argv) < 5:
        sys.exit(__doc__)
    run, log_path, time_path, pairs = argv[1], argv[2], argv[3], argv[4:]
    with open(log_path, errors="replace") as f:
        records = summary_records(f.read())
    with open(time_path, errors="replace") as f:
        text = f.read()
    truth = cupti_truth(text) if text.lstrip().startswith("{") else truth_line(text)
    ok = True
    for pair in pairs:
        name, field = pair.split("=", 1)
        how = compare_cupti if truth.get("cupti") else compare
        ok = how(run, name, field, records.get(name), truth) and ok
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))

#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""cudaconvertscale beside nvcodec's, as a user's pipeline runs them.

Each row of the rows file (pipelines/convert_matrix.txt) is a plain launch
line, `videotestsrc ! cudaupload ! imagefreeze num-buffers=N ! [crop !]
cudaconvertscale ! caps ! fakesink sync=false`, ours and nvcodec's, each in
a process of its own, timed by gcs-launch-time (pipelines/launch_time.cpp:
nothing of the harness runs per frame but a counter on the sink's pad).

  1. A first pass under CUPTI (pipelines/cupti_truth.cpp, injected by the
     driver): each side's kernel time per frame as the GPU ran it, and its
     frames/s, from which each side's N is chosen for a run of --window s.
  2. --rounds rounds, each row's two sides one after the other, the side
     that goes first alternating by round and row: the median frames/s and
     CPU µs per frame of the rounds.
  3. gcs-convert-time: a device copy of the bytes the kernel must read and
     write (the roofline), and our kernel alone.
  Two end-to-end rows follow (from system memory; from nvh264dec).

Out: DIR/matrix.jsonl (every run), DIR/convert-matrix.csv, and a summary
against the converter issue's targets on stdout. `ours_compiled_share`
(`rtc` on stdout): the share of our last round's frames whose kernel was
compiled for the conversion at run time (gpu/convert_scale_rtc.h). --deadline stops starting
new rounds when too little time is left; the rounds done are reported.
DIR/state.json holds the results after the CUPTI pass and each round:
--resume FILE (such a state, from an earlier call on the same rows and
build) skips the CUPTI pass and runs the rounds it lacks, so that the
rounds of one matrix may span two calls of a GPU machine that ends them.

  convert_matrix.py --build BUILD --out DIR [--rows FILE] [--rounds 5]
      [--window 0.25] [--deadline SECONDS] [--only REGEX] [--resume FILE]

The environment: GStreamer's (PATH, LD_LIBRARY_PATH, GST_PLUGIN_SYSTEM_PATH
of the version both sides run on) and GST_PEER_PLUGINS (nvcodec's plugin).
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def read_rows(path):
    rows = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            name, fin, sin, fout, sout, method, direction, crop, box = line.split("|")
            rows.append({"row": name, "in": fin, "in_size": sin, "out": fout,
                         "out_size": sout, "method": method, "direction": direction,
                         "crop": [int(v) for v in crop.split(",")], "letterbox": box == "1"})
    return rows


def caps_of(fmt, size):
    w, h = size.split("x")
    return "format=%s,width=%s,height=%s" % (fmt, w, h)


def device_row_lines(r):
    """The row's launch lines, ours and nvcodec's, with {n} for the frames."""
    src = ("videotestsrc num-buffers=1 pattern=smpte ! video/x-raw,%s,framerate=30/1"
           % caps_of(r["in"], r["in_size"]))
    out = caps_of(r["out"], r["out_size"])
    if r["letterbox"]:
        out += ",pixel-aspect-ratio=1/1"
    crop_ours = crop_nv = ""
    if any(r["crop"]):
        left, top, right, bottom = r["crop"]
        props = "left=%d top=%d right=%d bottom=%d" % (left, top, right, bottom)
        crop_ours = "cudastreamscrop %s ! " % props
        crop_nv = "videocrop %s ! " % props
    ours = ("%s ! cudastreamsupload ! imagefreeze num-buffers={n} ! %scudastreamsconvertscale "
            "method=%s video-direction=%s ! video/x-raw(memory:CUDAStreamsMemory),%s ! "
            "fakesink sync=false" % (src, crop_ours, r["method"], r["direction"], out))
    nv = ("%s ! cudaupload ! video/x-raw(memory:CUDAMemory) ! imagefreeze num-buffers={n} ! "
          "%scudaconvertscale video-direction=%s ! video/x-raw(memory:CUDAMemory),%s ! "
          "fakesink sync=false" % (src, crop_nv, r["direction"], out))
    return ours, nv


class Runner:
    def __init__(self, args):
        self.args = args
        self.launch = os.path.join(args.build, "pipelines", "gcs-launch-time")
        self.cupti = os.path.join(args.build, "pipelines", "libgcs-cupti-truth.so")
        peer = os.environ.get("GST_PEER_PLUGINS", "")
        plugins = os.path.join(args.build, "plugins")
        os.makedirs(args.out, exist_ok=True)

        def env(path, registry):
            e = dict(os.environ)
            for k in ("GST_PLUGIN_PATH", "GST_PLUGIN_PATH_1_0"):
                e[k] = path
            for k in ("GST_REGISTRY", "GST_REGISTRY_1_0"):
                e[k] = os.path.join(args.out, registry)
            return e
        # Ours never sees nvcodec (a user's pipeline of our elements needs
        # none); the NVDEC row has both, our elements by their own names.
        self.env = {"ours": env(plugins, "ours.bin"), "nvcodec": env(peer, "peer.bin"),
                    "mixed": env(plugins + ":" + peer, "mixed.bin")}
        self.log = open(os.path.join(args.out, "matrix.jsonl"), "w", encoding="utf-8")

    def run(self, side, env, line, n, what, cupti=None):
        cmd = [self.launch, "--frames", str(n), "--timeout", "60", "--"] + line.format(n=n).split()
        e = dict(self.env[env])
        if cupti:
            e["CUDA_INJECTION64_PATH"] = self.cupti
            e["GCS_CUPTI_OUT"] = cupti
        # Our converter's run-time compiler says at exit how many launches
        # took a kernel compiled for the conversion (gpu/convert_scale_rtc.h).
        e["GST_CS_CONVERT_RTC_REPORT"] = "1"
        err = ""
        try:
            p = subprocess.run(cmd, env=e, capture_output=True, text=True, timeout=90)
            out, err = p.stdout, p.stderr
        except subprocess.TimeoutExpired:
            out = 'LAUNCH {"error":"the process ran past 90 s"}'
        res = {"error": "no result: " + (out[-200:] if out else "")}
        for l in out.splitlines():
            if l.startswith("LAUNCH "):
                res = json.loads(l[7:])
        m = re.search(r"convert rtc: (\d+) compiled, (\d+) failed, (\d+) declined, "
                      r"(\d+) launches", err)
        if m:
            res["rtc"] = dict(zip(("compiled", "failed", "declined", "launches"),
                                  map(int, m.groups())))
        res.update({"side": side, "row": what, "n": n, "cupti": bool(cupti)})
        self.log.write(json.dumps(res) + "\n")
        self.log.flush()
        return res


def kernel_us_per_frame(path, frames):
    """Σ launches × median duration of every kernel, per frame."""
    try:
        with open(path, encoding="utf-8") as f:
            k = json.load(f).get("kernels", {})
    except (OSError, ValueError):
        return None
    if not k:
        return None
    return sum(v["n"] * v["p50_us"] for v in k.values()) / frames


def frames_for(fps, kernel_us, window):
    """How many frames a timed run takes. The short CUPTI run measures the
    rate at which the CPU enqueues (the GPU may not have caught up): the GPU's
    own rate bounds it. At least 2,500 frames, so that the sink's mark at a
    fifth lies past where CUDA's launch queue fills (a few hundred frames
    ahead of the GPU), unless that would take more than a second."""
    rate = min(fps, 1e6 / kernel_us) if kernel_us else fps
    n = max(2500, rate * window)
    if n / rate > 1.0:
        n = max(300, rate * 1.0)
    return int(min(n, 1000000))


def h264_file(out, frames):
    path = os.path.join(out, "matrix-1080p.h264")
    cmd = ("gst-launch-1.0 -q videotestsrc pattern=zone-plate kx2=20 ky2=20 kt=1 "
           "num-buffers=%d ! video/x-raw,format=I420,width=1920,height=1080,framerate=30/1 ! "
           "x264enc speed-preset=ultrafast key-int-max=60 bitrate=8000 ! "
           "video/x-h264,profile=high ! h264parse ! video/x-h264,stream-format=byte-stream ! "
           "filesink location=%s" % (frames, path))
    r = subprocess.run(cmd.split(), capture_output=True, text=True)
    return path if r.returncode == 0 and os.path.getsize(path) > 0 else None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--rows", default=os.path.join(HERE, "convert_matrix.txt"))
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--window", type=float, default=0.25)
    ap.add_argument("--deadline", type=float, default=1e9)
    ap.add_argument("--only", default="")
    ap.add_argument("--resume", default="")
    args = ap.parse_args()
    start = time.monotonic()
    left = lambda: args.deadline - (time.monotonic() - start)  # noqa: E731
    runner = Runner(args)
    rows = [r for r in read_rows(args.rows) if re.search(args.only, r["row"])]
    lines = {}
    for r in rows:
        lines[r["row"]] = {"ours": ("ours", device_row_lines(r)[0]),
                           "nvcodec": ("nvcodec", device_row_lines(r)[1])}
    # End to end: system memory in and out (1080p NV12 to 720p RGBA), and
    # nvh264dec's frames into the converter (a model's 640x640 input).
    e2e = "format=RGBA,width=1280,height=720"
    sys_src = ("videotestsrc num-buffers=1 pattern=smpte ! "
               "video/x-raw,format=NV12,width=1920,height=1080,framerate=30/1 ! "
               "imagefreeze num-buffers={n}")
    lines["e2e-sysmem"] = {
        "ours": ("ours", sys_src + " ! cudastreamsupload ! cudastreamsconvertscale ! "
                 "video/x-raw(memory:CUDAStreamsMemory),%s ! cudastreamsdownload ! "
                 "fakesink sync=false" % e2e),
        "nvcodec": ("nvcodec", sys_src + " ! cudaupload ! cudaconvertscale ! "
                    "video/x-raw(memory:CUDAMemory),%s ! cudadownload ! fakesink sync=false"
                    % e2e)}
    fixed_n = {}
    h264_frames = 600
    h264 = h264_file(args.out, h264_frames) if re.search(args.only, "e2e-nvdec") else None
    if h264:
        dec = "filesrc location=%s ! h264parse ! nvh264dec" % h264
        model = "format=RGBP,width=640,height=640,pixel-aspect-ratio=1/1"
        lines["e2e-nvdec"] = {
            "ours": ("mixed", dec + " ! cudastreamsconvertscale ! "
                     "video/x-raw(memory:CUDAStreamsMemory),%s ! fakesink sync=false" % model),
            "nvcodec": ("nvcodec", dec + " ! cudaconvertscale ! "
                        "video/x-raw(memory:CUDAMemory),%s ! fakesink sync=false" % model)}
        fixed_n["e2e-nvdec"] = h264_frames
    if not re.search(args.only, "e2e-sysmem"):
        del lines["e2e-sysmem"]

    state = os.path.join(args.out, "state.json")

    def save():
        with open(state + ".new", "w", encoding="utf-8") as f:
            json.dump({"results": results}, f)
        os.replace(state + ".new", state)

    # 1. CUPTI: kernel time per frame, and the rate that sizes each run
    # (or both, and the rounds done, from an earlier call's state).
    results = {name: {"ours": {}, "nvcodec": {}} for name in lines}
    cal_n = 120
    done = 0
    if args.resume:
        with open(args.resume, encoding="utf-8") as f:
            kept = json.load(f)["results"]
        if set(kept) != set(lines):
            print("SUMMARY: --resume holds other rows than these; not resumed")
            return 1
        results = kept
        done = min((len(results[n][s].get("fps", [])) for n in lines for s in results[n]
                    if "n" in results[n][s]), default=0)
        print("resumed: %d rounds done" % done, flush=True)
    else:
        for name, sides in lines.items():
            for side, (env, line) in sides.items():
                n = fixed_n.get(name, cal_n)
                path = os.path.join(args.out, "cupti-%s-%s.json" % (side, name))
                r = runner.run(side, env, line, n, name, cupti=path)
                res = results[name][side]
                if "error" in r:
                    res["error"] = r["error"]
                    continue
                res["kernel_us"] = kernel_us_per_frame(path, n)
                res["n"] = fixed_n.get(name, frames_for(r["fps"], res["kernel_us"], args.window))
        save()
        print("CUPTI pass done in %.0f s" % (time.monotonic() - start), flush=True)
    for side in ("ours", "nvcodec"):
        errors = [(name, results[name][side]["error"]) for name in lines
                  if "error" in results[name][side]]
        for name, e in errors[:3]:
            print("  %s %s: %s" % (side, name, e[:200]))
        if errors and len(errors) == len(lines):
            print("SUMMARY: every %s run failed; no rounds" % side)
            return 1

    # 2. Rounds, alternating which side goes first.
    per_round = None
    for k in range(done, args.rounds):
        t0 = time.monotonic()
        if per_round and left() < per_round * 1.1:
            print("round %d not started: %.0f s left, a round takes %.0f s"
                  % (k + 1, left(), per_round), flush=True)
            break
        for i, (name, sides) in enumerate(lines.items()):
            order = ["ours", "nvcodec"] if (k + i) % 2 == 0 else ["nvcodec", "ours"]
            for side in order:
                res = results[name][side]
                if "n" not in res:
                    continue
                env, line = sides[side]
                r = runner.run(side, env, line, res["n"], name)
                if "error" in r:
                    res.setdefault("round_errors", []).append(r["error"])
                    continue
                if "rtc" in r:  # the last round's
                    res["rtc_share"] = r["rtc"]["launches"] / res["n"]
                res.setdefault("fps", []).append(r["fps"])
                res.setdefault("cpu_us", []).append(r["cpu_us"])
                waits = r.get("host_waits", -1)  # over the whole run
                res["host_waits"] = waits / res["n"] if waits >= 0 else None
        per_round = time.monotonic() - t0
        save()
        print("round %d done in %.0f s" % (k + 1, per_round), flush=True)

    # 3. The roofline: a device copy of the bytes, and our kernel alone.
    copy = {}
    try:
        p = subprocess.run([os.path.join(args.build, "pipelines", "gcs-convert-time"),
                            "--rows", args.rows], capture_output=True, text=True,
                           env=runner.env["ours"], timeout=max(30, left()))
        timed = p.stdout
    except (OSError, subprocess.TimeoutExpired) as e:
        print("gcs-convert-time: %s" % e)
        timed = ""
    for l in timed.splitlines():
        if l.startswith("CONVERT-TIME "):
            c = json.loads(l[13:])
            copy[c["row"]] = c
    report(args, lines, results, copy, {r["row"]: r["method"] for r in rows})


def med(v):
    return statistics.median(v) if v else None


def report(args, lines, results, copy, methods):
    csv = os.path.join(args.out, "convert-matrix.csv")
    cols = ["row", "ours_fps", "nvcodec_fps", "ratio", "rounds", "ours_cpu_us",
            "nvcodec_cpu_us", "ours_kernel_us", "nvcodec_kernel_us", "copy_us",
            "kernel_over_copy", "ours_host_waits_per_frame", "path",
            "ours_compiled_share", "note"]
    out_rows = []
    for name in lines:
        o, v = results[name]["ours"], results[name]["nvcodec"]
        c = copy.get(name, {})
        of, nf = med(o.get("fps")), med(v.get("fps"))
        note = []
        for side, res in (("ours", o), ("nvcodec", v)):
            if "error" in res:
                note.append("%s: %s" % (side, res["error"][:120]))
            elif res.get("round_errors"):
                note.append("%s: %d rounds failed" % (side, len(res["round_errors"])))
        ok_ = o.get("kernel_us")
        out_rows.append({
            "row": name, "ours_fps": of, "nvcodec_fps": nf,
            "ratio": of / nf if of and nf else None,
            "rounds": min(len(o.get("fps", [])), len(v.get("fps", []))),
            "ours_cpu_us": med(o.get("cpu_us")), "nvcodec_cpu_us": med(v.get("cpu_us")),
            "ours_kernel_us": ok_, "nvcodec_kernel_us": v.get("kernel_us"),
            "copy_us": c.get("copy_us"),
            "kernel_over_copy": ok_ / c["copy_us"] if ok_ and c.get("copy_us") else None,
            "ours_host_waits_per_frame": o.get("host_waits"), "path": c.get("path"),
            "ours_compiled_share": o.get("rtc_share"), "note": "; ".join(note)})

    def cell(x):
        if x is None:
            return ""
        if isinstance(x, float):
            return "%.3f" % x if abs(x) < 10 else "%.1f" % x
        return str(x).replace(",", ";")
    with open(csv, "w", encoding="utf-8") as f:
        f.write(",".join(cols) + "\n")
        for r in out_rows:
            f.write(",".join(cell(r[c]) for c in cols) + "\n")
    print("%-36s %9s %9s %6s %3s %7s %7s %8s %8s %8s %5s %4s" % (
        "row", "ours", "nvcodec", "ratio", "n", "cpu_o", "cpu_n", "kern_o", "kern_n",
        "copy", "k/c", "rtc"))
    for r in out_rows:
        def f(x, fmt):
            return fmt % x if x is not None else "-"
        print("%-36s %9s %9s %6s %3d %7s %7s %8s %8s %8s %5s %4s %s" % (
            r["row"][:36], f(r["ours_fps"], "%.0f"), f(r["nvcodec_fps"], "%.0f"),
            f(r["ratio"], "%.2f"), r["rounds"], f(r["ours_cpu_us"], "%.1f"),
            f(r["nvcodec_cpu_us"], "%.1f"), f(r["ours_kernel_us"], "%.1f"),
            f(r["nvcodec_kernel_us"], "%.1f"), f(r["copy_us"], "%.1f"),
            f(r["kernel_over_copy"], "%.2f"), f(r["ours_compiled_share"], "%.2f"),
            r["note"][:60]))
    ratios = [r["ratio"] for r in out_rows if r["ratio"]]
    both = [r for r in out_rows if r["ours_kernel_us"] and r["nvcodec_kernel_us"]]
    faster_kernel = sum(1 for r in both if r["ours_kernel_us"] <= r["nvcodec_kernel_us"])
    print("SUMMARY: %d rows, %d with both sides; frames/s ours/nvcodec median %s, lowest %s "
          "(%s), %d of %d at 0.9 or more; our kernel the shorter (CUPTI) on %d of %d rows"
          % (len(out_rows), len(ratios),
             "%.2f" % statistics.median(ratios) if ratios else "-",
             "%.2f" % min(ratios) if ratios else "-",
             min(out_rows, key=lambda r: r["ratio"] or 1e9)["row"] if ratios else "-",
             sum(1 for x in ratios if x >= 0.9), len(ratios), faster_kernel, len(both)))
    # The roofline targets: nearest and bilinear within 1.5 copies of their
    # bytes, bicubic and area within 2.
    within = total = 0
    for r in out_rows:
        if r["kernel_over_copy"] is None or r["row"] not in methods:
            continue
        total += 1
        bound = 2.0 if methods[r["row"]] in ("bicubic", "area") else 1.5
        within += r["kernel_over_copy"] <= bound
    print("SUMMARY: our kernel (CUPTI) within its bound of the copy of its bytes (1.5x; "
          "2x bicubic and area) on %d of %d rows" % (within, total))
    print("csv: %s" % csv)


if __name__ == "__main__":
    sys.exit(main())

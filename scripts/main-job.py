#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The main job behind pipelines/run.sh: what the GPU path costs, beside the CPU.

    main-job.py --build-dir build --png cudastreams.png [--source pinned|pageable]

1. Times  cudaupload ! cudacrop ! cudaconvertscale ! cudadownload  (the
   centre 1280x720 of 1920x1080 NV12 frames, scaled to 640x360 RGBA: the
   crop and the scale one kernel) in the steady state with gcs-bench, whose
   source hands over frames already in memory at no cost per frame, so the
   figures are the pipeline's own; then the same by videocrop and
   videoconvertscale on the CPU, timed the same way.
2. Writes one such frame of videotestsrc pattern=smpte through the GPU
   elements to the PNG.

Only this project's plugin and GStreamer's core/base/good plugins are loaded
(GStreamer's nvcodec registers cudaupload/cudadownload too), with a registry
of their own in the build directory. Anything missing or failing ends the job
with a message saying what and why, and exit code 1; so does a machine without
a usable GPU ("this needs an NVIDIA GPU with a working driver").
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import textwrap

WIDTH, HEIGHT, FORMAT = 1920, 1080, "NV12"
CROP = "left=320 right=320 top=180 bottom=180"  # the centre 1280x720
OUT_W, OUT_H, OUT_FORMAT = 640, 360, "RGBA"
OUT_CAPS = f"format={OUT_FORMAT},width={OUT_W},height={OUT_H}"
GPU_CHAIN = (f"cudaupload name=up ! cudacrop name=crop {CROP} ! cudaconvertscale name=cs ! "
             f"video/x-raw(memory:CUDAStreamsMemory),{OUT_CAPS} ! cudadownload name=down")
# videoconvertscale is GStreamer 1.22's; before it, videoscale and videoconvert.
CPU_SCALERS = {"videoconvertscale": "videoconvertscale",
               "videoscale": "videoscale ! videoconvert"}
ELEMENT_OF = {"up": "cudaupload", "crop": "cudacrop", "cs": "cudaconvertscale",
              "down": "cudadownload", "source-pool": "the source's pool", "other": "elsewhere"}
ELEMENTS = ["cudaupload", "cudacrop", "cudaconvertscale", "cudadownload", "videocrop",
            "videotestsrc", "videoconvert", "videoscale", "pngenc"]
NO_GPU = "No CUDA device"


class JobError(Exception):
    pass


def gst_env(plugin_dir, build_dir):
    env = dict(os.environ)
    env["GST_PLUGIN_PATH"] = plugin_dir + (
        ":" + env["GST_PLUGIN_PATH"] if env.get("GST_PLUGIN_PATH") else "")
    env["GST_PLUGIN_LOADING_WHITELIST"] = (
        "gstreamer:gst-plugins-base:gst-plugins-good:gst-cudastreams")
    env["GST_REGISTRY_1_0"] = os.path.join(build_dir, "main-job-registry.bin")
    return env


def check_elements(env, plugin_dir):
    missing = [e for e in ELEMENTS
               if subprocess.run(["gst-inspect-1.0", e], env=env, stdout=subprocess.DEVNULL,
                                 stderr=subprocess.DEVNULL).returncode != 0]
    if missing:
        raise JobError(f"element(s) {', '.join(missing)} not found (this project's are "
                       f"looked for in {plugin_dir}, the others among GStreamer's "
                       f"base/good plugins): did the build succeed?")


def cpu_chain(env):
    """videocrop and the CPU scaler this GStreamer has, to the same caps."""
    for name, chain in CPU_SCALERS.items():
        if subprocess.run(["gst-inspect-1.0", name], env=env, stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL).returncode == 0:
            return f"videocrop {CROP} ! {chain} ! video/x-raw,{OUT_CAPS}"
    raise JobError("neither videoconvertscale nor videoscale is there (GStreamer's base plugins)")


def bench(gcs_bench, env, chain, opts, timeout):
    """One gcs-bench run; returns its RESULT as a dict with status "ok"."""
    cmd = [gcs_bench, "--format", FORMAT, "--width", str(WIDTH), "--height", str(HEIGHT),
           "--source", opts.source, "--seconds", str(opts.seconds),
           "--warmup", str(opts.warmup), "--timeout", str(timeout), "--pipeline", chain]
    if chain.startswith("cuda"):
        cmd[1:1] = ["--expect-plugin", "cudastreams"]
    try:
        p = subprocess.run(cmd, env=env, capture_output=True, text=True,
                           timeout=timeout + 10)
    except FileNotFoundError:
        raise JobError(f"{gcs_bench} is not there: did the build succeed?") from None
    except subprocess.TimeoutExpired:
        raise JobError(f"'{chain}' did not finish within {timeout + 10:.0f} s") from None
    lines = [ln for ln in p.stdout.splitlines() if ln.startswith("RESULT ")]
    if not lines:
        tail = "\n".join(p.stderr.strip().splitlines()[-5:])
        how = (f"killed by signal {-p.returncode}" if p.returncode < 0
               else f"exit code {p.returncode}")
        raise JobError(f"gcs-bench gave no result for '{chain}' ({how}):\n{tail}")
    try:
        r = json.loads(lines[-1][len("RESULT "):])
    except ValueError as e:
        raise JobError(f"gcs-bench printed a RESULT line that is not JSON ({e}): "
                       f"{lines[-1]}") from None
    if r.get("status") != "ok":
        reason = r.get("reason", "no reason given")
        if NO_GPU in reason:
            raise JobError(f"this needs an NVIDIA GPU with a working driver:\n  {reason}")
        raise JobError(f"'{chain}' failed ({r.get('status')}): {reason}")
    return r


def waits_detail(r):
    """"cudaupload 0.00, cudacrop 0.00, cudadownload 1.00": where the CPU
    waited; the source's pool and the rest only where they waited."""
    detail = r.get("waits_detail") or {}
    return ", ".join(f"{ELEMENT_OF.get(k, k)} {v:.2f}" for k, v in detail.items()
                     if k in ("up", "crop", "cs", "down") or abs(v) >= 0.005)


def summary(gpu, cpu, cpu_desc, source, gpu_name):
    """The few lines the job prints about the timing."""
    mb = lambda b: f"{b / 1e6:.1f}\0MB"  # \0: a space textwrap keeps
    where = ("in pinned memory, in the pool cudaupload offers" if source == "pinned"
             else "in ordinary pageable memory")
    on = f", on {gpu_name}" if gpu_name else ""
    gpu_label = "GPU upload, crop+scale+convert, download"
    cpu_label = "CPU " + cpu_desc.split(" ! video/x-raw")[0].replace(f" {CROP}", "")
    w = max(len(gpu_label), len(cpu_label))
    head = (f"What the GPU path costs, cropping the centre 1280x720 out of {WIDTH}x{HEIGHT} "
            f"{FORMAT} frames and scaling it to {OUT_W}x{OUT_H} {OUT_FORMAT}{on}. Steady state: "
            f"{gpu['seconds']:.1f} s timed after a warm-up; the source costs nothing per frame "
            f"(its frames wait {where}).")
    waits = "once per frame, for that frame's copy back to system memory"
    if source == "pageable":
        waits += "; from pageable memory CUDA also waits before each plane's upload"
    lines = textwrap.wrap(head, 96) + [
        f"  {gpu_label:<{w}}: {gpu['fps']:>7,.0f} frames/s, "
        f"{gpu['cpu_us']:4.0f} µs CPU per frame, "
        f"{gpu['waits'] or 0:.2f} host waits per frame",
        f"  {'':<{w}}  ({waits_detail(gpu)})",
        f"  {cpu_label:<{w}}: {cpu['fps']:>7,.0f} frames/s, "
        f"{cpu['cpu_us']:4.0f} µs CPU per frame, no GPU, no host waits",
    ]
    notes = (f"CPU per frame: CPU time of all the process' threads (CUDA's too) per frame. "
             f"Host wait: the CPU blocked until the GPU is done; cudadownload waits {waits}. "
             f"The GPU path sends each frame over PCIe twice "
             f"({mb(gpu['in_bytes'])} up, {mb(gpu['out_bytes'])} down: "
             f"{gpu['gbps']:.1f}\0GB/s); the CPU path writes {mb(cpu['out_bytes'])} per frame "
             f"within host memory.")
    return "\n".join(lines + [ln.replace("\0", " ") for ln in textwrap.wrap(notes, 96)])


def write_png(env, png, timeout):
    caps = f"video/x-raw,format={FORMAT},width={WIDTH},height={HEIGHT}"
    # One word per argument: gst-launch-1.0 escapes each, so the path may
    # hold spaces.
    args = (["videotestsrc", "num-buffers=1", "pattern=smpte", "!", caps, "!"] +
            GPU_CHAIN.split() + ["!", "videoconvert", "!", "pngenc", "!", "filesink",
                                 f"location={png}"])
    try:
        p = subprocess.run(["gst-launch-1.0", "-q"] + args, env=env, capture_output=True,
                           text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise JobError(f"writing {png} did not finish within {timeout:.0f} s") from None
    if p.returncode != 0 or not os.path.exists(png) or os.path.getsize(png) == 0:
        out = [ln for ln in (p.stdout + p.stderr).splitlines()
               if "ERROR" in ln or "error" in ln or "Additional debug" in ln]
        raise JobError(f"writing one frame to {png} failed (exit code {p.returncode}):\n"
                       + "\n".join(out[:5]))


def gpu_name():
    if not shutil.which("nvidia-smi"):
        return ""
    try:
        p = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"],
                           capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return p.stdout.splitlines()[0].strip() if p.returncode == 0 and p.stdout else ""


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build-dir", required=True, help="the meson build directory")
    ap.add_argument("--png", default="cudastreams.png", help="where the cropped frame goes")
    ap.add_argument("--plugin-dir", help="the plugin to use (default: BUILD/plugins)")
    ap.add_argument("--gcs-bench", help="the timing tool (default: BUILD/pipelines/gcs-bench)")
    ap.add_argument("--source", choices=["pinned", "pageable"], default="pinned",
                    help="where the timed frames live (default: pinned)")
    ap.add_argument("--seconds", type=float, default=1.0, help="timed window per run (1.0)")
    ap.add_argument("--warmup", type=float, default=0.5, help="untimed start per run (0.5)")
    a = ap.parse_args()
    build = os.path.abspath(a.build_dir)
    plugin_dir = a.plugin_dir or os.path.join(build, "plugins")
    gcs_bench = a.gcs_bench or os.path.join(build, "pipelines", "gcs-bench")
    png = os.path.abspath(a.png)
    env = gst_env(plugin_dir, build)
    timeout = 4 * (a.warmup + a.seconds) + 30
    try:
        check_elements(env, plugin_dir)
        gpu = bench(gcs_bench, env, GPU_CHAIN, a, timeout)
        cpu_desc = cpu_chain(env)
        cpu = bench(gcs_bench, env, cpu_desc, a, timeout)
        print(summary(gpu, cpu, cpu_desc, a.source, gpu_name()))
        write_png(env, png, timeout)
    except JobError as e:
        print(f"run.sh: {e}", file=sys.stderr)
        return 1
    print(f"wrote {png} (one frame of videotestsrc pattern=smpte, cropped, scaled to "
          f"{OUT_W}x{OUT_H} and converted to {OUT_FORMAT} on the GPU)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

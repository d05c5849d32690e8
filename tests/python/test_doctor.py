#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""`import cudastreams` makes the project's elements available to every
pipeline of the process without GST_PLUGIN_PATH, and `python -m cudastreams`
reports it: alone, every name is ours; beside a plugin that holds the names
nvcodec shares with ours (the stand-in in peer/), those stay its, and the
cudastreams* names ours. Each case in a process of its own, with a registry
of its own.

    test_doctor.py PLUGIN_DIR PEER_DIR
"""
import os
import re
import subprocess
import sys
import tempfile

from pycheck import Runner

PLUGIN_DIR, PEER_DIR = sys.argv[1], sys.argv[2]
PLUGIN = os.path.join(PLUGIN_DIR, "libgstcudastreams.so")
OURS = ["cudastreamsupload", "cudastreamscrop", "cudastreamsdownload",
        "cudastreamsconvertscale", "cudastreamsbatch"]
PEER_HOLDS = ["cudaupload", "cudadownload", "cudaconvertscale"]
WORK = tempfile.mkdtemp(prefix="cs-doctor-")


def run(args, plugin_path=None):
    """The module's interpreter with args; GST_PLUGIN_PATH unset unless
    given; a fresh registry per call. Returns (exit code, output)."""
    env = {k: v for k, v in os.environ.items() if k != "GST_PLUGIN_PATH"}
    if plugin_path:
        env["GST_PLUGIN_PATH"] = plugin_path
    fd, env["GST_REGISTRY_1_0"] = tempfile.mkstemp(suffix=".bin", dir=WORK)
    os.close(fd)
    os.unlink(env["GST_REGISTRY_1_0"])
    p = subprocess.run([sys.executable] + args, env=env, capture_output=True, text=True,
                       timeout=60, cwd=WORK)
    return p.returncode, p.stdout + p.stderr


def names(out):
    """{name: holder} from the doctor's names section."""
    held, on = {}, False
    for line in out.splitlines():
        if line.startswith("names "):
            on = True
        elif on and line.startswith("  "):
            name, who = re.split(r"\s{2,}", line.strip(), maxsplit=1)
            held[name.split()[0]] = who
    return held


def check_pipeline_without_plugin_path():
    code = ("import cudastreams\n"
            "cudastreams.Pipeline('videotestsrc num-buffers=1 ! cudastreamsupload ! "
            "cudastreamscrop ! cudastreamsdownload ! fakesink').close()\n"
            "print('parsed')")
    rc, out = run(["-c", code])
    assert rc == 0 and "parsed" in out, out


def check_doctor_alone():
    rc, out = run(["-m", "cudastreams"])
    assert rc == 0, out
    assert f"plugin: {PLUGIN} (loaded at import)" in out, out
    held = names(out)
    for n in OURS + ["cudaupload", "cudacrop", "cudadownload", "cudaconvertscale",
                     "cudabatch", "cudastreamstrace"]:
        assert held.get(n) == "ours", (n, held.get(n), out)


def check_doctor_beside_peer():
    rc, out = run(["-m", "cudastreams"], plugin_path=PEER_DIR)
    assert rc == 0, out
    held = names(out)
    for n in PEER_HOLDS:
        assert held.get(n, "").startswith("nvcodecpeer's"), (n, held.get(n), out)
    for n in OURS + ["cudacrop", "cudabatch", "cudastreamstrace"]:
        assert held.get(n) == "ours", (n, held.get(n), out)


def check_plugin_path():
    rc, out = run(["-m", "cudastreams", "--plugin-path"])
    assert rc == 0 and out == PLUGIN_DIR + "\n", (rc, out)


def check_bad_argument():
    rc, out = run(["-m", "cudastreams", "--no-such-option"])
    assert rc == 2 and "--plugin-path" in out, (rc, out)


if __name__ == "__main__":
    r = Runner("test_doctor")
    r.run(check_pipeline_without_plugin_path)
    r.run(check_doctor_alone)
    r.run(check_doctor_beside_peer)
    r.run(check_plugin_path)
    r.run(check_bad_argument)
    r.finish()

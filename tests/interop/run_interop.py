#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Runs an interop test binary with our plugin and GStreamer's nvcodec in one
registry, in one scan order:

  ours-last:    GST_PLUGIN_PATH=$GST_PEER_PLUGINS:<ours>  (ours wins cudaupload/cudadownload)
  nvcodec-last: GST_PLUGIN_PATH=<ours>:$GST_PEER_PLUGINS  (nvcodec wins them)

The plugin scanned last wins a feature name both register, so the same
pipeline text means different elements in the two orders; each order gets its
own fresh registry file, or a registry from the other order would decide.

Exits 77 (meson's "skipped") with the reason when GST_PEER_PLUGINS is unset or
an element the tests need is missing.

  run_interop.py --order ours-last --plugins BUILD/plugins --work DIR BINARY [ARGS]
"""
import argparse
import os
import subprocess
import sys

# Elements the tests need, and the plugin each must come from when it is
# looked up with only the peer (nvcodec) or only the system path.
PEER_NEEDS = {"nvh264dec": "nvcodec", "cudadownload": "nvcodec", "cudaupload": "nvcodec"}
SYSTEM_NEEDS = ["x264enc", "openh264dec", "videocrop", "h264parse", "videotestsrc"]


def skip(reason):
    print("SKIP interop: " + reason, flush=True)
    sys.exit(77)


def lookup(binary, env, names):
    """{name: plugin} of the features `names` as `binary --list` sees them in
    `env`; a missing one maps to None."""
    out = subprocess.run([binary, "--list"] + names, env=env, capture_output=True,
                         text=True, timeout=300)
    found = {}
    for line in out.stdout.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[0] == "FEATURE":
            found[parts[1]] = None if parts[2] == "-" else parts[2]
    if out.returncode != 0:
        sys.stderr.write(out.stderr)
        skip("%s --list failed (exit %d)" % (binary, out.returncode))
    return {n: found.get(n) for n in names}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--order", choices=["ours-last", "nvcodec-last"], required=True)
    ap.add_argument("--plugins", required=True, help="our plugin's build folder")
    ap.add_argument("--work", required=True, help="folder for registries and streams")
    ap.add_argument("binary")
    ap.add_argument("args", nargs=argparse.REMAINDER)
    a = ap.parse_args()

    peer = os.environ.get("GST_PEER_PLUGINS", "")
    if not peer:
        skip("GST_PEER_PLUGINS is unset (GStreamer's nvcodec plugin folder; "
             "`source .gpu/env.sh` sets it on the GPU machine)")
    if not os.path.isdir(peer):
        skip("GST_PEER_PLUGINS=%s is not a folder" % peer)
    os.makedirs(a.work, exist_ok=True)

    base = dict(os.environ)
    base.pop("GST_PLUGIN_LOADING_WHITELIST", None)

    # What nvcodec provides, seen alone (in the mixed registry one of its
    # cudadownload/cudaupload may be hidden by ours).
    peer_env = dict(base, GST_PLUGIN_PATH=peer,
                    GST_REGISTRY_1_0=os.path.join(a.work, "peer-only.bin"))
    got = lookup(a.binary, peer_env, list(PEER_NEEDS) + SYSTEM_NEEDS)
    missing = [n for n, p in PEER_NEEDS.items() if got[n] != p]
    missing += [n for n in SYSTEM_NEEDS if got[n] is None]
    if missing:
        skip("missing element(s): %s (nvcodec registers no element without an NVIDIA "
             "driver and GPU; x264enc/openh264dec/h264parse come from the system "
             "plugins)" % ", ".join(
                 "%s (from %s)" % (n, PEER_NEEDS.get(n, "the system path")) for n in missing))

    ours = os.path.abspath(a.plugins)
    path = [peer, ours] if a.order == "ours-last" else [ours, peer]
    registry = os.path.join(a.work, "registry-%s.bin" % a.order)
    if os.path.exists(registry):
        os.remove(registry)  # fresh: the scan order alone decides
    env = dict(base, GST_PLUGIN_PATH=os.pathsep.join(path), GST_REGISTRY_1_0=registry,
               INTEROP_ORDER=a.order, INTEROP_MEDIA_DIR=os.path.join(a.work, "media"))
    # Which plugin holds a shared name: the first process scans the path
    # (and writes the registry), later ones load the registry file, and the
    # two need not agree. The test runs as a later one; say both.
    shared = ["cudaupload", "cudadownload"]
    scanned = lookup(a.binary, env, shared)
    cached = lookup(a.binary, env, shared)
    for n in shared:
        print("interop: %s: %s holds %s on the first run (scan), %s on later runs "
              "(registry cache)" % (a.order, n, scanned[n], cached[n]), flush=True)
    env["INTEROP_WINNER_UPLOAD"] = cached["cudaupload"] or "-"
    env["INTEROP_WINNER_DOWNLOAD"] = cached["cudadownload"] or "-"
    print("interop: order %s, GST_PLUGIN_PATH=%s, registry %s" %
          (a.order, env["GST_PLUGIN_PATH"], registry), flush=True)
    rc = subprocess.run([a.binary] + a.args, env=env).returncode
    sys.exit(rc)


if __name__ == "__main__":
    main()

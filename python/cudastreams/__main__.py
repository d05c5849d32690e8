# SPDX-License-Identifier: LGPL-2.1-or-later
"""python -m cudastreams: what this installation finds on this machine.

    python -m cudastreams                the version, the plugin, GStreamer, the
                                         CUDA driver and devices, nvcodec, and the
                                         element each name means in this process
    python -m cudastreams --plugin-path  the plugin's folder alone:
        GST_PLUGIN_PATH=$(python -m cudastreams --plugin-path) gst-launch-1.0 ...

Exits 1 where the module or its plugin cannot be loaded, or a name only this
project uses does not mean its element; a machine without a GPU is no failure.
"""
import ctypes
import os
import sys

import cudastreams
from cudastreams import _config

PLUGIN_NAME = "cudastreams"  # GST_PLUGIN_DEFINE's name (plugins/plugin.cpp)
TRACER_NAME = "cudastreamstrace"  # gst_tracer_register's (plugins/plugin.cpp)
# Each shared name and the name only ours answers to.
SHARED = {"cudaupload": "cudastreamsupload", "cudacrop": "cudastreamscrop",
          "cudadownload": "cudastreamsdownload", "cudaconvertscale": "cudastreamsconvertscale",
          "cudabatch": "cudastreamsbatch"}
CU_ATTRIBUTE_CC_MAJOR, CU_ATTRIBUTE_CC_MINOR = 75, 76


def kernels_for(major, minor):
    """Which of this build's kernels a device of compute capability
    major.minor runs."""
    archs = [int(a) for a in _config.GPU_ARCHS.split(",") if a.strip()]
    if not archs:
        return "no kernels: built with gpu_kernels=false"
    cc = major * 10 + minor
    # A cubin runs on its own major version from its minor up; the newest
    # one's PTX on anything newer, compiled by the driver at first use.
    if any(a // 10 == major and a % 10 <= minor for a in archs):
        return "kernels for it"
    if cc > archs[-1]:
        return f"PTX of compute_{archs[-1]}, compiled by the driver at first use"
    return f"no kernels for it: build with -Dgpu_archs={cc}"


def cuda_lines():
    """The CUDA driver and its devices, as libcuda itself reports them."""
    try:
        cu = ctypes.CDLL("libcuda.so.1")
    except OSError:
        return ["CUDA driver: none (libcuda.so.1 not found: no NVIDIA driver)"]
    version = ctypes.c_int()
    cu.cuDriverGetVersion(ctypes.byref(version))
    head = f"CUDA driver {version.value // 1000}.{version.value % 1000 // 10}"
    rc = cu.cuInit(0)
    if rc != 0:
        name = ctypes.c_char_p()
        cu.cuGetErrorName(rc, ctypes.byref(name))
        return [f"{head}: no usable device (cuInit: {(name.value or b'?').decode()})"]
    count = ctypes.c_int()
    cu.cuDeviceGetCount(ctypes.byref(count))
    lines = [f"{head}, {count.value} device(s)"]
    for i in range(count.value):
        dev, major, minor = ctypes.c_int(), ctypes.c_int(), ctypes.c_int()
        name, mem = ctypes.create_string_buffer(256), ctypes.c_size_t()
        cu.cuDeviceGet(ctypes.byref(dev), i)
        cu.cuDeviceGetName(name, len(name), dev)
        cu.cuDeviceGetAttribute(ctypes.byref(major), CU_ATTRIBUTE_CC_MAJOR, dev)
        cu.cuDeviceGetAttribute(ctypes.byref(minor), CU_ATTRIBUTE_CC_MINOR, dev)
        cu.cuDeviceTotalMem_v2(ctypes.byref(mem), dev)
        lines.append(f"  {i}: {name.value.decode()}, sm_{major.value}{minor.value}, "
                     f"{mem.value / 2**30:.0f} GiB; "
                     f"{kernels_for(major.value, minor.value)}")
    return lines


def nvcodec_line(ext):
    found = ext._plugin_elements("nvcodec")
    if found is None:
        return "nvcodec: not found (every cuda* name below is ours)"
    file, elements = found
    if elements == 0:
        return (f"nvcodec: {file}, no elements (it registers them only where it finds "
                "an NVIDIA driver and GPU)")
    return f"nvcodec: {file}, {elements} elements"


def name_lines(ext, plugin_file):
    """The element each name means in this process; the names that should
    be ours and are not."""
    lines, wrong = ["names (in any pipeline of a process that imported cudastreams):"], []

    def owner(name):
        held = ext._feature_owner(name)
        if held is None:
            return "nobody's", False
        if held[0] == PLUGIN_NAME and held[1] == plugin_file:
            return "ours", True
        return f"{held[0]}'s ({held[1]})", False

    for shared, ours in SHARED.items():
        who, _ = owner(shared)
        lines.append(f"  {shared:27s}{who}" + ("" if who == "ours" else f"; ours is {ours}"))
    for ours in list(SHARED.values()) + [TRACER_NAME]:
        who, mine = owner(ours)
        label = f"{ours} (tracer)" if ours == TRACER_NAME else ours
        lines.append(f"  {label:27s}{who}")
        if not mine:
            wrong.append(ours)
    return lines, wrong


def main(argv):
    if argv[1:] == ["--plugin-path"]:
        plugin = cudastreams._plugin_file or cudastreams._PLUGIN
        print(os.path.dirname(plugin))
        return 0 if os.path.isfile(plugin) else 1
    if argv[1:]:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    print(f"Python {sys.version.split()[0]} ({sys.executable})")
    if cudastreams._import_error is not None:
        print(f"cudastreams: {os.path.dirname(cudastreams.__file__)}\n"
              f"FAILED: {cudastreams._import_error}")
        print(f"  plugin it would load: {cudastreams._PLUGIN}")
        return 1
    ext = cudastreams._cudastreams
    print(f"cudastreams {cudastreams.__version__}: {os.path.dirname(cudastreams.__file__)}")
    print(f"  plugin: {cudastreams._plugin_file} (loaded at import)")
    kernels = _config.GPU_ARCHS or "none (gpu_kernels=false)"
    print(f"  kernels: {kernels}; nvcodec interop: {'on' if _config.NVCODEC_INTEROP else 'off'}")
    print(ext._gst_version())
    print("  " + nvcodec_line(ext))
    for line in cuda_lines():
        print(line)
    lines, wrong = name_lines(ext, cudastreams._plugin_file)
    print("\n".join(lines))
    if wrong:
        print(f"FAILED: not this installation's elements: {', '.join(wrong)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

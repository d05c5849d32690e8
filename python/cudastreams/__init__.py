# SPDX-License-Identifier: LGPL-2.1-or-later
"""GStreamer pipelines with CUDA frames, exchanged as DLPack tensors.

Importing cudastreams initialises GStreamer and loads the gst-cudastreams
plugin of this installation into the process: every pipeline of the process
then has the project's elements, with no GST_PLUGIN_PATH. Which element a
name that nvcodec has too (cudaupload, cudadownload, cudaconvertscale)
means: docs/python.md. `python -m cudastreams` says what was found.
"""
import os as _os
import sys as _sys

from . import _config

# The plugin this installation loads (_config.PLUGIN is relative to this
# folder where installed), and the file that serves once it is loaded.
_PLUGIN = _os.path.normpath(
    _os.path.join(_os.path.dirname(_os.path.abspath(__file__)), _config.PLUGIN))
_plugin_file = None
# Under `python -m cudastreams`, what stopped the import: the doctor says it.
_import_error = None


def _run_as_doctor():
    """Whether this import is `python -m cudastreams` locating its package."""
    argv = getattr(_sys, "orig_argv", None)  # Python 3.10 and later
    if argv is not None:
        return "-m" in argv[:-1] and argv[argv.index("-m") + 1] == __name__
    return _sys.argv[:1] == ["-m"]


try:
    from . import _cudastreams
    from ._cudastreams import (Batch, BatchSlot, Error, Frame, Pipeline, Plane, __version__,
                               host_waits)
    _plugin_file = _cudastreams._load_plugin(_PLUGIN)
except (ImportError, RuntimeError) as _e:
    if not _run_as_doctor():
        raise ImportError(f"cudastreams: {_e} (python -m cudastreams says more)") from _e
    _import_error = _e
else:
    for _cls in (Batch, BatchSlot, Frame, Pipeline, Plane):
        _cls.__module__ = __name__

__all__ = ["Batch", "BatchSlot", "Error", "Frame", "Pipeline", "Plane", "host_waits"]

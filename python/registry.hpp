/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* GStreamer's registry as the package uses it: the package's plugin loaded
 * at import (cudastreams/__init__.py), and what `python -m cudastreams`
 * reports (which plugin holds a name, GStreamer's version). */
#pragma once

#include <pybind11/pybind11.h>

namespace cspy {

/* _load_plugin, _feature_owner, _plugin_elements, _gst_version. */
void bind_registry (pybind11::module_ & m);

} // namespace cspy

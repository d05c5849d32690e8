/* SPDX-License-Identifier: LGPL-2.1-or-later */
// GStreamer's own description of the batch (internal): a GstTensorMeta
// (GStreamer 1.26 and later, built with gstreamer-analytics-1.0).
#pragma once

#include <gst/gst.h>

#include "batch/gstcsbatchsettings.hpp"

namespace gst_cs {

// Adds a GstTensorMeta of one tensor (dims, data type, row-major order) of
// `batch` slots to `tensor`, where GStreamer's analytics library is built
// in; nothing otherwise.
void add_tensor_meta (GstBuffer * tensor, const BatchSettings & s, guint batch);

} // namespace gst_cs

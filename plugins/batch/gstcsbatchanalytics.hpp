/* SPDX-License-Identifier: LGPL-2.1-or-later */
// GStreamer's analytics metas on a batch (internal): what lets GStreamer's
// own analytics elements understand a cudabatch tensor, beside our
// GstCsBatchMeta, which every version gets.
#pragma once

#include <vector>

#include <gst/gst.h>

#include "batch/gstcsbatchpad.h"
#include "batch/gstcsbatchsettings.hpp"

namespace gst_cs {

// Where the plugin was built with GStreamer's analytics library: on
// GStreamer >= 1.26 a GstTensorMeta describing `tensor` (its dims, element
// type and order; its data the tensor's own memory), and on >= 1.28 a
// GstAnalyticsBatchMeta with one stream per slot, naming the source of
// slot i (`pads[i]`, `frames[i]`; slots past them are empty). Does nothing
// where it was built without it (GStreamer 1.20 to 1.24).
void batch_add_analytics_metas (GstBuffer * tensor, const BatchSettings & s, guint batch,
    const std::vector<GstCsBatchPad *> & pads, const std::vector<GstBuffer *> & frames);

} // namespace gst_cs

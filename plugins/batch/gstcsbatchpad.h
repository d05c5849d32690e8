/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A sink pad of cudabatch: one source's frames and their caps. */
#pragma once

#include <gst/base/gstaggregator.h>
#include <gst/video/video.h>

#include "base/gstcsscratchpool.hpp"

G_BEGIN_DECLS

#define GST_TYPE_CS_BATCH_PAD (gst_cs_batch_pad_get_type ())
G_DECLARE_FINAL_TYPE (
    GstCsBatchPad, gst_cs_batch_pad, GST, CS_BATCH_PAD, GstAggregatorPad)

/**
 * GstCsBatchPad:
 * @info: the caps of the frames at the head of the queue, parsed
 * @caps: those caps as they came (GStreamer's batch meta names them)
 * @has_info: @info and @caps are set (a caps event came)
 * @index: N of sink_N
 * @imports: the copies of its frames that come from another CUDA device (one
 *   pool a pad, as a pad's frames have one size: none is allocated per batch)
 *
 * @info, @caps and @has_info are set and read on the aggregator's thread, which
 * handles serialized events in order with the buffers; so is @imports, which
 * the element empties at stop.
 */
struct _GstCsBatchPad {
  GstAggregatorPad parent;

  GstVideoInfo info;
  GstCaps * caps;
  gboolean has_info;
  guint index;
  gst_cs::ScratchPool * imports;
};

G_END_DECLS

/* SPDX-License-Identifier: LGPL-2.1-or-later */
// One slot of a batch (internal): where the convert-scale kernel writes a
// frame's letterboxed picture, and how tensor points map back to the frame.
#pragma once

#include <gst/video/video.h>

#include "base/gstcsframe.hpp"
#include "batch/gstcsbatchsettings.hpp"
#include "convert_scale.h"
#include "gstcsbatchmeta.h"

namespace gst_cs {

// The 8-bit picture the kernel writes for one slot: planar (RGBP, BGRP) for
// NCHW and for the float tensors' staging, packed (RGB, BGR) for NHWC.
// `staging`: the float tensors' planar RGB, whatever the tensor's order.
GstVideoFormat batch_slot_format (const BatchSettings & s, bool staging);

// A `format` picture of the slot's size with packed rows and planes, the
// layout of one slot of the tensor.
GstVideoInfo batch_slot_layout (const BatchSettings & s, GstVideoFormat format);

// Where one slot's picture comes from and goes, for its frame's boxes: the
// frame's visible region (its crop meta's, in the frame's pixels) and the
// picture's rectangle in the slot (in the tensor's pixels).
struct SlotPicture {
  guint slot = 0;
  gint region_x = 0, region_y = 0, region_width = 0, region_height = 0;
  gint x = 0, y = 0, width = 0, height = 0;
};

// Everything of `op` but the memory, for the visible `region` of a frame
// of `in` going into a slot of `out`'s format and size (the converter's
// description, letterboxed as `s` says), and the slot's map back to the
// frame (the rest of `slot` is the caller's).
void batch_describe_slot (const GstVideoInfo * in, const Region & region,
    const BatchSettings & s, const GstVideoInfo * out, gpu::ConvertScale * op,
    GstCsBatchSlot * slot);

} // namespace gst_cs

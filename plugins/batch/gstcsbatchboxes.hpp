/* SPDX-License-Identifier: LGPL-2.1-or-later */
// The boxes of each slot's frame, in the tensor (internal): GStreamer's
// region-of-interest metas and, where the plugin is built with GStreamer's
// analytics library (1.24 and later), the object-detection boxes of its
// relation meta,
// through the slot's letterbox into the tensor's pixels.
#pragma once

#include <vector>

#include <gst/gst.h>

#include "batch/gstcsbatchslot.hpp"

namespace gst_cs {

// A box in a slot, in the tensor's pixels (pixel edges, as the slot's map
// in GstCsBatchSlot).
struct BatchBox {
  double x = 0, y = 0, width = 0, height = 0;
};

// The box (`x`, `y`, `w`, `h`) of a frame, in the frame's pixels (counted
// from its corner, as GStreamer's metas are, its crop meta's region
// included), in the slot of `picture`, clipped to the slot's picture (not
// its borders). False where nothing of it lies in the picture.
bool batch_map_box (
    const SlotPicture & picture, double x, double y, double w, double h, BatchBox * box);

// Puts on `tensor` a GstVideoRegionOfInterestMeta per box of each frame
// (frames[i] went into pictures[i]): the frame's region-of-interest metas
// and object-detection boxes mapped into its slot, rounded to whole
// pixels, with the frame's type, id, parent id and parameters, and one
// more parameter, a "GstCsBatchBox" structure: "slot" (guint), the exact
// box ("x", "y", "width", "height", gdouble) and "source" ("roi" or "od";
// an object-detection box's confidence in "confidence", gfloat).
void batch_add_boxes (GstBuffer * tensor, const std::vector<GstBuffer *> & frames,
    const std::vector<SlotPicture> & pictures);

} // namespace gst_cs

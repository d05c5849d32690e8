/* SPDX-License-Identifier: LGPL-2.1-or-later */
// One reading of cudabatch's properties and sink pads (internal): what one
// batch is made of, its tensor and its caps alike.
#pragma once

#include <vector>

#include <gst/gst.h>

#include "batch/gstcsbatchpad.h"
#include "batch/gstcsbatchsettings.hpp"

namespace gst_cs {

// The settings and the pads as they were when a batch began: its slots,
// the tensor and the caps are all made from this one reading, so a
// property set or a pad requested, released or ended meanwhile takes
// effect whole on the next batch. Used on the aggregator's thread.
class BatchPlan {
public:
  BatchPlan (GstElement * element, const BatchSettings & settings);
  ~BatchPlan ();
  BatchPlan (const BatchPlan &) = delete;
  BatchPlan & operator= (const BatchPlan &) = delete;

  const BatchSettings settings;
  // Every sink pad in the order of its number, referenced while this lives.
  const std::vector<GstCsBatchPad *> & pads () const { return pads_; }
  // Those still in the stream: not ended, or with frames left.
  const std::vector<GstCsBatchPad *> & active () const { return active_; }
  // Slots of the tensor: batch-size, or one per active pad.
  guint batch () const { return batch_; }
  // The tensor's caps (at least one slot); owned by the plan.
  GstCaps * caps () const { return caps_; }
  // One frame's duration at the first pad's frame rate; NONE where no pad
  // has one.
  GstClockTime frame_interval () const;

private:
  std::vector<GstCsBatchPad *> pads_, active_;
  guint batch_ = 0;
  gint fps_n_ = 0, fps_d_ = 1;
  GstCaps * caps_ = nullptr;
};

} // namespace gst_cs

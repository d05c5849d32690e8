/* SPDX-License-Identifier: LGPL-2.1-or-later */
// The frames one pass of cudabatch takes from its pads (internal).
#pragma once

#include <vector>

#include <gst/gst.h>

#include "batch/gstcsbatchpad.h"

namespace gst_cs {

// `pts` of a frame of `pad` in running time; none where the pad has no
// time segment (a frame after a flush of that pad alone, before a new
// segment event). Any thread: a flush of the pad resets the segment on its
// own thread.
GstClockTime batch_running_time (GstCsBatchPad * pad, GstClockTime pts);

// The frames of one pass, one of each chosen pad that has one, those pads
// (the plan keeps them), and the span of running time the pads' GAP events
// stood for.
class BatchFrames {
public:
  BatchFrames () = default;
  ~BatchFrames () { release (); }
  BatchFrames (const BatchFrames &) = delete;
  BatchFrames & operator= (const BatchFrames &) = delete;

  // Pops each of `chosen`'s frame. A GAP event (GstAggregator queues it as
  // a buffer without memory, flagged GAP) is no frame, only its span; nor
  // is anything on a pad flushed or released since it was chosen (where
  // GstAggregator has no frame to hand over any more). Those pads are left
  // out of the batch, as a stalled one is.
  void take (const std::vector<GstCsBatchPad *> & chosen);
  // The frames go before the batch is pushed: the tensor keeps nothing of
  // them (an nvcodec frame is kept by the work until read).
  void release ();

  std::vector<GstCsBatchPad *> pads;
  std::vector<GstBuffer *> frames;
  GstClockTime gap_start = GST_CLOCK_TIME_NONE, gap_end = GST_CLOCK_TIME_NONE;

private:
  void note_gap (GstCsBatchPad * pad, GstBuffer * gap);
};

} // namespace gst_cs

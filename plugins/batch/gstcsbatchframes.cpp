/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "batch/gstcsbatchframes.hpp"

namespace gst_cs {

GstClockTime
batch_running_time (GstCsBatchPad * pad, GstClockTime pts)
{
  GST_OBJECT_LOCK (pad);
  const GstSegment segment = GST_AGGREGATOR_PAD (pad)->segment;
  GST_OBJECT_UNLOCK (pad);
  if (segment.format != GST_FORMAT_TIME || !GST_CLOCK_TIME_IS_VALID (pts))
    return GST_CLOCK_TIME_NONE;
  return gst_segment_to_running_time (&segment, GST_FORMAT_TIME, pts);
}

void
BatchFrames::note_gap (GstCsBatchPad * pad, GstBuffer * gap)
{
  const GstClockTime pts = GST_BUFFER_PTS (gap), duration = GST_BUFFER_DURATION (gap);
  const GstClockTime start = batch_running_time (pad, pts);
  GstClockTime end = start;
  if (GST_CLOCK_TIME_IS_VALID (pts) && GST_CLOCK_TIME_IS_VALID (duration))
    end = batch_running_time (pad, pts + duration);
  if (GST_CLOCK_TIME_IS_VALID (start) &&
      (!GST_CLOCK_TIME_IS_VALID (gap_start) || start < gap_start))
    gap_start = start;
  if (GST_CLOCK_TIME_IS_VALID (end) &&
      (!GST_CLOCK_TIME_IS_VALID (gap_end) || end > gap_end))
    gap_end = end;
}

void
BatchFrames::take (const std::vector<GstCsBatchPad *> & chosen)
{
  for (GstCsBatchPad * p : chosen) {
    GstBuffer * frame = gst_aggregator_pad_pop_buffer (GST_AGGREGATOR_PAD (p));
    if (!frame)
      continue;
    if (gst_buffer_n_memory (frame) == 0 &&
        GST_BUFFER_FLAG_IS_SET (frame, GST_BUFFER_FLAG_GAP)) {
      note_gap (p, frame);
      gst_buffer_unref (frame);
    } else {
      pads.push_back (p);
      frames.push_back (frame);
    }
  }
}

void
BatchFrames::release ()
{
  for (GstBuffer * f : frames)
    gst_buffer_unref (f);
  frames.clear ();
}

} // namespace gst_cs

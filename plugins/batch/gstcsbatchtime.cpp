/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "batch/gstcsbatchtime.hpp"

namespace gst_cs {
namespace {

GstSegment *
src_segment (GstAggregator * agg)
{
  return &GST_AGGREGATOR_PAD (GST_AGGREGATOR_SRC_PAD (agg))->segment;
}

} // namespace

GstClockTime
batch_position_of (GstAggregator * agg, GstClockTime rt)
{
  if (!GST_CLOCK_TIME_IS_VALID (rt))
    return rt;
  GST_OBJECT_LOCK (agg);
  const GstSegment * segment = src_segment (agg);
  guint64 position = 0;
  const int sign = gst_segment_position_from_running_time_full (
      segment, GST_FORMAT_TIME, rt, &position);
  /* Before the segment (a frame older than a seek's): at its start. */
  const GstClockTime out = sign > 0 ? position : segment->start;
  GST_OBJECT_UNLOCK (agg);
  return out;
}

GstClockTime
batch_running_time_of (GstAggregator * agg, GstClockTime position)
{
  GST_OBJECT_LOCK (agg);
  const GstClockTime rt =
      gst_segment_to_running_time (src_segment (agg), GST_FORMAT_TIME, position);
  GST_OBJECT_UNLOCK (agg);
  return rt;
}

GstClockTime
batch_next_position (GstAggregator * agg)
{
  GST_OBJECT_LOCK (agg);
  const GstSegment * segment = src_segment (agg);
  const GstClockTime next =
      GST_CLOCK_TIME_IS_VALID (segment->position) && segment->position >= segment->start
          ? segment->position
          : segment->start;
  GST_OBJECT_UNLOCK (agg);
  return next;
}

void
batch_advance_position (GstAggregator * agg, GstClockTime end)
{
  if (!GST_CLOCK_TIME_IS_VALID (end))
    return;
  GST_OBJECT_LOCK (agg);
  GstSegment * segment = src_segment (agg);
  if (!GST_CLOCK_TIME_IS_VALID (segment->position) || segment->position < end)
    segment->position = end;
  GST_OBJECT_UNLOCK (agg);
}

void
batch_reset_position (GstAggregator * agg)
{
  GST_OBJECT_LOCK (agg);
  src_segment (agg)->position = GST_CLOCK_TIME_NONE;
  GST_OBJECT_UNLOCK (agg);
}

bool
batch_push_gap (GstAggregator * agg, GstClockTime pts, GstClockTime duration)
{
  GstEvent * gap = gst_event_new_gap (pts, duration);
#if GST_CHECK_VERSION(1, 26, 0)
  /* The aggregator's own segment first, where it is due. */
  return gst_aggregator_push_src_event (agg, gap);
#else
  /* No way to have the aggregator send its pending segment before an
   * event: where the pad has none, ours goes first (the aggregator sends
   * its own again before the first batch). */
  GstPad * src = GST_AGGREGATOR_SRC_PAD (agg);
  GstEvent * segment = gst_pad_get_sticky_event (src, GST_EVENT_SEGMENT, 0);
  if (!segment) {
    GST_OBJECT_LOCK (agg);
    segment = gst_event_new_segment (src_segment (agg));
    GST_OBJECT_UNLOCK (agg);
    gst_pad_push_event (src, segment);
  } else {
    gst_event_unref (segment);
  }
  return gst_pad_push_event (src, gap);
#endif
}

} // namespace gst_cs

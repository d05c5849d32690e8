/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "base/gstcsframespan.hpp"

#include "gstcssyncmeta.h"

namespace gst_cs {

std::atomic<FrameObserver *> frame_observer{ nullptr };

namespace {
GstCsSyncMeta *
sync_meta (GstBuffer * buffer)
{
  return buffer ? gst_buffer_get_cs_sync_meta (buffer) : NULL;
}
} // namespace

/* Frames the observer does not time leave at the count: they run at up to
 * a few hundred thousand a second, where every lookup, lock, allocation
 * or clock read shows in the frame rate. */
void
FrameSpan::open (
    GstCsBaseTransform * element, GstBuffer * input, FrameObserver * observer)
{
  if (G_LIKELY (gst_cs_base_transform_count_frame (element) % observer->every () != 0))
    return;
  auto * d = new FrameSpanData ();
  d->element = GST_ELEMENT_CAST (element);
  d->device = gst_cs_base_transform_get_device (element);
  d->stream = gst_cs_base_transform_get_stream (element);
  d->pts = input ? GST_BUFFER_PTS (input) : GST_CLOCK_TIME_NONE;
  if (GstCsSyncMeta * meta = sync_meta (input)) {
    d->input_event = meta->event;
    d->input_stream = meta->stream;
    d->input_device = meta->device_id;
  }
  d->host_waits_begin =
      gst_cs_wait_counter_get (gst_cs_base_transform_get_waits (element));
  d->cpu_begin = gst_util_get_timestamp ();
  if (!observer->open (*d)) {
    delete d;
    return;
  }
  observer_ = observer;
  data_ = d;
}

void
FrameSpan::close ()
{
  GstCsSyncMeta * meta = sync_meta (output_);
  data_->output_event = meta ? meta->event : nullptr;
  data_->cpu_end = gst_util_get_timestamp ();
  data_->host_waits_end = gst_cs_wait_counter_get (
      gst_cs_base_transform_get_waits (GST_CS_BASE_TRANSFORM (data_->element)));
  observer_->close (*data_);
  delete data_;
}

} // namespace gst_cs

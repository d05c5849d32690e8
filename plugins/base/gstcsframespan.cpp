/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "base/gstcsframespan.hpp"

#include "base/gstcsbasetransform.h"
#include "gstcssyncmeta.h"

namespace gst_cs {

std::atomic<FrameObserver *> frame_observer{ nullptr };

namespace {
GstCsSyncMeta *
sync_meta (GstBuffer * buffer)
{
  /* Not an empty one (a pooled buffer's before its event is recorded). */
  GstCsSyncMeta * meta = buffer ? gst_buffer_get_cs_sync_meta (buffer) : NULL;
  return meta && meta->event ? meta : NULL;
}

/* A GstCsBaseTransform's frame: one input (or none). */
class TransformFrame final : public FrameSource {
public:
  TransformFrame (GstCsBaseTransform * element, GstBuffer * input)
      : element_ (element), input_ (input)
  {}
  GstElement * element () override { return GST_ELEMENT_CAST (element_); }
  int device () override { return gst_cs_base_transform_get_device (element_); }
  cudaStream_t stream () override { return gst_cs_base_transform_get_stream (element_); }
  GstCsWaitCounter * waits () override
  {
    return gst_cs_base_transform_get_waits (element_);
  }
  guint64 count_frame () override { return gst_cs_base_transform_count_frame (element_); }
  size_t n_inputs () override { return input_ ? 1 : 0; }
  GstBuffer * input (size_t) override { return input_; }

private:
  GstCsBaseTransform * element_;
  GstBuffer * input_;
};
} // namespace

gpointer
trace_started (GstElement * element)
{
  FrameObserver * observer = frame_observer.load (std::memory_order_acquire);
  return observer ? observer->started (element) : nullptr;
}

void
trace_stopped (GstElement * element, gpointer * handle)
{
  if (!*handle)
    return;
  *handle = nullptr;
  if (FrameObserver * observer = frame_observer.load (std::memory_order_acquire))
    observer->stopped (element);
}

void
trace_cpu (gpointer handle, GstElement * element, GstPad * pad, GstClockTime begin,
    GstClockTime end)
{
  if (FrameObserver * observer = frame_observer.load (std::memory_order_acquire))
    observer->cpu (handle, element, pad, begin, end);
}

/* Frames the observer does not time leave at the count: they run at up to
 * a few hundred thousand a second, where every lookup, lock, allocation
 * or clock read shows in the frame rate. */
void
FrameSpan::open (FrameSource & source, FrameObserver * observer)
{
  if (G_LIKELY (source.count_frame () % observer->every () != 0))
    return;
  auto * d = new FrameSpanData ();
  d->element = source.element ();
  d->device = source.device ();
  d->stream = source.stream ();
  for (size_t i = 0, n = source.n_inputs (); i < n; i++) {
    GstBuffer * input = source.input (i);
    const GstClockTime pts = input ? GST_BUFFER_PTS (input) : GST_CLOCK_TIME_NONE;
    if (GST_CLOCK_TIME_IS_VALID (pts) &&
        (!GST_CLOCK_TIME_IS_VALID (d->pts) || pts < d->pts))
      d->pts = pts;
    if (GstCsSyncMeta * meta = sync_meta (input))
      d->inputs.push_back ({ meta->event, meta->stream, meta->device_id });
  }
  d->waits = source.waits ();
  d->host_waits_begin = gst_cs_wait_counter_get (d->waits);
  d->cpu_begin = gst_util_get_timestamp ();
  if (!observer->open (*d)) {
    delete d;
    return;
  }
  observer_ = observer;
  data_ = d;
}

void
FrameSpan::open (
    GstCsBaseTransform * element, GstBuffer * input, FrameObserver * observer)
{
  TransformFrame source (element, input);
  open (source, observer);
}

void
FrameSpan::close ()
{
  GstCsSyncMeta * meta = sync_meta (output_);
  data_->output_event = meta ? meta->event : nullptr;
  data_->cpu_end = gst_util_get_timestamp ();
  data_->host_waits_end = gst_cs_wait_counter_get (data_->waits);
  observer_->close (*data_);
  delete data_;
}

} // namespace gst_cs

/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "config.h"

#include "batch/gstcsbatchanalytics.hpp"

#if HAVE_GST_ANALYTICS
#include <gst/analytics/analytics.h>
#endif

namespace gst_cs {
namespace {

#if HAVE_GST_ANALYTICS

GstTensorDataType
tensor_data_type (GstCsBatchDType dtype)
{
  switch (dtype) {
    case GST_CS_BATCH_DTYPE_UINT8:
      return GST_TENSOR_DATA_TYPE_UINT8;
    case GST_CS_BATCH_DTYPE_FLOAT16:
      return GST_TENSOR_DATA_TYPE_FLOAT16;
    case GST_CS_BATCH_DTYPE_FLOAT32:
    default:
      return GST_TENSOR_DATA_TYPE_FLOAT32;
  }
}

/* The tensor as GStreamer's analytics library describes one. Its data is a
 * buffer of the batch's own memory, not a copy: the GPU wrote it once and
 * the batch's sync meta says when. That buffer shares the memory, so while
 * the meta lives the batch's memory is not writable (nobody writes a
 * pushed batch); the pool's reset drops the meta, and with it the share,
 * before the memory is checked on its way back. */
void
add_tensor_meta (GstBuffer * tensor, const BatchSettings & s, guint batch)
{
  GstBuffer * data = gst_buffer_new ();
  for (guint i = 0; i < gst_buffer_n_memory (tensor); i++)
    gst_buffer_append_memory (data, gst_buffer_get_memory (tensor, i));
  const gsize h = (gsize)s.height, w = (gsize)s.width;
  gsize nchw[4] = { batch, 3, h, w }, nhwc[4] = { batch, h, w, 3 };
  /* The id names what a model reads in it: the channel order is in no
   * other field. */
  const GQuark id = g_quark_from_static_string (
      s.order == GST_CS_BATCH_CHANNEL_ORDER_BGR ? "cudabatch-bgr" : "cudabatch-rgb");
  GstTensor * t = gst_tensor_new_simple (id, tensor_data_type (s.dtype), data,
      GST_TENSOR_DIM_ORDER_ROW_MAJOR, 4,
      s.layout == GST_CS_BATCH_LAYOUT_NHWC ? nhwc : nchw);
  if (!t) {
    /* Only a size that does not match the dims, which the settings rule
     * out; the tensor goes out described by our meta alone. */
    GST_WARNING ("cannot describe a %u-slot batch as a GstTensor", batch);
    gst_buffer_unref (data);
    return;
  }
  GstTensor ** tensors = g_new (GstTensor *, 1);
  tensors[0] = t;
  gst_tensor_meta_set (gst_buffer_add_tensor_meta (tensor), 1, tensors);
}

#endif /* HAVE_GST_ANALYTICS */

#if HAVE_GST_ANALYTICS_BATCH

/* stream-start, caps, segment */
constexpr gsize kStickyPerStream = 3;

/* GStreamer 1.28's free function of the batch meta unrefs each stream's
 * sticky events and frees the streams array, but not each stream's array
 * of events (valgrind on 1.28.6: one lost block per stream and batch). On
 * those versions the events' pointers live in the tail of the streams
 * array's own block, which that free releases; on others each stream gets
 * its own array, as the meta's copy function makes them (a later version
 * that frees them must not be handed a pointer into another block). */
bool
events_in_streams_block ()
{
  guint major, minor, micro, nano;
  gst_version (&major, &minor, &micro, &nano);
  return major == 1 && minor == 28 && micro <= 6;
}

/* Slot i's source: its stream id, caps and segment as the frame came, and
 * an empty buffer with the frame's timestamps and flags. Not the frame
 * itself: the tensor holds its pixels, and a batch that kept N frames
 * alive would keep them from their sources' pools as long as an
 * application keeps the batch. */
void
describe_source (GstAnalyticsBatchStream * stream, GstCsBatchPad * pad, GstBuffer * frame)
{
  GstEvent * start = gst_pad_get_sticky_event (GST_PAD (pad), GST_EVENT_STREAM_START, 0);
  if (start)
    stream->sticky_events[stream->n_sticky_events++] = start;
  if (pad->caps)
    stream->sticky_events[stream->n_sticky_events++] = gst_event_new_caps (pad->caps);
  /* A flush of this pad alone (on its own thread) resets the segment until
   * the next segment event: then there is none to name. */
  GST_OBJECT_LOCK (pad);
  const GstSegment segment = GST_AGGREGATOR_PAD (pad)->segment;
  GST_OBJECT_UNLOCK (pad);
  if (segment.format != GST_FORMAT_UNDEFINED)
    stream->sticky_events[stream->n_sticky_events++] = gst_event_new_segment (&segment);
  GstBuffer * stamp = gst_buffer_new ();
  gst_buffer_copy_into (stamp, frame,
      (GstBufferCopyFlags)(GST_BUFFER_COPY_FLAGS | GST_BUFFER_COPY_TIMESTAMPS), 0, -1);
  stream->objects = g_new (GstMiniObject *, 1);
  stream->objects[0] = GST_MINI_OBJECT_CAST (stamp);
  stream->n_objects = 1;
}

void
add_batch_meta (GstBuffer * tensor, guint batch,
    const std::vector<GstCsBatchPad *> & pads, const std::vector<GstBuffer *> & frames)
{
  const bool in_block = events_in_streams_block ();
  const gsize streams_bytes = batch * sizeof (GstAnalyticsBatchStream);
  auto * block = (guint8 *)g_malloc0 (
      streams_bytes + (in_block ? batch * kStickyPerStream * sizeof (GstEvent *) : 0));
  auto * streams = (GstAnalyticsBatchStream *)block;
  auto * tail = (GstEvent **)(block + streams_bytes);
  for (guint i = 0; i < batch; i++) {
    GstAnalyticsBatchStream * stream = &streams[i];
    stream->index = i;
    if (i >= pads.size ())
      continue; /* an empty slot: no source */
    stream->sticky_events =
        in_block ? tail + i * kStickyPerStream : g_new (GstEvent *, kStickyPerStream);
    describe_source (stream, pads[i], frames[i]);
  }
  GstAnalyticsBatchMeta * meta = gst_buffer_add_analytics_batch_meta (tensor);
  meta->streams = streams;
  meta->n_streams = batch;
}

#endif /* HAVE_GST_ANALYTICS_BATCH */

} // namespace

void
batch_add_analytics_metas (GstBuffer * tensor, const BatchSettings & s, guint batch,
    const std::vector<GstCsBatchPad *> & pads, const std::vector<GstBuffer *> & frames)
{
#if HAVE_GST_ANALYTICS
  add_tensor_meta (tensor, s, batch);
#endif
#if HAVE_GST_ANALYTICS_BATCH
  add_batch_meta (tensor, batch, pads, frames);
#endif
  (void)tensor, (void)s, (void)batch, (void)pads, (void)frames;
}

} // namespace gst_cs

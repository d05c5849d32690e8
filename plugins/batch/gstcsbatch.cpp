/* SPDX-License-Identifier: LGPL-2.1-or-later */
/**
 * SECTION:element-cudabatch
 * @title: cudabatch
 *
 * Batches the frames of many streams into one tensor in CUDA device memory,
 * ready for a model: each frame is letterboxed to #GstCsBatch:width x
 * #GstCsBatch:height, converted to RGB and, for float tensors, normalised
 * with a mean and std per channel, then stacked as batch x 3 x height x
 * width (#GstCsBatch:layout nchw) or batch x height x width x 3 (nhwc).
 *
 * Each sink pad (request pads sink_%u) takes frames of any format and size
 * the converter takes, each pad its own. A batch takes one frame of each
 * pad; its GPU work waits on each frame's event on the GPU, runs on the
 * element's stream (one convert-scale launch per frame, one normalisation
 * launch per batch) and records one event, which the tensor carries in its
 * sync meta: the CPU never waits. The tensor comes from a pool: nothing is
 * allocated per batch.
 *
 * Each batch carries a #GstCsBatchMeta: per slot its source pad, the
 * frame's PTS, the map from tensor to frame coordinates, and whether the
 * slot is empty. Where the sources are live, #GstCsBatch:batched-push-timeout
 * bounds the wait for a stalled source: a partial batch goes out with its
 * empty slots marked (and zeroed); where none has a frame, a GAP event
 * goes out instead, once a frame interval. Each slot's frame's boxes
 * (region-of-interest metas, object-detection boxes) come along as
 * region-of-interest metas in the tensor's pixels. Where the plugin is built with
 * GStreamer's analytics library, a batch also carries a GstTensorMeta
 * describing the tensor (GStreamer 1.26 and later) and a
 * GstAnalyticsBatchMeta naming each slot's source (1.28 and later); the
 * caps are the same on every version.
 *
 * ## Example
 * |[
 * gst-launch-1.0 cudabatch name=b width=640 height=640 dtype=float16 \
 *     mean="<0.485,0.456,0.406>" std="<0.229,0.224,0.225>" ! fakesink \
 *   videotestsrc ! video/x-raw,format=NV12,width=1920,height=1080 ! cudaupload ! b.sink_0 \
 *   videotestsrc ! video/x-raw,format=I420,width=1280,height=720 ! cudaupload ! b.sink_1
 * ]|
 *
 * Since: 0.3
 */
#include "batch/gstcsbatch.h"

#include <algorithm>
#include <new>
#include <vector>

#include "base/gstcscaps.h"
#include "base/gstcsframespan.hpp"
#include "base/gstcsmetas.h"
#include "batch/gstcsbatchanalytics.hpp"
#include "batch/gstcsbatchboxes.hpp"
#include "batch/gstcsbatchdeadline.hpp"
#include "batch/gstcsbatchframes.hpp"
#include "batch/gstcsbatchpad.h"
#include "batch/gstcsbatchplan.hpp"
#include "batch/gstcsbatchprops.hpp"
#include "batch/gstcsbatchsettings.hpp"
#include "batch/gstcsbatchtime.hpp"
#include "batch/gstcsbatchwork.hpp"
#include "batch/gstcselementdevice.hpp"
#include "convert/gstcsconvertcaps.h"
#include "gstcsbatchmeta.h"
#include "gstcserror-private.h"
#include "nvcodec/gstcsnvcodec.hpp"

GST_DEBUG_CATEGORY_STATIC (gst_cs_batch_debug);
#define GST_CAT_DEFAULT gst_cs_batch_debug

#define DEFAULT_TIMEOUT_US 40000

struct _GstCsBatch {
  GstAggregator parent;

  gst_cs::BatchSettings settings; /* object lock */
  guint64 timeout_us;             /* object lock */
  guint next_pad;                 /* aggregator thread: the pad that goes first */
  GstCaps * caps;                 /* the src caps in use; aggregator thread */
  GstCaps * plan_caps;   /* aggregator thread: the caps of the batch negotiating */
  GstClockTime interval; /* aggregator thread: the last batch's duration */
  gst_cs::ElementDevice * device;
  gst_cs::BatchWork * work;
  gst_cs::BatchDeadline * deadline; /* how early a partial batch starts */
  GstClockTime cpu_begin; /* aggregator thread: the pass's start, where traced */
};

G_DEFINE_TYPE (GstCsBatch, gst_cs_batch, GST_TYPE_AGGREGATOR);

/* The converter's input formats (gst_cs_convert_formats, set in class_init):
 * each frame is read through the converter's description of it
 * (describe_convert), so the formats follow the converter's. */
#define SINK_CAPS GST_CS_VIDEO_DEVICE_CAPS GST_CS_VIDEO_NVCODEC_CAPS

static GstStaticPadTemplate src_template =
    GST_STATIC_PAD_TEMPLATE ("src", GST_PAD_SRC, GST_PAD_ALWAYS,
        GST_STATIC_CAPS ("other/tensors(" GST_CAPS_FEATURE_MEMORY_CS
                         "), format = (string) static, num_tensors = (int) 1, "
                         "types = (string) { uint8, float16, float32 }, "
                         "framerate = (fraction) [ 0, max ]"));

/* --- pads ------------------------------------------------------------- */

static GstPad *
gst_cs_batch_request_new_pad (GstElement * element, GstPadTemplate * templ,
    const gchar * name, const GstCaps * caps)
{
  GstPad * pad = GST_ELEMENT_CLASS (gst_cs_batch_parent_class)
                     ->request_new_pad (element, templ, name, caps);
  if (pad) {
    const gchar * digits = GST_PAD_NAME (pad) + strlen ("sink_");
    GST_CS_BATCH_PAD (pad)->index = (guint)g_ascii_strtoull (digits, NULL, 10);
    GST_DEBUG_OBJECT (element, "added %s", GST_PAD_NAME (pad));
  }
  return pad;
}

/* A released pad's frames that a batch read go once that read is done:
 * none is left behind with the pad, none goes before. */
static void
gst_cs_batch_release_pad (GstElement * element, GstPad * pad)
{
  auto * self = GST_CS_BATCH (element);
  const guint index = GST_CS_BATCH_PAD (pad)->index;
  GST_DEBUG_OBJECT (element, "releasing %s", GST_PAD_NAME (pad));
  GST_ELEMENT_CLASS (gst_cs_batch_parent_class)->release_pad (element, pad);
  self->work->release_pad (index, *self->device, GST_OBJECT (self));
}

/* --- caps ------------------------------------------------------------- */

/* Frames of these caps can go into a slot; otherwise says why. */
static gboolean
batchable (GstCaps * caps, GstVideoInfo * info, gchar ** why)
{
  if (!gst_video_info_from_caps (info, caps)) {
    *why = g_strdup ("they are not complete raw video caps");
    return FALSE;
  }
  if (GST_VIDEO_INFO_IS_INTERLACED (info)) {
    *why = g_strdup_printf ("interlaced frames (interlace-mode %s) cannot be "
                            "letterboxed into a slot: deinterlace them first",
        gst_video_interlace_mode_to_string (GST_VIDEO_INFO_INTERLACE_MODE (info)));
    return FALSE;
  }
  return TRUE;
}

static gboolean
take_caps (GstCsBatch * self, GstCsBatchPad * pad, GstEvent * event)
{
  GstCaps * caps = NULL;
  gst_event_parse_caps (event, &caps);
  GstVideoInfo info;
  gchar * why = NULL;
  if (!batchable (caps, &info, &why)) {
    GST_ELEMENT_WARNING (self, CORE, NEGOTIATION,
        ("%s: cannot batch these frames: %s", GST_PAD_NAME (pad), why),
        ("caps %" GST_PTR_FORMAT, caps));
    g_free (why);
    return FALSE;
  }
  pad->info = info;
  gst_caps_replace (&pad->caps, caps);
  pad->has_info = TRUE;
  GST_DEBUG_OBJECT (pad, "caps %" GST_PTR_FORMAT, caps);
  return TRUE;
}

static gboolean
gst_cs_batch_sink_event (GstAggregator * agg, GstAggregatorPad * aggpad, GstEvent * event)
{
  auto * self = GST_CS_BATCH (agg);
  if (GST_EVENT_TYPE (event) == GST_EVENT_CAPS) {
    const gboolean ok = take_caps (self, GST_CS_BATCH_PAD (aggpad), event);
    gst_event_unref (event);
    return ok;
  }
  /* On this pad's upstream thread, while the batches of the other pads
   * may go on: this pad's kept frames alone. */
  if (GST_EVENT_TYPE (event) == GST_EVENT_FLUSH_STOP)
    self->work->release_pad (
        GST_CS_BATCH_PAD (aggpad)->index, *self->device, GST_OBJECT (self));
  return GST_AGGREGATOR_CLASS (gst_cs_batch_parent_class)
      ->sink_event (agg, aggpad, event);
}

static gst_cs::BatchSettings
current_settings (GstCsBatch * self)
{
  GST_OBJECT_LOCK (self);
  gst_cs::BatchSettings s = self->settings;
  GST_OBJECT_UNLOCK (self);
  return s;
}

static GstClockTime
timeout_of (GstCsBatch * self)
{
  GST_OBJECT_LOCK (self);
  const GstClockTime timeout = self->timeout_us * GST_USECOND;
  GST_OBJECT_UNLOCK (self);
  return timeout;
}

/* The caps of the batch being made: its plan's, the reading its tensor is
 * made from. Where the aggregator negotiates on its own (downstream asked
 * to reconfigure), those of the settings and pads now; the next batch
 * checks them against its own plan. */
static GstFlowReturn
gst_cs_batch_update_src_caps (GstAggregator * agg, GstCaps * downstream, GstCaps ** ret)
{
  auto * self = GST_CS_BATCH (agg);
  GstCaps * caps = NULL;
  if (self->plan_caps) {
    caps = gst_caps_ref (self->plan_caps);
  } else {
    const gst_cs::BatchPlan plan (GST_ELEMENT (self), current_settings (self));
    caps = gst_caps_ref (plan.caps ());
  }
  if (downstream && !gst_caps_can_intersect (caps, downstream)) {
    GST_ELEMENT_ERROR (agg, CORE, NEGOTIATION,
        ("Downstream does not take the tensor %" GST_PTR_FORMAT, caps),
        ("downstream takes %" GST_PTR_FORMAT, downstream));
    gst_caps_unref (caps);
    return GST_FLOW_NOT_NEGOTIATED;
  }
  *ret = caps;
  return GST_FLOW_OK;
}

static gboolean
gst_cs_batch_negotiated_src_caps (GstAggregator * agg, GstCaps * caps)
{
  auto * self = GST_CS_BATCH (agg);
  gst_caps_replace (&self->caps, caps);
  return TRUE;
}

/* The plan's caps on the src pad, renegotiated where they are not those
 * in use (a property changed, a pad was added or ended with batch-size 0). */
static GstFlowReturn
ensure_caps (GstCsBatch * self, const gst_cs::BatchPlan & plan)
{
  if (self->caps && gst_caps_is_equal (plan.caps (), self->caps))
    return GST_FLOW_OK;
  GstPad * src = GST_AGGREGATOR_SRC_PAD (self);
  self->plan_caps = plan.caps ();
  gst_pad_mark_reconfigure (src);
  const gboolean ok = gst_aggregator_negotiate (GST_AGGREGATOR (self)) && self->caps &&
                      gst_caps_is_equal (plan.caps (), self->caps);
  self->plan_caps = NULL;
  if (ok)
    return GST_FLOW_OK;
  return GST_PAD_IS_FLUSHING (src) ? GST_FLOW_FLUSHING : GST_FLOW_NOT_NEGOTIATED;
}

/* --- batches ---------------------------------------------------------- */

/* Up to `batch` pads with a frame, starting after the pad that went first
 * last time (pads beyond the batch size take turns). */
static std::vector<GstCsBatchPad *>
choose_pads (GstCsBatch * self, const std::vector<GstCsBatchPad *> & active, guint batch)
{
  std::vector<GstCsBatchPad *> chosen;
  const size_t n = active.size ();
  for (size_t k = 0; k < n && chosen.size () < batch; k++) {
    GstCsBatchPad * p = active[(self->next_pad + k) % n];
    if (gst_aggregator_pad_has_buffer (GST_AGGREGATOR_PAD (p)))
      chosen.push_back (p);
  }
  if (n)
    self->next_pad = (guint)((self->next_pad + chosen.size ()) % n);
  return chosen;
}

/* The source of each slot; the batch's time: the earliest frame's running
 * time, as a position of the output segment, which moves on past it. */
static void
stamp_batch (GstCsBatch * self, GstBuffer * tensor, const gst_cs::BatchFrames & t)
{
  GstCsBatchMeta * meta = gst_buffer_get_cs_batch_meta (tensor);
  GstClockTime first = GST_CLOCK_TIME_NONE, duration = GST_CLOCK_TIME_NONE;
  for (size_t i = 0; i < t.pads.size (); i++) {
    GstCsBatchSlot & slot = meta->slots[i];
    slot.pad_index = t.pads[i]->index;
    slot.pad_name = g_quark_from_string (GST_PAD_NAME (t.pads[i]));
    slot.pts = GST_BUFFER_PTS (t.frames[i]);
    const GstClockTime rt = gst_cs::batch_running_time (t.pads[i], slot.pts);
    if (GST_CLOCK_TIME_IS_VALID (rt) &&
        (!GST_CLOCK_TIME_IS_VALID (first) || rt < first)) {
      first = rt;
      duration = GST_BUFFER_DURATION (t.frames[i]);
    }
  }
  GST_BUFFER_PTS (tensor) = gst_cs::batch_position_of (GST_AGGREGATOR (self), first);
  GST_BUFFER_DURATION (tensor) = duration;
  if (GST_CLOCK_TIME_IS_VALID (duration))
    self->interval = duration;
  /* Where the next batch is due: a live stall times out from there. */
  if (GST_CLOCK_TIME_IS_VALID (GST_BUFFER_PTS (tensor)))
    gst_cs::batch_advance_position (GST_AGGREGATOR (self),
        GST_BUFFER_PTS (tensor) + (GST_CLOCK_TIME_IS_VALID (duration) ? duration : 0));
}

/* Makes and pushes the batch of `t`'s frames as `plan` says; `start`: where
 * its time counts from (batch_start_time), to its push. */
static GstFlowReturn
make_batch (GstCsBatch * self, const gst_cs::BatchPlan & plan, gst_cs::BatchFrames & t,
    GstClockTime start)
{
  std::vector<gst_cs::BatchInput> inputs;
  for (size_t i = 0; i < t.frames.size (); i++)
    inputs.push_back ({ t.frames[i], &t.pads[i]->info, (guint)i, t.pads[i]->imports,
        t.pads[i]->index });
  GError * err = NULL;
  GstBuffer * tensor =
      self->work->run (*self->device, plan.settings, plan.batch (), inputs, &err);
  if (tensor) {
    stamp_batch (self, tensor, t);
    gst_cs::batch_add_analytics_metas (
        tensor, plan.settings, plan.batch (), t.pads, t.frames);
    gst_cs::batch_add_boxes (tensor, t.frames, self->work->pictures ());
  }
  t.release ();
  if (!tensor) {
    GST_CS_POST_ERROR (self, err, "Cannot make a batch");
    return GST_FLOW_ERROR;
  }
  GST_DEBUG_OBJECT (self, "batch of %u, %zu frames, pts %" GST_TIME_FORMAT ", %s",
      plan.batch (), inputs.size (), GST_TIME_ARGS (GST_BUFFER_PTS (tensor)),
      self->work->fused () ? "one fused launch" : "a launch per frame");
  /* The tracer's CPU time of the pass that made a batch, its push excluded
   * (as GstCsBaseTransform's: passes that make none are not counted). */
  if (G_UNLIKELY (self->device->trace ()))
    gst_cs::trace_cpu (self->device->trace (), GST_ELEMENT_CAST (self),
        GST_AGGREGATOR_SRC_PAD (self), self->cpu_begin, gst_util_get_timestamp ());
  const GstClockTime end = gst_element_get_current_running_time (GST_ELEMENT (self));
  if (GST_CLOCK_TIME_IS_VALID (start) && GST_CLOCK_TIME_IS_VALID (end) && end >= start)
    self->deadline->note (end - start);
  return gst_aggregator_finish_buffer (GST_AGGREGATOR (self), tensor);
}

/* A GAP event for [`from`, `to`) of the output segment, after the plan's
 * caps: nothing to batch there. The position moves on to `to`. */
static GstFlowReturn
push_gap (
    GstCsBatch * self, const gst_cs::BatchPlan & plan, GstClockTime from, GstClockTime to)
{
  auto * agg = GST_AGGREGATOR (self);
  const GstFlowReturn ret = ensure_caps (self, plan);
  if (ret != GST_FLOW_OK)
    return ret;
  GST_DEBUG_OBJECT (self, "gap %" GST_TIME_FORMAT " to %" GST_TIME_FORMAT,
      GST_TIME_ARGS (from), GST_TIME_ARGS (to));
  if (!gst_cs::batch_push_gap (agg, from, to - from) &&
      GST_PAD_IS_FLUSHING (GST_AGGREGATOR_SRC_PAD (self)))
    return GST_FLOW_FLUSHING;
  gst_cs::batch_advance_position (agg, to);
  return GST_FLOW_OK;
}

/* Where no source has a frame, one gap reaches this far: a batch's
 * duration (the last one's, else the frame rate's), else the timeout, and
 * never less than kMinGap, so that the thread wakes once an interval. */
static GstClockTime
gap_interval (GstCsBatch * self, const gst_cs::BatchPlan & plan)
{
  static constexpr GstClockTime kMinGap = 10 * GST_MSECOND;
  GstClockTime interval = self->interval;
  if (!GST_CLOCK_TIME_IS_VALID (interval) || interval == 0)
    interval = plan.frame_interval ();
  if (!GST_CLOCK_TIME_IS_VALID (interval) || interval == 0)
    return std::max (timeout_of (self), kMinGap);
  return interval;
}

/* A timeout and no frame: every live source stalled, or none has sent a
 * frame yet. A gap of one interval moves the position on, so that the
 * next deadline (its running time plus the latency, less the margin) lies
 * one interval ahead, and after the clock where the position had fallen
 * behind it: the thread sleeps until then instead of waking at once. */
static GstFlowReturn
stalled (GstCsBatch * self, const gst_cs::BatchPlan & plan)
{
  auto * agg = GST_AGGREGATOR (self);
  const GstClockTime interval = gap_interval (self, plan);
  const GstClockTime from = gst_cs::batch_next_position (agg);
  GstClockTime to = from + interval;
  const GstClockTime now = gst_element_get_current_running_time (GST_ELEMENT (self));
  const GstClockTime latency = gst_aggregator_get_latency (agg);
  const GstClockTime margin = self->deadline->margin (timeout_of (self));
  const GstClockTime to_rt = gst_cs::batch_running_time_of (agg, to);
  if (GST_CLOCK_TIME_IS_VALID (now) && GST_CLOCK_TIME_IS_VALID (latency) &&
      GST_CLOCK_TIME_IS_VALID (to_rt) && to_rt + latency <= now + margin)
    to =
        std::max (to, gst_cs::batch_position_of (agg, now + margin + interval - latency));
  return push_gap (self, plan, from, to);
}

/* The pass's pads sent GAP events and no frame: the gap goes on. */
static GstFlowReturn
forward_gap (
    GstCsBatch * self, const gst_cs::BatchPlan & plan, const gst_cs::BatchFrames & t)
{
  auto * agg = GST_AGGREGATOR (self);
  const GstClockTime from = gst_cs::batch_next_position (agg);
  const GstClockTime to = GST_CLOCK_TIME_IS_VALID (t.gap_end)
                              ? gst_cs::batch_position_of (agg, t.gap_end)
                              : from + gap_interval (self, plan);
  return to > from ? push_gap (self, plan, from, to) : GST_FLOW_OK;
}

/* Whether the element plays, or is on its way to: only then does the clock
 * less the base time say the running time. Before it (a live pipeline in
 * PAUSED, whose base time is not set yet) a deadline would have passed
 * long ago and wake the thread at once, again and again. */
static gboolean
playing (GstCsBatch * self)
{
  GST_OBJECT_LOCK (self);
  const gboolean playing =
      GST_STATE (self) == GST_STATE_PLAYING || GST_STATE_NEXT (self) == GST_STATE_PLAYING;
  GST_OBJECT_UNLOCK (self);
  return playing;
}

/* GstAggregator's deadline for live sources is this plus its latency:
 * the next batch's time (the end of the last one), moved earlier by the
 * margin a batch needs to go out (gstcsbatchdeadline.hpp). None before
 * the element plays: the aggregator then sleeps until a frame, an event
 * or the change to PLAYING wakes it. */
static GstClockTime
gst_cs_batch_get_next_time (GstAggregator * agg)
{
  auto * self = GST_CS_BATCH (agg);
  if (!playing (self))
    return GST_CLOCK_TIME_NONE;
  const GstClockTime next = gst_aggregator_simple_get_next_time (agg);
  if (!GST_CLOCK_TIME_IS_VALID (next))
    return next;
  const GstClockTime margin = self->deadline->margin (timeout_of (self));
  return next > margin ? next - margin : 0;
}

/* Where a batch's time counts from, in running time: a timed-out batch's
 * deadline (the aggregator woke at it), any other batch's start. */
static GstClockTime
batch_start_time (GstCsBatch * self, gboolean timeout)
{
  const GstClockTime now = gst_element_get_current_running_time (GST_ELEMENT (self));
  if (!timeout || !GST_CLOCK_TIME_IS_VALID (now))
    return now;
  const GstClockTime next = gst_cs_batch_get_next_time (GST_AGGREGATOR (self));
  const GstClockTime latency = gst_aggregator_get_latency (GST_AGGREGATOR (self));
  if (!GST_CLOCK_TIME_IS_VALID (next) || !GST_CLOCK_TIME_IS_VALID (latency))
    return now;
  return std::min (now, next + latency);
}

/* One pass: every pad ended (EOS), a batch of the pads with a frame, a
 * gap where they sent GAP events or, on a timeout, where none has a frame. */
static GstFlowReturn
gst_cs_batch_aggregate (GstAggregator * agg, gboolean timeout)
{
  auto * self = GST_CS_BATCH (agg);
  if (G_UNLIKELY (self->device->trace ()))
    self->cpu_begin = gst_util_get_timestamp ();
  const GstClockTime start = batch_start_time (self, timeout);
  const gst_cs::BatchPlan plan (GST_ELEMENT (self), current_settings (self));
  /* Frames read by batches that completed go back now, whatever this pass
   * does: a stalled stream does not keep them. */
  self->work->release_done (*self->device);
  if (plan.active ().empty () && !plan.pads ().empty ()) {
    GST_INFO_OBJECT (self, "every sink pad ended");
    self->work->release_held (*self->device, GST_OBJECT (self));
    return GST_FLOW_EOS;
  }
  const std::vector<GstCsBatchPad *> chosen =
      choose_pads (self, plan.active (), plan.batch ());
  GST_LOG_OBJECT (self, "%s: %zu of %zu pads have a frame", timeout ? "timeout" : "ready",
      chosen.size (), plan.active ().size ());
  gst_cs::BatchFrames t;
  t.take (chosen);
  if (t.frames.empty ()) {
    if (GST_CLOCK_TIME_IS_VALID (t.gap_start))
      return forward_gap (self, plan, t);
    /* Nothing queued on a timeout: sleep to the next interval. Otherwise
     * a pad flushed meanwhile: the aggregator waits for data again. */
    return timeout ? stalled (self, plan) : GST_AGGREGATOR_FLOW_NEED_DATA;
  }
  const GstFlowReturn ret = ensure_caps (self, plan);
  if (ret != GST_FLOW_OK)
    return ret;
  if (timeout && t.frames.size () < plan.active ().size ())
    GST_DEBUG_OBJECT (
        self, "timeout: %zu of %zu sources", t.frames.size (), plan.active ().size ());
  return make_batch (self, plan, t, start);
}

/* Every pad flushed (a flushing seek, or all sources): the position starts
 * again from the segment, as the running time does. */
static GstFlowReturn
gst_cs_batch_flush (GstAggregator * agg)
{
  gst_cs::batch_reset_position (agg);
  GST_CS_BATCH (agg)->interval = GST_CLOCK_TIME_NONE;
  return GST_FLOW_OK;
}

/* --- state ------------------------------------------------------------ */

static gboolean
gst_cs_batch_start (GstAggregator * agg)
{
  auto * self = GST_CS_BATCH (agg);
  const gst_cs::BatchSettings s = current_settings (self);
  GST_OBJECT_LOCK (self);
  const guint pads = GST_ELEMENT (self)->numsinkpads;
  GST_OBJECT_UNLOCK (self);
  GError * err = NULL;
  if (!gst_cs::batch_check_shape (s, s.batch_size ? s.batch_size : pads, &err)) {
    GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS, ("%s", err->message), (NULL));
    g_error_free (err);
    return FALSE;
  }
  self->next_pad = 0;
  self->interval = GST_CLOCK_TIME_NONE;
  return self->device->start ();
}

static gboolean
gst_cs_batch_stop (GstAggregator * agg)
{
  auto * self = GST_CS_BATCH (agg);
  self->work->reset (*self->device, GST_OBJECT (self));
  self->deadline->reset ();
  /* The memory of copies from other devices, as the tensors' (the pads
   * stay, their pools with them). */
  gst_element_foreach_sink_pad (
      GST_ELEMENT (self),
      [] (GstElement *, GstPad * pad, gpointer) -> gboolean {
        GST_CS_BATCH_PAD (pad)->imports->reset ();
        return TRUE;
      },
      NULL);
  self->device->stop ();
  gst_clear_caps (&self->caps);
  return TRUE;
}

static GstStateChangeReturn
gst_cs_batch_change_state (GstElement * element, GstStateChange transition)
{
  if (transition == GST_STATE_CHANGE_NULL_TO_READY)
    GST_CS_BATCH (element)->device->announce ();
  return GST_ELEMENT_CLASS (gst_cs_batch_parent_class)
      ->change_state (element, transition);
}

static void
gst_cs_batch_set_context (GstElement * element, GstContext * context)
{
  GST_CS_BATCH (element)->device->set_context (context);
  GST_ELEMENT_CLASS (gst_cs_batch_parent_class)->set_context (element, context);
}

static gboolean
gst_cs_batch_src_query (GstAggregator * agg, GstQuery * query)
{
  return GST_CS_BATCH (agg)->device->answer_context_query (query) ||
         GST_AGGREGATOR_CLASS (gst_cs_batch_parent_class)->src_query (agg, query);
}

static gboolean
gst_cs_batch_sink_query (GstAggregator * agg, GstAggregatorPad * pad, GstQuery * query)
{
  return GST_CS_BATCH (agg)->device->answer_context_query (query) ||
         GST_AGGREGATOR_CLASS (gst_cs_batch_parent_class)->sink_query (agg, pad, query);
}

static gboolean
gst_cs_batch_propose_allocation (
    GstAggregator *, GstAggregatorPad *, GstQuery *, GstQuery * query)
{
  /* We read any plane layout and only the region a crop meta marks. */
  gst_cs_query_add_layout_metas (query);
  return TRUE;
}

/* --- properties ------------------------------------------------------- */

static void
set_channels (GstCsBatch * self, const GValue * value, double * into, bool scale)
{
  double v[3];
  if (!gst_cs::batch_read_channels (value, v)) {
    g_warning ("%s: a per-channel value is 1 or 3 numbers, as \"<0.5,0.5,0.5>\"; "
               "unchanged",
        GST_OBJECT_NAME (self));
    return;
  }
  GST_OBJECT_LOCK (self);
  for (int i = 0; i < 3; i++)
    into[i] = v[i];
  self->settings.use_scale = scale;
  GST_OBJECT_UNLOCK (self);
}

static void
gst_cs_batch_set_property (
    GObject * object, guint id, const GValue * value, GParamSpec * pspec)
{
  auto * self = GST_CS_BATCH (object);
  gst_cs::BatchSettings & s = self->settings;
  switch (id) {
    case PROP_MEAN:
      return set_channels (self, value, s.mean, false);
    case PROP_STD:
      return set_channels (self, value, s.std, false);
    case PROP_SCALE:
      return set_channels (self, value, s.scale, true);
    case PROP_OFFSET:
      return set_channels (self, value, s.offset, true);
    case PROP_DEVICE_ID:
      return self->device->set_requested (g_value_get_int (value));
    case PROP_TIMEOUT: {
      const guint64 us = g_value_get_uint64 (value);
      GST_OBJECT_LOCK (self);
      self->timeout_us = us;
      GST_OBJECT_UNLOCK (self);
      /* The aggregator's own bound on waiting for live sources. */
      g_object_set (self, "latency", (guint64)(us * GST_USECOND), NULL);
      return;
    }
    default:
      break;
  }
  GST_OBJECT_LOCK (self);
  switch (id) {
    case PROP_BATCH_SIZE:
      s.batch_size = g_value_get_uint (value);
      break;
    case PROP_WIDTH:
      s.width = g_value_get_int (value);
      break;
    case PROP_HEIGHT:
      s.height = g_value_get_int (value);
      break;
    case PROP_LAYOUT:
      s.layout = (GstCsBatchLayout)g_value_get_enum (value);
      break;
    case PROP_CHANNEL_ORDER:
      s.order = (GstCsBatchChannelOrder)g_value_get_enum (value);
      break;
    case PROP_DTYPE:
      s.dtype = (GstCsBatchDType)g_value_get_enum (value);
      break;
    case PROP_LETTERBOX:
      s.letterbox = g_value_get_boolean (value);
      break;
    case PROP_LETTERBOX_POSITION:
      s.position = (GstCsBatchPosition)g_value_get_enum (value);
      break;
    case PROP_BORDER_VALUE:
      s.border = g_value_get_uint (value);
      break;
    case PROP_METHOD:
      s.method = (GstCsConvertScaleMethod)g_value_get_enum (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_cs_batch_get_property (GObject * object, guint id, GValue * value, GParamSpec * pspec)
{
  auto * self = GST_CS_BATCH (object);
  if (id == PROP_DEVICE_ID)
    return g_value_set_int (value, self->device->requested ());
  if (id == PROP_HOST_WAITS)
    return g_value_set_uint64 (value, gst_cs_wait_counter_get (self->device->waits ()));
  GST_OBJECT_LOCK (self);
  const gst_cs::BatchSettings & s = self->settings;
  switch (id) {
    case PROP_BATCH_SIZE:
      g_value_set_uint (value, s.batch_size);
      break;
    case PROP_WIDTH:
      g_value_set_int (value, s.width);
      break;
    case PROP_HEIGHT:
      g_value_set_int (value, s.height);
      break;
    case PROP_LAYOUT:
      g_value_set_enum (value, s.layout);
      break;
    case PROP_CHANNEL_ORDER:
      g_value_set_enum (value, s.order);
      break;
    case PROP_DTYPE:
      g_value_set_enum (value, s.dtype);
      break;
    case PROP_MEAN:
      gst_cs::batch_write_channels (value, s.mean);
      break;
    case PROP_STD:
      gst_cs::batch_write_channels (value, s.std);
      break;
    case PROP_SCALE:
      gst_cs::batch_write_channels (value, s.scale);
      break;
    case PROP_OFFSET:
      gst_cs::batch_write_channels (value, s.offset);
      break;
    case PROP_LETTERBOX:
      g_value_set_boolean (value, s.letterbox);
      break;
    case PROP_LETTERBOX_POSITION:
      g_value_set_enum (value, s.position);
      break;
    case PROP_BORDER_VALUE:
      g_value_set_uint (value, s.border);
      break;
    case PROP_METHOD:
      g_value_set_enum (value, s.method);
      break;
    case PROP_TIMEOUT:
      g_value_set_uint64 (value, self->timeout_us);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

/* GstAggregator's latency is what batched-push-timeout sets: one setting
 * under two names, so that the LATENCY query's answer (the upstream's and
 * this latency) and the wait for a stalled source never disagree, however
 * it was set. */
static void
latency_changed (GObject * object, GParamSpec *, gpointer)
{
  auto * self = GST_CS_BATCH (object);
  guint64 latency = 0;
  g_object_get (object, "latency", &latency, NULL);
  GST_OBJECT_LOCK (self);
  const gboolean changed = self->timeout_us != latency / GST_USECOND;
  self->timeout_us = latency / GST_USECOND;
  GST_OBJECT_UNLOCK (self);
  if (changed)
    g_object_notify (object, "batched-push-timeout");
}

static void
gst_cs_batch_finalize (GObject * object)
{
  auto * self = GST_CS_BATCH (object);
  gst_clear_caps (&self->caps);
  delete self->work;
  delete self->deadline;
  delete self->device;
  G_OBJECT_CLASS (gst_cs_batch_parent_class)->finalize (object);
}

static void
gst_cs_batch_class_init (GstCsBatchClass * klass)
{
  GObjectClass * gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass * element_class = GST_ELEMENT_CLASS (klass);
  GstAggregatorClass * agg_class = GST_AGGREGATOR_CLASS (klass);

  gobject_class->set_property = gst_cs_batch_set_property;
  gobject_class->get_property = gst_cs_batch_get_property;
  gobject_class->finalize = gst_cs_batch_finalize;
  gst_cs::batch_install_properties (gobject_class, DEFAULT_TIMEOUT_US);

  GstCaps * sink_caps =
      gst_cs_convert_caps_with_formats (gst_caps_from_string (SINK_CAPS));
  gst_element_class_add_pad_template (
      element_class, gst_pad_template_new_with_gtype ("sink_%u", GST_PAD_SINK,
                         GST_PAD_REQUEST, sink_caps, GST_TYPE_CS_BATCH_PAD));
  gst_caps_unref (sink_caps);
  gst_element_class_add_static_pad_template_with_gtype (
      element_class, &src_template, GST_TYPE_AGGREGATOR_PAD);
  gst_element_class_set_static_metadata (element_class, "CUDA stream batcher",
      "Filter/Converter/Video/Tensor/Hardware",
      "Letterboxes, converts and normalises the frames of many streams into one "
      "batched tensor in CUDA device memory, ordered by events on a pooled stream",
      "gst-cudastreams developers");
  element_class->request_new_pad = GST_DEBUG_FUNCPTR (gst_cs_batch_request_new_pad);
  element_class->release_pad = GST_DEBUG_FUNCPTR (gst_cs_batch_release_pad);
  element_class->change_state = GST_DEBUG_FUNCPTR (gst_cs_batch_change_state);
  element_class->set_context = GST_DEBUG_FUNCPTR (gst_cs_batch_set_context);

  agg_class->aggregate = GST_DEBUG_FUNCPTR (gst_cs_batch_aggregate);
  agg_class->sink_event = GST_DEBUG_FUNCPTR (gst_cs_batch_sink_event);
  agg_class->sink_query = GST_DEBUG_FUNCPTR (gst_cs_batch_sink_query);
  agg_class->src_query = GST_DEBUG_FUNCPTR (gst_cs_batch_src_query);
  agg_class->update_src_caps = GST_DEBUG_FUNCPTR (gst_cs_batch_update_src_caps);
  agg_class->negotiated_src_caps = GST_DEBUG_FUNCPTR (gst_cs_batch_negotiated_src_caps);
  agg_class->propose_allocation = GST_DEBUG_FUNCPTR (gst_cs_batch_propose_allocation);
  agg_class->get_next_time = GST_DEBUG_FUNCPTR (gst_cs_batch_get_next_time);
  agg_class->flush = GST_DEBUG_FUNCPTR (gst_cs_batch_flush);
  agg_class->start = GST_DEBUG_FUNCPTR (gst_cs_batch_start);
  agg_class->stop = GST_DEBUG_FUNCPTR (gst_cs_batch_stop);

  gst_type_mark_as_plugin_api (GST_TYPE_CS_BATCH_PAD, (GstPluginAPIFlags)0);
  gst_type_mark_as_plugin_api (GST_TYPE_CS_BATCH_LAYOUT, (GstPluginAPIFlags)0);
  gst_type_mark_as_plugin_api (GST_TYPE_CS_BATCH_CHANNEL_ORDER, (GstPluginAPIFlags)0);
  gst_type_mark_as_plugin_api (GST_TYPE_CS_BATCH_DTYPE, (GstPluginAPIFlags)0);
  gst_type_mark_as_plugin_api (GST_TYPE_CS_BATCH_POSITION, (GstPluginAPIFlags)0);
  GST_DEBUG_CATEGORY_INIT (gst_cs_batch_debug, "csbatch", 0, "gst-cudastreams batch");
}

static void
gst_cs_batch_init (GstCsBatch * self)
{
  /* GObject zeroes the instance; the settings' defaults are C++'s. */
  new (&self->settings) gst_cs::BatchSettings ();
  self->timeout_us = DEFAULT_TIMEOUT_US;
  self->device = new gst_cs::ElementDevice (GST_ELEMENT (self));
  self->work = new gst_cs::BatchWork ();
  self->deadline = new gst_cs::BatchDeadline ();
  g_object_set (self, "latency", (guint64)(DEFAULT_TIMEOUT_US * GST_USECOND), NULL);
  g_signal_connect (self, "notify::latency", G_CALLBACK (latency_changed), NULL);
}

/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "base/gstcsbasetransform.h"

#include "gstcscontext-private.h"
#include "gstcsdevice-private.h"
#include "gstcserror-private.h"
#include "base/gstcscapsrefusal.hpp"
#include "base/gstcsmetas.h"
#include "base/gstcsframespan.hpp"
#include "nvcodec/gstcsnvcodec.hpp"

GST_DEBUG_CATEGORY_STATIC (gst_cs_base_transform_debug);
#define GST_CAT_DEFAULT gst_cs_base_transform_debug

enum { PROP_0, PROP_DEVICE_ID, PROP_HOST_WAITS };

#define DEFAULT_DEVICE_ID -1

struct _GstCsBaseTransformPrivate {
  gint requested_device;               /* the property: -1 = default; object lock */
  gint device;                         /* resolved in start(), -1 before */
  GstCsStreamPool * stream_pool;       /* the latest one set (context queries get it) */
  GstCsStreamPool * lease_stream_pool; /* the one the stream is leased from */
  cudaStream_t stream;
  GstCsWaitCounter waits;
  GstCsWaitMemo input_waits; /* of `stream`, forgotten when leased and given back */
  guint64 frames;            /* counted by gst_cs_base_transform_count_frame() */
  /* The tracer's handle between start and stop (nullptr: not traced), and
   * when the frame now in the per-frame path entered it. */
  gpointer trace;
  GstClockTime cpu_begin;
  gchar * refusal; /* the caps refusal said last (object lock) */
};

G_DEFINE_ABSTRACT_TYPE_WITH_PRIVATE (
    GstCsBaseTransform, gst_cs_base_transform, GST_TYPE_BASE_TRANSFORM);

static void
gst_cs_base_transform_set_property (
    GObject * object, guint id, const GValue * value, GParamSpec * pspec)
{
  GstCsBaseTransformPrivate * priv = GST_CS_BASE_TRANSFORM (object)->priv;
  switch (id) {
    case PROP_DEVICE_ID:
      GST_OBJECT_LOCK (object);
      priv->requested_device = g_value_get_int (value);
      GST_OBJECT_UNLOCK (object);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, id, pspec);
  }
}

static void
gst_cs_base_transform_get_property (
    GObject * object, guint id, GValue * value, GParamSpec * pspec)
{
  GstCsBaseTransformPrivate * priv = GST_CS_BASE_TRANSFORM (object)->priv;
  switch (id) {
    case PROP_DEVICE_ID:
      GST_OBJECT_LOCK (object);
      g_value_set_int (value, priv->requested_device);
      GST_OBJECT_UNLOCK (object);
      break;
    case PROP_HOST_WAITS:
      g_value_set_uint64 (value, gst_cs_wait_counter_get (&priv->waits));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, id, pspec);
  }
}

static void
gst_cs_base_transform_set_context (GstElement * element, GstContext * context)
{
  GstCsBaseTransformPrivate * priv = GST_CS_BASE_TRANSFORM (element)->priv;
  GST_OBJECT_LOCK (element);
  gint device = priv->device >= 0 ? priv->device : priv->requested_device;
  GstCsStreamPool * stream_pool =
      priv->stream_pool ? GST_CS_STREAM_POOL (gst_object_ref (priv->stream_pool)) : NULL;
  GST_OBJECT_UNLOCK (element);
  gst_cs_handle_set_context (element, context, device, &stream_pool);
  gst_cs::take_cuda_context (element, context, device);
  GST_OBJECT_LOCK (element);
  gst_clear_object (&priv->stream_pool);
  priv->stream_pool = stream_pool;
  GST_OBJECT_UNLOCK (element);
  /* GstElement keeps the context: gst_cs_ensure_stream_pool() reads it back */
  GST_ELEMENT_CLASS (gst_cs_base_transform_parent_class)->set_context (element, context);
}

/* The device a context query is answered for: the one in use, else the one
 * the element will use. */
static gint
query_device (GstCsBaseTransformPrivate * priv)
{
  return priv->device >= 0 ? priv->device : priv->requested_device;
}

/* nvcodec elements look for a shared CUDA context when they open (NULL to
 * READY): ours, on the bus before they do, reaches those that are not our
 * neighbours too (the bin hands it to them). */
static GstStateChangeReturn
gst_cs_base_transform_change_state (GstElement * element, GstStateChange transition)
{
  if (transition == GST_STATE_CHANGE_NULL_TO_READY) {
    GstCsBaseTransformPrivate * priv = GST_CS_BASE_TRANSFORM (element)->priv;
    GST_OBJECT_LOCK (element);
    const gint device = query_device (priv);
    GST_OBJECT_UNLOCK (element);
    gst_cs::post_cuda_context (element, device);
  }
  return GST_ELEMENT_CLASS (gst_cs_base_transform_parent_class)
      ->change_state (element, transition);
}

static gboolean
gst_cs_base_transform_query (
    GstBaseTransform * trans, GstPadDirection direction, GstQuery * q)
{
  GstCsBaseTransformPrivate * priv = GST_CS_BASE_TRANSFORM (trans)->priv;
  if (GST_QUERY_TYPE (q) == GST_QUERY_CONTEXT) {
    GST_OBJECT_LOCK (trans);
    GstCsStreamPool * stream_pool =
        priv->stream_pool ? GST_CS_STREAM_POOL (gst_object_ref (priv->stream_pool))
                          : NULL;
    GST_OBJECT_UNLOCK (trans);
    gboolean ok = gst_cs_handle_context_query (GST_ELEMENT_CAST (trans), q, stream_pool);
    gst_clear_object (&stream_pool);
    if (ok || gst_cs::answer_cuda_context_query (
                  GST_ELEMENT_CAST (trans), q, query_device (priv)))
      return TRUE;
  }
  const gboolean ret = GST_BASE_TRANSFORM_CLASS (gst_cs_base_transform_parent_class)
                           ->query (trans, direction, q);
  if (ret && direction == GST_PAD_SINK && GST_QUERY_TYPE (q) == GST_QUERY_ACCEPT_CAPS) {
    GstCaps * caps = NULL;
    gboolean accepted = TRUE;
    gst_query_parse_accept_caps (q, &caps);
    gst_query_parse_accept_caps_result (q, &accepted);
    if (!accepted)
      gst_cs::warn_refused_input (trans, caps, &priv->refusal);
  }
  return ret;
}

/* Caps that fail here reach no one else who could say why: upstream's push
 * fails with a bare not-negotiated. */
static gboolean
gst_cs_base_transform_sink_event (GstBaseTransform * trans, GstEvent * event)
{
  GstCaps * caps = NULL;
  if (GST_EVENT_TYPE (event) == GST_EVENT_CAPS) {
    gst_event_parse_caps (event, &caps);
    gst_caps_ref (caps);
  }
  const gboolean ret = GST_BASE_TRANSFORM_CLASS (gst_cs_base_transform_parent_class)
                           ->sink_event (trans, event);
  if (caps && !ret)
    gst_cs::warn_unmade_output (
        trans, caps, &GST_CS_BASE_TRANSFORM (trans)->priv->refusal);
  if (caps)
    gst_caps_unref (caps);
  return ret;
}

static gboolean
gst_cs_base_transform_start (GstBaseTransform * trans)
{
  GstCsBaseTransformPrivate * priv = GST_CS_BASE_TRANSFORM (trans)->priv;
  GError * err = NULL;
  GST_OBJECT_LOCK (trans);
  gint requested = priv->requested_device;
  GST_OBJECT_UNLOCK (trans);

  gint device = -1;
  if (!gst_cs_device_resolve (requested, &device, &err)) {
    GST_CS_POST_ERROR (trans, err, "Cannot start");
    return FALSE;
  }
  GST_OBJECT_LOCK (trans);
  priv->device = device;
  GST_OBJECT_UNLOCK (trans);

  GstCsStreamPool * stream_pool = NULL;
  if (!gst_cs_ensure_stream_pool (GST_ELEMENT_CAST (trans), device, &stream_pool, &err)) {
    GST_CS_POST_ERROR (trans, err, "Cannot create CUDA streams");
    return FALSE;
  }
  GST_OBJECT_LOCK (trans);
  gst_object_replace ((GstObject **)&priv->stream_pool, GST_OBJECT_CAST (stream_pool));
  /* Given back to this stream pool at stop, whatever pool a context sets
   * meanwhile. */
  priv->lease_stream_pool = stream_pool;
  priv->stream = gst_cs_stream_pool_lease (stream_pool);
  gst_cs_wait_memo_forget (&priv->input_waits);
  GST_OBJECT_UNLOCK (trans);
  GST_INFO_OBJECT (trans, "device %d, stream %p", device, priv->stream);
  priv->trace = gst_cs::trace_started (GST_ELEMENT_CAST (trans));
  return TRUE;
}

static gboolean
gst_cs_base_transform_stop (GstBaseTransform * trans)
{
  auto * self = GST_CS_BASE_TRANSFORM (trans);
  GstCsBaseTransformPrivate * priv = self->priv;
  gst_cs::trace_stopped (GST_ELEMENT_CAST (trans), &priv->trace);
  GST_OBJECT_LOCK (trans);
  if (priv->lease_stream_pool && priv->stream)
    gst_cs_stream_pool_release (priv->lease_stream_pool, priv->stream);
  gst_clear_object (&priv->lease_stream_pool);
  priv->stream = NULL;
  gst_cs_wait_memo_forget (&priv->input_waits);
  priv->device = -1;
  GST_OBJECT_UNLOCK (trans);
  gst_video_info_init (&self->in_info);
  gst_video_info_init (&self->out_info);
  return TRUE;
}

static gboolean
gst_cs_base_transform_set_caps (
    GstBaseTransform * trans, GstCaps * incaps, GstCaps * outcaps)
{
  auto * self = GST_CS_BASE_TRANSFORM (trans);
  GstVideoInfo in_info, out_info;
  if (!gst_video_info_from_caps (&in_info, incaps) ||
      !gst_video_info_from_caps (&out_info, outcaps)) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, (NULL),
        ("Cannot parse caps %" GST_PTR_FORMAT " / %" GST_PTR_FORMAT, incaps, outcaps));
    return FALSE;
  }
  auto * klass = GST_CS_BASE_TRANSFORM_GET_CLASS (self);
  if (klass->set_info && !klass->set_info (self, incaps, &in_info, outcaps, &out_info))
    return FALSE;
  self->in_info = in_info;
  self->out_info = out_info;
  gst_cs::forget_refusal (trans, &self->priv->refusal);
  return TRUE;
}

/* The elements copy frames into other memory (cropping them when the input
 * carries a crop meta): the metas that still describe the frame go on, the
 * boxes moved by the crop. */
static gboolean
gst_cs_base_transform_transform_meta (
    GstBaseTransform * trans, GstBuffer * outbuf, GstMeta * meta, GstBuffer * inbuf)
{
  auto * self = GST_CS_BASE_TRANSFORM (trans);
  GstCsMetaGeometry geometry;
  gst_cs_meta_geometry_init (&geometry, &self->in_info, inbuf, &self->out_info);
  return gst_cs_meta_transform (outbuf, meta, inbuf, &geometry);
}

/* GStreamer's default fixation takes a range's minimum: caps without a
 * pixel-aspect-ratio (an appsrc's) before an element whose other side
 * allows any (a scaler) would become 1/2147483647. A pixel-aspect-ratio
 * left open is the input's where allowed, else the nearest to square. */
static GstCaps *
gst_cs_base_transform_fixate_caps (
    GstBaseTransform *, GstPadDirection, GstCaps * caps, GstCaps * othercaps)
{
  if (gst_caps_is_empty (othercaps) || gst_caps_is_any (othercaps))
    return gst_caps_fixate (othercaps);
  othercaps = gst_caps_make_writable (gst_caps_truncate (othercaps));
  GstStructure * out = gst_caps_get_structure (othercaps, 0);
  gint n = 1, d = 1;
  if (!gst_caps_is_empty (caps) && !gst_caps_is_any (caps))
    gst_structure_get_fraction (
        gst_caps_get_structure (caps, 0), "pixel-aspect-ratio", &n, &d);
  if (gst_structure_has_field (out, "pixel-aspect-ratio"))
    gst_structure_fixate_field_nearest_fraction (out, "pixel-aspect-ratio", n, d);
  return gst_caps_fixate (othercaps);
}

/* The per-frame path, timed for the tracer where one observes: from the
 * input's submission to the end of the output's generation, the push of
 * that output excluded (basetransform pushes between the calls). Without a
 * tracer, a branch each. A renegotiation that fails here (downstream asked
 * for new caps) is said as a caps event's is. */
static GstFlowReturn
gst_cs_base_transform_submit_input_buffer (
    GstBaseTransform * trans, gboolean is_discont, GstBuffer * input)
{
  GstCsBaseTransformPrivate * priv = GST_CS_BASE_TRANSFORM (trans)->priv;
  if (G_UNLIKELY (priv->trace))
    priv->cpu_begin = gst_util_get_timestamp ();
  const GstFlowReturn ret = GST_CS_BASE_TRANSFORM_GET_CLASS (trans)->submit_input_buffer (
      trans, is_discont, input);
  if (G_UNLIKELY (ret == GST_FLOW_NOT_NEGOTIATED)) {
    if (GstCaps * incaps = gst_pad_get_current_caps (trans->sinkpad)) {
      gst_cs::warn_unmade_output (trans, incaps, &priv->refusal);
      gst_caps_unref (incaps);
    }
  }
  return ret;
}

static GstFlowReturn
gst_cs_base_transform_generate_output (GstBaseTransform * trans, GstBuffer ** outbuf)
{
  GstCsBaseTransformPrivate * priv = GST_CS_BASE_TRANSFORM (trans)->priv;
  auto * klass = GST_CS_BASE_TRANSFORM_GET_CLASS (trans);
  /* Only the call that follows an input's submission: basetransform asks
   * again after each push, and that answer (nothing) costs next to nothing. */
  if (G_LIKELY (!priv->trace || !priv->cpu_begin))
    return klass->generate_output (trans, outbuf);
  const GstClockTime begin = priv->cpu_begin;
  priv->cpu_begin = 0;
  const GstFlowReturn ret = klass->generate_output (trans, outbuf);
  const GstClockTime end = gst_util_get_timestamp ();
  gst_cs::trace_cpu (priv->trace, GST_ELEMENT_CAST (trans),
      GST_BASE_TRANSFORM_SINK_PAD (trans), begin, end);
  return ret;
}

static void
gst_cs_base_transform_finalize (GObject * object)
{
  GstCsBaseTransformPrivate * priv = GST_CS_BASE_TRANSFORM (object)->priv;
  gst_clear_object (&priv->stream_pool);
  gst_clear_object (&priv->lease_stream_pool);
  g_free (priv->refusal);
  G_OBJECT_CLASS (gst_cs_base_transform_parent_class)->finalize (object);
}

static void
gst_cs_base_transform_class_init (GstCsBaseTransformClass * klass)
{
  GObjectClass * gobject_class = G_OBJECT_CLASS (klass);
  GstBaseTransformClass * trans_class = GST_BASE_TRANSFORM_CLASS (klass);

  gobject_class->set_property = gst_cs_base_transform_set_property;
  gobject_class->get_property = gst_cs_base_transform_get_property;
  gobject_class->finalize = gst_cs_base_transform_finalize;
  GST_ELEMENT_CLASS (klass)->set_context =
      GST_DEBUG_FUNCPTR (gst_cs_base_transform_set_context);
  GST_ELEMENT_CLASS (klass)->change_state =
      GST_DEBUG_FUNCPTR (gst_cs_base_transform_change_state);
  trans_class->query = GST_DEBUG_FUNCPTR (gst_cs_base_transform_query);
  trans_class->sink_event = GST_DEBUG_FUNCPTR (gst_cs_base_transform_sink_event);
  trans_class->start = GST_DEBUG_FUNCPTR (gst_cs_base_transform_start);
  trans_class->stop = GST_DEBUG_FUNCPTR (gst_cs_base_transform_stop);
  trans_class->set_caps = GST_DEBUG_FUNCPTR (gst_cs_base_transform_set_caps);
  trans_class->fixate_caps = GST_DEBUG_FUNCPTR (gst_cs_base_transform_fixate_caps);
  trans_class->transform_meta = GST_DEBUG_FUNCPTR (gst_cs_base_transform_transform_meta);
  /* Subclasses override ours; basetransform's are the defaults. */
  klass->submit_input_buffer = trans_class->submit_input_buffer;
  klass->generate_output = trans_class->generate_output;
  trans_class->submit_input_buffer =
      GST_DEBUG_FUNCPTR (gst_cs_base_transform_submit_input_buffer);
  trans_class->generate_output =
      GST_DEBUG_FUNCPTR (gst_cs_base_transform_generate_output);

  /**
   * GstCsBaseTransform:device-id:
   *
   * The CUDA device the element works on: -1 is the default device, 0. Read
   * when the element starts. A frame that arrives in another device's
   * memory is copied to this device first.
   *
   * Since: 0.1
   */
  g_object_class_install_property (gobject_class, PROP_DEVICE_ID,
      g_param_spec_int ("device-id", "Device ID", "CUDA device ordinal (-1 = default, 0)",
          -1, G_MAXINT16, DEFAULT_DEVICE_ID,
          (GParamFlags)(G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
                        GST_PARAM_MUTABLE_READY)));
  /**
   * GstCsBaseTransform:host-waits:
   *
   * How many times the element blocked the CPU on the GPU so far. A wait is
   * on one frame's event, never on a whole stream; a copy from or to
   * pageable memory counts too, as CUDA waits for the stream first.
   *
   * Since: 0.1
   */
  g_object_class_install_property (gobject_class, PROP_HOST_WAITS,
      g_param_spec_uint64 ("host-waits", "Host waits",
          "How often this element blocked the CPU on the GPU", 0, G_MAXUINT64, 0,
          (GParamFlags)(G_PARAM_READABLE | G_PARAM_STATIC_STRINGS)));

  GST_DEBUG_CATEGORY_INIT (
      gst_cs_base_transform_debug, "csbasetransform", 0, "gst-cudastreams element base");
  gst_type_mark_as_plugin_api (GST_TYPE_CS_BASE_TRANSFORM, (GstPluginAPIFlags)0);
}

static void
gst_cs_base_transform_init (GstCsBaseTransform * self)
{
  self->priv = static_cast<GstCsBaseTransformPrivate *> (
      gst_cs_base_transform_get_instance_private (self));
  self->priv->requested_device = DEFAULT_DEVICE_ID;
  self->priv->device = -1;
  gst_video_info_init (&self->in_info);
  gst_video_info_init (&self->out_info);
}

gint
gst_cs_base_transform_get_device (GstCsBaseTransform * self)
{
  return self->priv->device;
}

cudaStream_t
gst_cs_base_transform_get_stream (GstCsBaseTransform * self)
{
  return self->priv->stream;
}

GstCsWaitCounter *
gst_cs_base_transform_get_waits (GstCsBaseTransform * self)
{
  return &self->priv->waits;
}

/* The input event records the element's stream has waited for, for
 * gst_cs_sync_meta_wait_memo(). From the streaming thread (the sink pad's
 * stream lock serialises the calls); start and stop, which forget them,
 * run while no frame does. */
GstCsWaitMemo *
gst_cs_base_transform_get_input_waits (GstCsBaseTransform * self)
{
  return &self->priv->input_waits;
}

/* Frames counted before this one (the tracer's hook counts those it sees,
 * to time one in N without a lookup of its own). From the streaming
 * thread: the sink pad's stream lock serialises the calls. */
guint64
gst_cs_base_transform_count_frame (GstCsBaseTransform * self)
{
  return self->priv->frames++;
}

/* The before_transform of a subclass with controllable properties: they
 * take the values for @buffer's stream time. */
void
gst_cs_base_transform_sync_controlled (GstBaseTransform * trans, GstBuffer * buffer)
{
  GstClockTime t = gst_segment_to_stream_time (
      &trans->segment, GST_FORMAT_TIME, GST_BUFFER_PTS (buffer));
  if (GST_CLOCK_TIME_IS_VALID (t))
    gst_object_sync_values (GST_OBJECT (trans), t);
}

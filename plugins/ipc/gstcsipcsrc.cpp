/* SPDX-License-Identifier: LGPL-2.1-or-later */
/**
 * SECTION:element-cudastreamsipcsrc
 * @title: cudastreamsipcsrc
 *
 * Receives the frames and cudabatch tensors a cudastreamsipcsink of
 * another process serves on socket-path, in CUDA device memory, without a
 * host wait and without a copy: each memory of the producer is opened once,
 * and each frame's stream waits on the GPU for the producer's event. When
 * a frame is freed, its memory goes back to the producer with an event
 * recorded after every read of it in this process.
 *
 * A live source. It may start before the producer, and connects once it
 * is there (connection-timeout). PTS, DTS and duration are the producer's;
 * the segment it pushes maps them into this pipeline's running time: where
 * both pipelines run on the system's monotonic clock (GStreamer's default),
 * a frame's running time here is the time on that clock at which the
 * producer's pipeline would have shown it, less this pipeline's base time;
 * otherwise the first frame after each segment is taken as shown at its
 * arrival. So sync=true sinks show frames when the producer meant them.
 * Caps, segments, flushes and the end of stream come from the producer. If
 * the producer goes away first (killed, stopped), the element posts an
 * error, or ends the stream (producer-lost=eos).
 *
 * With device-id on another device than the producer's, each frame is
 * copied to that device on the GPU (the cross-device policy), without a
 * host wait.
 *
 * ## Example
 * |[
 * gst-launch-1.0 cudastreamsipcsrc socket-path=/tmp/cams.sock ! \
 *   cudaconvertscale ! 'video/x-raw(memory:CUDAStreamsMemory),format=RGBA,width=640,height=640' ! \
 *   fakesink
 * ]|
 *
 * Since: 0.4
 */
#include "ipc/gstcsipcsrc.h"

#include <atomic>
#include <memory>

#include "base/gstcscaps.h"
#include "base/gstcsformats.hpp"
#include "base/gstcsframespan.hpp"
#include "base/gstcspeerimport.hpp"
#include "base/gstcsscratchpool.hpp"
#include "batch/gstcselementdevice.hpp"
#include "gstcsdeviceguard.hpp"
#include "gstcserror-private.h"
#include "ipc/gstcsipcclient.hpp"
#include "ipc/gstcsipcdevice.hpp"

GST_DEBUG_CATEGORY (gst_cs_ipc_src_debug);
#define GST_CAT_DEFAULT gst_cs_ipc_src_debug

#define DEFAULT_CONNECTION_TIMEOUT 10000
#define DEFAULT_PRODUCER_LOST GST_CS_IPC_PRODUCER_LOST_ERROR

enum {
  PROP_0,
  PROP_SOCKET_PATH,
  PROP_ALLOW_GROUP,
  PROP_CONNECTION_TIMEOUT,
  PROP_PRODUCER_LOST,
  PROP_DEVICE_ID,
  PROP_HOST_WAITS,
};

namespace {

/* Between start and stop (streaming thread, but `cancel`). */
struct Streaming {
  std::shared_ptr<gst_cs::ipc::Client> client;
  std::atomic<bool> cancel{ false };
  gst_cs::ScratchPool copies; /* frames copied to our device */
  GstCaps * caps = nullptr;   /* the producer's, set on the pad */
  GstSegment segment;         /* the producer's */
  bool mapped = false;        /* `offset` is known for this segment */
  gint64 offset = 0;          /* our running time less the producer's */
  GstClock * clock = nullptr; /* the clock `monotonic` was asked of */
  bool monotonic = false;
  bool follow_producer = true; /* device-id -1: frames stay on the producer's device */
  Streaming () { gst_segment_init (&segment, GST_FORMAT_TIME); }
};

} // namespace

struct _GstCsIpcSrc {
  GstPushSrc parent;
  gst_cs::ElementDevice * device;
  Streaming * st;
  /* properties, under the object lock */
  gchar * socket_path;
  gboolean allow_group;
  guint connection_timeout;
  GstCsIpcProducerLost producer_lost;
};

G_DEFINE_TYPE (GstCsIpcSrc, gst_cs_ipc_src, GST_TYPE_PUSH_SRC);

GType
gst_cs_ipc_producer_lost_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    { GST_CS_IPC_PRODUCER_LOST_ERROR, "An element error", "error" },
    { GST_CS_IPC_PRODUCER_LOST_EOS, "The end of the stream", "eos" },
    { 0, NULL, NULL },
  };
  if (g_once_init_enter (&type))
    g_once_init_leave (&type, g_enum_register_static ("GstCsIpcProducerLost", values));
  return type;
}

/* The formats are those of gst_cs::video_formats(), set in class_init. */
static const gchar src_caps[] =
    GST_CS_VIDEO_DEVICE_CAPS "; other/tensors(" GST_CAPS_FEATURE_MEMORY_CS ")";

/* --- start and stop ----------------------------------------------------- */

static gboolean
gst_cs_ipc_src_start (GstBaseSrc * src)
{
  auto * self = GST_CS_IPC_SRC (src);
  if (!self->device->start ())
    return FALSE;
  if (!gst_cs::ipc::check_device (
          GST_ELEMENT (self), gst_cs_ipc_src_debug, self->device->device ())) {
    self->device->stop ();
    return FALSE;
  }
  GST_OBJECT_LOCK (self);
  const bool path_set = self->socket_path && *self->socket_path;
  GST_OBJECT_UNLOCK (self);
  if (!path_set) {
    GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS, ("socket-path is not set"), (NULL));
    self->device->stop ();
    return FALSE;
  }
  self->st = new Streaming;
  self->st->follow_producer = self->device->requested () < 0;
  return TRUE;
}

static gboolean
gst_cs_ipc_src_stop (GstBaseSrc * src)
{
  auto * self = GST_CS_IPC_SRC (src);
  if (self->st) {
    if (self->st->client)
      self->st->client->stop ();
    self->st->copies.reset ();
    gst_clear_caps (&self->st->caps);
    gst_clear_object (&self->st->clock);
    delete self->st;
    self->st = nullptr;
  }
  self->device->stop ();
  return TRUE;
}

static gboolean
gst_cs_ipc_src_unlock (GstBaseSrc * src)
{
  auto * self = GST_CS_IPC_SRC (src);
  GST_OBJECT_LOCK (self);
  if (self->st) {
    self->st->cancel = true;
    if (self->st->client)
      self->st->client->wake ();
  }
  GST_OBJECT_UNLOCK (self);
  return TRUE;
}

static gboolean
gst_cs_ipc_src_unlock_stop (GstBaseSrc * src)
{
  auto * self = GST_CS_IPC_SRC (src);
  GST_OBJECT_LOCK (self);
  if (self->st)
    self->st->cancel = false;
  GST_OBJECT_UNLOCK (self);
  return TRUE;
}

/* --- caps and queries --------------------------------------------------- */

static GstCaps *
gst_cs_ipc_src_get_caps (GstBaseSrc * src, GstCaps * filter)
{
  auto * self = GST_CS_IPC_SRC (src);
  GstCaps * caps = NULL;
  GST_OBJECT_LOCK (self);
  if (self->st && self->st->caps)
    caps = gst_caps_ref (self->st->caps);
  GST_OBJECT_UNLOCK (self);
  if (!caps)
    caps = gst_pad_get_pad_template_caps (GST_BASE_SRC_PAD (src));
  return gst_cs_caps_apply_filter (caps, filter);
}

/* The caps are the producer's, set when they come (create). */
static gboolean
gst_cs_ipc_src_negotiate (GstBaseSrc *)
{
  return TRUE;
}

static gboolean
gst_cs_ipc_src_query (GstBaseSrc * src, GstQuery * query)
{
  auto * self = GST_CS_IPC_SRC (src);
  if (self->device->answer_context_query (query))
    return TRUE;
  if (GST_QUERY_TYPE (query) == GST_QUERY_LATENCY) {
    /* Frames come as the producer makes them; it keeps them until given
     * back, so a queue downstream may hold any number. */
    gst_query_set_latency (query, TRUE, 0, GST_CLOCK_TIME_NONE);
    return TRUE;
  }
  return GST_BASE_SRC_CLASS (gst_cs_ipc_src_parent_class)->query (src, query);
}

/* --- frames ------------------------------------------------------------- */

static gboolean
connect_client (GstCsIpcSrc * self)
{
  gst_cs::ipc::ClientSettings s;
  GST_OBJECT_LOCK (self);
  s.path = self->socket_path ? self->socket_path : "";
  s.group = self->allow_group;
  s.connect_timeout_ms = self->connection_timeout;
  GST_OBJECT_UNLOCK (self);
  GError * err = NULL;
  auto client =
      gst_cs::ipc::Client::connect (GST_ELEMENT (self), s, self->st->cancel, &err);
  if (!client) {
    if (err) {
      GST_ELEMENT_ERROR (self, RESOURCE, OPEN_READ, ("%s", err->message), (NULL));
      g_error_free (err);
    }
    return FALSE;
  }
  GST_OBJECT_LOCK (self);
  self->st->client = std::move (client);
  GST_OBJECT_UNLOCK (self);
  return TRUE;
}

static bool
take_caps (GstCsIpcSrc * self, const std::string & text)
{
  GstCaps * caps = gst_caps_from_string (text.c_str ());
  GstCaps * templ = gst_pad_get_pad_template_caps (GST_BASE_SRC_PAD (self));
  const bool ok =
      caps && gst_caps_is_fixed (caps) && gst_caps_can_intersect (caps, templ);
  gst_caps_unref (templ);
  if (!ok) {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT,
        ("The producer sent caps this element cannot "
         "output: %s",
            text.c_str ()),
        (NULL));
    gst_clear_caps (&caps);
    return false;
  }
  GST_OBJECT_LOCK (self);
  gst_caps_replace (&self->st->caps, caps);
  GST_OBJECT_UNLOCK (self);
  const bool set = gst_base_src_set_caps (GST_BASE_SRC (self), caps);
  if (!set)
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, (NULL),
        ("Downstream does not take the producer's caps %s", text.c_str ()));
  gst_caps_unref (caps);
  return set;
}

static bool
clock_is_monotonic (GstCsIpcSrc * self)
{
  GstClock * clock = GST_ELEMENT_CLOCK (self);
  Streaming & st = *self->st;
  if (clock != st.clock) {
    gst_object_replace ((GstObject **)&st.clock, GST_OBJECT_CAST (clock));
    GstClockType type = GST_CLOCK_TYPE_REALTIME;
    if (clock && GST_IS_SYSTEM_CLOCK (clock))
      g_object_get (clock, "clock-type", &type, NULL);
    st.monotonic =
        clock && GST_IS_SYSTEM_CLOCK (clock) && type == GST_CLOCK_TYPE_MONOTONIC;
  }
  return st.monotonic;
}

/* Our running time of `frame`: the producer's clock time of its PTS
 * (same clock) less our base time; else, for the first frame of a segment,
 * now. The segment pushed shifts the producer's by the difference, which
 * changes only with either pipeline's base time. */
static void
map_running_time (GstCsIpcSrc * self, GstBuffer * frame, GstClockTime clock_time)
{
  Streaming & st = *self->st;
  const GstClockTime pts = GST_BUFFER_PTS (frame);
  const GstClockTime rt =
      GST_CLOCK_TIME_IS_VALID (pts)
          ? gst_segment_to_running_time (&st.segment, GST_FORMAT_TIME, pts)
          : GST_CLOCK_TIME_NONE;
  if (!GST_CLOCK_TIME_IS_VALID (rt))
    return;
  const GstClockTime base = gst_element_get_base_time (GST_ELEMENT (self));
  gint64 offset;
  if (GST_CLOCK_TIME_IS_VALID (clock_time) && clock_is_monotonic (self)) {
    offset = (gint64)clock_time - (gint64)base - (gint64)rt;
  } else if (st.mapped) {
    return;
  } else {
    GstClock * clock = gst_element_get_clock (GST_ELEMENT (self));
    const GstClockTime now = clock ? gst_clock_get_time (clock) : base;
    if (clock)
      gst_object_unref (clock);
    offset = (gint64)now - (gint64)base - (gint64)rt;
  }
  if (st.mapped && offset == st.offset)
    return;
  GstSegment out = st.segment;
  if (!gst_segment_offset_running_time (&out, GST_FORMAT_TIME, offset)) {
    GST_WARNING_OBJECT (
        self, "cannot shift the segment by %" G_GINT64_FORMAT " ns", offset);
    return;
  }
  st.offset = offset;
  st.mapped = true;
  gst_base_src_new_segment (GST_BASE_SRC (self), &out);
}

/* The frame on our device: the producer's memory where it is ours, else a
 * copy on the GPU (no host wait). */
static GstBuffer *
on_our_device (GstCsIpcSrc * self, GstBuffer * frame)
{
  gst_cs::ElementDevice & dev = *self->device;
  if (self->st->follow_producer || dev.device () == self->st->client->device ())
    return frame;
  GError * err = NULL;
  GstBuffer * local = NULL;
  gst_cs::DeviceGuard guard (dev.device (), &err);
  const bool ok =
      guard.ok () && gst_cs::import_from_other_device (frame, dev.device (),
                         dev.stream (), self->st->copies, dev.waits (), &local, &err);
  gst_buffer_unref (frame);
  if (!ok) {
    GST_CS_POST_ERROR (
        self, err, "Cannot copy the producer's frame to this element's device");
    return NULL;
  }
  return local;
}

static GstFlowReturn
producer_lost (GstCsIpcSrc * self, const gst_cs::ipc::Item & it)
{
  GST_OBJECT_LOCK (self);
  const bool eos = self->producer_lost == GST_CS_IPC_PRODUCER_LOST_EOS;
  GST_OBJECT_UNLOCK (self);
  if (eos) {
    GST_INFO_OBJECT (self, "the producer is gone (%s): end of stream", it.text.c_str ());
    return GST_FLOW_EOS;
  }
  GST_ELEMENT_ERROR (self, RESOURCE, READ, ("The producer is gone: %s", it.text.c_str ()),
      ("producer process %d", self->st->client->producer_pid ()));
  return GST_FLOW_ERROR;
}

static GstFlowReturn
gst_cs_ipc_src_create (GstPushSrc * src, GstBuffer ** buf)
{
  auto * self = GST_CS_IPC_SRC (src);
  Streaming & st = *self->st;
  if (!st.client && !connect_client (self))
    return st.cancel.load () ? GST_FLOW_FLUSHING : GST_FLOW_ERROR;
  gst_cs::ipc::Item it;
  for (;;) {
    if (!st.client->next (&it, st.cancel))
      return GST_FLOW_FLUSHING;
    const GstClockTime begin = gst_util_get_timestamp ();
    switch (it.type) {
      case gst_cs::ipc::Msg::CAPS:
        if (!take_caps (self, it.text))
          return GST_FLOW_NOT_NEGOTIATED;
        continue;
      case gst_cs::ipc::Msg::SEGMENT:
        st.segment = it.segment;
        st.mapped = false;
        continue;
      case gst_cs::ipc::Msg::FLUSH_START:
        gst_pad_push_event (GST_BASE_SRC_PAD (src), gst_event_new_flush_start ());
        continue;
      case gst_cs::ipc::Msg::FLUSH_STOP:
        gst_pad_push_event (
            GST_BASE_SRC_PAD (src), gst_event_new_flush_stop (it.reset_time));
        st.mapped = false; /* the segment goes again */
        continue;
      case gst_cs::ipc::Msg::EOS:
        return GST_FLOW_EOS;
      case gst_cs::ipc::Msg::BYE:
        return producer_lost (self, it);
      case gst_cs::ipc::Msg::FRAME:
        break;
      default:
        continue;
    }
    if (!st.caps) {
      gst_buffer_unref (it.frame);
      GST_ELEMENT_ERROR (
          self, STREAM, FORMAT, (NULL), ("The producer sent a frame before its caps"));
      return GST_FLOW_ERROR;
    }
    map_running_time (self, it.frame, it.clock_time);
    GstBuffer * frame = on_our_device (self, it.frame);
    if (!frame)
      return GST_FLOW_ERROR;
    *buf = frame;
    self->device->count_frame ();
    /* The reader thread's time on the frame is the element's too: the span
     * starts that much earlier. */
    if (G_UNLIKELY (self->device->trace ()))
      gst_cs::trace_cpu (self->device->trace (), GST_ELEMENT_CAST (self),
          GST_BASE_SRC_PAD (src), begin - MIN (begin, it.reader_ns),
          gst_util_get_timestamp ());
    return GST_FLOW_OK;
  }
}

/* --- element ------------------------------------------------------------ */

static GstStateChangeReturn
gst_cs_ipc_src_change_state (GstElement * element, GstStateChange transition)
{
  if (transition == GST_STATE_CHANGE_NULL_TO_READY)
    GST_CS_IPC_SRC (element)->device->announce ();
  return GST_ELEMENT_CLASS (gst_cs_ipc_src_parent_class)
      ->change_state (element, transition);
}

static void
gst_cs_ipc_src_set_context (GstElement * element, GstContext * context)
{
  GST_CS_IPC_SRC (element)->device->set_context (context);
  GST_ELEMENT_CLASS (gst_cs_ipc_src_parent_class)->set_context (element, context);
}

static void
gst_cs_ipc_src_set_property (
    GObject * object, guint id, const GValue * value, GParamSpec * pspec)
{
  auto * self = GST_CS_IPC_SRC (object);
  if (id == PROP_DEVICE_ID) {
    self->device->set_requested (g_value_get_int (value));
    return;
  }
  GST_OBJECT_LOCK (self);
  switch (id) {
    case PROP_SOCKET_PATH:
      g_free (self->socket_path);
      self->socket_path = g_value_dup_string (value);
      break;
    case PROP_ALLOW_GROUP:
      self->allow_group = g_value_get_boolean (value);
      break;
    case PROP_CONNECTION_TIMEOUT:
      self->connection_timeout = g_value_get_uint (value);
      break;
    case PROP_PRODUCER_LOST:
      self->producer_lost = (GstCsIpcProducerLost)g_value_get_enum (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_cs_ipc_src_get_property (
    GObject * object, guint id, GValue * value, GParamSpec * pspec)
{
  auto * self = GST_CS_IPC_SRC (object);
  switch (id) {
    case PROP_DEVICE_ID:
      g_value_set_int (value, self->device->requested ());
      return;
    case PROP_HOST_WAITS:
      g_value_set_uint64 (value, gst_cs_wait_counter_get (self->device->waits ()));
      return;
    default:
      break;
  }
  GST_OBJECT_LOCK (self);
  switch (id) {
    case PROP_SOCKET_PATH:
      g_value_set_string (value, self->socket_path);
      break;
    case PROP_ALLOW_GROUP:
      g_value_set_boolean (value, self->allow_group);
      break;
    case PROP_CONNECTION_TIMEOUT:
      g_value_set_uint (value, self->connection_timeout);
      break;
    case PROP_PRODUCER_LOST:
      g_value_set_enum (value, self->producer_lost);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_cs_ipc_src_finalize (GObject * object)
{
  auto * self = GST_CS_IPC_SRC (object);
  g_free (self->socket_path);
  delete self->st;
  delete self->device;
  G_OBJECT_CLASS (gst_cs_ipc_src_parent_class)->finalize (object);
}

static void
install_properties (GObjectClass * gobject_class)
{
  const auto rw =
      (GParamFlags)(G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY);
  /**
   * GstCsIpcSrc:socket-path:
   *
   * The unix socket of the producer's cudastreamsipcsink.
   *
   * Since: 0.4
   */
  g_object_class_install_property (gobject_class, PROP_SOCKET_PATH,
      g_param_spec_string ("socket-path", "Socket path",
          "The unix socket of the producer's cudastreamsipcsink", NULL, rw));
  /**
   * GstCsIpcSrc:allow-group:
   *
   * Accepts a producer of the owner's group too, not only of the owner
   * (SO_PEERCRED).
   *
   * Since: 0.4
   */
  g_object_class_install_property (gobject_class, PROP_ALLOW_GROUP,
      g_param_spec_boolean ("allow-group", "Allow group",
          "Accept a producer of the owner's group too", FALSE, rw));
  /**
   * GstCsIpcSrc:connection-timeout:
   *
   * How long the element waits for a producer at socket-path before it
   * posts an error (ms; 0: for ever). It may start before the producer.
   *
   * Since: 0.4
   */
  g_object_class_install_property (gobject_class, PROP_CONNECTION_TIMEOUT,
      g_param_spec_uint ("connection-timeout", "Connection timeout",
          "How long to wait for the producer (ms, 0 = for ever)", 0, G_MAXUINT,
          DEFAULT_CONNECTION_TIMEOUT, rw));
  /**
   * GstCsIpcSrc:producer-lost:
   *
   * What the element does when the producer goes away before its end of
   * stream (killed, or its pipeline stopped): an element error, or the end
   * of the stream.
   *
   * Since: 0.4
   */
  g_object_class_install_property (gobject_class, PROP_PRODUCER_LOST,
      g_param_spec_enum ("producer-lost", "Producer lost",
          "An error, or the end of the stream, when the producer goes away",
          GST_TYPE_CS_IPC_PRODUCER_LOST, DEFAULT_PRODUCER_LOST, rw));
  /**
   * GstCsIpcSrc:device-id:
   *
   * The CUDA device of the frames pushed: -1 for the producer's; another
   * device gets a copy of each frame, made on the GPU.
   *
   * Since: 0.4
   */
  g_object_class_install_property (gobject_class, PROP_DEVICE_ID,
      g_param_spec_int ("device-id", "Device ID",
          "CUDA device of the frames pushed (-1 = the producer's)", -1, G_MAXINT, -1,
          rw));
  /**
   * GstCsIpcSrc:host-waits:
   *
   * How many times the element blocked the CPU on the GPU (0 in steady
   * state).
   *
   * Since: 0.4
   */
  g_object_class_install_property (gobject_class, PROP_HOST_WAITS,
      g_param_spec_uint64 ("host-waits", "Host waits",
          "How often this element blocked the CPU on the GPU", 0, G_MAXUINT64, 0,
          (GParamFlags)(G_PARAM_READABLE | G_PARAM_STATIC_STRINGS)));
}

static void
gst_cs_ipc_src_class_init (GstCsIpcSrcClass * klass)
{
  GObjectClass * gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass * element_class = GST_ELEMENT_CLASS (klass);
  GstBaseSrcClass * base_class = GST_BASE_SRC_CLASS (klass);
  GstPushSrcClass * push_class = GST_PUSH_SRC_CLASS (klass);

  gobject_class->set_property = gst_cs_ipc_src_set_property;
  gobject_class->get_property = gst_cs_ipc_src_get_property;
  gobject_class->finalize = gst_cs_ipc_src_finalize;
  install_properties (gobject_class);

  gst_element_class_add_pad_template (
      element_class, gst_cs::pad_template_with_video_formats (
                         "src", GST_PAD_SRC, GST_PAD_ALWAYS, src_caps));
  gst_element_class_set_static_metadata (element_class, "CUDA streams IPC source",
      "Source/Video/Tensor/Hardware",
      "Receives frames and batches in CUDA device memory from another process, ordered "
      "by "
      "interprocess events on the GPU, without host waits or copies",
      "gst-cudastreams developers");
  element_class->change_state = GST_DEBUG_FUNCPTR (gst_cs_ipc_src_change_state);
  element_class->set_context = GST_DEBUG_FUNCPTR (gst_cs_ipc_src_set_context);

  base_class->start = GST_DEBUG_FUNCPTR (gst_cs_ipc_src_start);
  base_class->stop = GST_DEBUG_FUNCPTR (gst_cs_ipc_src_stop);
  base_class->unlock = GST_DEBUG_FUNCPTR (gst_cs_ipc_src_unlock);
  base_class->unlock_stop = GST_DEBUG_FUNCPTR (gst_cs_ipc_src_unlock_stop);
  base_class->get_caps = GST_DEBUG_FUNCPTR (gst_cs_ipc_src_get_caps);
  base_class->negotiate = GST_DEBUG_FUNCPTR (gst_cs_ipc_src_negotiate);
  base_class->query = GST_DEBUG_FUNCPTR (gst_cs_ipc_src_query);
  push_class->create = GST_DEBUG_FUNCPTR (gst_cs_ipc_src_create);

  gst_type_mark_as_plugin_api (GST_TYPE_CS_IPC_PRODUCER_LOST, (GstPluginAPIFlags)0);
  GST_DEBUG_CATEGORY_INIT (
      gst_cs_ipc_src_debug, "csipcsrc", 0, "gst-cudastreams IPC source");
}

static void
gst_cs_ipc_src_init (GstCsIpcSrc * self)
{
  self->device = new gst_cs::ElementDevice (GST_ELEMENT (self));
  self->connection_timeout = DEFAULT_CONNECTION_TIMEOUT;
  self->producer_lost = DEFAULT_PRODUCER_LOST;
  gst_base_src_set_live (GST_BASE_SRC (self), TRUE);
  gst_base_src_set_format (GST_BASE_SRC (self), GST_FORMAT_TIME);
}

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/**
 * SECTION:element-cudastreamsipcsink
 * @title: cudastreamsipcsink
 *
 * Hands raw video frames and cudabatch tensors in CUDA device memory to
 * other processes (cudastreamsipcsrc) without a host wait and without a
 * copy. It serves a unix socket (socket-path) to any number of consumers,
 * which may come and go at any time. Each memory is exported once
 * (cudaIpcGetMemHandle) and each consumer keeps it open; each frame carries
 * an interprocess event recorded after the frame's producer, which the
 * consumer's stream waits for on the GPU. A consumer gives a frame back
 * with an interprocess event of its own, recorded after its reads: the
 * frame goes back to its pool once that event has completed (asked with a
 * query, never waited for on the GPU, see docs/ipc.md for why), or once a
 * consumer that died is gone.
 *
 * Frames the sink cannot export in place are copied on the GPU into a
 * pool of its own first (no host wait): allocations under 2 MiB (CUDA may
 * share their block with other allocations), an application's wrapped
 * memory, nvcodec's memory (its decoder's pool would starve) and frames of
 * another device than device-id.
 *
 * A consumer holds at most max-frames frames at once; past that,
 * slow-consumer says whether it misses frames (drop, the default: it never
 * holds the others up) or holds the producer up to wait-timeout. A consumer
 * whose process does not answer for consumer-timeout (stopped, stuck) is
 * disconnected and its frames taken back. Caps, segments, flushes and the end of stream travel too.
 * The socket is for the owner's processes only (allow-group opens it to the
 * owner's group); every peer is checked with SO_PEERCRED, and one that
 * sends anything malformed is disconnected.
 *
 * ## Example
 * |[
 * gst-launch-1.0 videotestsrc is-live=true ! video/x-raw,format=NV12,width=1920,height=1080 ! \
 *   cudaupload ! cudastreamsipcsink socket-path=/tmp/cams.sock
 * gst-launch-1.0 cudastreamsipcsrc socket-path=/tmp/cams.sock ! cudadownload ! autovideosink
 * ]|
 *
 * Since: 0.4
 */
#include "ipc/gstcsipcsink.h"

#include <atomic>
#include <memory>

#include "base/gstcscaps.h"
#include "base/gstcsformats.hpp"
#include "base/gstcsframespan.hpp"
#include "base/gstcsheldbuffers.hpp"
#include "base/gstcsscratchpool.hpp"
#include "batch/gstcselementdevice.hpp"
#include "gstcsdeviceguard.hpp"
#include "gstcserror-private.h"
#include "gstcsmemory-private.h"
#include "gstcssyncmeta-private.h"
#include "ipc/gstcsipcdevice.hpp"
#include "ipc/gstcsipcserver.hpp"
#include "nvcodec/gstcsnvcodec.hpp"

GST_DEBUG_CATEGORY (gst_cs_ipc_sink_debug);
#define GST_CAT_DEFAULT gst_cs_ipc_sink_debug

#define DEFAULT_MAX_FRAMES 4
#define DEFAULT_SLOW_CONSUMER GST_CS_IPC_SLOW_CONSUMER_DROP
#define DEFAULT_WAIT_TIMEOUT 1000
#define DEFAULT_CONSUMER_TIMEOUT 2000
/* How long stop waits for consumers to give frames back. */
#define STOP_LINGER_MS 1000
/* nvcodec frames kept while our copy reads them. */
#define HELD_NVCODEC 8

enum {
  PROP_0,
  PROP_SOCKET_PATH,
  PROP_ALLOW_GROUP,
  PROP_MAX_FRAMES,
  PROP_SLOW_CONSUMER,
  PROP_WAIT_TIMEOUT,
  PROP_CONSUMER_TIMEOUT,
  PROP_DEVICE_ID,
  PROP_CONSUMERS,
  PROP_FRAMES_DROPPED,
  PROP_FRAMES_HELD,
  PROP_FRAMES_COPIED,
  PROP_HOST_WAITS,
};

namespace {

/* What the element keeps between start and stop (streaming thread). */
struct Streaming {
  std::shared_ptr<gst_cs::ipc::Server> server;
  gst_cs::ScratchPool copies;               /* frames that cannot be exported in place */
  gst_cs::HeldBuffers held{ HELD_NVCODEC }; /* nvcodec frames our copies read */
  GstClock * clock = nullptr;               /* the clock `monotonic` was asked of */
  bool monotonic = false;                   /* it is the system's monotonic clock */
  std::atomic<guint64> copied{ 0 };         /* frames copied to be exported */
  /* GST_DEBUG=csipcsink:4 (read at start): each render's span on the
   * clock and its thread's CPU time, said at stop. Where the two differ,
   * the thread was not running (waiting for a lock, the kernel or a
   * core). */
  bool timed = false;
  guint64 rendered = 0, render_ns = 0, render_cpu_ns = 0;
  gst_cs::ipc::SendCosts costs; /* the parts of render_cpu_ns */
};

} // namespace

struct _GstCsIpcSink {
  GstBaseSink parent;
  gst_cs::ElementDevice * device;
  Streaming * st;
  /* properties, under the object lock */
  gchar * socket_path;
  gboolean allow_group;
  guint max_frames;
  GstCsIpcSlowConsumer slow_consumer;
  guint wait_timeout;
  guint consumer_timeout;
};

G_DEFINE_TYPE (GstCsIpcSink, gst_cs_ipc_sink, GST_TYPE_BASE_SINK);

GType
gst_cs_ipc_slow_consumer_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    { GST_CS_IPC_SLOW_CONSUMER_DROP, "It misses frames; the others go on", "drop" },
    { GST_CS_IPC_SLOW_CONSUMER_WAIT, "The producer waits for it, up to wait-timeout",
        "wait" },
    { 0, NULL, NULL },
  };
  if (g_once_init_enter (&type))
    g_once_init_leave (&type, g_enum_register_static ("GstCsIpcSlowConsumer", values));
  return type;
}

/* The formats are those of gst_cs::video_formats(), set in class_init. */
static const gchar sink_caps[] = GST_CS_VIDEO_DEVICE_CAPS GST_CS_VIDEO_NVCODEC_CAPS
    "; other/tensors(" GST_CAPS_FEATURE_MEMORY_CS ")";

/* --- start and stop ----------------------------------------------------- */

static gst_cs::ipc::ServerSettings
settings_of (GstCsIpcSink * self)
{
  gst_cs::ipc::ServerSettings s;
  GST_OBJECT_LOCK (self);
  s.path = self->socket_path ? self->socket_path : "";
  s.group = self->allow_group;
  s.max_frames = self->max_frames;
  s.wait = self->slow_consumer == GST_CS_IPC_SLOW_CONSUMER_WAIT;
  s.wait_timeout_ms = self->wait_timeout;
  s.consumer_timeout_ms = self->consumer_timeout;
  GST_OBJECT_UNLOCK (self);
  return s;
}

static gboolean
gst_cs_ipc_sink_start (GstBaseSink * sink)
{
  auto * self = GST_CS_IPC_SINK (sink);
  if (!self->device->start ())
    return FALSE;
  const gint device = self->device->device ();
  if (!gst_cs::ipc::check_device (GST_ELEMENT (self), gst_cs_ipc_sink_debug, device)) {
    self->device->stop ();
    return FALSE;
  }
  GError * err = NULL;
  auto server =
      gst_cs::ipc::Server::create (GST_ELEMENT (self), settings_of (self), device, &err);
  if (!server) {
    GST_ELEMENT_ERROR (self, RESOURCE, OPEN_READ_WRITE, ("%s", err->message), (NULL));
    g_error_free (err);
    self->device->stop ();
    return FALSE;
  }
  self->st = new Streaming;
  self->st->server = std::move (server);
  self->st->timed = gst_debug_category_get_threshold (GST_CAT_DEFAULT) >= GST_LEVEL_INFO;
  if (self->st->timed)
    self->st->server->time_sends (&self->st->costs);
  return TRUE;
}

static gboolean
gst_cs_ipc_sink_stop (GstBaseSink * sink)
{
  auto * self = GST_CS_IPC_SINK (sink);
  if (self->st) {
    const Streaming & st = *self->st;
    if (st.rendered) {
      const double n = st.rendered * 1e3;
      GST_INFO_OBJECT (self,
          "%" G_GUINT64_FORMAT " frames rendered: %.1f us a frame on the clock, %.1f us "
          "of the thread's CPU: taking frames back %.1f, GPU calls %.1f, records %.1f, "
          "wake-ups %.1f",
          st.rendered, st.render_ns / n, st.render_cpu_ns / n, st.costs.reclaim / n,
          st.costs.gpu / n, st.costs.records / n, st.costs.bell / n);
    }
    self->st->server->stop (STOP_LINGER_MS);
    self->st->held.drain_on (
        self->device->device (), self->device->waits (), GST_OBJECT (self));
    self->st->copies.reset ();
    gst_clear_object (&self->st->clock);
    delete self->st;
    self->st = nullptr;
  }
  self->device->stop ();
  return TRUE;
}

/* A render waiting for a slow consumer (slow-consumer=wait) gives up at
 * once: flushes and state changes do not wait for wait-timeout. */
static gboolean
gst_cs_ipc_sink_unlock (GstBaseSink * sink)
{
  auto * self = GST_CS_IPC_SINK (sink);
  if (self->st)
    self->st->server->interrupt (true);
  return TRUE;
}

static gboolean
gst_cs_ipc_sink_unlock_stop (GstBaseSink * sink)
{
  auto * self = GST_CS_IPC_SINK (sink);
  if (self->st)
    self->st->server->interrupt (false);
  return TRUE;
}

/* --- caps and events ---------------------------------------------------- */

static gboolean
gst_cs_ipc_sink_set_caps (GstBaseSink * sink, GstCaps * caps)
{
  auto * self = GST_CS_IPC_SINK (sink);
  /* Consumers get our memory, whatever came in. */
  GstCaps * out = gst_cs_caps_with_memory (caps, TRUE, NULL);
  if (self->st)
    self->st->server->set_caps (out);
  gst_caps_unref (out);
  return TRUE;
}

static gboolean
gst_cs_ipc_sink_event (GstBaseSink * sink, GstEvent * event)
{
  auto * self = GST_CS_IPC_SINK (sink);
  if (self->st) {
    auto & server = *self->st->server;
    switch (GST_EVENT_TYPE (event)) {
      case GST_EVENT_SEGMENT: {
        const GstSegment * segment;
        gst_event_parse_segment (event, &segment);
        if (segment->format == GST_FORMAT_TIME)
          server.set_segment (*segment);
        break;
      }
      case GST_EVENT_EOS:
        server.broadcast (gst_cs::ipc::Msg::EOS);
        break;
      case GST_EVENT_FLUSH_START:
        server.broadcast (gst_cs::ipc::Msg::FLUSH_START);
        break;
      case GST_EVENT_FLUSH_STOP: {
        gboolean reset = TRUE;
        gst_event_parse_flush_stop (event, &reset);
        server.broadcast (gst_cs::ipc::Msg::FLUSH_STOP, reset);
        break;
      }
      default:
        break;
    }
  }
  return GST_BASE_SINK_CLASS (gst_cs_ipc_sink_parent_class)->event (sink, event);
}

static gboolean
gst_cs_ipc_sink_propose_allocation (GstBaseSink * sink, GstQuery * query)
{
  auto * self = GST_CS_IPC_SINK (sink);
  GST_OBJECT_LOCK (self);
  const guint max_frames = self->max_frames;
  GST_OBJECT_UNLOCK (self);
  /* A consumer's frames, and as many again on their way back (released,
   * their read events still running): upstream's pool must have that many
   * beyond its own, or its writer waits for our consumers. */
  GstCaps * caps = NULL;
  gst_query_parse_allocation (query, &caps, NULL);
  if (caps && gst_structure_has_name (gst_caps_get_structure (caps, 0), "video/x-raw"))
    gst_cs_query_propose_held (query, 2 * max_frames + 1, 0);
  gst_cs_query_add_layout_metas (query);
  return TRUE;
}

static gboolean
gst_cs_ipc_sink_query (GstBaseSink * sink, GstQuery * query)
{
  return GST_CS_IPC_SINK (sink)->device->answer_context_query (query) ||
         GST_BASE_SINK_CLASS (gst_cs_ipc_sink_parent_class)->query (sink, query);
}

/* --- frames ------------------------------------------------------------- */

/* The frame's PTS on the pipeline's clock (running time + base time),
 * where that clock is the system's monotonic one, which every process
 * shares: a consumer maps it into its own running time. */
static GstClockTime
clock_time_of (GstCsIpcSink * self, GstBuffer * buffer)
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
  const GstClockTime pts = GST_BUFFER_PTS (buffer);
  if (!st.monotonic || !GST_CLOCK_TIME_IS_VALID (pts))
    return GST_CLOCK_TIME_NONE;
  const GstClockTime rt =
      gst_segment_to_running_time (&GST_BASE_SINK (self)->segment, GST_FORMAT_TIME, pts);
  return GST_CLOCK_TIME_IS_VALID (rt) ? rt + GST_ELEMENT_CAST (self)->base_time
                                      : GST_CLOCK_TIME_NONE;
}

/* Layout metas of the copy: gst_buffer_copy_into leaves the video meta out
 * (it is tagged with the memory, which it does not copy). */
static void
copy_layout (GstBuffer * dst, GstBuffer * src)
{
  if (const GstVideoMeta * vm = gst_buffer_get_video_meta (src))
    gst_buffer_add_video_meta_full (dst, vm->flags, vm->format, vm->width, vm->height,
        vm->n_planes, const_cast<gsize *> (vm->offset), const_cast<gint *> (vm->stride));
}

/* A copy of `buffer` on the element's device that can be exported: in the
 * sink's pool, whose allocations are whole 2 MiB blocks; the copy waits for
 * the frame's producer on the GPU. An nvcodec frame is kept until the copy
 * has read it. */
static GstBuffer *
exportable_copy (GstCsIpcSink * self, GstBuffer * buffer, GError ** error)
{
  gst_cs::ElementDevice & dev = *self->device;
  const gint device = dev.device ();
  const cudaStream_t stream = dev.stream ();
  gst_cs::DeviceMapping src;
  if (!src.map (buffer, GST_MAP_READ, device, stream, dev.waits (), error))
    return NULL;
  const gsize blocks =
      (src.size () + GST_CS_IPC_BLOCK - 1) / GST_CS_IPC_BLOCK * GST_CS_IPC_BLOCK;
  GstBuffer * out = self->st->copies.bytes (device, blocks, error);
  if (!out)
    return NULL;
  gst_buffer_resize (out, 0, src.size ());
  gst_buffer_copy_into (out, buffer,
      (GstBufferCopyFlags)(GST_BUFFER_COPY_FLAGS | GST_BUFFER_COPY_TIMESTAMPS |
                           GST_BUFFER_COPY_META),
      0, -1);
  copy_layout (out, buffer);
  const bool ok =
      gst_cs_buffer_wait_writable (out, stream, error) &&
      gst_cs_sync_meta_wait (buffer, stream, error) &&
      GST_CS_CHECK (cudaMemcpyPeerAsync (gst_cs_memory_get_device_pointer (
                                             gst_buffer_peek_memory (out, 0)),
                        device, src.data (), src.device (), src.size (), stream),
          error) &&
                           gst_cs_sync_meta_record_read (out,
                               src.nvcodec () ? NULL : buffer, device, stream, error) &&
                           (!src.nvcodec () || self->st->held.hold (buffer, device,
                                                   stream, dev.waits (), error));
  if (!ok)
    gst_clear_buffer (&out);
  return out;
}

static GstFlowReturn
send_frame (GstCsIpcSink * self, GstBuffer * buffer)
{
  gst_cs::ElementDevice & dev = *self->device;
  if (gst_buffer_n_memory (buffer) != 1) {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT, (NULL),
        ("A frame of %u memories: the IPC sink takes frames of one block of device "
         "memory",
            gst_buffer_n_memory (buffer)));
    return GST_FLOW_ERROR;
  }
  GError * err = NULL;
  gst_cs::DeviceGuard guard (dev.device (), &err);
  GstMemory * mem = gst_buffer_peek_memory (buffer, 0);
  gst_cs::ipc::OutFrame f;
  f.buffer = buffer;
  if (guard.ok () && gst_is_cs_memory (mem) &&
      gst_cs::memory_device (mem) == dev.device ())
    f.exportable = gst_cs_memory_get_exportable (mem, &f.offset, &f.alloc_size);
  GstBuffer * copy = NULL;
  if (guard.ok () && !f.exportable) {
    self->st->copied++;
    copy = exportable_copy (self, buffer, &err);
    if (copy) {
      mem = gst_buffer_peek_memory (copy, 0);
      f.buffer = copy;
      f.exportable = gst_cs_memory_get_exportable (mem, &f.offset, &f.alloc_size);
    }
  }
  f.size = gst_memory_get_sizes (mem, NULL, NULL);
  f.clock_time = clock_time_of (self, buffer);
  const bool ok = f.exportable && self->st->server->send (f, dev.stream (), &err);
  gst_clear_buffer (&copy);
  self->st->held.release_done ();
  if (!ok) {
    GST_CS_POST_ERROR (self, err, "Cannot send a frame to the consumers");
    return GST_FLOW_ERROR;
  }
  return GST_FLOW_OK;
}

static GstFlowReturn
gst_cs_ipc_sink_render (GstBaseSink * sink, GstBuffer * buffer)
{
  auto * self = GST_CS_IPC_SINK (sink);
  const GstClockTime begin = gst_util_get_timestamp ();
  const GstClockTime begin_cpu =
      G_UNLIKELY (self->st->timed) ? gst_cs::ipc::thread_cpu_ns () : 0;
  auto & server = *self->st->server;
  /* Frames given back, as frames go by (and on the server's own tick). */
  server.reclaim ();
  GstFlowReturn ret = GST_FLOW_OK;
  if (server.wanted ())
    ret = send_frame (self, buffer);
  self->device->count_frame ();
  if (G_UNLIKELY (self->st->timed)) {
    Streaming & st = *self->st;
    st.rendered++;
    st.render_cpu_ns += gst_cs::ipc::thread_cpu_ns () - begin_cpu;
    st.render_ns += gst_util_get_timestamp () - begin;
  }
  /* The server thread's CPU time is the element's too: the span starts
   * that much earlier. */
  if (G_UNLIKELY (self->device->trace ())) {
    const GstClockTime extra = server.take_thread_ns ();
    gst_cs::trace_cpu (self->device->trace (), GST_ELEMENT_CAST (self),
        GST_BASE_SINK_PAD (sink), begin - MIN (begin, extra), gst_util_get_timestamp ());
  }
  return ret;
}

/* --- element ------------------------------------------------------------ */

static GstStateChangeReturn
gst_cs_ipc_sink_change_state (GstElement * element, GstStateChange transition)
{
  if (transition == GST_STATE_CHANGE_NULL_TO_READY)
    GST_CS_IPC_SINK (element)->device->announce ();
  return GST_ELEMENT_CLASS (gst_cs_ipc_sink_parent_class)
      ->change_state (element, transition);
}

static void
gst_cs_ipc_sink_set_context (GstElement * element, GstContext * context)
{
  GST_CS_IPC_SINK (element)->device->set_context (context);
  GST_ELEMENT_CLASS (gst_cs_ipc_sink_parent_class)->set_context (element, context);
}

static void
gst_cs_ipc_sink_set_property (
    GObject * object, guint id, const GValue * value, GParamSpec * pspec)
{
  auto * self = GST_CS_IPC_SINK (object);
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
    case PROP_MAX_FRAMES:
      self->max_frames = g_value_get_uint (value);
      break;
    case PROP_SLOW_CONSUMER:
      self->slow_consumer = (GstCsIpcSlowConsumer)g_value_get_enum (value);
      break;
    case PROP_WAIT_TIMEOUT:
      self->wait_timeout = g_value_get_uint (value);
      break;
    case PROP_CONSUMER_TIMEOUT:
      self->consumer_timeout = g_value_get_uint (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_cs_ipc_sink_get_property (
    GObject * object, guint id, GValue * value, GParamSpec * pspec)
{
  auto * self = GST_CS_IPC_SINK (object);
  switch (id) {
    case PROP_DEVICE_ID:
      g_value_set_int (value, self->device->requested ());
      return;
    case PROP_HOST_WAITS:
      g_value_set_uint64 (value, gst_cs_wait_counter_get (self->device->waits ()));
      return;
    case PROP_CONSUMERS:
    case PROP_FRAMES_DROPPED:
    case PROP_FRAMES_HELD:
    case PROP_FRAMES_COPIED: {
      /* The state lock keeps start and stop away. */
      GST_STATE_LOCK (self);
      auto * server = self->st ? self->st->server.get () : nullptr;
      if (id == PROP_CONSUMERS)
        g_value_set_uint (value, server ? server->consumers () : 0);
      else if (id == PROP_FRAMES_HELD)
        g_value_set_uint (value, server ? server->held () : 0);
      else if (id == PROP_FRAMES_COPIED)
        g_value_set_uint64 (value, self->st ? self->st->copied.load () : 0);
      else
        g_value_set_uint64 (value, server ? server->dropped () : 0);
      GST_STATE_UNLOCK (self);
      return;
    }
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
    case PROP_MAX_FRAMES:
      g_value_set_uint (value, self->max_frames);
      break;
    case PROP_SLOW_CONSUMER:
      g_value_set_enum (value, self->slow_consumer);
      break;
    case PROP_WAIT_TIMEOUT:
      g_value_set_uint (value, self->wait_timeout);
      break;
    case PROP_CONSUMER_TIMEOUT:
      g_value_set_uint (value, self->consumer_timeout);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_cs_ipc_sink_finalize (GObject * object)
{
  auto * self = GST_CS_IPC_SINK (object);
  g_free (self->socket_path);
  delete self->st;
  delete self->device;
  G_OBJECT_CLASS (gst_cs_ipc_sink_parent_class)->finalize (object);
}

static void
install_properties (GObjectClass * gobject_class)
{
  const auto rw =
      (GParamFlags)(G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY);
  const auto ro = (GParamFlags)(G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  /**
   * GstCsIpcSink:socket-path:
   *
   * The unix socket consumers connect to. A socket file left by a producer
   * that died is replaced; one a live producer serves is an error. Removed
   * at stop.
   *
   * Since: 0.4
   */
  g_object_class_install_property (gobject_class, PROP_SOCKET_PATH,
      g_param_spec_string ("socket-path", "Socket path",
          "The unix socket the consumers connect to", NULL, rw));
  /**
   * GstCsIpcSink:allow-group:
   *
   * Opens the socket to processes of the owner's group (mode 0660) instead
   * of the owner's only (0600). Each peer is checked with SO_PEERCRED: its
   * user must be ours, or with this its primary group ours.
   *
   * Since: 0.4
   */
  g_object_class_install_property (gobject_class, PROP_ALLOW_GROUP,
      g_param_spec_boolean ("allow-group", "Allow group",
          "Let processes of the owner's group connect too", FALSE, rw));
  /**
   * GstCsIpcSink:max-frames:
   *
   * Frames one consumer may hold at once: sent, and not yet given back or
   * with its reads still running on the GPU (so a consumer whose GPU work
   * runs behind gets no more than that ahead). Upstream's pool is asked for
   * twice as many frames, plus one.
   *
   * Since: 0.4
   */
  g_object_class_install_property (gobject_class, PROP_MAX_FRAMES,
      g_param_spec_uint ("max-frames", "Max frames",
          "Frames one consumer may hold at once", 1, gst_cs::ipc::kMaxFramesLimit,
          DEFAULT_MAX_FRAMES, rw));
  /**
   * GstCsIpcSink:slow-consumer:
   *
   * What happens to a consumer that holds max-frames frames when the next
   * one comes: it misses it (drop: no consumer ever holds the others up), or
   * the producer waits for it, at most wait-timeout per frame.
   *
   * Since: 0.4
   */
  g_object_class_install_property (gobject_class, PROP_SLOW_CONSUMER,
      g_param_spec_enum ("slow-consumer", "Slow consumer",
          "A consumer with max-frames frames misses the next (drop) or holds the "
          "producer "
          "(wait)",
          GST_TYPE_CS_IPC_SLOW_CONSUMER, DEFAULT_SLOW_CONSUMER, rw));
  /**
   * GstCsIpcSink:wait-timeout:
   *
   * With slow-consumer=wait, the longest the producer waits for consumers
   * to make room for one frame, in milliseconds.
   *
   * Since: 0.4
   */
  g_object_class_install_property (gobject_class, PROP_WAIT_TIMEOUT,
      g_param_spec_uint ("wait-timeout", "Wait timeout",
          "With slow-consumer=wait: the longest wait for room per frame (ms)", 0, 60000,
          DEFAULT_WAIT_TIMEOUT, rw));
  /**
   * GstCsIpcSink:consumer-timeout:
   *
   * A consumer whose process does not answer for this long (ms; asked every
   * quarter of it, answered by its reader thread however long its pipeline
   * holds frames) is disconnected and its frames taken back: a stopped
   * (SIGSTOP) or stuck process. 0: never.
   *
   * Since: 0.4
   */
  g_object_class_install_property (gobject_class, PROP_CONSUMER_TIMEOUT,
      g_param_spec_uint ("consumer-timeout", "Consumer timeout",
          "Disconnect a consumer that does not answer for this long (ms, 0 = never)", 0,
          G_MAXUINT, DEFAULT_CONSUMER_TIMEOUT, rw));
  /**
   * GstCsIpcSink:device-id:
   *
   * The CUDA device whose frames are exported in place, whose stream
   * records the frames' events; frames of another device are copied to it
   * first. -1: device 0. Read at start.
   *
   * Since: 0.4
   */
  g_object_class_install_property (gobject_class, PROP_DEVICE_ID,
      g_param_spec_int (
          "device-id", "Device ID", "CUDA device (-1 = device 0)", -1, G_MAXINT, -1, rw));
  /**
   * GstCsIpcSink:consumers:
   *
   * Consumers connected now.
   *
   * Since: 0.4
   */
  g_object_class_install_property (gobject_class, PROP_CONSUMERS,
      g_param_spec_uint (
          "consumers", "Consumers", "Consumers connected now", 0, G_MAXUINT, 0, ro));
  /**
   * GstCsIpcSink:frames-dropped:
   *
   * Frames a consumer missed because it held max-frames frames (one per
   * consumer and frame), since start.
   *
   * Since: 0.4
   */
  g_object_class_install_property (gobject_class, PROP_FRAMES_DROPPED,
      g_param_spec_uint64 ("frames-dropped", "Frames dropped",
          "Frames consumers missed for holding max-frames frames", 0, G_MAXUINT64, 0,
          ro));
  /**
   * GstCsIpcSink:frames-held:
   *
   * Frames out with consumers now: sent and not yet back (given back with
   * their read events still running, or held by a consumer that is gone
   * within its grace period).
   *
   * Since: 0.4
   */
  g_object_class_install_property (gobject_class, PROP_FRAMES_HELD,
      g_param_spec_uint ("frames-held", "Frames held", "Frames out with consumers now", 0,
          G_MAXUINT, 0, ro));
  /**
   * GstCsIpcSink:frames-copied:
   *
   * Frames copied on the GPU into the sink's own pool to be exported (under
   * 2 MiB, an application's or nvcodec's memory, another device's), since
   * start; the others were exported in place.
   *
   * Since: 0.4
   */
  g_object_class_install_property (gobject_class, PROP_FRAMES_COPIED,
      g_param_spec_uint64 ("frames-copied", "Frames copied",
          "Frames copied into the sink's pool to be exported", 0, G_MAXUINT64, 0, ro));
  /**
   * GstCsIpcSink:host-waits:
   *
   * How many times the element blocked the CPU on the GPU (0 in steady
   * state).
   *
   * Since: 0.4
   */
  g_object_class_install_property (gobject_class, PROP_HOST_WAITS,
      g_param_spec_uint64 ("host-waits", "Host waits",
          "How often this element blocked the CPU on the GPU", 0, G_MAXUINT64, 0, ro));
}

static void
gst_cs_ipc_sink_class_init (GstCsIpcSinkClass * klass)
{
  GObjectClass * gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass * element_class = GST_ELEMENT_CLASS (klass);
  GstBaseSinkClass * sink_class = GST_BASE_SINK_CLASS (klass);

  gobject_class->set_property = gst_cs_ipc_sink_set_property;
  gobject_class->get_property = gst_cs_ipc_sink_get_property;
  gobject_class->finalize = gst_cs_ipc_sink_finalize;
  install_properties (gobject_class);

  gst_element_class_add_pad_template (
      element_class, gst_cs::pad_template_with_video_formats (
                         "sink", GST_PAD_SINK, GST_PAD_ALWAYS, sink_caps));
  gst_element_class_set_static_metadata (element_class, "CUDA streams IPC sink",
      "Sink/Video/Tensor/Hardware",
      "Hands frames and batches in CUDA device memory to other processes, ordered by "
      "interprocess events on the GPU, without host waits or copies",
      "gst-cudastreams developers");
  element_class->change_state = GST_DEBUG_FUNCPTR (gst_cs_ipc_sink_change_state);
  element_class->set_context = GST_DEBUG_FUNCPTR (gst_cs_ipc_sink_set_context);

  sink_class->start = GST_DEBUG_FUNCPTR (gst_cs_ipc_sink_start);
  sink_class->stop = GST_DEBUG_FUNCPTR (gst_cs_ipc_sink_stop);
  sink_class->unlock = GST_DEBUG_FUNCPTR (gst_cs_ipc_sink_unlock);
  sink_class->unlock_stop = GST_DEBUG_FUNCPTR (gst_cs_ipc_sink_unlock_stop);
  sink_class->set_caps = GST_DEBUG_FUNCPTR (gst_cs_ipc_sink_set_caps);
  sink_class->event = GST_DEBUG_FUNCPTR (gst_cs_ipc_sink_event);
  sink_class->propose_allocation = GST_DEBUG_FUNCPTR (gst_cs_ipc_sink_propose_allocation);
  sink_class->query = GST_DEBUG_FUNCPTR (gst_cs_ipc_sink_query);
  sink_class->render = GST_DEBUG_FUNCPTR (gst_cs_ipc_sink_render);

  gst_type_mark_as_plugin_api (GST_TYPE_CS_IPC_SLOW_CONSUMER, (GstPluginAPIFlags)0);
  GST_DEBUG_CATEGORY_INIT (
      gst_cs_ipc_sink_debug, "csipcsink", 0, "gst-cudastreams IPC sink");
}

static void
gst_cs_ipc_sink_init (GstCsIpcSink * self)
{
  self->device = new gst_cs::ElementDevice (GST_ELEMENT (self));
  self->max_frames = DEFAULT_MAX_FRAMES;
  self->slow_consumer = DEFAULT_SLOW_CONSUMER;
  self->wait_timeout = DEFAULT_WAIT_TIMEOUT;
  self->consumer_timeout = DEFAULT_CONSUMER_TIMEOUT;
}

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/**
 * SECTION:element-cudadownload
 * @title: cudadownload
 *
 * Copies raw video from CUDA device memory (memory:CUDAStreamsMemory) into
 * pinned system memory. Its stream waits on the GPU for the event the
 * producer attached (GstCsSyncMeta); the CPU then waits for this one copy
 * only, never for a whole stream or the device. Only the visible region is
 * copied: a cropped frame's rectangle, or what a #GstVideoCropMeta marks. Output
 * frames use the default (packed) layout of their caps, in pinned memory. A
 * frame of another device is copied to this element's device first.
 *
 * Built with GStreamer's CUDA library it also reads nvcodec's memory
 * (memory:CUDAMemory, e.g. from nvh264dec) in place, keeping each such frame
 * until its copy is done. Registered as cudadownload and as
 * cudastreamsdownload (nvcodec registers a cudadownload too).
 *
 * Each frame leaves as soon as its copy is done, whether or not another
 * frame comes: a thread of the element waits for the copies, one at a time
 * and in order, and pushes the frames. The streaming thread only enqueues
 * each copy; it accepts the next frame while up to max-in-flight copies
 * are not yet pushed (2 by default), so that uploads and downloads overlap.
 * The element holds no frame back, and adds no latency. Host waits sleep
 * until the GPU signals the copy (spin-wait=true busy-waits instead).
 *
 * ## Example
 * |[
 * gst-launch-1.0 videotestsrc num-buffers=1 ! cudaupload ! cudadownload ! pngenc ! filesink location=f.png
 * ]|
 *
 * Since: 0.1
 */
#include "gstcsdownload.h"

#include "base/gstcscaps.h"
#include "base/gstcsformats.hpp"
#include "crop/gstcscropcopy.hpp"
#include "gstcsdeviceguard.hpp"
#include "gstcserror-private.h"
#include "base/gstcsframe.hpp"
#include "base/gstcsframespan.hpp"
#include "base/gstcsheldbuffers.hpp"
#include "base/gstcsinflight.hpp"
#include "gstcsmemory.h"
#include "nvcodec/gstcsnvcodec.hpp"
#include "base/gstcspeerimport.hpp"
#include "gstcspinnedmemory-private.h"
#include "gstcssyncmeta-private.h"

GST_DEBUG_CATEGORY_STATIC (gst_cs_download_debug);
#define GST_CAT_DEFAULT gst_cs_download_debug

#define DEFAULT_MAX_IN_FLIGHT -1 /* auto */
#define AUTO_IN_FLIGHT 2         /* overlaps uploads and downloads fully */
#define MAX_IN_FLIGHT_LIMIT 16

#define DEFAULT_SPIN_WAIT FALSE

enum { PROP_0, PROP_MAX_IN_FLIGHT, PROP_SPIN_WAIT };

struct _GstCsDownload {
  GstCsBaseTransform parent;
  gint max_in_flight;                   /* property, object lock; -1 = auto */
  gboolean spin_wait;                   /* property, object lock */
  GstBufferPool * pool;                 /* pinned output frames */
  gst_cs::FramesInFlight * frames;      /* copies enqueued, not yet pushed */
  gst_cs::ScratchPool * scratch;        /* intermediate frames */
  gst_cs::ScratchPool * scratch_import; /* copies of frames from another device */
  gst_cs::HeldBuffers * held;           /* nvcodec inputs a copy still reads */
  gst_cs::FrameLayouts * layouts;       /* of the frames, streaming thread */
};

G_DEFINE_TYPE (GstCsDownload, gst_cs_download, GST_TYPE_CS_BASE_TRANSFORM);

/* The templates' formats are those of gst_cs::video_formats(), set in
 * class_init. */
static const gchar sink_caps[] = GST_CS_VIDEO_DEVICE_CAPS GST_CS_VIDEO_DEVICE_FIELD_CAPS
    GST_CS_VIDEO_NVCODEC_CAPS GST_CS_VIDEO_NVCODEC_FIELD_CAPS
    "; " GST_CS_VIDEO_SYSTEM_CAPS GST_CS_VIDEO_SYSTEM_FIELD_CAPS;

static const gchar src_caps[] = GST_CS_VIDEO_SYSTEM_CAPS GST_CS_VIDEO_SYSTEM_FIELD_CAPS;

static GstCaps *
gst_cs_download_transform_caps (
    GstBaseTransform *, GstPadDirection direction, GstCaps * caps, GstCaps * filter)
{
  if (direction == GST_PAD_SINK) /* device (or system: passthrough) in: system out */
    return gst_cs_caps_with_memory (caps, FALSE, filter);
  /* system out: ours, nvcodec's or system memory in (in that order) */
  GstCaps * in = gst_caps_merge (
      gst_cs::caps_in_device_memory (caps), gst_cs_caps_with_memory (caps, FALSE, NULL));
  return gst_cs_caps_apply_filter (in, filter);
}

static gboolean
gst_cs_download_set_info (GstCsBaseTransform * base, GstCaps * incaps, GstVideoInfo *,
    GstCaps *, GstVideoInfo *)
{
  gst_base_transform_set_passthrough (GST_BASE_TRANSFORM (base),
      !gst_cs_caps_are_device (incaps) && !gst_cs::caps_are_nvcodec (incaps));
  return TRUE;
}

/* Copies that may be not yet pushed when a frame has been taken. */
static guint
in_flight (GstCsDownload * self)
{
  GST_OBJECT_LOCK (self);
  gint n = self->max_in_flight;
  GST_OBJECT_UNLOCK (self);
  return n >= 0 ? (guint)n : AUTO_IN_FLIGHT;
}

static gboolean
gst_cs_download_propose_allocation (
    GstBaseTransform * trans, GstQuery * decide_query, GstQuery * query)
{
  if (!GST_BASE_TRANSFORM_CLASS (gst_cs_download_parent_class)
           ->propose_allocation (trans, decide_query, query))
    return FALSE;
  if (gst_base_transform_is_passthrough (trans)) /* system memory: not ours */
    return TRUE;
  /* Any plane layout, and only the region a crop meta marks is copied. */
  gst_cs_query_add_layout_metas (query);
  /* The frames whose copies are in flight, and the one being copied. */
  auto * self = GST_CS_DOWNLOAD (trans);
  gst_cs_query_propose_held (query, in_flight (self) + 1 + self->held->capacity (), 0);
  return TRUE;
}

static gboolean
gst_cs_download_decide_allocation (GstBaseTransform * trans, GstQuery * query)
{
  auto * self = GST_CS_DOWNLOAD (trans);
  GstCaps * caps = NULL;
  GstVideoInfo info;
  if (!gst_cs_query_parse_video_info (query, &caps, &info))
    return FALSE;

  guint min = MAX (in_flight (self), AUTO_IN_FLIGHT) + 2;
  self->held->set_capacity (in_flight (self) + 2);
  if (gst_query_get_n_allocation_pools (query) > 0) {
    guint dmin = 0;
    gst_query_parse_nth_allocation_pool (query, 0, NULL, NULL, &dmin, NULL);
    min += dmin;
  }
  /* Our own pinned pool, whatever downstream offers: the copy engine writes
   * it directly, and it knows to wait for copies still in flight. */
  GstBufferPool * pool = gst_cs_pinned_buffer_pool_new ();
  GstStructure * config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_set_params (config, caps, info.size, min, 0);
  if (gst_query_find_allocation_meta (query, GST_VIDEO_META_API_TYPE, NULL))
    gst_buffer_pool_config_add_option (config, GST_BUFFER_POOL_OPTION_VIDEO_META);
  if (!gst_buffer_pool_set_config (pool, config) ||
      !gst_buffer_pool_set_active (pool, TRUE)) {
    GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
        ("Cannot allocate %u pinned host frames of %" G_GSIZE_FORMAT " bytes", min,
            info.size),
        ("caps %" GST_PTR_FORMAT, caps));
    gst_object_unref (pool);
    return FALSE;
  }
  gst_cs_query_set_pool (query, pool, info.size, min, 0);
  gst_object_replace ((GstObject **)&self->pool, GST_OBJECT_CAST (pool));
  gst_object_unref (pool);
  return TRUE;
}

/* Enqueues the copy of the visible region (all of the frame, or what its crop
 * meta marks) of the device frame `src` into the pinned frame `out`. */
static gboolean
download_region (GstCsDownload * self, guint8 * data, const gst_cs::Region & region,
    guint8 * out, cudaStream_t stream, GError ** err)
{
  const gst_cs::Planes dst =
      gst_cs::planes_at (out, &GST_CS_BASE_TRANSFORM (self)->out_info);
  if (region.offsets_only)
    return gst_cs::copy_planes (gst_cs::region_planes (data, region), dst,
        &GST_CS_BASE_TRANSFORM (self)->out_info, cudaMemcpyDeviceToHost, stream, err);

  /* Packed 4:2:2 cropped at an odd column by a crop meta: plane offsets
   * cannot express it. Copy the region on the GPU as videocrop copies it,
   * then download that. */
  const gint device = gst_cs_base_transform_get_device (GST_CS_BASE_TRANSFORM (self));
  GstBuffer * staged =
      self->scratch->frame (device, &GST_CS_BASE_TRANSFORM (self)->out_info, err);
  if (!staged)
    return FALSE;
  GstVideoInfo staged_layout;
  guint8 * mid = gst_cs_memory_get_device_pointer (gst_buffer_peek_memory (staged, 0));
  gboolean ok =
      gst_cs::buffer_layout (staged, &GST_CS_BASE_TRANSFORM (self)->out_info,
          &staged_layout, gst_buffer_get_size (staged), err) &&
      gst_cs::launch_region_copy (data, region, mid, &staged_layout, stream, err) &&
      gst_cs::copy_planes (gst_cs::planes_at (mid, &staged_layout), dst,
          &GST_CS_BASE_TRANSFORM (self)->out_info, cudaMemcpyDeviceToHost, stream, err);
  /* Written and read on our stream only: stream order protects its reuse. */
  gst_buffer_unref (staged);
  return ok;
}

/* Enqueues the device-to-host copy of `inbuf` into a pinned frame. */
static GstFlowReturn
enqueue_copy (GstCsDownload * self, GstBuffer * inbuf, GstBuffer ** outbuf)
{
  auto * base = GST_CS_BASE_TRANSFORM (self);
  cudaStream_t stream = gst_cs_base_transform_get_stream (base);
  const gint device = gst_cs_base_transform_get_device (base);
  GstCsWaitCounter * waits = gst_cs_base_transform_get_waits (base);
  GError * err = NULL;
  gst_cs::DeviceGuard guard (device, &err);
  if (!guard.ok ()) {
    GST_CS_POST_ERROR (self, err, "Cannot use the CUDA device");
    return GST_FLOW_ERROR;
  }
  /* A frame of another device is copied to ours first. */
  GstBuffer * src = NULL;
  if (gst_cs::on_other_device (inbuf, device)) {
    if (!gst_cs::import_from_other_device (
            inbuf, device, stream, *self->scratch_import, waits, &src, &err)) {
      GST_CS_POST_ERROR (self, err, "Cannot copy a frame from another CUDA device");
      return GST_FLOW_ERROR;
    }
  } else {
    src = gst_buffer_ref (inbuf);
  }
  GstFlowReturn ret = gst_buffer_pool_acquire_buffer (self->pool, outbuf, NULL);
  if (ret != GST_FLOW_OK) {
    gst_buffer_unref (src);
    return ret;
  }

  gst_cs::FrameSpan span (base, inbuf, *outbuf);
  gst_cs::Region region;
  gst_cs::DeviceMapping in;
  GstMapInfo map;
  gst_buffer_map (*outbuf, &map, GST_MAP_WRITE);
  gboolean ok =
      in.map (src, GST_MAP_READ, device, stream, waits, &err) &&
      self->layouts->input.locate_visible (src, &GST_CS_BASE_TRANSFORM (self)->in_info,
          gst_buffer_get_size (src), &region, &err) &&
      gst_cs_sync_meta_wait_memo (
          src, stream, gst_cs_base_transform_get_input_waits (base), &err);
  if (ok) {
    span.work_begins ();
    ok = download_region (self, in.data (), region, map.data, stream, &err);
    span.work_ends ();
  }
  gst_buffer_unmap (*outbuf, &map);
  in.unmap ();
  /* Upstream's pool makes its next writer of our memory wait for us.
   * nvcodec's knows nothing of our events: its frame is kept until the
   * copy is done (checked as frames go by). */
  const gboolean from_nvcodec =
      gst_cs::is_nvcodec_memory (gst_buffer_peek_memory (inbuf, 0));
  GstCsSyncMeta * meta = ok ? gst_cs_sync_meta_record_read (*outbuf,
                                  from_nvcodec ? NULL : src, device, stream, &err)
                            : NULL;
  if (meta && from_nvcodec)
    ok = self->held->hold (inbuf, device, stream, waits, &err);
  gst_buffer_unref (src);
  if (!meta || !ok) {
    gst_clear_buffer (outbuf);
    GST_CS_POST_ERROR (self, err, "Cannot download a frame");
    return GST_FLOW_ERROR;
  }
  /* Timestamps, flags and the metas that still describe the frame */
  GstBaseTransform * trans = GST_BASE_TRANSFORM (self);
  GST_BASE_TRANSFORM_GET_CLASS (trans)->copy_metadata (trans, inbuf, *outbuf);
  return GST_FLOW_OK;
}

static GstFlowReturn
gst_cs_download_submit_input_buffer (
    GstBaseTransform * trans, gboolean is_discont, GstBuffer * input)
{
  auto * self = GST_CS_DOWNLOAD (trans);
  if (gst_base_transform_is_passthrough (trans))
    return GST_CS_BASE_TRANSFORM_CLASS (gst_cs_download_parent_class)
        ->submit_input_buffer (trans, is_discont, input);
  /* Renegotiate when asked to (and get our pool), as basetransform does;
   * new caps or a new pool come after the frames before them; where that
   * fails, the base class names the field downstream wants. */
  if (gst_pad_needs_reconfigure (GST_BASE_TRANSFORM_SRC_PAD (trans)))
    self->frames->drain ();
  if (!gst_base_transform_reconfigure (trans)) {
    gst_buffer_unref (input);
    return GST_FLOW_NOT_NEGOTIATED;
  }
  if (!self->pool) {
    gst_buffer_unref (input);
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("No output buffer pool: "
         "caps were not negotiated"),
        (NULL));
    return GST_FLOW_NOT_NEGOTIATED;
  }
  GstBuffer * out = NULL;
  GstFlowReturn ret = enqueue_copy (self, input, &out);
  gst_buffer_unref (input);
  if (ret != GST_FLOW_OK)
    return ret;
  GST_OBJECT_LOCK (self);
  const gboolean spin = self->spin_wait;
  GST_OBJECT_UNLOCK (self);
  return self->frames->add (out,
      gst_cs_base_transform_get_device (GST_CS_BASE_TRANSFORM (self)), spin,
      in_flight (self));
}

static GstFlowReturn
gst_cs_download_generate_output (GstBaseTransform * trans, GstBuffer ** outbuf)
{
  if (gst_base_transform_is_passthrough (trans))
    return GST_CS_BASE_TRANSFORM_CLASS (gst_cs_download_parent_class)
        ->generate_output (trans, outbuf);
  /* The frames leave from the thread of FramesInFlight. */
  *outbuf = NULL;
  return GST_FLOW_OK;
}

/* Never called (generate_output makes the frames), but basetransform treats
 * an element without transform() as in-place and would decide no allocation. */
static GstFlowReturn
gst_cs_download_transform (GstBaseTransform *, GstBuffer *, GstBuffer *)
{
  g_return_val_if_reached (GST_FLOW_NOT_SUPPORTED);
}

/* Lets go of the nvcodec frames copies read, once the copies are done (a
 * counted wait, at flush and stop only). */
static void
release_held (GstCsDownload * self)
{
  auto * base = GST_CS_BASE_TRANSFORM (self);
  self->held->drain_on (gst_cs_base_transform_get_device (base),
      gst_cs_base_transform_get_waits (base), GST_OBJECT (self));
}

/* At EOS the frames before it leave first. A push that failed then (not
 * linked, an error downstream) is not upstream's to report any more: it
 * sent its last frame. */
static void
drain_at_eos (GstCsDownload * self)
{
  bool untold = false;
  const GstFlowReturn ret = self->frames->drain (&untold);
  if (untold && (ret == GST_FLOW_NOT_LINKED || ret < GST_FLOW_EOS))
    GST_ELEMENT_FLOW_ERROR (self, ret);
}

static gboolean
gst_cs_download_sink_event (GstBaseTransform * trans, GstEvent * event)
{
  auto * self = GST_CS_DOWNLOAD (trans);
  switch (GST_EVENT_TYPE (event)) {
    case GST_EVENT_FLUSH_START:
      self->frames->flush_start (); /* then downstream flushes (the parent) */
      break;
    case GST_EVENT_FLUSH_STOP:
      self->frames->flush_stop ();
      release_held (self);
      break;
    case GST_EVENT_EOS:
      drain_at_eos (self);
      break;
    default:
      if (GST_EVENT_IS_SERIALIZED (event))
        self->frames->drain (); /* frames before the event stay before it */
      break;
  }
  return GST_BASE_TRANSFORM_CLASS (gst_cs_download_parent_class)
      ->sink_event (trans, event);
}

/* Downstream linked again: frames may go again. */
static gboolean
gst_cs_download_src_event (GstBaseTransform * trans, GstEvent * event)
{
  if (GST_EVENT_TYPE (event) == GST_EVENT_RECONFIGURE)
    GST_CS_DOWNLOAD (trans)->frames->forget_not_linked ();
  return GST_BASE_TRANSFORM_CLASS (gst_cs_download_parent_class)
      ->src_event (trans, event);
}

/* A serialized query (ALLOCATION, DRAIN) comes after the frames before it,
 * as serialized events do. No LATENCY of our own: no frame waits for
 * another. */
static gboolean
gst_cs_download_query (GstBaseTransform * trans, GstPadDirection direction, GstQuery * q)
{
  if (direction == GST_PAD_SINK && GST_QUERY_IS_SERIALIZED (q))
    GST_CS_DOWNLOAD (trans)->frames->drain ();
  return GST_BASE_TRANSFORM_CLASS (gst_cs_download_parent_class)
      ->query (trans, direction, q);
}

static gboolean
gst_cs_download_stop (GstBaseTransform * trans)
{
  auto * self = GST_CS_DOWNLOAD (trans);
  /* The pinned pool waits for any copy still writing the frames dropped. */
  self->frames->stop ();
  release_held (self);
  gst_clear_object (&self->pool);
  self->scratch->reset ();
  self->scratch_import->reset ();
  return GST_BASE_TRANSFORM_CLASS (gst_cs_download_parent_class)->stop (trans);
}

static void
gst_cs_download_set_property (
    GObject * object, guint id, const GValue * value, GParamSpec * pspec)
{
  auto * self = GST_CS_DOWNLOAD (object);
  switch (id) {
    case PROP_MAX_IN_FLIGHT:
      GST_OBJECT_LOCK (self);
      self->max_in_flight = g_value_get_int (value);
      GST_OBJECT_UNLOCK (self);
      break;
    case PROP_SPIN_WAIT:
      GST_OBJECT_LOCK (self);
      self->spin_wait = g_value_get_boolean (value);
      GST_OBJECT_UNLOCK (self);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, id, pspec);
  }
}

static void
gst_cs_download_get_property (
    GObject * object, guint id, GValue * value, GParamSpec * pspec)
{
  auto * self = GST_CS_DOWNLOAD (object);
  switch (id) {
    case PROP_MAX_IN_FLIGHT:
      GST_OBJECT_LOCK (self);
      g_value_set_int (value, self->max_in_flight);
      GST_OBJECT_UNLOCK (self);
      break;
    case PROP_SPIN_WAIT:
      GST_OBJECT_LOCK (self);
      g_value_set_boolean (value, self->spin_wait);
      GST_OBJECT_UNLOCK (self);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, id, pspec);
  }
}

static void
gst_cs_download_finalize (GObject * object)
{
  auto * self = GST_CS_DOWNLOAD (object);
  delete self->frames;
  release_held (self);
  delete self->scratch;
  delete self->scratch_import;
  delete self->held;
  delete self->layouts;
  G_OBJECT_CLASS (gst_cs_download_parent_class)->finalize (object);
}

static void
gst_cs_download_class_init (GstCsDownloadClass * klass)
{
  GObjectClass * gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass * element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass * trans_class = GST_BASE_TRANSFORM_CLASS (klass);

  gst_cs::add_video_pad_templates (element_class, sink_caps, src_caps);
  gst_element_class_set_static_metadata (element_class, "CUDA stream download",
      "Filter/Video/Hardware",
      "Copies raw video from CUDA device memory to system memory, waiting "
      "only for its own copy of each frame",
      "gst-cudastreams developers");

  trans_class->passthrough_on_same_caps = FALSE;
  trans_class->transform_caps = GST_DEBUG_FUNCPTR (gst_cs_download_transform_caps);
  trans_class->propose_allocation =
      GST_DEBUG_FUNCPTR (gst_cs_download_propose_allocation);
  trans_class->decide_allocation = GST_DEBUG_FUNCPTR (gst_cs_download_decide_allocation);
  GST_CS_BASE_TRANSFORM_CLASS (klass)->submit_input_buffer =
      GST_DEBUG_FUNCPTR (gst_cs_download_submit_input_buffer);
  GST_CS_BASE_TRANSFORM_CLASS (klass)->generate_output =
      GST_DEBUG_FUNCPTR (gst_cs_download_generate_output);
  trans_class->transform = GST_DEBUG_FUNCPTR (gst_cs_download_transform);
  trans_class->sink_event = GST_DEBUG_FUNCPTR (gst_cs_download_sink_event);
  trans_class->src_event = GST_DEBUG_FUNCPTR (gst_cs_download_src_event);
  trans_class->query = GST_DEBUG_FUNCPTR (gst_cs_download_query);
  trans_class->stop = GST_DEBUG_FUNCPTR (gst_cs_download_stop);
  GST_CS_BASE_TRANSFORM_CLASS (klass)->set_info =
      GST_DEBUG_FUNCPTR (gst_cs_download_set_info);

  gobject_class->finalize = gst_cs_download_finalize;
  gobject_class->set_property = gst_cs_download_set_property;
  gobject_class->get_property = gst_cs_download_get_property;
  /**
   * GstCsDownload:max-in-flight:
   *
   * Frames whose copy may still be running (or that are not yet pushed)
   * while the element accepts the next one. Every frame leaves as soon as
   * its copy is done, whatever this is: it bounds how far upstream may run
   * ahead, not how long a frame waits. 0 accepts the next frame only once
   * this one has left; 2 or 3 overlap uploads and downloads and double the
   * throughput. -1 picks 2.
   *
   * Since: 0.1
   */
  g_object_class_install_property (gobject_class, PROP_MAX_IN_FLIGHT,
      g_param_spec_int ("max-in-flight", "Max in flight",
          "Frames whose copy may run while the next is taken (-1 = 2)", -1,
          MAX_IN_FLIGHT_LIMIT, DEFAULT_MAX_IN_FLIGHT,
          (GParamFlags)(G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
                        GST_PARAM_MUTABLE_PLAYING)));
  /**
   * GstCsDownload:spin-wait:
   *
   * How the CPU waits for each frame's copy: by default it polls for 30 µs,
   * then sleeps until the GPU signals the copy; with spin-wait it keeps
   * polling, a few microseconds less latency per frame for one busy core.
   *
   * Since: 0.1
   */
  g_object_class_install_property (gobject_class, PROP_SPIN_WAIT,
      g_param_spec_boolean ("spin-wait", "Spin wait",
          "Busy-wait for each frame's copy instead of sleeping", DEFAULT_SPIN_WAIT,
          (GParamFlags)(G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
                        GST_PARAM_MUTABLE_PLAYING)));

  GST_DEBUG_CATEGORY_INIT (
      gst_cs_download_debug, "csdownload", 0, "gst-cudastreams download");
}

static void
gst_cs_download_init (GstCsDownload * self)
{
  self->max_in_flight = DEFAULT_MAX_IN_FLIGHT;
  self->spin_wait = DEFAULT_SPIN_WAIT;
  self->frames =
      new gst_cs::FramesInFlight (GST_ELEMENT (self), GST_BASE_TRANSFORM_SRC_PAD (self),
          gst_cs_base_transform_get_waits (GST_CS_BASE_TRANSFORM (self)));
  self->scratch = new gst_cs::ScratchPool;
  self->scratch_import = new gst_cs::ScratchPool;
  /* Copies complete in order: the frames in flight, and one or two whose
   * completion is seen at the next frame. */
  self->held = new gst_cs::HeldBuffers (AUTO_IN_FLIGHT + 2);
  self->layouts = new gst_cs::FrameLayouts;
}

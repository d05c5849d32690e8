/* SPDX-License-Identifier: LGPL-2.1-or-later */
/**
 * SECTION:element-cudaupload
 * @title: cudaupload
 *
 * Copies raw video from system memory into CUDA device memory
 * (memory:CUDAStreamsMemory) on a CUDA stream leased from the shared pool.
 * The copy is enqueued, an event is recorded after it and attached to the
 * buffer (#GstCsSyncMeta), and the buffer is pushed at once.
 *
 * Upstream is offered a pool of pinned host memory in the ALLOCATION query:
 * a producer that writes into it gets truly asynchronous copies at the PCIe
 * rate, and the element never waits for the GPU. Other input never costs a
 * host wait in steady state either:
 *
 * - memory an upstream pool hands back again and again (GStreamer system
 *   memory) is page-locked (cudaHostRegister) the second time it is seen and
 *   stays so while it lives (#GstCsUpload:max-registered-bytes bounds it);
 *   the copy engine reads it directly;
 * - page-locked memory, registered here or elsewhere, is read directly and
 *   the input buffer is kept until the copy has completed (checked without
 *   blocking as frames go by), so its producer cannot rewrite it early. The
 *   ALLOCATION query asks upstream for 3 more buffers; a bounded upstream
 *   pool is never left without one, and memory no bounded pool owns is kept
 *   as far as downstream lets the GPU run behind;
 * - any other memory is copied by a few threads (#GstCsUpload:copy-threads)
 *   into pinned staging, and the copy engine reads the staging. Where the
 *   driver lets a stream wait on host memory (cuStreamWaitValue32), the
 *   stream waits for the threads and the frame is pushed at once, while its
 *   pixels are still being copied: the CPU copy overlaps the DMAs and the
 *   rest of the pipeline, and the threads let go of the input when they have
 *   read it (at most two frames behind). Elsewhere the element returns when
 *   the threads are done.
 *
 * Input strides and offsets (#GstVideoMeta) are honoured, and so is a
 * #GstVideoCropMeta: only the region it marks is copied. Buffers already in
 * device memory pass through; those of another device are copied to this
 * one first.
 *
 * ## Example
 * |[
 * gst-launch-1.0 videotestsrc ! cudaupload ! cudadownload ! autovideosink
 * ]|
 *
 * Since: 0.1
 */
#include "gstcsupload.h"

#include "gstcsbufferpool-private.h"
#include "base/gstcscaps.h"
#include "base/gstcsformats.hpp"
#include "crop/gstcscropcopy.hpp"
#include "gstcsdeviceguard.hpp"
#include "gstcserror-private.h"
#include "base/gstcsframe.hpp"
#include "base/gstcsframespan.hpp"
#include "base/gstcsheldbuffers.hpp"
#include "upload/gstcshostregistry.hpp"
#include "gstcshostwait-private.h"
#include "gstcsmemory.h"
#include "nvcodec/gstcsnvcodec.hpp"
#include "base/gstcspeerimport.hpp"
#include "gstcspinnedmemory-private.h"
#include "upload/gstcsstagedcopy.hpp"
#include "gstcssyncmeta-private.h"

GST_DEBUG_CATEGORY_STATIC (gst_cs_upload_debug);
#define GST_CAT_DEFAULT gst_cs_upload_debug

#define DEVICE_POOL_MIN_BUFFERS 4
#define PINNED_POOL_MIN_BUFFERS 3
/* Input buffers kept while a copy reads them, as proposed upstream: a copy
 * completes within a frame or two, so three leave the GPU room to run
 * behind. */
#define HELD_INPUT_BUFFERS 3
/* Page-locked memory is taken from the whole system: enough for a decoder's
 * or camera's pool of 4K RGBA frames (16 x 33 MB). */
#define DEFAULT_MAX_REGISTERED_BYTES (G_GUINT64_CONSTANT (512) << 20)
#define DEFAULT_COPY_THREADS 0
#define MAX_COPY_THREADS 64

enum {
  PROP_0,
  PROP_COPY_THREADS,
  PROP_MAX_REGISTERED_BYTES,
  PROP_REGISTRATIONS,
  PROP_UNREGISTRATIONS,
  PROP_REGISTERED_BYTES,
};

struct _GstCsUpload {
  GstCsBaseTransform parent;
  gst_cs::ScratchPool * scratch;   /* intermediate frames and copies across devices */
  gst_cs::HostRegistry * registry; /* recurring system memory, page-locked */
  gst_cs::HeldBuffers * held;      /* page-locked input a copy still reads */
  gst_cs::StagedCopy * staged;     /* the rest, through pinned staging */
  guint hold_depth;                /* input kept where no bounded pool owns it */
  GstBufferPool * upstream_pool;   /* the last input's pool, and its */
  guint upstream_pool_max;         /* maximum (0: unbounded) */
  gint copy_threads;               /* atomic */
  gboolean out_nvcodec;            /* output in nvcodec's memory */
};

G_DEFINE_TYPE (GstCsUpload, gst_cs_upload, GST_TYPE_CS_BASE_TRANSFORM);

/* The templates' formats are those of gst_cs::video_formats(), set in
 * class_init. */
static const gchar sink_caps[] =
    GST_CS_VIDEO_SYSTEM_CAPS "; " GST_CS_VIDEO_DEVICE_CAPS GST_CS_VIDEO_SYSTEM_FIELD_CAPS
        GST_CS_VIDEO_DEVICE_FIELD_CAPS;

/* nvcodec's memory for a downstream that takes nothing else; ours first. */
static const gchar src_caps[] = GST_CS_VIDEO_DEVICE_CAPS GST_CS_VIDEO_DEVICE_FIELD_CAPS
    GST_CS_VIDEO_NVCODEC_CAPS GST_CS_VIDEO_NVCODEC_FIELD_CAPS;

static GstCaps *
gst_cs_upload_transform_caps (
    GstBaseTransform *, GstPadDirection direction, GstCaps * caps, GstCaps * filter)
{
  GstCaps * out = gst_caps_new_empty ();
  for (guint i = 0; i < gst_caps_get_size (caps); i++) {
    GstCaps * one = gst_caps_copy_nth (caps, i);
    const gboolean ours = gst_cs_caps_are_device (one);
    if (direction == GST_PAD_SINK) {
      /* ours in: passed through; system memory in: uploaded into ours, or
       * into nvcodec's (after ours: preferred where both are taken) */
      out = gst_caps_merge (out, gst_cs_caps_with_memory (one, TRUE, NULL));
      if (!ours)
        out = gst_caps_merge (out, gst_cs::caps_in_nvcodec_memory (one));
    } else if (gst_cs::caps_are_nvcodec (one)) {
      out = gst_caps_merge (out, gst_cs_caps_with_memory (one, FALSE, NULL));
    } else { /* ours out: ours in (passthrough, preferred) or system memory */
      out = gst_caps_merge (out, gst_cs_caps_any_memory (one, NULL));
    }
    gst_caps_unref (one);
  }
  return gst_cs_caps_apply_filter (out, filter);
}

static gboolean
gst_cs_upload_set_info (GstCsBaseTransform * base, GstCaps * incaps, GstVideoInfo *,
    GstCaps * outcaps, GstVideoInfo *)
{
  gst_base_transform_set_passthrough (
      GST_BASE_TRANSFORM (base), gst_cs_caps_are_device (incaps));
  GST_CS_UPLOAD (base)->out_nvcodec = gst_cs::caps_are_nvcodec (outcaps);
  /* New caps, maybe a pool reconfigured: its bound is read again. */
  gst_clear_object (&GST_CS_UPLOAD (base)->upstream_pool);
  GST_DEBUG_OBJECT (base, "%" GST_PTR_FORMAT " -> %" GST_PTR_FORMAT, incaps, outcaps);
  return TRUE;
}

static gboolean
gst_cs_upload_propose_allocation (
    GstBaseTransform * trans, GstQuery * decide_query, GstQuery * query)
{
  /* Passes on the metas downstream takes (a crop meta among them: it is
   * honoured here). */
  if (!GST_BASE_TRANSFORM_CLASS (gst_cs_upload_parent_class)
           ->propose_allocation (trans, decide_query, query))
    return FALSE;
  if (gst_base_transform_is_passthrough (trans))
    return TRUE;

  GstCaps * caps = NULL;
  gboolean need_pool = FALSE;
  gst_query_parse_allocation (query, &caps, &need_pool);
  GstVideoInfo info;
  if (!caps || !gst_video_info_from_caps (&info, caps))
    return FALSE;
  /* Any plane layout, and only the region a crop meta marks is copied. */
  gst_cs_query_add_layout_metas (query);

  /* Pinned memory lets the copy engine read the producer's pixels directly. */
  GstAllocator * pinned = gst_cs_pinned_allocator_get ();
  gst_query_add_allocation_param (query, pinned, NULL);
  if (need_pool) {
    GstBufferPool * pool = gst_cs_pinned_buffer_pool_new ();
    GstStructure * config = gst_buffer_pool_get_config (pool);
    gst_buffer_pool_config_set_params (
        config, caps, info.size, PINNED_POOL_MIN_BUFFERS, 0);
    gst_buffer_pool_config_set_allocator (config, pinned, NULL);
    gst_buffer_pool_config_add_option (config, GST_BUFFER_POOL_OPTION_VIDEO_META);
    if (gst_buffer_pool_set_config (pool, config))
      gst_query_add_allocation_pool (query, pool, info.size, PINNED_POOL_MIN_BUFFERS, 0);
    gst_object_unref (pool);
  }
  gst_object_unref (pinned);
  /* Page-locked input from upstream's own pool stays with us until its
   * copy has completed: a pool with fewer would leave upstream waiting. */
  gst_cs_query_propose_held (query, HELD_INPUT_BUFFERS, 0);
  return TRUE;
}

/* Frames in nvcodec's memory, for a downstream that takes only those. */
static gboolean
decide_nvcodec_pool (GstCsUpload * self, GstQuery * query, GstCaps * caps,
    const GstVideoInfo * info, gint device, guint min, guint max)
{
  GError * err = NULL;
  GstBufferPool * pool =
      gst_cs::nvcodec_pool_new (device, caps, info->size, min, max, query, &err);
  if (!pool || !gst_buffer_pool_set_active (pool, TRUE)) {
    if (!err)
      err = g_error_new (GST_CS_ERROR, GST_CS_ERROR_CUDA,
          "Cannot activate nvcodec's buffer pool for %" GST_PTR_FORMAT, caps);
    GST_CS_POST_ERROR (self, err, "Cannot allocate frames in nvcodec's memory");
    if (pool)
      gst_object_unref (pool);
    return FALSE;
  }
  gst_cs_query_set_pool (query, pool, info->size, min, max);
  gst_object_unref (pool);
  return TRUE;
}

static gboolean
gst_cs_upload_decide_allocation (GstBaseTransform * trans, GstQuery * query)
{
  auto * self = GST_CS_UPLOAD (trans);
  GstCaps * caps = NULL;
  GstVideoInfo info;
  if (!gst_cs_query_parse_video_info (query, &caps, &info))
    return FALSE;

  /* Downstream's, one being written, one spare. */
  guint dmin = 0, dbound = 0;
  gst_cs_query_parse_held (query, &dmin, &dbound);
  guint min = MAX (DEVICE_POOL_MIN_BUFFERS, dmin + 2);
  guint max = gst_cs_pool_bound (min, dbound, 2);
  /* The GPU runs behind us by what downstream keeps in flight, and one
   * more: input it still reads. */
  self->hold_depth = MAX (HELD_INPUT_BUFFERS, dmin + 2);
  gint device = gst_cs_base_transform_get_device (GST_CS_BASE_TRANSFORM (self));
  if (self->out_nvcodec)
    return decide_nvcodec_pool (self, query, caps, &info, device, min, max);
  GstBufferPool * pool = gst_cs_buffer_pool_new (device);
  GstStructure * config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_set_params (config, caps, info.size, min, max);
  gst_buffer_pool_config_add_option (config, GST_BUFFER_POOL_OPTION_VIDEO_META);
  if (!gst_buffer_pool_set_config (pool, config) ||
      !gst_buffer_pool_set_active (pool, TRUE)) {
    GError * err = gst_cs_buffer_pool_take_error (GST_CS_BUFFER_POOL (pool));
    if (!err)
      err = g_error_new (GST_CS_ERROR, GST_CS_ERROR_CUDA,
          "Cannot configure a device buffer pool for %" GST_PTR_FORMAT, caps);
    GST_CS_POST_ERROR (self, err, "Cannot allocate device frames");
    gst_object_unref (pool);
    return FALSE;
  }
  gst_cs_query_set_pool (query, pool, info.size, min, max);
  gst_object_unref (pool);
  return TRUE;
}

/* How the copy engine can read the input's host memory. */
enum class HostMemory {
  OUR_POOL, /* pinned, of our pinned pool: it waits for our copy before reuse */
  PINNED,   /* page-locked elsewhere or registered here: read directly, and
               the buffer is held until the copy has completed */
  STAGED,   /* pageable: copied through pinned staging, let go at once */
};

static HostMemory
classify_input (GstCsUpload * self, GstBuffer * inbuf, const guint8 * data, gint device)
{
  /* Only the pool knows to wait before handing the memory out again: the
   * pinned allocator alone is no guarantee (a producer may keep its own ring
   * of pinned buffers). */
  if (inbuf->pool && GST_IS_CS_PINNED_BUFFER_POOL (inbuf->pool) &&
      gst_buffer_n_memory (inbuf) == 1 &&
      gst_is_cs_pinned_memory (gst_buffer_peek_memory (inbuf, 0)))
    return HostMemory::OUR_POOL;
  /* Several memories map to a merged copy: one-shot by nature. */
  if (gst_buffer_n_memory (inbuf) == 1 &&
      self->registry->registered (gst_buffer_peek_memory (inbuf, 0), data, device))
    return HostMemory::PINNED;
  cudaPointerAttributes attr;
  if (cudaPointerGetAttributes (&attr, data) != cudaSuccess) {
    (void)cudaGetLastError ();
    return HostMemory::STAGED;
  }
  return attr.type == cudaMemoryTypeHost ? HostMemory::PINNED : HostMemory::STAGED;
}

/* Enqueues the copy of `geometry`'s planes from host to device memory: the
 * copy engine reads pinned memory itself; pageable memory goes through
 * staging. `span`'s work begins with the copy engine's (for staging: once
 * the stream has waited for the copy threads). */
static gboolean
copy_in (GstCsUpload * self, const std::shared_ptr<gst_cs::MappedInput> & input,
    const gst_cs::Planes & src, const gst_cs::Planes & dst, const GstVideoInfo * geometry,
    HostMemory kind, cudaStream_t stream, gst_cs::FrameSpan & span, GError ** err)
{
  auto * base = GST_CS_BASE_TRANSFORM (self);
  if (kind != HostMemory::STAGED) {
    span.work_begins ();
    return gst_cs::copy_planes (src, dst, geometry, cudaMemcpyHostToDevice, stream, err);
  }
  self->staged->set_threads ((guint)g_atomic_int_get (&self->copy_threads));
  return self->staged->copy (input, src, dst, geometry,
      gst_cs_base_transform_get_device (base), stream,
      gst_cs_base_transform_get_waits (base), span, err);
}

/* Enqueues the copy of the input's visible region (all of it, or what its
 * crop meta marks) into the device frame of `outbuf`. */
static gboolean
upload_region (GstCsUpload * self, const std::shared_ptr<gst_cs::MappedInput> & input,
    const gst_cs::Region & region, GstBuffer * outbuf, cudaStream_t stream,
    HostMemory kind, gst_cs::FrameSpan & span, GError ** err)
{
  auto * base = GST_CS_BASE_TRANSFORM (self);
  guint8 * data = input->data ();
  const GstVideoInfo * info = &base->in_info;
  GstVideoInfo dst_layout;
  gst_cs::DeviceMapping out;
  if (!gst_cs::buffer_layout (
          outbuf, info, &dst_layout, gst_buffer_get_size (outbuf), err) ||
      !out.map (outbuf, GST_MAP_WRITE, gst_cs_base_transform_get_device (base), stream,
          gst_cs_base_transform_get_waits (base), err))
    return FALSE;
  guint8 * dst = out.data ();
  if (region.offsets_only)
    return copy_in (self, input, gst_cs::region_planes (data, region),
        gst_cs::planes_at (dst, &dst_layout), info, kind, stream, span, err);

  /* Packed 4:2:2 cropped at an odd column by a crop meta: plane offsets
   * cannot express it. Upload the whole picture (an alternate field's
   * lines), then copy the region on the GPU as videocrop copies it. */
  GstVideoInfo whole;
  gst_video_info_set_format (&whole, GST_VIDEO_INFO_FORMAT (&region.frame),
      GST_VIDEO_INFO_WIDTH (&region.frame), GST_VIDEO_INFO_FIELD_HEIGHT (&region.frame));
  GstBuffer * staged =
      self->scratch->frame (gst_cs_base_transform_get_device (base), &whole, err);
  if (!staged)
    return FALSE;
  GstVideoInfo staged_layout;
  guint8 * mid = gst_cs_memory_get_device_pointer (gst_buffer_peek_memory (staged, 0));
  gboolean ok =
      gst_cs::buffer_layout (
          staged, &whole, &staged_layout, gst_buffer_get_size (staged), err) &&
      copy_in (self, input, gst_cs::planes_at (data, &region.frame),
          gst_cs::planes_at (mid, &staged_layout), &whole, kind, stream, span, err) &&
      gst_cs::launch_region_copy (
          mid, gst_cs::region_in (region, &staged_layout), dst, &dst_layout, stream, err);
  /* Written and read on our stream only: stream order protects its reuse. */
  gst_buffer_unref (staged);
  return ok;
}

/* How many page-locked input buffers to keep while copies read them. A
 * bounded upstream pool counts on what we proposed, and on one left for
 * itself: with all of its buffers here it would wait for one for ever (we
 * let go only as frames come). Memory no bounded pool owns starves no one:
 * it is kept as long as the GPU reads it, which is as far as downstream
 * lets the GPU run behind. */
static guint
hold_limit (GstCsUpload * self, GstBuffer * inbuf)
{
  if (!inbuf->pool)
    return self->hold_depth;
  if (inbuf->pool != self->upstream_pool) {
    /* Read once per pool, not per frame (a config is a structure copy). */
    gst_object_replace ((GstObject **)&self->upstream_pool, (GstObject *)inbuf->pool);
    GstStructure * config = gst_buffer_pool_get_config (inbuf->pool);
    self->upstream_pool_max = 0;
    gst_buffer_pool_config_get_params (
        config, NULL, NULL, NULL, &self->upstream_pool_max);
    gst_structure_free (config);
  }
  if (self->upstream_pool_max == 0)
    return self->hold_depth;
  return MIN (self->upstream_pool_max - 1, (guint)HELD_INPUT_BUFFERS);
}

static GstFlowReturn
gst_cs_upload_transform (GstBaseTransform * trans, GstBuffer * inbuf, GstBuffer * outbuf)
{
  auto * self = GST_CS_UPLOAD (trans);
  auto * base = GST_CS_BASE_TRANSFORM (self);
  const gint device = gst_cs_base_transform_get_device (base);
  cudaStream_t stream = gst_cs_base_transform_get_stream (base);
  GstCsWaitCounter * waits = gst_cs_base_transform_get_waits (base);
  GError * err = NULL;
  gst_cs::DeviceGuard guard (device, &err);
  if (!guard.ok ()) {
    GST_CS_POST_ERROR (self, err, "Cannot use the CUDA device");
    return GST_FLOW_ERROR;
  }
  gst_cs::FrameSpan span (base, inbuf, outbuf);
  /* Kept mapped by the copy threads of a staged copy until they have read
   * it, which may be after this returns. */
  std::shared_ptr<gst_cs::MappedInput> input = gst_cs::MappedInput::map (inbuf);
  if (!input) {
    GST_ELEMENT_ERROR (self, RESOURCE, READ, ("Cannot map the input buffer"), (NULL));
    return GST_FLOW_ERROR;
  }
  /* Lets go of earlier input whose copies have completed (never blocks). */
  self->held->release_done ();
  const HostMemory kind = classify_input (self, inbuf, input->data (), device);
  gst_cs::Region region;
  gboolean ok =
      gst_cs::locate_visible (inbuf, &base->in_info, input->size (), &region, &err) &&
      gst_cs_buffer_wait_writable (outbuf, stream, &err);
  if (ok) {
    ok = upload_region (self, input, region, outbuf, stream, kind, span, &err);
    span.work_ends ();
  }
  /* The event is also the copy's read of the input: our pinned pool waits
   * for it before the producer reuses that memory. */
  GstCsSyncMeta * meta =
      ok ? gst_cs_sync_meta_record_read (outbuf, inbuf, device, stream, &err) : NULL;
  if (meta) {
    /* Any other page-locked memory goes back to a producer that knows
     * nothing of our events: it stays here until the copy has read it. */
    const guint limit = hold_limit (self, inbuf);
    if (kind == HostMemory::PINNED) {
      self->held->set_capacity (limit);
      ok = self->held->hold (inbuf, device, stream, waits, &err);
    }
    /* A bounded pool's buffers that the copy threads still read count too. */
    if (ok && inbuf->pool && self->upstream_pool_max)
      self->staged->finish_reading_to (limit - MIN (limit, self->held->size ()));
    /* Into nvcodec's memory: its stream waits for ours (1.24+), or, for
     * 1.22, which reads what it gets at once, the one host wait of this
     * edge. */
    if (ok)
      ok = gst_cs::publish_to_nvcodec (outbuf, meta->event, waits, &err);
  }
  input.reset ();
  if (!ok || !meta) {
    GST_CS_POST_ERROR (self, err, "Cannot upload a frame");
    return GST_FLOW_ERROR;
  }
  return GST_FLOW_OK;
}

/* Device input passes through, unless it lives on another device: then it is
 * copied across (the policy for frames from another device). */
static GstFlowReturn
gst_cs_upload_prepare_output_buffer (
    GstBaseTransform * trans, GstBuffer * inbuf, GstBuffer ** outbuf)
{
  auto * self = GST_CS_UPLOAD (trans);
  auto * base = GST_CS_BASE_TRANSFORM (self);
  const gint device = gst_cs_base_transform_get_device (base);
  if (!gst_base_transform_is_passthrough (trans) ||
      !gst_cs::on_other_device (inbuf, device))
    return GST_BASE_TRANSFORM_CLASS (gst_cs_upload_parent_class)
        ->prepare_output_buffer (trans, inbuf, outbuf);
  GError * err = NULL;
  gst_cs::DeviceGuard guard (device, &err);
  if (!guard.ok () || !gst_cs::import_from_other_device (inbuf, device,
                          gst_cs_base_transform_get_stream (base), *self->scratch,
                          gst_cs_base_transform_get_waits (base), outbuf, &err)) {
    GST_CS_POST_ERROR (self, err, "Cannot copy a frame from another CUDA device");
    return GST_FLOW_ERROR;
  }
  return GST_FLOW_OK;
}

static gboolean
gst_cs_upload_stop (GstBaseTransform * trans)
{
  auto * self = GST_CS_UPLOAD (trans);
  auto * base = GST_CS_BASE_TRANSFORM (self);
  GError * err = NULL;
  gboolean ok = TRUE;
  {
    gst_cs::DeviceGuard guard (gst_cs_base_transform_get_device (base), NULL);
    /* Input and staging the GPU may still read: waited for (counted).
     * Both, whichever fails: the staging's threads end here too. */
    GstCsWaitCounter * waits = gst_cs_base_transform_get_waits (base);
    ok = self->held->drain (waits, &err);
    ok = self->staged->reset (waits, ok ? &err : NULL) && ok;
  }
  self->scratch->reset ();
  gst_clear_object (&self->upstream_pool);
  if (!ok)
    GST_CS_POST_ERROR (self, err, "Cannot finish the uploads in flight");
  return GST_BASE_TRANSFORM_CLASS (gst_cs_upload_parent_class)->stop (trans) && ok;
}

static void
gst_cs_upload_set_property (
    GObject * object, guint id, const GValue * value, GParamSpec * pspec)
{
  auto * self = GST_CS_UPLOAD (object);
  switch (id) {
    case PROP_COPY_THREADS:
      g_atomic_int_set (&self->copy_threads, (gint)g_value_get_uint (value));
      break;
    case PROP_MAX_REGISTERED_BYTES:
      self->registry->set_max_bytes (g_value_get_uint64 (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, id, pspec);
  }
}

static void
gst_cs_upload_get_property (
    GObject * object, guint id, GValue * value, GParamSpec * pspec)
{
  auto * self = GST_CS_UPLOAD (object);
  switch (id) {
    case PROP_COPY_THREADS:
      g_value_set_uint (value, (guint)g_atomic_int_get (&self->copy_threads));
      break;
    case PROP_MAX_REGISTERED_BYTES:
      g_value_set_uint64 (value, self->registry->max_bytes ());
      break;
    case PROP_REGISTRATIONS:
      g_value_set_uint64 (value, self->registry->registrations ());
      break;
    case PROP_UNREGISTRATIONS:
      g_value_set_uint64 (value, self->registry->unregistrations ());
      break;
    case PROP_REGISTERED_BYTES:
      g_value_set_uint64 (value, self->registry->bytes ());
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, id, pspec);
  }
}

static void
gst_cs_upload_finalize (GObject * object)
{
  auto * self = GST_CS_UPLOAD (object);
  gst_clear_object (&self->upstream_pool);
  delete self->staged;
  delete self->held;
  delete self->registry;
  delete self->scratch;
  G_OBJECT_CLASS (gst_cs_upload_parent_class)->finalize (object);
}

static void
install_properties (GObjectClass * gobject_class)
{
  /**
   * GstCsUpload:copy-threads:
   *
   * Threads copying pageable input into pinned staging. 0 picks half of
   * the CPU cores, at least 1 and at most 8 (a copy is bound by memory
   * bandwidth, not by cores): 1 on a 2-core machine, 8 on 16 cores or more.
   * Copying a 4K RGBA frame costs about 7 ms of CPU time in all, whatever
   * the number (measured on an H200 host, 2026-11-21).
   *
   * Since: 0.3
   */
  g_object_class_install_property (gobject_class, PROP_COPY_THREADS,
      g_param_spec_uint ("copy-threads", "Copy threads",
          "Threads copying pageable input to pinned staging (0 = half the cores, 1-8)", 0,
          MAX_COPY_THREADS, DEFAULT_COPY_THREADS,
          (GParamFlags)(G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
                        GST_PARAM_MUTABLE_PLAYING)));
  /**
   * GstCsUpload:max-registered-bytes:
   *
   * The most bytes of upstream memory this element keeps page-locked
   * (cudaHostRegister) at once. Memory past the bound is copied through
   * staging instead; 0 registers nothing.
   *
   * Since: 0.3
   */
  g_object_class_install_property (gobject_class, PROP_MAX_REGISTERED_BYTES,
      g_param_spec_uint64 ("max-registered-bytes", "Max registered bytes",
          "Most bytes of recurring upstream memory kept page-locked at once", 0,
          G_MAXUINT64, DEFAULT_MAX_REGISTERED_BYTES,
          (GParamFlags)(G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
                        GST_PARAM_MUTABLE_PLAYING)));
  /**
   * GstCsUpload:registrations:
   *
   * Upstream memories this element has page-locked so far.
   *
   * Since: 0.3
   */
  g_object_class_install_property (gobject_class, PROP_REGISTRATIONS,
      g_param_spec_uint64 ("registrations", "Registrations",
          "Upstream memories page-locked so far", 0, G_MAXUINT64, 0,
          (GParamFlags)(G_PARAM_READABLE | G_PARAM_STATIC_STRINGS)));
  /**
   * GstCsUpload:unregistrations:
   *
   * Memories of #GstCsUpload:registrations unlocked again, each when it was
   * freed (which may be after the element is gone).
   *
   * Since: 0.3
   */
  g_object_class_install_property (gobject_class, PROP_UNREGISTRATIONS,
      g_param_spec_uint64 ("unregistrations", "Unregistrations",
          "Page-locked upstream memories unlocked when freed", 0, G_MAXUINT64, 0,
          (GParamFlags)(G_PARAM_READABLE | G_PARAM_STATIC_STRINGS)));
  /**
   * GstCsUpload:registered-bytes:
   *
   * Bytes of upstream memory this element keeps page-locked now.
   *
   * Since: 0.3
   */
  g_object_class_install_property (gobject_class, PROP_REGISTERED_BYTES,
      g_param_spec_uint64 ("registered-bytes", "Registered bytes",
          "Bytes of upstream memory page-locked now", 0, G_MAXUINT64, 0,
          (GParamFlags)(G_PARAM_READABLE | G_PARAM_STATIC_STRINGS)));
}

static void
gst_cs_upload_class_init (GstCsUploadClass * klass)
{
  GstElementClass * element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass * trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  GstCsBaseTransformClass * base_class = GST_CS_BASE_TRANSFORM_CLASS (klass);

  GObjectClass * gobject_class = G_OBJECT_CLASS (klass);
  gobject_class->set_property = gst_cs_upload_set_property;
  gobject_class->get_property = gst_cs_upload_get_property;
  gobject_class->finalize = gst_cs_upload_finalize;
  install_properties (gobject_class);
  gst_cs::add_video_pad_templates (element_class, sink_caps, src_caps);
  gst_element_class_set_static_metadata (element_class, "CUDA stream upload",
      "Filter/Video/Hardware",
      "Copies raw video into CUDA device memory on a pooled CUDA stream, "
      "without blocking the CPU",
      "gst-cudastreams developers");

  trans_class->passthrough_on_same_caps = FALSE;
  trans_class->transform_caps = GST_DEBUG_FUNCPTR (gst_cs_upload_transform_caps);
  trans_class->propose_allocation = GST_DEBUG_FUNCPTR (gst_cs_upload_propose_allocation);
  trans_class->decide_allocation = GST_DEBUG_FUNCPTR (gst_cs_upload_decide_allocation);
  trans_class->prepare_output_buffer =
      GST_DEBUG_FUNCPTR (gst_cs_upload_prepare_output_buffer);
  trans_class->transform = GST_DEBUG_FUNCPTR (gst_cs_upload_transform);
  trans_class->stop = GST_DEBUG_FUNCPTR (gst_cs_upload_stop);
  base_class->set_info = GST_DEBUG_FUNCPTR (gst_cs_upload_set_info);

  GST_DEBUG_CATEGORY_INIT (gst_cs_upload_debug, "csupload", 0, "gst-cudastreams upload");
}

static void
gst_cs_upload_init (GstCsUpload * self)
{
  self->scratch = new gst_cs::ScratchPool;
  self->registry = new gst_cs::HostRegistry;
  self->registry->set_max_bytes (DEFAULT_MAX_REGISTERED_BYTES);
  self->held = new gst_cs::HeldBuffers (HELD_INPUT_BUFFERS);
  self->hold_depth = HELD_INPUT_BUFFERS;
  self->staged = new gst_cs::StagedCopy;
  self->copy_threads = DEFAULT_COPY_THREADS;
}

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
 * rate, and the element never waits for the GPU. Input in other pinned
 * memory costs one host wait per frame for its copy (the element cannot
 * know when its producer rewrites it); from pageable memory, CUDA itself
 * waits for the stream before each plane's copy, which the "host-waits"
 * property counts.
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
#include "gstcscaps.h"
#include "gstcscropcopy.hpp"
#include "gstcsdeviceguard.hpp"
#include "gstcserror-private.h"
#include "gstcsframe.hpp"
#include "gstcshostwait-private.h"
#include "gstcsmemory.h"
#include "gstcsnvcodec.hpp"
#include "gstcspeerimport.hpp"
#include "gstcspinnedmemory-private.h"
#include "gstcssyncmeta-private.h"

GST_DEBUG_CATEGORY_STATIC (gst_cs_upload_debug);
#define GST_CAT_DEFAULT gst_cs_upload_debug

#define DEVICE_POOL_MIN_BUFFERS 4
#define PINNED_POOL_MIN_BUFFERS 3

struct _GstCsUpload {
  GstCsBaseTransform parent;
  gst_cs::ScratchPool * scratch; /* intermediate frames and copies across devices */
  gboolean out_nvcodec;          /* output in nvcodec's memory */
};

G_DEFINE_TYPE (GstCsUpload, gst_cs_upload, GST_TYPE_CS_BASE_TRANSFORM);
GST_ELEMENT_REGISTER_DEFINE (cudaupload, "cudaupload", GST_RANK_NONE, GST_TYPE_CS_UPLOAD);

static GstStaticPadTemplate sink_template =
    GST_STATIC_PAD_TEMPLATE ("sink", GST_PAD_SINK, GST_PAD_ALWAYS,
        GST_STATIC_CAPS (GST_CS_VIDEO_SYSTEM_CAPS "; " GST_CS_VIDEO_DEVICE_CAPS));

/* nvcodec's memory for a downstream that takes nothing else; ours first. */
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src", GST_PAD_SRC,
    GST_PAD_ALWAYS, GST_STATIC_CAPS (GST_CS_VIDEO_DEVICE_CAPS GST_CS_VIDEO_NVCODEC_CAPS));

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
  if (filter) {
    GstCaps * tmp = gst_caps_intersect_full (filter, out, GST_CAPS_INTERSECT_FIRST);
    gst_caps_unref (out);
    out = tmp;
  }
  return out;
}

static gboolean
gst_cs_upload_set_info (GstCsBaseTransform * base, GstCaps * incaps, GstVideoInfo *,
    GstCaps * outcaps, GstVideoInfo *)
{
  gst_base_transform_set_passthrough (
      GST_BASE_TRANSFORM (base), gst_cs_caps_are_device (incaps));
  GST_CS_UPLOAD (base)->out_nvcodec = gst_cs::caps_are_nvcodec (outcaps);
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
  return TRUE;
}

/* Frames in nvcodec's memory, for a downstream that takes only those. */
static gboolean
decide_nvcodec_pool (GstCsUpload * self, GstQuery * query, GstCaps * caps,
    const GstVideoInfo * info, gint device, guint min, guint max)
{
  GError * err = NULL;
  GstBufferPool * pool =
      gst_cs::nvcodec_pool_new (device, caps, info->size, min, max, &err);
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
  gst_query_parse_allocation (query, &caps, NULL);
  GstVideoInfo info;
  if (!caps || !gst_video_info_from_caps (&info, caps))
    return FALSE;

  /* Downstream's, one being written, one spare. */
  guint dmin = 0, dbound = 0;
  gst_cs_query_parse_held (query, &dmin, &dbound);
  guint min = MAX (DEVICE_POOL_MIN_BUFFERS, dmin + 2);
  guint max = gst_cs_pool_bound (min, dbound, 2);
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
  PINNED,   /* pinned elsewhere: read asynchronously, and its owner may rewrite
               it as soon as we let go, so we wait for the copy (counted) */
  PAGEABLE, /* CUDA stages it, and waits for the stream first (counted) */
};

static HostMemory
classify_input (GstBuffer * inbuf, const guint8 * data)
{
  /* Only the pool knows to wait before handing the memory out again: the
   * pinned allocator alone is no guarantee (a producer may keep its own ring
   * of pinned buffers). */
  if (inbuf->pool && GST_IS_CS_PINNED_BUFFER_POOL (inbuf->pool) &&
      gst_buffer_n_memory (inbuf) == 1 &&
      gst_is_cs_pinned_memory (gst_buffer_peek_memory (inbuf, 0)))
    return HostMemory::OUR_POOL;
  cudaPointerAttributes attr;
  if (cudaPointerGetAttributes (&attr, data) != cudaSuccess) {
    (void)cudaGetLastError ();
    return HostMemory::PAGEABLE;
  }
  return attr.type == cudaMemoryTypeHost ? HostMemory::PINNED : HostMemory::PAGEABLE;
}

/* Enqueues the copy of the input's visible region (all of it, or what its
 * crop meta marks) into the device frame of `outbuf`. */
static gboolean
upload_region (GstCsUpload * self, guint8 * data, const gst_cs::Region & region,
    GstBuffer * outbuf, cudaStream_t stream, GstCsWaitCounter * pageable, GError ** err)
{
  auto * base = GST_CS_BASE_TRANSFORM (self);
  const GstVideoInfo * info = &base->in_info;
  GstVideoInfo dst_layout;
  gst_cs::DeviceMapping out;
  if (!gst_cs::buffer_layout (
          outbuf, info, &dst_layout, gst_buffer_get_size (outbuf), err) ||
      !out.map (
          outbuf, GST_MAP_WRITE, gst_cs_base_transform_get_device (base), NULL, err))
    return FALSE;
  guint8 * dst = out.data ();
  if (region.offsets_only)
    return gst_cs::copy_planes (gst_cs::region_planes (data, region),
        gst_cs::planes_at (dst, &dst_layout), info, cudaMemcpyHostToDevice, stream, err,
        pageable);

  /* Packed 4:2:2 cropped at an odd column by a crop meta: plane offsets
   * cannot express it. Upload the whole frame, then copy the region on the
   * GPU as videocrop copies it. */
  GstVideoInfo whole;
  gst_video_info_set_format (&whole, GST_VIDEO_INFO_FORMAT (&region.frame),
      GST_VIDEO_INFO_WIDTH (&region.frame), GST_VIDEO_INFO_HEIGHT (&region.frame));
  GstBuffer * staged =
      self->scratch->frame (gst_cs_base_transform_get_device (base), &whole, err);
  if (!staged)
    return FALSE;
  GstVideoInfo staged_layout;
  guint8 * mid = gst_cs_memory_get_device_pointer (gst_buffer_peek_memory (staged, 0));
  gboolean ok =
      gst_cs::buffer_layout (
          staged, &whole, &staged_layout, gst_buffer_get_size (staged), err) &&
      gst_cs::copy_planes (gst_cs::planes_at (data, &region.frame),
          gst_cs::planes_at (mid, &staged_layout), &whole, cudaMemcpyHostToDevice, stream,
          err, pageable) &&
      gst_cs::launch_region_copy (
          mid, gst_cs::region_in (region, &staged_layout), dst, &dst_layout, stream, err);
  /* Written and read on our stream only: stream order protects its reuse. */
  gst_buffer_unref (staged);
  return ok;
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
  GstMapInfo map;
  if (!gst_buffer_map (inbuf, &map, GST_MAP_READ)) {
    GST_ELEMENT_ERROR (self, RESOURCE, READ, ("Cannot map the input buffer"), (NULL));
    return GST_FLOW_ERROR;
  }
  const HostMemory kind = classify_input (inbuf, map.data);
  gst_cs::Region region;
  gboolean ok = gst_cs::locate_visible (inbuf, &base->in_info, map.size, &region, &err) &&
                gst_cs_buffer_wait_writable (outbuf, stream, &err) &&
                upload_region (self, map.data, region, outbuf, stream,
                    kind == HostMemory::PAGEABLE ? waits : NULL, &err);
  GstCsSyncMeta * meta =
      ok ? gst_cs_sync_meta_record (outbuf, device, stream, &err) : NULL;
  if (meta) {
    /* Our pinned pool waits for this event before the producer reuses it. */
    gst_cs_sync_meta_add_reader (meta, inbuf);
    if (kind == HostMemory::PINNED) {
      GST_LOG_OBJECT (self, "input is pinned memory we do not own: waiting");
      ok = gst_cs_host_wait_event (meta->event, waits, &err);
    } else if (self->out_nvcodec) {
      /* nvcodec 1.22 reads its memory as soon as it gets it: the one host
       * wait of this edge, on this frame's event. */
      ok = gst_cs_host_wait_event (meta->event, waits, &err);
    }
  }
  gst_buffer_unmap (inbuf, &map);
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
  if (!guard.ok () ||
      !gst_cs::import_from_other_device (inbuf, device,
          gst_cs_base_transform_get_stream (base), *self->scratch, outbuf, &err)) {
    GST_CS_POST_ERROR (self, err, "Cannot copy a frame from another CUDA device");
    return GST_FLOW_ERROR;
  }
  return GST_FLOW_OK;
}

static gboolean
gst_cs_upload_stop (GstBaseTransform * trans)
{
  GST_CS_UPLOAD (trans)->scratch->reset ();
  return GST_BASE_TRANSFORM_CLASS (gst_cs_upload_parent_class)->stop (trans);
}

static void
gst_cs_upload_finalize (GObject * object)
{
  delete GST_CS_UPLOAD (object)->scratch;
  G_OBJECT_CLASS (gst_cs_upload_parent_class)->finalize (object);
}

static void
gst_cs_upload_class_init (GstCsUploadClass * klass)
{
  GstElementClass * element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass * trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  GstCsBaseTransformClass * base_class = GST_CS_BASE_TRANSFORM_CLASS (klass);

  G_OBJECT_CLASS (klass)->finalize = gst_cs_upload_finalize;
  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
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
}

/**
 * SECTION:element-cudaupload
 *
 * Copies raw video from system memory into CUDA device memory
 * (memory:CUDAStreamsMemory) on a CUDA stream leased from the shared pool.
 * The copy is enqueued, an event is recorded after it and attached to the
 * buffer (GstCsSyncMeta), and the buffer is pushed at once: the element
 * never waits for the GPU.
 *
 * Upstream is offered a pool of pinned host memory in the ALLOCATION query;
 * a producer that writes into it gets truly asynchronous copies at the PCIe
 * rate. Other (pageable) input is copied correctly, more slowly. Input
 * strides and offsets (GstVideoMeta) are honoured. Buffers already in device
 * memory pass through.
 *
 * ## Example
 * |[
 * gst-launch-1.0 videotestsrc ! cudaupload ! cudadownload ! autovideosink
 * ]|
 */
#include "gstcsupload.h"

#include "gstcsbufferpool.h"
#include "gstcserror.h"
#include "gstcsframe.hpp"
#include "gstcsmemory.h"
#include "gstcspinnedmemory.h"
#include "gstcssyncmeta.h"
#include "gstcsvideo.h"

GST_DEBUG_CATEGORY_STATIC (gst_cs_upload_debug);
#define GST_CAT_DEFAULT gst_cs_upload_debug

#define DEVICE_POOL_MIN_BUFFERS 4
#define PINNED_POOL_MIN_BUFFERS 3

struct _GstCsUpload {
  GstCsBaseTransform parent;
  GstVideoInfo in_info;
};

G_DEFINE_TYPE (GstCsUpload, gst_cs_upload, GST_TYPE_CS_BASE_TRANSFORM);
GST_ELEMENT_REGISTER_DEFINE (cudaupload, "cudaupload", GST_RANK_NONE, GST_TYPE_CS_UPLOAD);

static GstStaticPadTemplate sink_template =
    GST_STATIC_PAD_TEMPLATE ("sink", GST_PAD_SINK, GST_PAD_ALWAYS,
        GST_STATIC_CAPS (GST_CS_VIDEO_SYSTEM_CAPS "; " GST_CS_VIDEO_DEVICE_CAPS));

static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE (
    "src", GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS (GST_CS_VIDEO_DEVICE_CAPS));

static GstCaps *
transform_caps (
    GstBaseTransform *, GstPadDirection direction, GstCaps * caps, GstCaps * filter)
{
  if (direction == GST_PAD_SINK) /* system or device memory in: device out */
    return gst_cs_caps_with_memory (caps, TRUE, filter);
  /* device out: device in (passthrough, preferred) or system memory in */
  return gst_cs_caps_any_memory (caps, filter);
}

static gboolean
set_caps (GstBaseTransform * trans, GstCaps * incaps, GstCaps * outcaps)
{
  auto * self = GST_CS_UPLOAD (trans);
  if (!gst_video_info_from_caps (&self->in_info, incaps)) {
    GST_ELEMENT_ERROR (
        self, CORE, NEGOTIATION, (NULL), ("Cannot parse caps %" GST_PTR_FORMAT, incaps));
    return FALSE;
  }
  gst_base_transform_set_passthrough (trans, gst_cs_video_caps_are_device (incaps));
  GST_DEBUG_OBJECT (self, "%" GST_PTR_FORMAT " -> %" GST_PTR_FORMAT, incaps, outcaps);
  return TRUE;
}

static gboolean
propose_allocation (GstBaseTransform * trans, GstQuery * decide_query, GstQuery * query)
{
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
  gst_query_add_allocation_meta (query, GST_VIDEO_META_API_TYPE, NULL);

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

static gboolean
decide_allocation (GstBaseTransform * trans, GstQuery * query)
{
  auto * self = GST_CS_UPLOAD (trans);
  GstCaps * caps = NULL;
  gst_query_parse_allocation (query, &caps, NULL);
  GstVideoInfo info;
  if (!caps || !gst_video_info_from_caps (&info, caps))
    return FALSE;

  guint min = DEVICE_POOL_MIN_BUFFERS;
  if (gst_query_get_n_allocation_pools (query) > 0) {
    guint dmin = 0;
    gst_query_parse_nth_allocation_pool (query, 0, NULL, NULL, &dmin, NULL);
    min = MAX (min, dmin + 2); /* downstream's, one being written, one spare */
  }
  gint device = gst_cs_base_transform_get_device (GST_CS_BASE_TRANSFORM (self));
  GstBufferPool * pool = gst_cs_buffer_pool_new (device);
  GstStructure * config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_set_params (config, caps, info.size, min, 0);
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
  gst_cs_query_set_pool (query, pool, info.size, min, 0);
  gst_object_unref (pool);
  return TRUE;
}

/* A host pointer the copy engine reads asynchronously, unknown to us: the
 * caller may reuse the memory as soon as we return, so wait for the copy. */
static gboolean
is_foreign_pinned (GstBuffer * inbuf, const guint8 * data)
{
  if (gst_buffer_n_memory (inbuf) == 1 &&
      gst_is_cs_pinned_memory (gst_buffer_peek_memory (inbuf, 0)))
    return FALSE;
  cudaPointerAttributes attr;
  if (cudaPointerGetAttributes (&attr, data) != cudaSuccess) {
    (void)cudaGetLastError ();
    return FALSE;
  }
  return attr.type == cudaMemoryTypeHost;
}

static GstFlowReturn
transform (GstBaseTransform * trans, GstBuffer * inbuf, GstBuffer * outbuf)
{
  auto * self = GST_CS_UPLOAD (trans);
  auto * base = GST_CS_BASE_TRANSFORM (self);
  if (!gst_cs_base_transform_make_current (base))
    return GST_FLOW_ERROR;
  const gint device = gst_cs_base_transform_get_device (base);
  cudaStream_t stream = gst_cs_base_transform_get_stream (base);

  GstMapInfo map;
  if (!gst_buffer_map (inbuf, &map, GST_MAP_READ)) {
    GST_ELEMENT_ERROR (self, RESOURCE, READ, ("Cannot map the input buffer"), (NULL));
    return GST_FLOW_ERROR;
  }
  GError * err = NULL;
  GstVideoInfo src_layout, dst_layout;
  GstMemory * dmem = gst_buffer_peek_memory (outbuf, 0);
  gboolean ok = gcs::buffer_layout (inbuf, &self->in_info, &src_layout, map.size, &err) &&
                gcs::buffer_layout (outbuf, &self->in_info, &dst_layout,
                    gst_buffer_get_size (outbuf), &err) &&
                gst_cs_buffer_wait_writable (outbuf, stream, &err) &&
                gcs::copy_planes (gcs::planes_at (map.data, &src_layout),
                    gcs::planes_at (gst_cs_memory_get_device_pointer (dmem), &dst_layout),
                    &self->in_info, cudaMemcpyHostToDevice, stream, &err);
  GstCsSyncMeta * meta =
      ok ? gst_cs_sync_meta_record (outbuf, device, stream, &err) : NULL;
  if (meta) {
    /* Our pinned pool waits for this event before the producer reuses it. */
    gst_cs_sync_meta_add_reader (meta, inbuf);
    if (is_foreign_pinned (inbuf, map.data)) {
      GST_LOG_OBJECT (self, "input is pinned memory we do not own: waiting");
      ok = gst_cs_host_wait_event (
          meta->event, gst_cs_base_transform_get_waits (base), &err);
    }
  }
  gst_buffer_unmap (inbuf, &map);
  if (!ok || !meta) {
    GST_CS_POST_ERROR (self, err, "Cannot upload a frame");
    return GST_FLOW_ERROR;
  }
  return GST_FLOW_OK;
}

static void
gst_cs_upload_class_init (GstCsUploadClass * klass)
{
  GstElementClass * element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass * trans_class = GST_BASE_TRANSFORM_CLASS (klass);

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class, "CUDA stream upload",
      "Filter/Video/Hardware",
      "Copies raw video into CUDA device memory on a pooled CUDA stream, "
      "without blocking the CPU",
      "gst-cudastreams developers");

  trans_class->passthrough_on_same_caps = FALSE;
  trans_class->transform_caps = transform_caps;
  trans_class->set_caps = set_caps;
  trans_class->propose_allocation = propose_allocation;
  trans_class->decide_allocation = decide_allocation;
  trans_class->transform = transform;

  GST_DEBUG_CATEGORY_INIT (
      gst_cs_upload_debug, "cudaupload", 0, "gst-cudastreams upload");
}

static void
gst_cs_upload_init (GstCsUpload *)
{}

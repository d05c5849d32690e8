/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "gstcsbufferpool-private.h"

#include "gstcsmemory-private.h"
#include "gstcsvideo-private.h"

GST_DEBUG_CATEGORY_STATIC (gst_cs_buffer_pool_debug);
#define GST_CAT_DEFAULT gst_cs_buffer_pool_debug

struct _GstCsBufferPool {
  GstBufferPool parent;
  gint device_id;
  GstAllocator * allocator;
  GstVideoInfo layout; /* the device layout of one frame */
  GError * error;      /* last allocation failure, guarded by the object lock */
};

G_DEFINE_TYPE (GstCsBufferPool, gst_cs_buffer_pool, GST_TYPE_BUFFER_POOL);

static const gchar **
gst_cs_buffer_pool_get_options (GstBufferPool *)
{
  static const gchar * options[] = { GST_BUFFER_POOL_OPTION_VIDEO_META, NULL };
  return options;
}

static gboolean
gst_cs_buffer_pool_set_config (GstBufferPool * pool, GstStructure * config)
{
  auto * self = GST_CS_BUFFER_POOL (pool);
  GstCaps * caps = NULL;
  guint size, min, max;
  if (!gst_buffer_pool_config_get_params (config, &caps, &size, &min, &max) || !caps) {
    GST_WARNING_OBJECT (pool, "no caps in config");
    return FALSE;
  }
  GstVideoInfo info;
  if (!gst_video_info_from_caps (&info, caps)) {
    GST_WARNING_OBJECT (pool, "caps %" GST_PTR_FORMAT " are not raw video", caps);
    return FALSE;
  }
  gst_cs_video_info_device_layout (&info, &self->layout);
  gst_buffer_pool_config_set_params (config, caps, self->layout.size, min, max);
  return GST_BUFFER_POOL_CLASS (gst_cs_buffer_pool_parent_class)
      ->set_config (pool, config);
}

static void
set_video_meta (GstBuffer * buffer, const GstVideoInfo * layout)
{
  GstVideoMeta * meta = gst_buffer_get_video_meta (buffer);
  if (!meta) {
    gst_buffer_add_video_meta_full (buffer, GST_VIDEO_FRAME_FLAG_NONE,
        GST_VIDEO_INFO_FORMAT (layout), GST_VIDEO_INFO_WIDTH (layout),
        GST_VIDEO_INFO_HEIGHT (layout), GST_VIDEO_INFO_N_PLANES (layout),
        (gsize *)layout->offset, (gint *)layout->stride);
    return;
  }
  meta->width = GST_VIDEO_INFO_WIDTH (layout);
  meta->height = GST_VIDEO_INFO_HEIGHT (layout);
  for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES (layout); p++) {
    meta->offset[p] = layout->offset[p];
    meta->stride[p] = layout->stride[p];
  }
}

static GstFlowReturn
gst_cs_buffer_pool_alloc_buffer (
    GstBufferPool * pool, GstBuffer ** buffer, GstBufferPoolAcquireParams *)
{
  auto * self = GST_CS_BUFFER_POOL (pool);
  GError * err = NULL;
  GstMemory * mem = gst_cs_allocator_alloc (
      GST_CS_ALLOCATOR (self->allocator), self->layout.size, &err);
  if (!mem) {
    GST_ERROR_OBJECT (pool, "%s", err->message);
    GST_OBJECT_LOCK (pool);
    g_clear_error (&self->error);
    self->error = err;
    GST_OBJECT_UNLOCK (pool);
    return GST_FLOW_ERROR;
  }
  *buffer = gst_buffer_new ();
  gst_buffer_append_memory (*buffer, mem);
  set_video_meta (*buffer, &self->layout);
  GstMeta * vmeta = (GstMeta *)gst_buffer_get_video_meta (*buffer);
  vmeta->flags = (GstMetaFlags)(vmeta->flags | GST_META_FLAG_POOLED);
  return GST_FLOW_OK;
}

static void
gst_cs_buffer_pool_reset_buffer (GstBufferPool * pool, GstBuffer * buffer)
{
  auto * self = GST_CS_BUFFER_POOL (pool);
  set_video_meta (buffer, &self->layout);
  GST_BUFFER_POOL_CLASS (gst_cs_buffer_pool_parent_class)->reset_buffer (pool, buffer);
}

static void
gst_cs_buffer_pool_finalize (GObject * object)
{
  auto * self = GST_CS_BUFFER_POOL (object);
  gst_clear_object (&self->allocator);
  g_clear_error (&self->error);
  G_OBJECT_CLASS (gst_cs_buffer_pool_parent_class)->finalize (object);
}

static void
gst_cs_buffer_pool_class_init (GstCsBufferPoolClass * klass)
{
  GstBufferPoolClass * pool_class = GST_BUFFER_POOL_CLASS (klass);
  G_OBJECT_CLASS (klass)->finalize = gst_cs_buffer_pool_finalize;
  pool_class->get_options = GST_DEBUG_FUNCPTR (gst_cs_buffer_pool_get_options);
  pool_class->set_config = GST_DEBUG_FUNCPTR (gst_cs_buffer_pool_set_config);
  pool_class->alloc_buffer = GST_DEBUG_FUNCPTR (gst_cs_buffer_pool_alloc_buffer);
  pool_class->reset_buffer = GST_DEBUG_FUNCPTR (gst_cs_buffer_pool_reset_buffer);
  GST_DEBUG_CATEGORY_INIT (
      gst_cs_buffer_pool_debug, "csbufferpool", 0, "gst-cudastreams device buffer pool");
}

static void
gst_cs_buffer_pool_init (GstCsBufferPool *)
{}

GstBufferPool *
gst_cs_buffer_pool_new (gint device_id)
{
  auto * self = GST_CS_BUFFER_POOL (g_object_new (GST_TYPE_CS_BUFFER_POOL, NULL));
  gst_object_ref_sink (self);
  self->device_id = device_id;
  self->allocator = gst_cs_allocator_new (device_id);
  return GST_BUFFER_POOL_CAST (self);
}

gint
gst_cs_buffer_pool_get_device_id (GstCsBufferPool * pool)
{
  return pool->device_id;
}

GError *
gst_cs_buffer_pool_take_error (GstCsBufferPool * pool)
{
  GST_OBJECT_LOCK (pool);
  GError * err = pool->error;
  pool->error = NULL;
  GST_OBJECT_UNLOCK (pool);
  return err;
}

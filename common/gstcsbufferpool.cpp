/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "gstcsbufferpool-private.h"

#include <utility>

#include "gstcsmemory-private.h"
#include "gstcsmemorysync.hpp"
#include "gstcssyncmeta-private.h"
#include "gstcsvideo-private.h"

GST_DEBUG_CATEGORY_STATIC (gst_cs_buffer_pool_debug);
#define GST_CAT_DEFAULT gst_cs_buffer_pool_debug

struct _GstCsBufferPool {
  GstBufferPool parent;
  gint device_id;
  GstAllocator * allocator;
  GstVideoInfo layout; /* the device layout of one frame */
  GError * error;      /* last allocation failure, guarded by the object lock */
  /* Last-released first: the frame released last, kept out of
   * GstBufferPool's FIFO queue so that it is handed out next while its bytes
   * are still in the GPU's L2 cache (writer_stream set; see
   * gst_cs_buffer_pool_set_writer_stream()). */
  GMutex last_released_lock;
  cudaStream_t writer_stream; /* the writer's stream; nullptr: plain FIFO */
  GstBuffer * last_released;  /* guarded by last_released_lock */
  guint acquiring;            /* acquirers that went to the queue (last_released_lock) */
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
  /* Every frame's producer records an event into the sync meta: kept
   * across reuse, it is not added and freed again every frame. Empty until
   * then (no event: consumers fall back to the memory's own sync state). */
  GstMeta * smeta = gst_buffer_add_meta (*buffer, GST_CS_SYNC_META_INFO, NULL);
  smeta->flags = (GstMetaFlags)(smeta->flags | GST_META_FLAG_POOLED);
  return GST_FLOW_OK;
}

static void
gst_cs_buffer_pool_reset_buffer (GstBufferPool * pool, GstBuffer * buffer)
{
  auto * self = GST_CS_BUFFER_POOL (pool);
  set_video_meta (buffer, &self->layout);
  /* The frame's event goes back to the event pool now, not when the next
   * producer replaces it: a buffer waiting in the pool carries no event a
   * consumer could take for its pixels'. (GstMetaInfo's clear_func would do
   * this, from GStreamer 1.24; we support 1.20.) */
  if (GstCsSyncMeta * meta = gst_buffer_get_cs_sync_meta (buffer))
    gst_cs_sync_meta_clear (meta);
  GST_BUFFER_POOL_CLASS (gst_cs_buffer_pool_parent_class)->reset_buffer (pool, buffer);
}

/* Whether `buffer`, just released, may be kept aside to go out again before
 * the older frames in the queue: GstBufferPool's own release checks (its
 * memory untouched, whole and ours alone), and memory whose GPU accesses
 * we track. */
static bool
may_keep (GstCsBufferPool * self, GstBuffer * buffer)
{
  if (GST_BUFFER_FLAG_IS_SET (buffer, GST_BUFFER_FLAG_TAG_MEMORY) ||
      gst_buffer_get_size (buffer) != self->layout.size ||
      !gst_buffer_is_all_memory_writable (buffer))
    return false;
  for (guint i = 0; i < gst_buffer_n_memory (buffer); i++) {
    if (!gst_cs::memory_sync (gst_buffer_peek_memory (buffer, i)))
      return false;
  }
  return true;
}

/* Whether every GPU access of `buffer`'s memory still running is on the
 * writer's stream, so that writing it again at once waits for nothing on
 * the GPU that another frame would not have waited for. Asked when a frame
 * is wanted, not when one is released: a reader on another stream (a
 * download) lets a frame go as soon as its read is enqueued, and is mostly
 * done by the time the next frame is written. A query, never a wait. */
static bool
in_flight_only_on_writer (GstCsBufferPool * self, GstBuffer * buffer)
{
  for (guint i = 0; i < gst_buffer_n_memory (buffer); i++) {
    gst_cs::MemorySync * sync = gst_cs::memory_sync (gst_buffer_peek_memory (buffer, i));
    if (!sync->in_flight_only_on (self->writer_stream))
      return false;
  }
  return true;
}

static GstFlowReturn
gst_cs_buffer_pool_acquire_buffer (
    GstBufferPool * pool, GstBuffer ** buffer, GstBufferPoolAcquireParams * params)
{
  auto * self = GST_CS_BUFFER_POOL (pool);
  /* Counted as an acquirer at once: while one may wait in the queue,
   * releases go to the queue too, or it would never wake. */
  g_mutex_lock (&self->last_released_lock);
  GstBuffer * last_released = GST_BUFFER_POOL_IS_FLUSHING (pool)
                                  ? nullptr
                                  : std::exchange (self->last_released, nullptr);
  self->acquiring++;
  g_mutex_unlock (&self->last_released_lock);
  GstFlowReturn ret = GST_FLOW_OK;
  if (last_released && in_flight_only_on_writer (self, last_released)) {
    *buffer = last_released;
  } else {
    /* Another stream still reads it: its turn in the queue, behind the
     * older frames, so that the writer does not wait for that reader. */
    if (last_released)
      GST_BUFFER_POOL_CLASS (gst_cs_buffer_pool_parent_class)
          ->release_buffer (pool, last_released);
    ret = GST_BUFFER_POOL_CLASS (gst_cs_buffer_pool_parent_class)
              ->acquire_buffer (pool, buffer, params);
  }
  g_mutex_lock (&self->last_released_lock);
  self->acquiring--;
  g_mutex_unlock (&self->last_released_lock);
  return ret;
}

static void
gst_cs_buffer_pool_release_buffer (GstBufferPool * pool, GstBuffer * buffer)
{
  auto * self = GST_CS_BUFFER_POOL (pool);
  GstBuffer * to_queue = buffer;
  if (self->writer_stream && may_keep (self, buffer)) {
    g_mutex_lock (&self->last_released_lock);
    if (self->acquiring == 0)
      to_queue = std::exchange (self->last_released, buffer);
    g_mutex_unlock (&self->last_released_lock);
  }
  if (to_queue)
    GST_BUFFER_POOL_CLASS (gst_cs_buffer_pool_parent_class)
        ->release_buffer (pool, to_queue);
}

static gboolean
gst_cs_buffer_pool_stop (GstBufferPool * pool)
{
  auto * self = GST_CS_BUFFER_POOL (pool);
  /* Into the queue, where GstBufferPool frees what it holds. */
  g_mutex_lock (&self->last_released_lock);
  GstBuffer * last_released = std::exchange (self->last_released, nullptr);
  g_mutex_unlock (&self->last_released_lock);
  if (last_released)
    GST_BUFFER_POOL_CLASS (gst_cs_buffer_pool_parent_class)
        ->release_buffer (pool, last_released);
  return GST_BUFFER_POOL_CLASS (gst_cs_buffer_pool_parent_class)->stop (pool);
}

/* A pool dropped while active is stopped here, before any of it goes: the
 * frame kept aside goes back to GStreamer's queue through stop() and is
 * freed with the others, counted as GStreamer counts them, while the lock
 * stop() takes is still there; not left to whichever of its dispose or
 * finalize the base class stops the pool in. */
static void
gst_cs_buffer_pool_dispose (GObject * object)
{
  gst_buffer_pool_set_active (GST_BUFFER_POOL (object), FALSE);
  G_OBJECT_CLASS (gst_cs_buffer_pool_parent_class)->dispose (object);
}

static void
gst_cs_buffer_pool_finalize (GObject * object)
{
  auto * self = GST_CS_BUFFER_POOL (object);
  /* Stopped in dispose: no frame is kept aside any more. */
  g_warn_if_fail (self->last_released == nullptr);
  gst_clear_object (&self->allocator);
  g_clear_error (&self->error);
  g_mutex_clear (&self->last_released_lock);
  G_OBJECT_CLASS (gst_cs_buffer_pool_parent_class)->finalize (object);
}

static void
gst_cs_buffer_pool_class_init (GstCsBufferPoolClass * klass)
{
  GstBufferPoolClass * pool_class = GST_BUFFER_POOL_CLASS (klass);
  G_OBJECT_CLASS (klass)->dispose = gst_cs_buffer_pool_dispose;
  G_OBJECT_CLASS (klass)->finalize = gst_cs_buffer_pool_finalize;
  pool_class->get_options = GST_DEBUG_FUNCPTR (gst_cs_buffer_pool_get_options);
  pool_class->set_config = GST_DEBUG_FUNCPTR (gst_cs_buffer_pool_set_config);
  pool_class->alloc_buffer = GST_DEBUG_FUNCPTR (gst_cs_buffer_pool_alloc_buffer);
  pool_class->reset_buffer = GST_DEBUG_FUNCPTR (gst_cs_buffer_pool_reset_buffer);
  pool_class->acquire_buffer = GST_DEBUG_FUNCPTR (gst_cs_buffer_pool_acquire_buffer);
  pool_class->release_buffer = GST_DEBUG_FUNCPTR (gst_cs_buffer_pool_release_buffer);
  pool_class->stop = GST_DEBUG_FUNCPTR (gst_cs_buffer_pool_stop);
  GST_DEBUG_CATEGORY_INIT (
      gst_cs_buffer_pool_debug, "csbufferpool", 0, "gst-cudastreams device buffer pool");
}

static void
gst_cs_buffer_pool_init (GstCsBufferPool * self)
{
  g_mutex_init (&self->last_released_lock);
}

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

/* Last-released first: the frame released last is handed out again next,
 * ahead of older ones, where by then every GPU access of it still running
 * is on `stream` (the stream of the element that writes the pool's frames;
 * readers of other streams that have completed do not count): writing it
 * again then waits for nothing but stream order, and its bytes are likely
 * still in L2. Set before the pool is activated. */
void
gst_cs_buffer_pool_set_writer_stream (GstCsBufferPool * pool, cudaStream_t stream)
{
  pool->writer_stream = stream;
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

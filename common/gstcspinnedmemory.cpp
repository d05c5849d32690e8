/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "gstcspinnedmemory-private.h"

#include "gstcserror-private.h"
#include "gstcsmemorysync.hpp"

GST_DEBUG_CATEGORY_STATIC (gst_cs_pinned_debug);
#define GST_CAT_DEFAULT gst_cs_pinned_debug

namespace {

struct PinnedMemory {
  GstMemory mem;
  guint8 * data;
  gst_cs::MemorySync * sync; /* shared with sub-memories */
};

PinnedMemory *
root_of (GstMemory * mem)
{
  return reinterpret_cast<PinnedMemory *> (mem->parent ? mem->parent : mem);
}

PinnedMemory *
wrap (GstAllocator * allocator, GstMemory * parent, guint8 * data,
    gst_cs::MemorySync * sync, gsize maxsize, gsize align, gsize offset, gsize size)
{
  auto * m = g_new0 (PinnedMemory, 1);
  gst_memory_init (
      &m->mem, (GstMemoryFlags)0, allocator, parent, maxsize, align, offset, size);
  m->data = data;
  m->sync = sync;
  return m;
}

} // namespace

struct _GstCsPinnedAllocator {
  GstAllocator parent;
};

G_DEFINE_TYPE (GstCsPinnedAllocator, gst_cs_pinned_allocator, GST_TYPE_ALLOCATOR);

static GstMemory *
gst_cs_pinned_allocator_alloc (
    GstAllocator * allocator, gsize size, GstAllocationParams * params)
{
  gsize align = params ? params->align : 0;
  gsize prefix = params ? params->prefix : 0;
  gsize padding = params ? params->padding : 0;
  gsize maxsize = size + prefix + padding;
  void * data = NULL;
  /* Portable: the pages are pinned for every device of the process. Page
   * alignment from cudaHostAlloc satisfies any GStreamer alignment request. */
  cudaError_t err = cudaHostAlloc (&data, MAX (maxsize, 1), cudaHostAllocPortable);
  if (err != cudaSuccess) {
    GST_ERROR_OBJECT (allocator,
        "cudaHostAlloc of %" G_GSIZE_FORMAT " bytes failed: %s (%s)", maxsize,
        cudaGetErrorName (err), cudaGetErrorString (err));
    (void)cudaGetLastError ();
    return NULL;
  }
  return &wrap (allocator, NULL, static_cast<guint8 *> (data), new gst_cs::MemorySync,
      maxsize, align, prefix, size)
              ->mem;
}

static void
gst_cs_pinned_allocator_free (GstAllocator *, GstMemory * mem)
{
  auto * m = reinterpret_cast<PinnedMemory *> (mem);
  if (!mem->parent) {
    /* cudaFreeHost synchronises with the device, so no copy still uses it:
     * a host wait (counted in the process' total). */
    gst_cs_host_wait_count (NULL);
    cudaError_t err = cudaFreeHost (m->data);
    if (err != cudaSuccess) {
      GST_WARNING ("cudaFreeHost: %s", cudaGetErrorString (err));
      (void)cudaGetLastError ();
    }
    delete m->sync;
  }
  g_free (m);
}

static gpointer
gst_cs_pinned_memory_map (GstMemory * mem, gsize, GstMapFlags)
{
  return root_of (mem)->data;
}

static void
gst_cs_pinned_memory_unmap (GstMemory *)
{}

static GstMemory *
gst_cs_pinned_memory_share (GstMemory * mem, gssize offset, gssize size)
{
  PinnedMemory * root = root_of (mem);
  if (size == -1)
    size = mem->size - offset;
  return &wrap (mem->allocator, &root->mem, root->data, root->sync, mem->maxsize,
      mem->align, mem->offset + offset, size)
              ->mem;
}

static void
gst_cs_pinned_allocator_class_init (GstCsPinnedAllocatorClass * klass)
{
  GstAllocatorClass * alloc_class = GST_ALLOCATOR_CLASS (klass);
  alloc_class->alloc = GST_DEBUG_FUNCPTR (gst_cs_pinned_allocator_alloc);
  alloc_class->free = GST_DEBUG_FUNCPTR (gst_cs_pinned_allocator_free);
  GST_DEBUG_CATEGORY_INIT (
      gst_cs_pinned_debug, "cspinnedmemory", 0, "gst-cudastreams pinned host memory");
}

static void
gst_cs_pinned_allocator_init (GstCsPinnedAllocator * self)
{
  GstAllocator * alloc = GST_ALLOCATOR_CAST (self);
  alloc->mem_type = GST_CS_PINNED_MEMORY_TYPE;
  alloc->mem_map = GST_DEBUG_FUNCPTR (gst_cs_pinned_memory_map);
  alloc->mem_unmap = GST_DEBUG_FUNCPTR (gst_cs_pinned_memory_unmap);
  alloc->mem_share = GST_DEBUG_FUNCPTR (gst_cs_pinned_memory_share);
  /* mem_copy stays the default: a copy into system memory. */
}

GstAllocator *
gst_cs_pinned_allocator_get (void)
{
  static GstAllocator * allocator = NULL;
  if (g_once_init_enter (&allocator)) {
    GstAllocator * a =
        GST_ALLOCATOR_CAST (g_object_new (GST_TYPE_CS_PINNED_ALLOCATOR, NULL));
    gst_object_ref_sink (a);
    GST_OBJECT_FLAG_SET (a, GST_OBJECT_FLAG_MAY_BE_LEAKED);
    g_once_init_leave (&allocator, a);
  }
  return GST_ALLOCATOR_CAST (gst_object_ref (allocator));
}

gboolean
gst_is_cs_pinned_memory (GstMemory * mem)
{
  return mem && mem->allocator && GST_IS_CS_PINNED_ALLOCATOR (mem->allocator);
}

namespace gst_cs {
MemorySync *
pinned_memory_sync (GstMemory * mem)
{
  return root_of (mem)->sync;
}
} // namespace gst_cs

/* ---- the pool ---- */

struct _GstCsPinnedBufferPool {
  GstVideoBufferPool parent;
  GstCsWaitCounter waits;
};

G_DEFINE_TYPE (
    GstCsPinnedBufferPool, gst_cs_pinned_buffer_pool, GST_TYPE_VIDEO_BUFFER_POOL);

static gboolean
gst_cs_pinned_buffer_pool_set_config (GstBufferPool * pool, GstStructure * config)
{
  /* Whatever allocator a producer asks for, the memory must be pinned. */
  GstAllocationParams params;
  GstAllocator * requested = NULL;
  if (!gst_buffer_pool_config_get_allocator (config, &requested, &params))
    gst_allocation_params_init (&params);
  GstAllocator * pinned = gst_cs_pinned_allocator_get ();
  gst_buffer_pool_config_set_allocator (config, pinned, &params);
  gst_object_unref (pinned);
  return GST_BUFFER_POOL_CLASS (gst_cs_pinned_buffer_pool_parent_class)
      ->set_config (pool, config);
}

static GstFlowReturn
gst_cs_pinned_buffer_pool_acquire_buffer (
    GstBufferPool * pool, GstBuffer ** buffer, GstBufferPoolAcquireParams * params)
{
  auto * self = GST_CS_PINNED_BUFFER_POOL (pool);
  GstFlowReturn ret = GST_BUFFER_POOL_CLASS (gst_cs_pinned_buffer_pool_parent_class)
                          ->acquire_buffer (pool, buffer, params);
  if (ret != GST_FLOW_OK)
    return ret;
  for (guint i = 0; i < gst_buffer_n_memory (*buffer); i++) {
    GstMemory * mem = gst_buffer_peek_memory (*buffer, i);
    if (!gst_is_cs_pinned_memory (mem))
      continue;
    GError * err = NULL;
    if (!gst_cs::pinned_memory_sync (mem)->host_wait_all (&self->waits, &err)) {
      GST_ERROR_OBJECT (
          pool, "waiting for GPU copies of a pinned buffer: %s", err->message);
      g_error_free (err);
      gst_buffer_unref (*buffer);
      *buffer = NULL;
      return GST_FLOW_ERROR;
    }
  }
  return GST_FLOW_OK;
}

static void
gst_cs_pinned_buffer_pool_class_init (GstCsPinnedBufferPoolClass * klass)
{
  GstBufferPoolClass * pool_class = GST_BUFFER_POOL_CLASS (klass);
  pool_class->set_config = GST_DEBUG_FUNCPTR (gst_cs_pinned_buffer_pool_set_config);
  pool_class->acquire_buffer =
      GST_DEBUG_FUNCPTR (gst_cs_pinned_buffer_pool_acquire_buffer);
}

static void
gst_cs_pinned_buffer_pool_init (GstCsPinnedBufferPool *)
{}

GstBufferPool *
gst_cs_pinned_buffer_pool_new (void)
{
  auto * pool =
      GST_BUFFER_POOL_CAST (g_object_new (GST_TYPE_CS_PINNED_BUFFER_POOL, NULL));
  gst_object_ref_sink (pool);
  return pool;
}

guint64
gst_cs_pinned_buffer_pool_get_host_waits (GstCsPinnedBufferPool * pool)
{
  return gst_cs_wait_counter_get (&pool->waits);
}

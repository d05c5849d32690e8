#include "gstcsmemory.h"

#include <mutex>
#include <vector>

#include "gstcsdeviceguard.hpp"
#include "gstcserror.h"
#include "gstcsmemorysync.hpp"

GST_DEBUG_CATEGORY_STATIC (gst_cs_memory_debug);
#define GST_CAT_DEFAULT gst_cs_memory_debug

namespace {

GstCsWaitCounter host_map_waits;

/* Shared by a memory and the sub-memories made from it by share(). */
struct DevicePriv {
  gcs::MemorySync sync;
  std::mutex map_lock;
  std::vector<guint8> staging; /* host copy for CPU mapping, made on first use */
};

DevicePriv *
priv_of (GstCsMemory * m)
{
  return static_cast<DevicePriv *> (m->priv);
}

GstCsMemory *
root_of (GstCsMemory * m)
{
  GstMemory * parent = GST_MEMORY_CAST (m)->parent;
  return parent ? reinterpret_cast<GstCsMemory *> (parent) : m;
}

} // namespace

struct _GstCsDeviceAllocator {
  GstAllocator parent;
  gint device_id;
};

G_DEFINE_TYPE (GstCsDeviceAllocator, gst_cs_device_allocator, GST_TYPE_ALLOCATOR);

static GstCsMemory *
wrap (GstAllocator * allocator, gint device_id, guint8 * data, DevicePriv * priv,
    GstMemory * parent, gsize maxsize, gsize offset, gsize size)
{
  auto * m = g_new0 (GstCsMemory, 1);
  gst_memory_init (GST_MEMORY_CAST (m), (GstMemoryFlags)0, allocator, parent, maxsize, 0,
      offset, size);
  m->device_id = device_id;
  m->data = data;
  m->priv = priv;
  return m;
}

GstMemory *
gst_cs_device_allocator_alloc (GstCsDeviceAllocator * self, gsize size, GError ** error)
{
  g_return_val_if_fail (GST_IS_CS_DEVICE_ALLOCATOR (self), NULL);
  gcs::DeviceGuard guard (self->device_id, error);
  if (!guard.ok ())
    return NULL;
  void * data = NULL;
  if (!GST_CS_CHECK (cudaMalloc (&data, MAX (size, 1)), error)) {
    g_prefix_error (error,
        "Allocating %" G_GSIZE_FORMAT " bytes on CUDA "
        "device %d: ",
        size, self->device_id);
    return NULL;
  }
  GST_DEBUG_OBJECT (self, "allocated %" G_GSIZE_FORMAT " bytes at %p", size, data);
  return GST_MEMORY_CAST (wrap (GST_ALLOCATOR_CAST (self), self->device_id,
      static_cast<guint8 *> (data), new DevicePriv, NULL, size, 0, size));
}

static GstMemory *
device_alloc (GstAllocator * allocator, gsize size, GstAllocationParams *)
{
  GError * err = NULL;
  GstMemory * mem =
      gst_cs_device_allocator_alloc (GST_CS_DEVICE_ALLOCATOR (allocator), size, &err);
  if (!mem) {
    GST_ERROR_OBJECT (allocator, "%s", err->message);
    g_error_free (err);
  }
  return mem;
}

static void
device_free (GstAllocator *, GstMemory * mem)
{
  auto * m = reinterpret_cast<GstCsMemory *> (mem);
  if (!mem->parent) {
    /* cudaFree waits for the device itself, so pending GPU work on the
     * memory finishes first: a host wait (counted in the process' total;
     * pools free when they are deactivated, at state changes and
     * renegotiation). */
    GError * err = NULL;
    gcs::DeviceGuard guard (m->device_id, &err);
    gst_cs_host_wait_count (NULL);
    if (!guard.ok () || !GST_CS_CHECK (cudaFree (m->data), &err)) {
      GST_WARNING ("freeing device memory: %s", err->message);
      g_error_free (err);
    }
    delete priv_of (m);
  }
  g_free (m);
}

/* Host copy of the whole allocation, after the GPU writer is done with it.
 * A copy into pageable memory returns only once it is complete: that is the
 * host wait. */
static gboolean
copy_to_host (GstCsMemory * root, DevicePriv * priv, GError ** error)
{
  gsize size = GST_MEMORY_CAST (root)->maxsize;
  priv->staging.resize (size);
  cudaStream_t s = cudaStreamPerThread;
  gcs::DeviceGuard guard (root->device_id, error);
  if (!guard.ok () || !priv->sync.gpu_wait_writer (s, error))
    return FALSE;
  gst_cs_host_wait_count (&host_map_waits);
  return GST_CS_CHECK (cudaMemcpyAsync (priv->staging.data (), root->data, size,
                           cudaMemcpyDeviceToHost, s),
      error);
}

/* Writes a host mapping back. CUDA waits for the stream before a copy from
 * pageable memory (one host wait), and the copy itself is waited for (a
 * second), so that it needs no event: whoever uses the memory next finds the
 * write complete. */
static gboolean
copy_to_device (GstCsMemory * root, DevicePriv * priv, GError ** error)
{
  cudaStream_t s = cudaStreamPerThread;
  gcs::DeviceGuard guard (root->device_id, error);
  if (!guard.ok () || !priv->sync.gpu_wait_all (s, error))
    return FALSE;
  gst_cs_host_wait_count (&host_map_waits);
  return GST_CS_CHECK (cudaMemcpyAsync (root->data, priv->staging.data (),
                           priv->staging.size (), cudaMemcpyHostToDevice, s),
             error) &&
         gst_cs_host_wait_stream (s, &host_map_waits, error) &&
         priv->sync.host_wait_all (&host_map_waits, error);
}

static gpointer
device_map (GstMemory * mem, GstMapInfo * info, gsize)
{
  auto * root = root_of (reinterpret_cast<GstCsMemory *> (mem));
  if (info->flags & GST_MAP_CS_DEVICE)
    return root->data;

  DevicePriv * priv = priv_of (root);
  std::lock_guard<std::mutex> guard (priv->map_lock);
  GError * err = NULL;
  if (!copy_to_host (root, priv, &err)) {
    GST_ERROR ("mapping device memory on the host: %s", err->message);
    g_error_free (err);
    return NULL;
  }
  GST_LOG ("host copy of %p for CPU access (slow path)", root->data);
  return priv->staging.data ();
}

static void
device_unmap (GstMemory * mem, GstMapInfo * info)
{
  if ((info->flags & GST_MAP_CS_DEVICE) || !(info->flags & GST_MAP_WRITE))
    return;
  auto * root = root_of (reinterpret_cast<GstCsMemory *> (mem));
  DevicePriv * priv = priv_of (root);
  std::lock_guard<std::mutex> guard (priv->map_lock);
  GError * err = NULL;
  if (!copy_to_device (root, priv, &err)) {
    GST_ERROR ("writing back a host mapping: %s", err->message);
    g_error_free (err);
  }
}

static GstMemory *
device_share (GstMemory * mem, gssize offset, gssize size)
{
  auto * root = root_of (reinterpret_cast<GstCsMemory *> (mem));
  if (size == -1)
    size = mem->size - offset;
  return GST_MEMORY_CAST (wrap (mem->allocator, root->device_id, root->data,
      priv_of (root), GST_MEMORY_CAST (root), mem->maxsize, mem->offset + offset, size));
}

/* A new memory with the same bytes, complete when returned (GstMemory's copy
 * has no way to hand on an event). */
static GstMemory *
device_copy (GstMemory * mem, gssize offset, gssize size)
{
  auto * root = root_of (reinterpret_cast<GstCsMemory *> (mem));
  if (size == -1)
    size = mem->size > (gsize)offset ? mem->size - offset : 0;
  GError * err = NULL;
  cudaStream_t s = cudaStreamPerThread;
  gcs::DeviceGuard guard (root->device_id, &err);
  GstMemory * copy = guard.ok ()
                         ? gst_cs_device_allocator_alloc (
                               GST_CS_DEVICE_ALLOCATOR (mem->allocator), size, &err)
                         : NULL;
  if (copy &&
      !(priv_of (root)->sync.gpu_wait_writer (s, &err) &&
          GST_CS_CHECK (
              cudaMemcpyAsync (reinterpret_cast<GstCsMemory *> (copy)->data,
                  root->data + mem->offset + offset, size, cudaMemcpyDeviceToDevice, s),
              &err) &&
          gst_cs_host_wait_stream (s, &host_map_waits, &err))) {
    gst_memory_unref (copy);
    copy = NULL;
  }
  if (!copy) {
    GST_ERROR ("copying device memory: %s", err->message);
    g_error_free (err);
  }
  return copy;
}

static void
gst_cs_device_allocator_class_init (GstCsDeviceAllocatorClass * klass)
{
  GstAllocatorClass * alloc_class = GST_ALLOCATOR_CLASS (klass);
  alloc_class->alloc = device_alloc;
  alloc_class->free = device_free;
  GST_DEBUG_CATEGORY_INIT (
      gst_cs_memory_debug, "csmemory", 0, "gst-cudastreams device memory");
}

static void
gst_cs_device_allocator_init (GstCsDeviceAllocator * self)
{
  GstAllocator * alloc = GST_ALLOCATOR_CAST (self);
  alloc->mem_type = GST_CS_MEMORY_TYPE_DEVICE;
  alloc->mem_map_full = device_map;
  alloc->mem_unmap_full = device_unmap;
  alloc->mem_share = device_share;
  alloc->mem_copy = device_copy;
  GST_OBJECT_FLAG_SET (self, GST_ALLOCATOR_FLAG_CUSTOM_ALLOC);
}

GstAllocator *
gst_cs_device_allocator_new (gint device_id)
{
  auto * self =
      GST_CS_DEVICE_ALLOCATOR (g_object_new (GST_TYPE_CS_DEVICE_ALLOCATOR, NULL));
  gst_object_ref_sink (self);
  self->device_id = device_id;
  return GST_ALLOCATOR_CAST (self);
}

gboolean
gst_is_cs_memory (GstMemory * mem)
{
  return mem && mem->allocator && GST_IS_CS_DEVICE_ALLOCATOR (mem->allocator);
}

guint8 *
gst_cs_memory_get_device_pointer (GstMemory * mem)
{
  g_return_val_if_fail (gst_is_cs_memory (mem), NULL);
  return reinterpret_cast<GstCsMemory *> (mem)->data + mem->offset;
}

guint64
gst_cs_memory_host_map_waits (void)
{
  return gst_cs_wait_counter_get (&host_map_waits);
}

namespace gcs {
MemorySync *
device_memory_sync (GstMemory * mem)
{
  auto * root = root_of (reinterpret_cast<GstCsMemory *> (mem));
  return &priv_of (root)->sync;
}
} // namespace gcs

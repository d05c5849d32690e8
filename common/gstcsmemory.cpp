/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "gstcsmemory-private.h"

#include <map>
#include <mutex>
#include <vector>

#include "gstcsdeviceguard.hpp"
#include "gstcserror-private.h"
#include "gstcshostwait-private.h"
#include "gstcsmemorysync.hpp"

GST_DEBUG_CATEGORY_STATIC (gst_cs_memory_debug);
#define GST_CAT_DEFAULT gst_cs_memory_debug

namespace {

GstCsWaitCounter host_map_waits;

/* What the memories of one allocation share: its sync state and the host
 * copy a CPU mapping uses (made on first use). */
struct Shared {
  gst_cs::MemorySync sync;
  std::mutex map_lock;
  std::vector<guint8> staging;
};

enum class Kind {
  ALLOCATED, /* cudaMalloc'd here: cudaFree when freed */
  WRAPPED,   /* an application's memory: its notify when freed */
  ALIAS,     /* another buffer's memory, kept alive by a reference to it */
  SUB,       /* gst_memory_share() of one of the above */
};

struct Memory {
  GstCsMemory pub;
  Kind kind;
  /* ALLOCATED only: the bytes cudaMalloc'd (see gst_cs_allocation_size()). */
  gsize alloc_size;
  GDestroyNotify notify;
  gpointer user_data;
  /* WRAPPED only: where the application frees the memory (may be NULL). */
  cudaStream_t release_stream;
};

Memory *
impl_of (GstMemory * mem)
{
  return reinterpret_cast<Memory *> (mem);
}

Shared *
shared_of (GstCsMemory * m)
{
  return static_cast<Shared *> (m->priv);
}

/* The memory whose data and maxsize describe the allocation. */
GstCsMemory *
root_of (GstCsMemory * m)
{
  GstMemory * parent = GST_MEMORY_CAST (m)->parent;
  return parent ? reinterpret_cast<GstCsMemory *> (parent) : m;
}

} // namespace

struct _GstCsAllocator {
  GstAllocator parent;
  gint device_id;
};

G_DEFINE_TYPE (GstCsAllocator, gst_cs_allocator, GST_TYPE_ALLOCATOR);

static GstMemory *
new_memory (GstAllocator * allocator, Kind kind, gint device_id, guint8 * data,
    Shared * shared, GstMemory * parent, gsize maxsize, gsize offset, gsize size)
{
  auto * m = g_new0 (Memory, 1);
  gst_memory_init (GST_MEMORY_CAST (&m->pub), (GstMemoryFlags)0, allocator, parent,
      maxsize, 0, offset, size);
  m->pub.device_id = device_id;
  m->pub.data = data;
  m->pub.priv = shared;
  m->kind = kind;
  return GST_MEMORY_CAST (&m->pub);
}

/**
 * gst_cs_allocation_size:
 * @size: bytes asked for
 *
 * The bytes the allocator cudaMalloc's for @size: from %GST_CS_IPC_BLOCK on,
 * whole blocks of it. CUDA may sub-allocate a smaller or ragged allocation
 * from a block it shares with others, and exporting it to another process
 * (cudaIpcGetMemHandle) would expose those too; an allocation of whole
 * blocks is its own (CUDA's programming guide: share allocations of
 * 2 MiB-aligned sizes). Frames that large lie in 2 MiB pages anyway: the
 * rounding costs less than one such page per frame.
 *
 * Returns: the allocation's size
 */
gsize
gst_cs_allocation_size (gsize size)
{
  if (size < GST_CS_IPC_BLOCK)
    return MAX (size, 1);
  return (size + GST_CS_IPC_BLOCK - 1) / GST_CS_IPC_BLOCK * GST_CS_IPC_BLOCK;
}

/**
 * gst_cs_allocator_alloc:
 * @allocator: a #GstCsAllocator
 * @size: bytes
 * @error: (out) (optional): why the allocation failed
 *
 * Allocates with cudaMalloc (a device-wide synchronisation point: pools
 * call this once per buffer, never per frame), gst_cs_allocation_size()
 * bytes: a memory of @size bytes, exportable to another process from
 * %GST_CS_IPC_BLOCK bytes on (gst_cs_memory_get_exportable()).
 *
 * Returns: (transfer full) (nullable): a #GstCsMemory
 */
GstMemory *
gst_cs_allocator_alloc (GstCsAllocator * self, gsize size, GError ** error)
{
  g_return_val_if_fail (GST_IS_CS_ALLOCATOR (self), NULL);
  gst_cs::DeviceGuard guard (self->device_id, error);
  if (!guard.ok ())
    return NULL;
  void * data = NULL;
  const gsize alloc_size = gst_cs_allocation_size (size);
  if (!GST_CS_CHECK (cudaMalloc (&data, alloc_size), error)) {
    g_prefix_error (error,
        "Allocating %" G_GSIZE_FORMAT " bytes on CUDA device %d: ", size,
        self->device_id);
    return NULL;
  }
  GST_DEBUG_OBJECT (self, "allocated %" G_GSIZE_FORMAT " bytes at %p", alloc_size, data);
  GstMemory * mem = new_memory (GST_ALLOCATOR_CAST (self), Kind::ALLOCATED,
      self->device_id, static_cast<guint8 *> (data), new Shared, NULL, size, 0, size);
  impl_of (mem)->alloc_size = alloc_size;
  return mem;
}

static GstMemory *
gst_cs_allocator_alloc_vfunc (GstAllocator * allocator, gsize size, GstAllocationParams *)
{
  GError * err = NULL;
  GstMemory * mem = gst_cs_allocator_alloc (GST_CS_ALLOCATOR (allocator), size, &err);
  if (!mem) {
    GST_ERROR_OBJECT (allocator, "%s", err->message);
    g_error_free (err);
  }
  return mem;
}

static void
gst_cs_allocator_free (GstAllocator *, GstMemory * mem)
{
  Memory * m = impl_of (mem);
  GError * err = NULL;
  switch (m->kind) {
    case Kind::ALLOCATED: {
      /* cudaFree waits for the device itself, so pending GPU work on the
       * memory finishes first: a host wait (counted in the process' total;
       * pools free when they are deactivated, at state changes and
       * renegotiation). */
      gst_cs::DeviceGuard guard (m->pub.device_id, &err);
      gst_cs_host_wait_count (NULL);
      if (!guard.ok () || !GST_CS_CHECK (cudaFree (m->pub.data), &err)) {
        GST_WARNING ("freeing device memory: %s", err->message);
        g_clear_error (&err);
      }
      delete shared_of (&m->pub);
      break;
    }
    case Kind::WRAPPED: {
      /* The application may reuse its memory once notified: GPU work that
       * still reads or writes it is ordered before that reuse. With a
       * release stream the order is made on the GPU (the stream waits for
       * every access); without one the host waits (counted), only for
       * accesses still running. */
      gst_cs::MemorySync & sync = shared_of (&m->pub)->sync;
      gboolean ordered;
      if (m->release_stream) {
        gst_cs::DeviceGuard guard (m->pub.device_id, &err);
        ordered = guard.ok () && sync.gpu_wait_all (m->release_stream, &err);
      } else {
        ordered = sync.host_wait_all (NULL, &err);
      }
      if (!ordered) {
        GST_WARNING (
            "ordering GPU work on wrapped memory before its release: %s", err->message);
        g_clear_error (&err);
      }
      if (m->notify)
        m->notify (m->user_data);
      delete shared_of (&m->pub);
      break;
    }
    case Kind::ALIAS:
      /* Gives the other buffer back: its pool's next writer waits for our
       * readers, whose events the shared sync state holds. */
      m->notify (m->user_data);
      break;
    case Kind::SUB:
      break;
  }
  g_free (m);
}

/* Host copy of the whole allocation, after the GPU writer is done with it.
 * A copy into pageable memory returns only once it is complete: that is the
 * host wait. */
static gboolean
copy_to_host (GstCsMemory * root, Shared * shared, GError ** error)
{
  gsize size = GST_MEMORY_CAST (root)->maxsize;
  shared->staging.resize (size);
  cudaStream_t s = cudaStreamPerThread;
  gst_cs::DeviceGuard guard (root->device_id, error);
  if (!guard.ok () || !shared->sync.gpu_wait_writer (s, error))
    return FALSE;
  gst_cs_host_wait_count (&host_map_waits);
  return GST_CS_CHECK (cudaMemcpyAsync (shared->staging.data (), root->data, size,
                           cudaMemcpyDeviceToHost, s),
      error);
}

/* Writes a host mapping back. CUDA waits for the stream before a copy from
 * pageable memory (one host wait), and the copy itself is waited for (a
 * second), so that it needs no event: whoever uses the memory next finds the
 * write complete. */
static gboolean
copy_to_device (GstCsMemory * root, Shared * shared, GError ** error)
{
  cudaStream_t s = cudaStreamPerThread;
  gst_cs::DeviceGuard guard (root->device_id, error);
  if (!guard.ok () || !shared->sync.gpu_wait_all (s, error))
    return FALSE;
  gst_cs_host_wait_count (&host_map_waits);
  return GST_CS_CHECK (cudaMemcpyAsync (root->data, shared->staging.data (),
                           shared->staging.size (), cudaMemcpyHostToDevice, s),
             error) &&
                               gst_cs_host_wait_stream (s, &host_map_waits, error) &&
                               shared->sync.host_wait_all (&host_map_waits, error);
}

static gpointer
gst_cs_memory_map (GstMemory * mem, GstMapInfo * info, gsize)
{
  auto * root = root_of (reinterpret_cast<GstCsMemory *> (mem));
  if (info->flags & GST_MAP_CS_DEVICE)
    return root->data;

  Shared * shared = shared_of (root);
  std::lock_guard<std::mutex> lock (shared->map_lock);
  GError * err = NULL;
  if (!copy_to_host (root, shared, &err)) {
    GST_ERROR ("mapping device memory on the host: %s", err->message);
    g_error_free (err);
    return NULL;
  }
  GST_LOG ("host copy of %p for CPU access (slow path)", root->data);
  return shared->staging.data ();
}

static void
gst_cs_memory_unmap (GstMemory * mem, GstMapInfo * info)
{
  if ((info->flags & GST_MAP_CS_DEVICE) || !(info->flags & GST_MAP_WRITE))
    return;
  auto * root = root_of (reinterpret_cast<GstCsMemory *> (mem));
  Shared * shared = shared_of (root);
  std::lock_guard<std::mutex> lock (shared->map_lock);
  GError * err = NULL;
  if (!copy_to_device (root, shared, &err)) {
    GST_ERROR ("writing back a host mapping: %s", err->message);
    g_error_free (err);
  }
}

static GstMemory *
gst_cs_memory_share (GstMemory * mem, gssize offset, gssize size)
{
  auto * root = root_of (reinterpret_cast<GstCsMemory *> (mem));
  if (size == -1)
    size = mem->size - offset;
  return new_memory (mem->allocator, Kind::SUB, root->device_id, root->data,
      shared_of (root), GST_MEMORY_CAST (root), mem->maxsize, mem->offset + offset, size);
}

/* A new memory with the same bytes, complete when returned (GstMemory's copy
 * has no way to hand on an event). */
static GstMemory *
gst_cs_memory_copy (GstMemory * mem, gssize offset, gssize size)
{
  auto * root = root_of (reinterpret_cast<GstCsMemory *> (mem));
  if (size == -1)
    size = mem->size > (gsize)offset ? mem->size - offset : 0;
  GError * err = NULL;
  cudaStream_t s = cudaStreamPerThread;
  gst_cs::DeviceGuard guard (root->device_id, &err);
  GstAllocator * alloc = gst_cs_allocator_new (root->device_id);
  GstMemory * copy =
      guard.ok () ? gst_cs_allocator_alloc (GST_CS_ALLOCATOR (alloc), size, &err) : NULL;
  gst_object_unref (alloc);
  if (copy && !(shared_of (root)->sync.gpu_wait_writer (s, &err) &&
                  GST_CS_CHECK (
              cudaMemcpyAsync (reinterpret_cast<GstCsMemory *> (copy)->data,
                  root->data + mem->offset + offset, size, cudaMemcpyDeviceToDevice, s),
              &err) && gst_cs_host_wait_stream (s, &host_map_waits, &err))) {
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
gst_cs_allocator_class_init (GstCsAllocatorClass * klass)
{
  GstAllocatorClass * alloc_class = GST_ALLOCATOR_CLASS (klass);
  alloc_class->alloc = GST_DEBUG_FUNCPTR (gst_cs_allocator_alloc_vfunc);
  alloc_class->free = GST_DEBUG_FUNCPTR (gst_cs_allocator_free);
  GST_DEBUG_CATEGORY_INIT (
      gst_cs_memory_debug, "csmemory", 0, "gst-cudastreams device memory");
}

static void
gst_cs_allocator_init (GstCsAllocator * self)
{
  GstAllocator * alloc = GST_ALLOCATOR_CAST (self);
  alloc->mem_type = GST_CS_MEMORY_TYPE;
  alloc->mem_map_full = GST_DEBUG_FUNCPTR (gst_cs_memory_map);
  alloc->mem_unmap_full = GST_DEBUG_FUNCPTR (gst_cs_memory_unmap);
  alloc->mem_share = GST_DEBUG_FUNCPTR (gst_cs_memory_share);
  alloc->mem_copy = GST_DEBUG_FUNCPTR (gst_cs_memory_copy);
  GST_OBJECT_FLAG_SET (self, GST_ALLOCATOR_FLAG_CUSTOM_ALLOC);
}

/**
 * gst_cs_allocator_new:
 * @device_id: a CUDA device ordinal
 *
 * Returns: (transfer full): an allocator of memory on @device_id
 */
GstAllocator *
gst_cs_allocator_new (gint device_id)
{
  auto * self = GST_CS_ALLOCATOR (g_object_new (GST_TYPE_CS_ALLOCATOR, NULL));
  gst_object_ref_sink (self);
  self->device_id = device_id;
  return GST_ALLOCATOR_CAST (self);
}

/* One allocator per device for memories made without one (wrapped, aliases):
 * kept for the life of the process. */
static GstAllocator *
allocator_of_device (gint device_id)
{
  static std::mutex lock;
  static std::map<gint, GstAllocator *> allocators;
  std::lock_guard<std::mutex> guard (lock);
  GstAllocator *& a = allocators[device_id];
  if (!a) {
    a = gst_cs_allocator_new (device_id);
    GST_OBJECT_FLAG_SET (a, GST_OBJECT_FLAG_MAY_BE_LEAKED);
  }
  return a;
}

/**
 * gst_cs_memory_new_wrapped:
 * @device_id: the CUDA device @data lives on
 * @data: device memory of the application
 * @size: its size in bytes
 * @user_data: (nullable): passed to @notify
 * @notify: (nullable): called when the memory is freed
 *
 * Wraps device memory an application owns (its own cudaMalloc, a PyTorch
 * tensor) as a #GstCsMemory, so a buffer of it can enter a pipeline without a
 * copy. Add a #GstVideoMeta that describes the planes, and record the work
 * that wrote the memory with gst_cs_sync_meta_record(). Before @notify is
 * called, GPU work of the library that still reads or writes the memory
 * completes (a counted host wait, only if some is still running).
 *
 * Returns: (transfer full): a #GstCsMemory of @size bytes at @data
 *
 * Since: 0.1
 */
GstMemory *
gst_cs_memory_new_wrapped (
    gint device_id, gpointer data, gsize size, gpointer user_data, GDestroyNotify notify)
{
  return gst_cs_memory_new_wrapped_full (device_id, data, size, NULL, user_data, notify);
}

/**
 * gst_cs_memory_new_wrapped_full:
 * @device_id: the CUDA device @data lives on
 * @data: device memory of the application
 * @size: its size in bytes
 * @release_stream: (nullable): the stream on which the application reuses or
 *   frees @data once notified, e.g. the stream of the PyTorch allocator that
 *   made it; it must outlive the memory
 * @user_data: (nullable): passed to @notify
 * @notify: (nullable): called when the memory is freed
 *
 * As gst_cs_memory_new_wrapped(), but with no host wait on release: before
 * @notify is called, @release_stream is made to wait (on the GPU, with
 * cudaStreamWaitEvent()) for every GPU access of the library to the memory,
 * so work the application enqueues on @release_stream after @notify (a new
 * tensor in the freed memory) runs after them. @notify may be called on any
 * thread, whenever the last buffer of the memory is freed, and must not
 * block on GPU work. With @release_stream %NULL this is
 * gst_cs_memory_new_wrapped().
 *
 * Returns: (transfer full): a #GstCsMemory of @size bytes at @data
 *
 * Since: 0.2
 */
GstMemory *
gst_cs_memory_new_wrapped_full (gint device_id, gpointer data, gsize size,
    cudaStream_t release_stream, gpointer user_data, GDestroyNotify notify)
{
  g_return_val_if_fail (device_id >= 0, NULL);
  g_return_val_if_fail (data != NULL, NULL);
  GstMemory * mem = new_memory (allocator_of_device (device_id), Kind::WRAPPED, device_id,
      static_cast<guint8 *> (data), new Shared, NULL, size, 0, size);
  impl_of (mem)->notify = notify;
  impl_of (mem)->user_data = user_data;
  impl_of (mem)->release_stream = release_stream;
  return mem;
}

/**
 * gst_cs_memory_new_alias:
 * @owner: a buffer of one #GstCsMemory
 *
 * A memory that is @owner's device memory, seen through a new memory object
 * that keeps a reference to @owner until it is freed. A buffer can then carry
 * the same pixels with metadata of its own (another video meta, a crop)
 * without touching @owner's, and @owner goes back to its pool only once
 * nobody uses its memory: its memory stays exclusive to it, so the pool
 * reuses it rather than discarding it. GPU readers of the alias are readers
 * of @owner's memory.
 *
 * Returns: (transfer full): the alias
 */
GstMemory *
gst_cs_memory_new_alias (GstBuffer * owner)
{
  g_return_val_if_fail (GST_IS_BUFFER (owner) && gst_buffer_n_memory (owner) == 1, NULL);
  GstMemory * mem = gst_buffer_peek_memory (owner, 0);
  g_return_val_if_fail (gst_is_cs_memory (mem), NULL);
  auto * root = root_of (reinterpret_cast<GstCsMemory *> (mem));
  GstMemory * alias = new_memory (mem->allocator, Kind::ALIAS, root->device_id,
      root->data, shared_of (root), NULL, mem->maxsize, mem->offset, mem->size);
  impl_of (alias)->notify = (GDestroyNotify)gst_buffer_unref;
  impl_of (alias)->user_data = gst_buffer_ref (owner);
  return alias;
}

/**
 * gst_is_cs_memory:
 * @mem: (nullable): a memory
 *
 * Returns: whether @mem is a #GstCsMemory
 *
 * Since: 0.1
 */
gboolean
gst_is_cs_memory (GstMemory * mem)
{
  return mem && mem->allocator && GST_IS_CS_ALLOCATOR (mem->allocator);
}

/**
 * gst_cs_memory_get_device_pointer:
 * @mem: a #GstCsMemory
 *
 * Returns: the device address of @mem's first byte (allocation + offset)
 *
 * Since: 0.1
 */
guint8 *
gst_cs_memory_get_device_pointer (GstMemory * mem)
{
  g_return_val_if_fail (gst_is_cs_memory (mem), NULL);
  return reinterpret_cast<GstCsMemory *> (mem)->data + mem->offset;
}

/**
 * gst_cs_memory_get_exportable:
 * @mem: a #GstCsMemory
 * @offset: (out): where @mem's first byte lies in the allocation
 * @alloc_size: (out): the allocation's size
 *
 * The memory that owns the allocation @mem's bytes lie in, where that is
 * one the allocator made of whole %GST_CS_IPC_BLOCK blocks, which may be
 * exported to another process (cudaIpcGetMemHandle() of its data) without
 * exposing other allocations: @mem itself, the parent of a shared
 * sub-memory, the owner's of an alias. Not an application's wrapped memory
 * (its allocator is unknown) nor a smaller allocation.
 *
 * Returns: (transfer none) (nullable): that memory, valid while @mem is
 */
GstMemory *
gst_cs_memory_get_exportable (GstMemory * mem, gsize * offset, gsize * alloc_size)
{
  g_return_val_if_fail (gst_is_cs_memory (mem), NULL);
  const guint8 * first = gst_cs_memory_get_device_pointer (mem);
  Memory * m = impl_of (mem);
  while (m->kind == Kind::SUB || m->kind == Kind::ALIAS) {
    GstMemory * next =
        m->kind == Kind::SUB
            ? mem->parent
            : gst_buffer_peek_memory (static_cast<GstBuffer *> (m->user_data), 0);
    mem = next;
    m = impl_of (mem);
  }
  if (m->kind != Kind::ALLOCATED || m->alloc_size % GST_CS_IPC_BLOCK != 0)
    return NULL;
  *offset = (gsize)(first - m->pub.data);
  *alloc_size = m->alloc_size;
  return mem;
}

/**
 * gst_cs_memory_host_map_waits:
 *
 * Returns: the host waits made by mapping device memory on the CPU (the
 * slow path), for tests and diagnostics
 */
guint64
gst_cs_memory_host_map_waits (void)
{
  return gst_cs_wait_counter_get (&host_map_waits);
}

namespace gst_cs {
MemorySync *
device_memory_sync (GstMemory * mem)
{
  return &shared_of (root_of (reinterpret_cast<GstCsMemory *> (mem)))->sync;
}
} // namespace gst_cs

/* Device memory: a GstAllocator of CUDA device memory. */
#pragma once

#include <gst/gst.h>
#include <cuda_runtime_api.h>

#include "gstcsapi.h"

G_BEGIN_DECLS

/**
 * GST_CS_MEMORY_TYPE_DEVICE:
 *
 * The mem_type of #GstCsMemory.
 *
 * Since: 0.1
 */
#define GST_CS_MEMORY_TYPE_DEVICE "CsDeviceMemory"

/**
 * GST_MAP_CS_DEVICE:
 *
 * Map flag: with it, gst_memory_map() of a #GstCsMemory yields the device
 * pointer instead of a host copy. The caller must then order its GPU work
 * with the buffer's #GstCsSyncMeta.
 *
 * Since: 0.1
 */
#define GST_MAP_CS_DEVICE ((GstMapFlags) (GST_MAP_FLAG_LAST << 2))

/**
 * GstCsMemory:
 * @mem: the parent
 * @device_id: the CUDA device holding the memory
 * @data: device address of the start of the allocation (add mem.offset)
 *
 * CUDA device memory. Mapping it without %GST_MAP_CS_DEVICE gives a host
 * copy: the mapping waits for the GPU work that writes the memory, copies it
 * (and copies it back on unmap after a write). That path is slow and counted
 * as a host wait; it exists so that any element can still read the pixels.
 *
 * Since: 0.1
 */
typedef struct {
  GstMemory mem;
  gint device_id;
  guint8 *data;
  /*< private >*/
  gpointer priv;
} GstCsMemory;

#define GST_TYPE_CS_DEVICE_ALLOCATOR (gst_cs_device_allocator_get_type ())
G_DECLARE_FINAL_TYPE (GstCsDeviceAllocator, gst_cs_device_allocator, GST,
    CS_DEVICE_ALLOCATOR, GstAllocator)

/**
 * gst_cs_device_allocator_new:
 * @device_id: a CUDA device ordinal
 *
 * Returns: (transfer full): an allocator of memory on @device_id
 *
 * Since: 0.1
 */
GST_CS_API GstAllocator * gst_cs_device_allocator_new   (gint device_id);

/**
 * gst_cs_device_allocator_alloc:
 * @allocator: a #GstCsDeviceAllocator
 * @size: bytes
 * @error: (out) (optional): why the allocation failed
 *
 * Allocates with cudaMalloc (a device-wide synchronisation point: pools call
 * this once per buffer, never per frame).
 *
 * Returns: (transfer full) (nullable): a #GstCsMemory
 *
 * Since: 0.1
 */
GST_CS_API GstMemory *    gst_cs_device_allocator_alloc (GstCsDeviceAllocator * allocator,
                                                         gsize                  size,
                                                         GError              ** error);

GST_CS_API gboolean       gst_is_cs_memory              (GstMemory * mem);

/**
 * gst_cs_memory_get_device_pointer:
 * @mem: a #GstCsMemory
 *
 * Returns: the device address of @mem's first byte (allocation + offset)
 *
 * Since: 0.1
 */
GST_CS_API guint8 *       gst_cs_memory_get_device_pointer (GstMemory * mem);

/**
 * gst_cs_memory_host_map_waits:
 *
 * Returns: the counter of host waits made by mapping device memory on the
 * CPU (the slow path), for tests and diagnostics.
 *
 * Since: 0.1
 */
GST_CS_API guint64        gst_cs_memory_host_map_waits  (void);

G_END_DECLS

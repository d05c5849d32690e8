/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Device memory: frames in CUDA device memory, and how to read them. */
#pragma once

#include <gst/gst.h>

#include <cuda_runtime_api.h>

#include "cudastreams-prelude.h"

G_BEGIN_DECLS

/**
 * GST_CS_MEMORY_TYPE:
 *
 * The mem_type of #GstCsMemory, and the name of its caps feature.
 *
 * Since: 0.1
 */
#define GST_CS_MEMORY_TYPE "CUDAStreamsMemory"

/**
 * GST_CAPS_FEATURE_MEMORY_CS:
 *
 * Caps feature of video frames in #GstCsMemory: one pitched block of device
 * memory per frame, planes described by a #GstVideoMeta, a #GstCsSyncMeta
 * saying when the pixels are ready. Distinct from nvcodec's
 * "memory:CUDAMemory", whose memory is another type.
 *
 * Since: 0.1
 */
#define GST_CAPS_FEATURE_MEMORY_CS "memory:" GST_CS_MEMORY_TYPE

/**
 * GST_MAP_CS_DEVICE:
 *
 * Map flag: with it, gst_memory_map() of a #GstCsMemory yields the device
 * pointer instead of a host copy. The caller then orders its GPU work with
 * the buffer's #GstCsSyncMeta.
 *
 * Since: 0.1
 */
#define GST_MAP_CS_DEVICE ((GstMapFlags)(GST_MAP_FLAG_LAST << 2))

/**
 * GstCsMemory:
 * @mem: the parent
 * @device_id: the CUDA device holding the memory
 * @data: device address of the start of the allocation (add mem.offset)
 *
 * CUDA device memory. Mapping it without %GST_MAP_CS_DEVICE gives a host
 * copy: the mapping waits for the GPU work that writes the memory, copies it
 * (and copies it back on unmap after a write). That path is slow and counted
 * as host waits; it exists so that any element can still read the pixels.
 *
 * Since: 0.1
 */
typedef struct {
  GstMemory mem;
  gint device_id;
  guint8 * data;
  /*< private >*/
  gpointer priv;
  gpointer _gst_reserved[GST_PADDING];
} GstCsMemory;

#define GST_TYPE_CS_ALLOCATOR (gst_cs_allocator_get_type ())
/* clang-format off */
GST_CS_API
GType gst_cs_allocator_get_type (void);
G_DECLARE_FINAL_TYPE (GstCsAllocator, gst_cs_allocator, GST, CS_ALLOCATOR, GstAllocator)

GST_CS_API
gboolean    gst_is_cs_memory                 (GstMemory      * mem);

GST_CS_API
guint8    * gst_cs_memory_get_device_pointer (GstMemory      * mem);

GST_CS_API
GstMemory * gst_cs_memory_new_wrapped        (gint             device_id,
                                              gpointer         data,
                                              gsize            size,
                                              gpointer         user_data,
                                              GDestroyNotify   notify);

GST_CS_API
GstMemory * gst_cs_memory_new_wrapped_full   (gint             device_id,
                                              gpointer         data,
                                              gsize            size,
                                              cudaStream_t     release_stream,
                                              gpointer         user_data,
                                              GDestroyNotify   notify);

/* clang-format on */

G_END_DECLS

/* Pinned (page-locked) host memory and a video buffer pool of it. */
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>

#include "gstcsapi.h"
#include "gstcshostwait.h"

G_BEGIN_DECLS

/**
 * GST_CS_MEMORY_TYPE_PINNED:
 *
 * The mem_type of pinned host memory allocated with cudaHostAlloc. Copy
 * engines read and write it directly, so copies from and to it are truly
 * asynchronous and run at the full PCIe rate.
 *
 * Since: 0.1
 */
#define GST_CS_MEMORY_TYPE_PINNED "CsPinnedMemory"

#define GST_TYPE_CS_PINNED_ALLOCATOR (gst_cs_pinned_allocator_get_type ())
G_DECLARE_FINAL_TYPE (GstCsPinnedAllocator, gst_cs_pinned_allocator, GST,
    CS_PINNED_ALLOCATOR, GstAllocator)

/**
 * gst_cs_pinned_allocator_get:
 *
 * Returns: (transfer full): the process-wide pinned host memory allocator
 * (portable: usable by every device)
 *
 * Since: 0.1
 */
GST_CS_API GstAllocator * gst_cs_pinned_allocator_get   (void);
GST_CS_API gboolean       gst_is_cs_pinned_memory       (GstMemory * mem);

/**
 * GstCsPinnedBufferPool:
 *
 * A #GstVideoBufferPool whose memory is pinned. A copy engine may still be
 * reading a buffer (an upload) or writing it (a download) after the buffer
 * went back to the pool, so acquiring a buffer first makes sure that GPU
 * work is complete: a free event query when it is (the steady state), a
 * counted host wait when it is not.
 *
 * Since: 0.1
 */
#define GST_TYPE_CS_PINNED_BUFFER_POOL (gst_cs_pinned_buffer_pool_get_type ())
G_DECLARE_FINAL_TYPE (GstCsPinnedBufferPool, gst_cs_pinned_buffer_pool, GST,
    CS_PINNED_BUFFER_POOL, GstVideoBufferPool)

GST_CS_API GstBufferPool * gst_cs_pinned_buffer_pool_new (void);

/**
 * gst_cs_pinned_buffer_pool_get_host_waits:
 * @pool: a #GstCsPinnedBufferPool
 *
 * Returns: how many times acquiring a buffer had to wait for the GPU.
 *
 * Since: 0.1
 */
GST_CS_API guint64 gst_cs_pinned_buffer_pool_get_host_waits (GstCsPinnedBufferPool * pool);

G_END_DECLS

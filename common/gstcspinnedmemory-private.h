/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Pinned (page-locked) host memory and a video buffer pool of it (private:
 * the library and the plugin, not installed). */
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>

#include "cudastreams-prelude.h"

G_BEGIN_DECLS

/* The mem_type of pinned host memory allocated with cudaHostAlloc: copy
 * engines read and write it directly, so copies from and to it are truly
 * asynchronous and run at the full PCIe rate. */
#define GST_CS_PINNED_MEMORY_TYPE "CUDAStreamsPinnedMemory"

#define GST_TYPE_CS_PINNED_ALLOCATOR (gst_cs_pinned_allocator_get_type ())
/* clang-format off */
GST_CS_API
GType gst_cs_pinned_allocator_get_type (void);
G_DECLARE_FINAL_TYPE (GstCsPinnedAllocator, gst_cs_pinned_allocator, GST,
    CS_PINNED_ALLOCATOR, GstAllocator)

/* A GstVideoBufferPool of pinned memory. A copy engine may still be reading
 * a buffer (an upload) or writing it (a download) after it went back to the
 * pool, so acquiring a buffer first makes sure that GPU work is complete: a
 * free event query when it is (the steady state), a counted host wait when
 * it is not. */
#define GST_TYPE_CS_PINNED_BUFFER_POOL (gst_cs_pinned_buffer_pool_get_type ())
GST_CS_API
GType gst_cs_pinned_buffer_pool_get_type (void);
G_DECLARE_FINAL_TYPE (GstCsPinnedBufferPool, gst_cs_pinned_buffer_pool, GST,
    CS_PINNED_BUFFER_POOL, GstVideoBufferPool)

GST_CS_API
GstAllocator  * gst_cs_pinned_allocator_get              (void);

GST_CS_API
gboolean        gst_is_cs_pinned_memory                  (GstMemory             * mem);

GST_CS_API
GstBufferPool * gst_cs_pinned_buffer_pool_new            (void);

GST_CS_API
guint64         gst_cs_pinned_buffer_pool_get_host_waits (GstCsPinnedBufferPool * pool);

/* clang-format on */

G_END_DECLS

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A buffer pool of video frames in device memory (private: the library and
 * the plugin, not installed). */
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>
#include <cuda_runtime_api.h>

#include "cudastreams-prelude.h"

G_BEGIN_DECLS

/* Frames of the configured caps in #GstCsMemory, laid out as
 * gst_cs_video_info_device_layout() says, each with a #GstVideoMeta. Memory
 * is allocated when the pool is activated, never per frame. A buffer handed
 * out again may still be read by GPU work of its previous use: a writer
 * calls gst_cs_buffer_wait_writable() on its stream first. A pool given its
 * writer's stream hands frames out last-released first where the frame
 * released last has GPU accesses in flight on that stream only (cache
 * locality). */
#define GST_TYPE_CS_BUFFER_POOL (gst_cs_buffer_pool_get_type ())
/* clang-format off */
GST_CS_API
GType gst_cs_buffer_pool_get_type (void);
G_DECLARE_FINAL_TYPE (GstCsBufferPool, gst_cs_buffer_pool, GST, CS_BUFFER_POOL,
    GstBufferPool)

GST_CS_API
GstBufferPool * gst_cs_buffer_pool_new           (gint              device_id);

GST_CS_API
void            gst_cs_buffer_pool_set_writer_stream (GstCsBufferPool * pool,
                                                     cudaStream_t      stream);

GST_CS_API
GError        * gst_cs_buffer_pool_take_error    (GstCsBufferPool * pool);

/* clang-format on */

G_END_DECLS

/* A buffer pool of video frames in device memory. */
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>

#include "gstcsapi.h"

G_BEGIN_DECLS

/**
 * GstCsBufferPool:
 *
 * Hands out frames of the configured caps in #GstCsMemory, laid out as
 * gst_cs_video_info_device_layout() says, each with a #GstVideoMeta. Memory is
 * allocated when the pool is activated, never per frame. A returned buffer
 * gets its video meta back to the full frame (a zero-copy crop changes it).
 * A buffer handed out again may still be read by GPU work of its previous
 * use: a writer calls gst_cs_buffer_wait_writable() on its stream first.
 *
 * Since: 0.1
 */
#define GST_TYPE_CS_BUFFER_POOL (gst_cs_buffer_pool_get_type ())
G_DECLARE_FINAL_TYPE (GstCsBufferPool, gst_cs_buffer_pool, GST,
    CS_BUFFER_POOL, GstBufferPool)

GST_CS_API GstBufferPool * gst_cs_buffer_pool_new       (gint device_id);
GST_CS_API gint            gst_cs_buffer_pool_get_device_id (GstCsBufferPool * pool);

/**
 * gst_cs_buffer_pool_take_error:
 * @pool: a #GstCsBufferPool
 *
 * Returns: (transfer full) (nullable): why the last allocation failed (for
 * instance out of device memory), so an element can say so.
 *
 * Since: 0.1
 */
GST_CS_API GError *        gst_cs_buffer_pool_take_error (GstCsBufferPool * pool);

G_END_DECLS

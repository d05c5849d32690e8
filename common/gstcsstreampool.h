/* A pool of CUDA streams shared by the elements of a process. */
#pragma once

#include <gst/gst.h>
#include <cuda_runtime_api.h>

#include "gstcsapi.h"

G_BEGIN_DECLS

/**
 * GST_CS_STREAM_POOL_CONTEXT_TYPE:
 *
 * The #GstContext type that carries a #GstCsStreamPool: its structure holds
 * the field "pool" (a #GstCsStreamPool). Elements ask for it with a context
 * query and a need-context message when they start; an application answers
 * with gst_cs_context_new_stream_pool() (or sets it on the pipeline) to give
 * them its own streams. Without one, every element of a device shares the
 * process' default pool (gst_cs_stream_pool_get_default()).
 *
 * Since: 0.1
 */
#define GST_CS_STREAM_POOL_CONTEXT_TYPE "gst.cudastreams.stream-pool"

/* Default size of a process' pool; GST_CS_STREAM_POOL_SIZE overrides it. */
#define GST_CS_STREAM_POOL_DEFAULT_SIZE 4

#define GST_TYPE_CS_STREAM_POOL (gst_cs_stream_pool_get_type ())
G_DECLARE_FINAL_TYPE (GstCsStreamPool, gst_cs_stream_pool, GST,
    CS_STREAM_POOL, GstObject)

/**
 * gst_cs_stream_pool_new:
 * @device_id: a CUDA device
 * @n_streams: how many streams (at least 1)
 * @priority: CUDA stream priority (lower is higher priority; clamped to the
 *   device's range)
 * @error: (out) (optional): the CUDA error
 *
 * Creates @n_streams non-blocking streams (cudaStreamNonBlocking: the legacy
 * default stream never serialises them).
 *
 * Returns: (transfer full) (nullable): the pool
 *
 * Since: 0.1
 */
GST_CS_API GstCsStreamPool * gst_cs_stream_pool_new         (gint      device_id,
                                                             guint     n_streams,
                                                             gint      priority,
                                                             GError ** error);

/**
 * gst_cs_stream_pool_new_wrapped:
 * @device_id: the device the streams belong to
 * @streams: (array length=n_streams): an application's streams
 * @n_streams: at least 1
 *
 * A pool of streams the application owns (for instance PyTorch's); the pool
 * never destroys them, so they must outlive it.
 *
 * Returns: (transfer full): the pool
 *
 * Since: 0.1
 */
GST_CS_API GstCsStreamPool * gst_cs_stream_pool_new_wrapped (gint                 device_id,
                                                             const cudaStream_t * streams,
                                                             guint                n_streams);

/**
 * gst_cs_stream_pool_get_default:
 * @device_id: a CUDA device
 * @error: (out) (optional): the CUDA error
 *
 * Returns: (transfer full) (nullable): the process' pool of @device_id,
 * created on first use with GST_CS_STREAM_POOL_SIZE streams (default 4) of
 * priority GST_CS_STREAM_PRIORITY (default 0).
 *
 * Since: 0.1
 */
GST_CS_API GstCsStreamPool * gst_cs_stream_pool_get_default (gint      device_id,
                                                             GError ** error);

GST_CS_API gint              gst_cs_stream_pool_get_device_id (GstCsStreamPool * pool);
GST_CS_API guint             gst_cs_stream_pool_get_size    (GstCsStreamPool * pool);

/**
 * gst_cs_stream_pool_lease:
 * @pool: a pool
 *
 * Leases the least-leased stream. When every stream is leased, streams are
 * shared: a lease is never refused.
 *
 * Returns: a stream, to give back with gst_cs_stream_pool_release()
 *
 * Since: 0.1
 */
GST_CS_API cudaStream_t      gst_cs_stream_pool_lease       (GstCsStreamPool * pool);
GST_CS_API void              gst_cs_stream_pool_release     (GstCsStreamPool * pool,
                                                             cudaStream_t      stream);

G_END_DECLS

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A pool of CUDA streams shared by the elements of a process, and the
 * GstContext that hands it to them. */
#pragma once

#include <gst/gst.h>
#include <cuda_runtime_api.h>

#include "cudastreams-prelude.h"

G_BEGIN_DECLS

/**
 * GST_CS_STREAM_POOL_CONTEXT_TYPE:
 *
 * The #GstContext type that carries a #GstCsStreamPool: its structure holds
 * the field "pool". Elements ask for it with a context query and a
 * need-context message when they start; an application answers with
 * gst_cs_context_new_stream_pool() (set on the pipeline before it starts, or
 * on the asking element from a bus sync handler) to give them its own
 * streams. Without one, every element of a device shares the process'
 * default pool (gst_cs_stream_pool_get_default()).
 *
 * Since: 0.1
 */
#define GST_CS_STREAM_POOL_CONTEXT_TYPE "gst.cudastreams.stream-pool"

/**
 * GST_CS_STREAM_POOL_DEFAULT_SIZE:
 *
 * Streams in a process' default pool; the environment variable
 * GST_CS_STREAM_POOL_SIZE overrides it.
 *
 * Since: 0.1
 */
#define GST_CS_STREAM_POOL_DEFAULT_SIZE 4

#define GST_TYPE_CS_STREAM_POOL (gst_cs_stream_pool_get_type ())
/* clang-format off */
GST_CS_API
GType gst_cs_stream_pool_get_type (void);
G_DECLARE_FINAL_TYPE (GstCsStreamPool, gst_cs_stream_pool, GST, CS_STREAM_POOL, GstObject)

GST_CS_API
GstCsStreamPool * gst_cs_stream_pool_new            (gint                 device_id,
                                                     guint                n_streams,
                                                     gint                 priority,
                                                     GError            ** error);

GST_CS_API
GstCsStreamPool * gst_cs_stream_pool_new_wrapped    (gint                 device_id,
                                                     const cudaStream_t * streams,
                                                     guint                n_streams);

GST_CS_API
GstCsStreamPool * gst_cs_stream_pool_get_default    (gint                 device_id,
                                                     GError            ** error);

GST_CS_API
gint              gst_cs_stream_pool_get_device_id  (GstCsStreamPool    * pool);

GST_CS_API
guint             gst_cs_stream_pool_get_size       (GstCsStreamPool    * pool);

GST_CS_API
cudaStream_t      gst_cs_stream_pool_lease          (GstCsStreamPool    * pool);

GST_CS_API
void              gst_cs_stream_pool_release        (GstCsStreamPool    * pool,
                                                     cudaStream_t         stream);

GST_CS_API
GstContext      * gst_cs_context_new_stream_pool    (GstCsStreamPool    * pool);

GST_CS_API
gboolean          gst_cs_context_get_stream_pool    (GstContext         * context,
                                                     GstCsStreamPool   ** pool);

/* clang-format on */

G_END_DECLS

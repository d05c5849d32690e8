/* Sharing a stream pool between elements and with the application through
 * GstContext. */
#pragma once

#include <gst/gst.h>

#include "gstcsapi.h"
#include "gstcsstreampool.h"

G_BEGIN_DECLS

/**
 * gst_cs_context_new_stream_pool:
 * @pool: a pool
 *
 * Returns: (transfer full): a persistent context of type
 * %GST_CS_STREAM_POOL_CONTEXT_TYPE carrying @pool
 *
 * Since: 0.1
 */
GST_CS_API GstContext *      gst_cs_context_new_stream_pool (GstCsStreamPool * pool);

/**
 * gst_cs_context_get_stream_pool:
 * @context: a context
 * @pool: (out) (transfer full): its pool
 *
 * Returns: whether @context is a stream-pool context holding a pool
 *
 * Since: 0.1
 */
GST_CS_API gboolean          gst_cs_context_get_stream_pool (GstContext       * context,
                                                             GstCsStreamPool ** pool);

/**
 * gst_cs_ensure_stream_pool:
 * @element: the element that needs a pool; its set_context must chain up to
 *   #GstElement's, which keeps the context
 * @device_id: its device
 * @pool: (out) (transfer full): the pool to use
 * @error: (out) (optional): why no pool could be had
 *
 * Finds the pool an element should use: the one of a stream-pool context set
 * on it (before, or meanwhile from any thread), else one from a neighbour
 * (context query), else one from the application (need-context message,
 * answered for instance from a bus sync handler), else the process' default
 * for @device_id, which it then announces (have-context message). Contexts
 * for another device are passed over.
 *
 * Since: 0.1
 */
GST_CS_API gboolean          gst_cs_ensure_stream_pool      (GstElement       * element,
                                                             gint               device_id,
                                                             GstCsStreamPool ** pool,
                                                             GError          ** error);

/**
 * gst_cs_handle_set_context:
 * @element: the element
 * @context: the context given to it
 * @device_id: the element's device, or -1 when not yet known
 * @pool: (inout): the element's pool, replaced by the context's when it
 *   matches the device
 *
 * Since: 0.1
 */
GST_CS_API void              gst_cs_handle_set_context      (GstElement       * element,
                                                             GstContext       * context,
                                                             gint               device_id,
                                                             GstCsStreamPool ** pool);

/**
 * gst_cs_handle_context_query:
 * @element: the element
 * @query: a query
 * @pool: (nullable): the element's pool
 *
 * Returns: %TRUE when @query asked for a stream-pool context and was answered
 *
 * Since: 0.1
 */
GST_CS_API gboolean          gst_cs_handle_context_query    (GstElement      * element,
                                                             GstQuery        * query,
                                                             GstCsStreamPool * pool);

G_END_DECLS

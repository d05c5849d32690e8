/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "gstcscontext-private.h"

GST_DEBUG_CATEGORY_STATIC (gst_cs_context_debug);
#define GST_CAT_DEFAULT gst_cs_context_debug

static void
init_debug (void)
{
  static gsize once = 0;
  if (g_once_init_enter (&once)) {
    GST_DEBUG_CATEGORY_INIT (
        gst_cs_context_debug, "cscontext", 0, "gst-cudastreams stream-pool context");
    g_once_init_leave (&once, 1);
  }
}

/**
 * gst_cs_context_new_stream_pool:
 * @pool: a pool
 *
 * Returns: (transfer full): a persistent context of type
 * %GST_CS_STREAM_POOL_CONTEXT_TYPE carrying @pool
 *
 * Since: 0.1
 */
GstContext *
gst_cs_context_new_stream_pool (GstCsStreamPool * pool)
{
  g_return_val_if_fail (GST_IS_CS_STREAM_POOL (pool), NULL);
  GstContext * ctx = gst_context_new (GST_CS_STREAM_POOL_CONTEXT_TYPE, TRUE);
  gst_structure_set (
      gst_context_writable_structure (ctx), "pool", GST_TYPE_CS_STREAM_POOL, pool, NULL);
  return ctx;
}

/**
 * gst_cs_context_get_stream_pool:
 * @context: a context
 * @pool: (out) (transfer full): its pool
 *
 * Returns: whether @context is a stream-pool context holding a pool
 *
 * Since: 0.1
 */
gboolean
gst_cs_context_get_stream_pool (GstContext * context, GstCsStreamPool ** pool)
{
  g_return_val_if_fail (GST_IS_CONTEXT (context), FALSE);
  g_return_val_if_fail (pool != NULL, FALSE);
  if (g_strcmp0 (
          gst_context_get_context_type (context), GST_CS_STREAM_POOL_CONTEXT_TYPE) != 0)
    return FALSE;
  const GstStructure * s = gst_context_get_structure (context);
  return gst_structure_get (s, "pool", GST_TYPE_CS_STREAM_POOL, pool, NULL) &&
         *pool != NULL;
}

/**
 * gst_cs_handle_set_context:
 * @element: the element
 * @context: the context given to it
 * @device_id: the element's device, or -1 when not yet known
 * @pool: (inout): the element's pool, replaced by the context's when it is
 *   for that device
 */
void
gst_cs_handle_set_context (
    GstElement * element, GstContext * context, gint device_id, GstCsStreamPool ** pool)
{
  init_debug ();
  GstCsStreamPool * given = NULL;
  if (!gst_cs_context_get_stream_pool (context, &given))
    return;
  if (device_id >= 0 && gst_cs_stream_pool_get_device_id (given) != device_id) {
    GST_DEBUG_OBJECT (element, "ignoring stream pool of device %d (mine is %d)",
        gst_cs_stream_pool_get_device_id (given), device_id);
    gst_object_unref (given);
    return;
  }
  GST_DEBUG_OBJECT (element, "using stream pool %" GST_PTR_FORMAT, given);
  gst_clear_object (pool);
  *pool = given;
}

/**
 * gst_cs_handle_context_query:
 * @element: the element
 * @query: a query
 * @pool: (nullable): the element's pool
 *
 * Returns: %TRUE when @query asked for a stream-pool context and was
 * answered
 */
gboolean
gst_cs_handle_context_query (
    GstElement * element, GstQuery * query, GstCsStreamPool * pool)
{
  const gchar * type = NULL;
  if (GST_QUERY_TYPE (query) != GST_QUERY_CONTEXT || !pool ||
      !gst_query_parse_context_type (query, &type) ||
      g_strcmp0 (type, GST_CS_STREAM_POOL_CONTEXT_TYPE) != 0)
    return FALSE;
  GstContext * ctx = gst_cs_context_new_stream_pool (pool);
  gst_query_set_context (query, ctx);
  gst_context_unref (ctx);
  GST_DEBUG_OBJECT (element, "answered a stream-pool context query");
  return TRUE;
}

/* Asks the neighbours on one side; an answer is set on the element. */
static void
query_peers (GstElement * element, GstPadDirection direction)
{
  GstQuery * query = gst_query_new_context (GST_CS_STREAM_POOL_CONTEXT_TYPE);
  GstIterator * it = direction == GST_PAD_SRC ? gst_element_iterate_src_pads (element)
                                              : gst_element_iterate_sink_pads (element);
  gboolean found = FALSE;
  GValue item = G_VALUE_INIT;
  while (!found && gst_iterator_next (it, &item) == GST_ITERATOR_OK) {
    GstPad * pad = GST_PAD (g_value_get_object (&item));
    if (gst_pad_peer_query (pad, query)) {
      GstContext * ctx = NULL;
      gst_query_parse_context (query, &ctx);
      if (ctx) {
        gst_element_set_context (element, ctx);
        found = TRUE;
      }
    }
    g_value_reset (&item);
  }
  g_value_unset (&item);
  gst_iterator_free (it);
  gst_query_unref (query);
}

/* The pool of the stream-pool context set on the element, if it is for
 * @device_id. Reading it back from the element (rather than from a variable
 * set_context fills in) sees a context set from any thread, in particular
 * by an application answering need-context from a bus sync handler. */
static GstCsStreamPool *
pool_set_on (GstElement * element, gint device_id)
{
  GstContext * ctx = gst_element_get_context (element, GST_CS_STREAM_POOL_CONTEXT_TYPE);
  if (!ctx)
    return NULL;
  GstCsStreamPool * pool = NULL;
  if (gst_cs_context_get_stream_pool (ctx, &pool) &&
      gst_cs_stream_pool_get_device_id (pool) != device_id) {
    GST_DEBUG_OBJECT (element, "ignoring the stream pool of device %d (mine is %d)",
        gst_cs_stream_pool_get_device_id (pool), device_id);
    gst_clear_object (&pool);
  }
  gst_context_unref (ctx);
  return pool;
}

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
 * Returns: %TRUE when @pool is set
 */
gboolean
gst_cs_ensure_stream_pool (
    GstElement * element, gint device_id, GstCsStreamPool ** pool, GError ** error)
{
  init_debug ();
  gst_clear_object (pool);
  /* One set before (by the application or an earlier run), then the
   * neighbours', then the application's answer to need-context. */
  *pool = pool_set_on (element, device_id);
  if (!*pool) {
    query_peers (element, GST_PAD_SRC);
    *pool = pool_set_on (element, device_id);
  }
  if (!*pool) {
    query_peers (element, GST_PAD_SINK);
    *pool = pool_set_on (element, device_id);
  }
  if (!*pool) {
    gst_element_post_message (
        element, gst_message_new_need_context (
                     GST_OBJECT_CAST (element), GST_CS_STREAM_POOL_CONTEXT_TYPE));
    *pool = pool_set_on (element, device_id);
  }
  if (*pool)
    return TRUE;

  *pool = gst_cs_stream_pool_get_default (device_id, error);
  if (!*pool)
    return FALSE;
  GstContext * ctx = gst_cs_context_new_stream_pool (*pool);
  gst_element_set_context (element, ctx);
  gst_element_post_message (
      element, gst_message_new_have_context (GST_OBJECT_CAST (element), ctx));
  return TRUE;
}

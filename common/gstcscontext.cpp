#include "gstcscontext.h"

#include "gstcserror.h"

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

GstContext *
gst_cs_context_new_stream_pool (GstCsStreamPool * pool)
{
  GstContext * ctx = gst_context_new (GST_CS_STREAM_POOL_CONTEXT_TYPE, TRUE);
  gst_structure_set (
      gst_context_writable_structure (ctx), "pool", GST_TYPE_CS_STREAM_POOL, pool, NULL);
  return ctx;
}

gboolean
gst_cs_context_get_stream_pool (GstContext * context, GstCsStreamPool ** pool)
{
  if (g_strcmp0 (
          gst_context_get_context_type (context), GST_CS_STREAM_POOL_CONTEXT_TYPE) != 0)
    return FALSE;
  const GstStructure * s = gst_context_get_structure (context);
  return gst_structure_get (s, "pool", GST_TYPE_CS_STREAM_POOL, pool, NULL) &&
         *pool != NULL;
}

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

static gboolean
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
  return found;
}

gboolean
gst_cs_ensure_stream_pool (
    GstElement * element, gint device_id, GstCsStreamPool ** pool, GError ** error)
{
  init_debug ();
  if (*pool && gst_cs_stream_pool_get_device_id (*pool) == device_id)
    return TRUE;
  gst_clear_object (pool);

  /* Neighbours first, then the application; set_context fills *pool. */
  if (!query_peers (element, GST_PAD_SRC))
    query_peers (element, GST_PAD_SINK);
  if (!(*pool && gst_cs_stream_pool_get_device_id (*pool) == device_id)) {
    GstMessage * msg = gst_message_new_need_context (
        GST_OBJECT_CAST (element), GST_CS_STREAM_POOL_CONTEXT_TYPE);
    gst_element_post_message (element, msg);
  }
  if (*pool && gst_cs_stream_pool_get_device_id (*pool) == device_id)
    return TRUE;

  gst_clear_object (pool);
  *pool = gst_cs_stream_pool_get_default (device_id, error);
  if (!*pool)
    return FALSE;
  GstContext * ctx = gst_cs_context_new_stream_pool (*pool);
  GstMessage * msg = gst_message_new_have_context (GST_OBJECT_CAST (element), ctx);
  gst_element_post_message (element, msg);
  return TRUE;
}

#include "gstcsbasetransform.h"

#include "gstcscontext.h"
#include "gstcsdevice.h"
#include "gstcserror.h"

GST_DEBUG_CATEGORY_STATIC (gst_cs_base_transform_debug);
#define GST_CAT_DEFAULT gst_cs_base_transform_debug

enum { PROP_0, PROP_DEVICE_ID, PROP_HOST_WAITS };

typedef struct {
  gint requested_device;        /* the property: -1 = default */
  gint device;                  /* resolved in start(), -1 before */
  GstCsStreamPool * pool;       /* the latest one set (context queries get it) */
  GstCsStreamPool * lease_pool; /* the one the stream is leased from */
  cudaStream_t stream;
  GstCsWaitCounter waits;
} GstCsBaseTransformPrivate;

G_DEFINE_ABSTRACT_TYPE_WITH_PRIVATE (
    GstCsBaseTransform, gst_cs_base_transform, GST_TYPE_BASE_TRANSFORM);

#define PRIV(self) \
  ((GstCsBaseTransformPrivate *)gst_cs_base_transform_get_instance_private ( \
      GST_CS_BASE_TRANSFORM (self)))

static void
set_property (GObject * object, guint id, const GValue * value, GParamSpec * pspec)
{
  GstCsBaseTransformPrivate * priv = PRIV (object);
  switch (id) {
    case PROP_DEVICE_ID:
      GST_OBJECT_LOCK (object);
      priv->requested_device = g_value_get_int (value);
      GST_OBJECT_UNLOCK (object);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, id, pspec);
  }
}

static void
get_property (GObject * object, guint id, GValue * value, GParamSpec * pspec)
{
  GstCsBaseTransformPrivate * priv = PRIV (object);
  switch (id) {
    case PROP_DEVICE_ID:
      GST_OBJECT_LOCK (object);
      g_value_set_int (value, priv->requested_device);
      GST_OBJECT_UNLOCK (object);
      break;
    case PROP_HOST_WAITS:
      g_value_set_uint64 (value, gst_cs_wait_counter_get (&priv->waits));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, id, pspec);
  }
}

static void
set_context (GstElement * element, GstContext * context)
{
  GstCsBaseTransformPrivate * priv = PRIV (element);
  GST_OBJECT_LOCK (element);
  gint device = priv->device >= 0 ? priv->device : priv->requested_device;
  GstCsStreamPool * pool =
      priv->pool ? GST_CS_STREAM_POOL (gst_object_ref (priv->pool)) : NULL;
  GST_OBJECT_UNLOCK (element);
  gst_cs_handle_set_context (element, context, device, &pool);
  GST_OBJECT_LOCK (element);
  gst_clear_object (&priv->pool);
  priv->pool = pool;
  GST_OBJECT_UNLOCK (element);
  GST_ELEMENT_CLASS (gst_cs_base_transform_parent_class)->set_context (element, context);
}

static gboolean
query (GstBaseTransform * trans, GstPadDirection direction, GstQuery * q)
{
  GstCsBaseTransformPrivate * priv = PRIV (trans);
  if (GST_QUERY_TYPE (q) == GST_QUERY_CONTEXT) {
    GST_OBJECT_LOCK (trans);
    GstCsStreamPool * pool =
        priv->pool ? GST_CS_STREAM_POOL (gst_object_ref (priv->pool)) : NULL;
    GST_OBJECT_UNLOCK (trans);
    gboolean ok = gst_cs_handle_context_query (GST_ELEMENT_CAST (trans), q, pool);
    gst_clear_object (&pool);
    if (ok)
      return TRUE;
  }
  return GST_BASE_TRANSFORM_CLASS (gst_cs_base_transform_parent_class)
      ->query (trans, direction, q);
}

static gboolean
start (GstBaseTransform * trans)
{
  GstCsBaseTransformPrivate * priv = PRIV (trans);
  GError * err = NULL;
  GST_OBJECT_LOCK (trans);
  gint requested = priv->requested_device;
  GST_OBJECT_UNLOCK (trans);

  gint device = -1;
  if (!gst_cs_device_resolve (requested, &device, &err)) {
    GST_CS_POST_ERROR (trans, err, "Cannot start");
    return FALSE;
  }
  GST_OBJECT_LOCK (trans);
  priv->device = device;
  GST_OBJECT_UNLOCK (trans);

  GstCsStreamPool * pool = NULL;
  if (!gst_cs_ensure_stream_pool (GST_ELEMENT_CAST (trans), device, &pool, &err)) {
    GST_CS_POST_ERROR (trans, err, "Cannot create CUDA streams");
    return FALSE;
  }
  GST_OBJECT_LOCK (trans);
  gst_object_replace ((GstObject **)&priv->pool, GST_OBJECT_CAST (pool));
  /* Given back to this pool at stop, whatever pool a context sets meanwhile. */
  priv->lease_pool = pool;
  priv->stream = gst_cs_stream_pool_lease (pool);
  GST_OBJECT_UNLOCK (trans);
  GST_INFO_OBJECT (trans, "device %d, stream %p", device, priv->stream);
  return TRUE;
}

static gboolean
stop (GstBaseTransform * trans)
{
  GstCsBaseTransformPrivate * priv = PRIV (trans);
  GST_OBJECT_LOCK (trans);
  if (priv->lease_pool && priv->stream)
    gst_cs_stream_pool_release (priv->lease_pool, priv->stream);
  gst_clear_object (&priv->lease_pool);
  priv->stream = NULL;
  priv->device = -1;
  GST_OBJECT_UNLOCK (trans);
  return TRUE;
}

static void
finalize (GObject * object)
{
  gst_clear_object (&PRIV (object)->pool);
  gst_clear_object (&PRIV (object)->lease_pool);
  G_OBJECT_CLASS (gst_cs_base_transform_parent_class)->finalize (object);
}

static void
gst_cs_base_transform_class_init (GstCsBaseTransformClass * klass)
{
  GObjectClass * gobject_class = G_OBJECT_CLASS (klass);
  GstBaseTransformClass * trans_class = GST_BASE_TRANSFORM_CLASS (klass);

  gobject_class->set_property = set_property;
  gobject_class->get_property = get_property;
  gobject_class->finalize = finalize;
  GST_ELEMENT_CLASS (klass)->set_context = set_context;
  trans_class->query = query;
  trans_class->start = start;
  trans_class->stop = stop;

  g_object_class_install_property (gobject_class, PROP_DEVICE_ID,
      g_param_spec_int ("device-id", "Device ID",
          "CUDA device ordinal to run on (-1 = the default device, 0). "
          "Read when the element starts",
          -1, G_MAXINT16, -1,
          (GParamFlags)(G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
                        GST_PARAM_MUTABLE_READY)));
  g_object_class_install_property (gobject_class, PROP_HOST_WAITS,
      g_param_spec_uint64 ("host-waits", "Host waits",
          "How many times this element blocked the CPU on the GPU so far "
          "(each wait is on one frame's event, never a whole stream)",
          0, G_MAXUINT64, 0, (GParamFlags)(G_PARAM_READABLE | G_PARAM_STATIC_STRINGS)));

  GST_DEBUG_CATEGORY_INIT (gst_cs_base_transform_debug, "csbasetransform", 0,
      "gst-cudastreams element base class");
  gst_type_mark_as_plugin_api (GST_TYPE_CS_BASE_TRANSFORM, (GstPluginAPIFlags)0);
}

static void
gst_cs_base_transform_init (GstCsBaseTransform * self)
{
  GstCsBaseTransformPrivate * priv = PRIV (self);
  priv->requested_device = -1;
  priv->device = -1;
}

gint
gst_cs_base_transform_get_device (GstCsBaseTransform * self)
{
  return PRIV (self)->device;
}

cudaStream_t
gst_cs_base_transform_get_stream (GstCsBaseTransform * self)
{
  return PRIV (self)->stream;
}

GstCsWaitCounter *
gst_cs_base_transform_get_waits (GstCsBaseTransform * self)
{
  return &PRIV (self)->waits;
}

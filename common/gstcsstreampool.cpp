#include "gstcsstreampool.h"

#include <map>
#include <mutex>
#include <vector>

#include "gstcsdeviceguard.hpp"
#include "gstcserror.h"

GST_DEBUG_CATEGORY_STATIC (gst_cs_stream_pool_debug);
#define GST_CAT_DEFAULT gst_cs_stream_pool_debug

namespace {
struct Slot {
  cudaStream_t stream;
  guint leases;
};
} // namespace

struct _GstCsStreamPool {
  GstObject parent;
  gint device_id;
  gboolean owns_streams;
  std::vector<Slot> * slots; /* guarded by the object lock */
};

G_DEFINE_TYPE (GstCsStreamPool, gst_cs_stream_pool, GST_TYPE_OBJECT);

static void
finalize (GObject * object)
{
  auto * self = GST_CS_STREAM_POOL (object);
  if (self->owns_streams) {
    /* Work still queued on a stream completes before its resources go;
     * destroying does not wait for it. */
    gcs::DeviceGuard guard (self->device_id, NULL);
    for (auto & s : *self->slots)
      if (guard.ok ())
        cudaStreamDestroy (s.stream);
  }
  delete self->slots;
  G_OBJECT_CLASS (gst_cs_stream_pool_parent_class)->finalize (object);
}

static void
gst_cs_stream_pool_class_init (GstCsStreamPoolClass * klass)
{
  G_OBJECT_CLASS (klass)->finalize = finalize;
  GST_DEBUG_CATEGORY_INIT (
      gst_cs_stream_pool_debug, "csstreampool", 0, "gst-cudastreams stream pool");
}

static void
gst_cs_stream_pool_init (GstCsStreamPool * self)
{
  self->slots = new std::vector<Slot>;
}

static GstCsStreamPool *
pool_new (gint device_id, gboolean owns)
{
  auto * self = GST_CS_STREAM_POOL (g_object_new (GST_TYPE_CS_STREAM_POOL, NULL));
  gst_object_ref_sink (self);
  self->device_id = device_id;
  self->owns_streams = owns;
  return self;
}

GstCsStreamPool *
gst_cs_stream_pool_new (gint device_id, guint n_streams, gint priority, GError ** error)
{
  gcs::DeviceGuard guard (device_id, error);
  if (!guard.ok ())
    return NULL;
  int least = 0, greatest = 0;
  if (!GST_CS_CHECK (cudaDeviceGetStreamPriorityRange (&least, &greatest), error))
    return NULL;
  priority = CLAMP (priority, greatest, least);

  GstCsStreamPool * self = pool_new (device_id, TRUE);
  for (guint i = 0; i < MAX (n_streams, 1u); i++) {
    cudaStream_t s = nullptr;
    if (!GST_CS_CHECK (
            cudaStreamCreateWithPriority (&s, cudaStreamNonBlocking, priority), error)) {
      gst_object_unref (self);
      return NULL;
    }
    self->slots->push_back ({ s, 0 });
  }
  GST_DEBUG_OBJECT (self, "%u streams of priority %d on device %d",
      (guint)self->slots->size (), priority, device_id);
  return self;
}

GstCsStreamPool *
gst_cs_stream_pool_new_wrapped (
    gint device_id, const cudaStream_t * streams, guint n_streams)
{
  g_return_val_if_fail (streams != NULL && n_streams > 0, NULL);
  GstCsStreamPool * self = pool_new (device_id, FALSE);
  for (guint i = 0; i < n_streams; i++)
    self->slots->push_back ({ streams[i], 0 });
  return self;
}

static gint
env_int (const gchar * name, gint fallback)
{
  const gchar * v = g_getenv (name);
  return v && *v ? (gint)g_ascii_strtoll (v, NULL, 10) : fallback;
}

GstCsStreamPool *
gst_cs_stream_pool_get_default (gint device_id, GError ** error)
{
  static std::mutex lock;
  static std::map<gint, GstCsStreamPool *> pools;
  std::lock_guard<std::mutex> guard (lock);
  auto it = pools.find (device_id);
  if (it != pools.end ())
    return GST_CS_STREAM_POOL (gst_object_ref (it->second));
  gint n = env_int ("GST_CS_STREAM_POOL_SIZE", GST_CS_STREAM_POOL_DEFAULT_SIZE);
  gint prio = env_int ("GST_CS_STREAM_PRIORITY", 0);
  GstCsStreamPool * pool =
      gst_cs_stream_pool_new (device_id, (guint)MAX (n, 1), prio, error);
  if (!pool)
    return NULL;
  /* Kept for the life of the process, like the runtime's primary context. */
  GST_OBJECT_FLAG_SET (pool, GST_OBJECT_FLAG_MAY_BE_LEAKED);
  pools[device_id] = pool;
  return GST_CS_STREAM_POOL (gst_object_ref (pool));
}

gint
gst_cs_stream_pool_get_device_id (GstCsStreamPool * pool)
{
  return pool->device_id;
}

guint
gst_cs_stream_pool_get_size (GstCsStreamPool * pool)
{
  return (guint)pool->slots->size ();
}

cudaStream_t
gst_cs_stream_pool_lease (GstCsStreamPool * pool)
{
  GST_OBJECT_LOCK (pool);
  Slot * best = &pool->slots->front ();
  for (auto & s : *pool->slots)
    if (s.leases < best->leases)
      best = &s;
  best->leases++;
  cudaStream_t s = best->stream;
  GST_OBJECT_UNLOCK (pool);
  GST_DEBUG_OBJECT (pool, "leased stream %p", s);
  return s;
}

void
gst_cs_stream_pool_release (GstCsStreamPool * pool, cudaStream_t stream)
{
  GST_OBJECT_LOCK (pool);
  for (auto & s : *pool->slots)
    if (s.stream == stream && s.leases > 0) {
      s.leases--;
      break;
    }
  GST_OBJECT_UNLOCK (pool);
}

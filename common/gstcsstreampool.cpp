/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "gstcsstreampool.h"

#include <map>
#include <mutex>
#include <vector>

#include "gstcsdeviceguard.hpp"
#include "gstcserror-private.h"

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
gst_cs_stream_pool_finalize (GObject * object)
{
  auto * self = GST_CS_STREAM_POOL (object);
  if (self->owns_streams) {
    /* Work still queued on a stream completes before its resources go;
     * destroying does not wait for it. */
    gst_cs::DeviceGuard guard (self->device_id, NULL);
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
  G_OBJECT_CLASS (klass)->finalize = gst_cs_stream_pool_finalize;
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

/**
 * gst_cs_stream_pool_new:
 * @device_id: a CUDA device
 * @n_streams: how many streams (at least 1)
 * @priority: CUDA stream priority (lower is higher priority; clamped to the
 *   device's range)
 * @error: (out) (optional): the CUDA error
 *
 * Creates @n_streams non-blocking streams (cudaStreamNonBlocking: the legacy
 * default stream never serialises them). The calling thread's current device
 * does not change.
 *
 * Returns: (transfer full) (nullable): the pool
 *
 * Since: 0.1
 */
GstCsStreamPool *
gst_cs_stream_pool_new (gint device_id, guint n_streams, gint priority, GError ** error)
{
  g_return_val_if_fail (device_id >= 0, NULL);
  gst_cs::DeviceGuard guard (device_id, error);
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

/**
 * gst_cs_stream_pool_new_wrapped:
 * @device_id: the device the streams belong to
 * @streams: (array length=n_streams): an application's streams
 * @n_streams: at least 1
 *
 * A pool of streams the application owns (for instance PyTorch's, of the
 * priorities it chose): the elements do their work on them. The pool never
 * destroys them, so they must outlive it. cudaStreamPerThread is refused:
 * it names the calling thread's own stream, and every element works on
 * threads of its own, so elements leasing it would each use another stream
 * and skip the waits between them. The legacy default stream is accepted:
 * the elements resolve it with @device_id current.
 *
 * Returns: (transfer full) (nullable): the pool; %NULL when @streams holds
 *   cudaStreamPerThread
 *
 * Since: 0.1
 */
GstCsStreamPool *
gst_cs_stream_pool_new_wrapped (
    gint device_id, const cudaStream_t * streams, guint n_streams)
{
  g_return_val_if_fail (streams != NULL && n_streams > 0, NULL);
  GstCsStreamPool * self = pool_new (device_id, FALSE);
  for (guint i = 0; i < n_streams; i++) {
    if (streams[i] == cudaStreamPerThread) {
      GST_WARNING ("cudaStreamPerThread names another stream on every thread: refused");
      gst_object_unref (self);
      return NULL;
    }
  }
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

/**
 * gst_cs_stream_pool_get_default:
 * @device_id: a CUDA device
 * @error: (out) (optional): the CUDA error
 *
 * Returns: (transfer full) (nullable): the process' pool of @device_id,
 * created on first use with GST_CS_STREAM_POOL_SIZE streams (default
 * %GST_CS_STREAM_POOL_DEFAULT_SIZE) of priority GST_CS_STREAM_PRIORITY
 * (default 0), and kept for the life of the process
 *
 * Since: 0.1
 */
GstCsStreamPool *
gst_cs_stream_pool_get_default (gint device_id, GError ** error)
{
  g_return_val_if_fail (device_id >= 0, NULL);
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

/**
 * gst_cs_stream_pool_get_device_id:
 * @pool: a pool
 *
 * Returns: the device of @pool's streams
 *
 * Since: 0.1
 */
gint
gst_cs_stream_pool_get_device_id (GstCsStreamPool * pool)
{
  g_return_val_if_fail (GST_IS_CS_STREAM_POOL (pool), -1);
  return pool->device_id;
}

/**
 * gst_cs_stream_pool_get_size:
 * @pool: a pool
 *
 * Returns: how many streams @pool has
 *
 * Since: 0.1
 */
guint
gst_cs_stream_pool_get_size (GstCsStreamPool * pool)
{
  g_return_val_if_fail (GST_IS_CS_STREAM_POOL (pool), 0);
  return (guint)pool->slots->size ();
}

/**
 * gst_cs_stream_pool_lease:
 * @pool: a pool
 *
 * Leases the least-leased stream (the first of them on a tie). When every
 * stream is leased, streams are shared: a lease is never refused.
 *
 * Returns: a stream, to give back with gst_cs_stream_pool_release()
 *
 * Since: 0.1
 */
cudaStream_t
gst_cs_stream_pool_lease (GstCsStreamPool * pool)
{
  g_return_val_if_fail (GST_IS_CS_STREAM_POOL (pool), NULL);
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

/**
 * gst_cs_stream_pool_release:
 * @pool: the pool @stream was leased from
 * @stream: a leased stream
 *
 * Gives a lease back.
 *
 * Since: 0.1
 */
void
gst_cs_stream_pool_release (GstCsStreamPool * pool, cudaStream_t stream)
{
  g_return_if_fail (GST_IS_CS_STREAM_POOL (pool));
  GST_OBJECT_LOCK (pool);
  for (auto & s : *pool->slots)
    if (s.stream == stream && s.leases > 0) {
      s.leases--;
      break;
    }
  GST_OBJECT_UNLOCK (pool);
}

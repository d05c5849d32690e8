/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "nvcodec/gstcsnvcodecstream.hpp"

#include "gstcserror-private.h"

#if HAVE_NVCODEC_INTEROP
#include <dlfcn.h>

#include <mutex>
#include <type_traits>

#include <gst/cuda/gstcudabufferpool.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudamemory.h>
#endif

namespace gst_cs {
namespace nvcodec_stream {

#if HAVE_NVCODEC_INTEROP

GST_DEBUG_CATEGORY_STATIC (gst_cs_nvcodec_stream_debug);
#define GST_CAT_DEFAULT gst_cs_nvcodec_stream_debug

namespace {

/* GstCudaStream, opaque here: 1.22's headers do not have it. */
using Stream = void;

/* GST_CUDA_MEMORY_TRANSFER_NEED_SYNC (1.24), by value: a flag of the
 * memory, the third after GStreamer's own. */
constexpr guint kNeedSync = GST_MEMORY_FLAG_LAST << 2;

/* The 1.24 functions, from the library the process loaded. */
struct Api {
  Stream * (*memory_get_stream) (GstCudaMemory *) = nullptr;
  CUstream (*stream_get_handle) (Stream *) = nullptr;
  void (*memory_sync) (GstCudaMemory *) = nullptr;
  Stream * (*stream_new) (GstCudaContext *) = nullptr;
  void (*stream_unref) (Stream *) = nullptr;
  Stream * (*config_get_stream) (GstStructure *) = nullptr;
  void (*config_set_stream) (GstStructure *, Stream *) = nullptr;
  bool ok = false;
};

#if GST_CHECK_VERSION(1, 24, 0)
/* Built with headers that declare them: the types above must be theirs. */
static_assert (
    std::is_same<decltype (&gst_cuda_memory_sync), decltype (Api::memory_sync)>::value);
static_assert (GST_CUDA_MEMORY_TRANSFER_NEED_SYNC == kNeedSync);
#endif

template <typename F>
void
find (void * lib, const char * name, F & fn)
{
  fn = reinterpret_cast<F> (dlsym (lib, name));
}

const Api &
api ()
{
  static const Api * table = [] {
    GST_DEBUG_CATEGORY_INIT (gst_cs_nvcodec_stream_debug, "csnvcodecstream", 0,
        "gst-cudastreams and nvcodec's streams");
    auto * a = new Api;
    /* The library that holds gst_is_cuda_memory, which the plugin links. */
    Dl_info info{};
    void * lib = nullptr;
    if (dladdr (reinterpret_cast<void *> (&gst_is_cuda_memory), &info) && info.dli_fname)
      lib = dlopen (info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
    if (lib) {
      find (lib, "gst_cuda_memory_get_stream", a->memory_get_stream);
      find (lib, "gst_cuda_stream_get_handle", a->stream_get_handle);
      find (lib, "gst_cuda_memory_sync", a->memory_sync);
      find (lib, "gst_cuda_stream_new", a->stream_new);
      find (lib, "gst_cuda_stream_unref", a->stream_unref);
      find (lib, "gst_buffer_pool_config_get_cuda_stream", a->config_get_stream);
      find (lib, "gst_buffer_pool_config_set_cuda_stream", a->config_set_stream);
      /* The library stays loaded with the plugin that links it. */
      dlclose (lib);
    }
    a->ok = a->memory_get_stream && a->stream_get_handle && a->memory_sync &&
            a->stream_new && a->stream_unref && a->config_get_stream &&
            a->config_set_stream;
    GST_INFO ("%s: nvcodec memory %s", info.dli_fname ? info.dli_fname : "gstreamer-cuda",
        a->ok ? "carries its stream (1.24 or newer)" : "has no stream (before 1.24)");
    return a;
  }();
  return *table;
}

} // namespace

bool
available ()
{
  return api ().ok;
}

cudaStream_t
of_memory (GstMemory * mem)
{
  const Api & a = api ();
  if (!a.ok || !mem || !gst_is_cuda_memory (mem))
    return nullptr;
  Stream * s = a.memory_get_stream (GST_CUDA_MEMORY_CAST (mem));
  /* The driver's CUstream is the runtime's cudaStream_t. */
  return s ? reinterpret_cast<cudaStream_t> (a.stream_get_handle (s)) : nullptr;
}

bool
pending (GstMemory * mem)
{
  return api ().ok && GST_MEMORY_FLAG_IS_SET (mem, kNeedSync);
}

void
set_pending (GstMemory * mem)
{
  if (api ().ok)
    GST_MINI_OBJECT_FLAG_SET (mem, kNeedSync);
}

void
sync_on_host (GstMemory * mem)
{
  if (api ().ok)
    api ().memory_sync (GST_CUDA_MEMORY_CAST (mem));
}

namespace {

/* The event of one of nvcodec's contexts. The lock keeps another record
 * from coming between a record and the wait that reads it. */
struct ContextEvent {
  std::mutex lock;
  cudaEvent_t event = nullptr;
};

/* When the context is disposed (a weak reference: its CUcontext is still
 * alive then, unlike at its qdata's release after its finalize). */
void
context_event_free (gpointer data, GObject * context)
{
  auto * ce = static_cast<ContextEvent *> (data);
  if (ce->event && gst_cuda_context_push (GST_CUDA_CONTEXT (context))) {
    cudaEventDestroy (ce->event);
    gst_cuda_context_pop (NULL);
  }
  delete ce;
}

ContextEvent *
context_event (GstCudaContext * context)
{
  static const GQuark quark = g_quark_from_static_string ("gst-cs-context-event");
  static std::mutex lock;
  std::lock_guard<std::mutex> hold (lock);
  auto * ce =
      static_cast<ContextEvent *> (g_object_get_qdata (G_OBJECT (context), quark));
  if (!ce) {
    ce = new ContextEvent;
    g_object_set_qdata (G_OBJECT (context), quark, ce);
    g_object_weak_ref (G_OBJECT (context), context_event_free, ce);
  }
  return ce;
}

} // namespace

bool
wait_in_context (
    gpointer context, cudaStream_t theirs, cudaStream_t waiter, GError ** error)
{
  GstCudaContext * ctx = GST_CUDA_CONTEXT (context);
  ContextEvent * ce = context_event (ctx);
  std::lock_guard<std::mutex> hold (ce->lock);
  /* The runtime works in the context the driver API made current. */
  if (!gst_cuda_context_push (ctx)) {
    g_set_error (error, GST_CS_ERROR, GST_CS_ERROR_CUDA,
        "Cannot make nvcodec's CUDA context %s current to order our work after its "
        "work on the frame",
        GST_OBJECT_NAME (ctx));
    return false;
  }
  const bool recorded =
      (ce->event || GST_CS_CHECK (cudaEventCreateWithFlags (&ce->event, cudaEventDisableTiming),
              error)) &&
          GST_CS_CHECK (cudaEventRecord (ce->event, theirs), error);
  gst_cuda_context_pop (NULL);
  GST_LOG ("stream %p waits for nvcodec's stream %p of %s", waiter, theirs,
      GST_OBJECT_NAME (ctx));
  return recorded && GST_CS_CHECK (cudaStreamWaitEvent (waiter, ce->event, 0), error);
}

/* The stream of downstream's proposed pool, when it is an nvcodec pool of
 * `context`'s CUcontext (a new reference), else nullptr. */
static Stream *
proposed_stream (GstQuery * query, GstCudaContext * context)
{
  const Api & a = api ();
  GstBufferPool * pool = NULL;
  if (!query || gst_query_get_n_allocation_pools (query) == 0)
    return nullptr;
  gst_query_parse_nth_allocation_pool (query, 0, &pool, NULL, NULL, NULL);
  Stream * stream = nullptr;
  if (pool && GST_IS_CUDA_BUFFER_POOL (pool) &&
      gst_cuda_context_get_handle (GST_CUDA_BUFFER_POOL (pool)->context) ==
          gst_cuda_context_get_handle (context)) {
    GstStructure * config = gst_buffer_pool_get_config (pool);
    stream = a.config_get_stream (config);
    gst_structure_free (config);
  }
  if (pool)
    gst_object_unref (pool);
  return stream;
}

void
configure_pool (GstStructure * config, gpointer context, GstQuery * query)
{
  const Api & a = api ();
  if (!a.ok)
    return;
  auto * ctx = GST_CUDA_CONTEXT (context);
  Stream * stream = proposed_stream (query, ctx);
  GST_DEBUG ("nvcodec frames on %s stream", stream ? "downstream's" : "a new");
  if (!stream)
    stream = a.stream_new (ctx);
  if (stream) {
    a.config_set_stream (config, stream);
    a.stream_unref (stream);
  }
}

#else /* !HAVE_NVCODEC_INTEROP */

bool
available ()
{
  return false;
}

cudaStream_t
of_memory (GstMemory *)
{
  return nullptr;
}

bool
pending (GstMemory *)
{
  return false;
}

void
set_pending (GstMemory *)
{}

void
sync_on_host (GstMemory *)
{}

bool
wait_in_context (gpointer, cudaStream_t, cudaStream_t, GError **)
{
  return true;
}

void
configure_pool (GstStructure *, gpointer, GstQuery *)
{}

#endif

} // namespace nvcodec_stream
} // namespace gst_cs

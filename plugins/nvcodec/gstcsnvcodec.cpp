/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "nvcodec/gstcsnvcodec.hpp"

#include <map>
#include <mutex>

#include "base/gstcscaps.h"
#include "gstcserror-private.h"
#include "gstcshostwait-private.h"
#include "gstcsmemory.h"
#include "nvcodec/gstcsnvcodecstream.hpp"
#include "gstcsstreamwait-private.h"

#if HAVE_NVCODEC_INTEROP
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <gst/cuda/gstcudabufferpool.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudautils.h>
#endif

GST_DEBUG_CATEGORY_STATIC (gst_cs_nvcodec_debug);
#define GST_CAT_DEFAULT gst_cs_nvcodec_debug

namespace gst_cs {

static void
init_debug ()
{
  static std::once_flag once;
  std::call_once (once, [] {
    GST_DEBUG_CATEGORY_INIT (
        gst_cs_nvcodec_debug, "csnvcodec", 0, "gst-cudastreams beside nvcodec");
  });
}

bool
caps_are_nvcodec (const GstCaps * caps)
{
  if (!caps || gst_caps_is_empty (caps) || gst_caps_is_any (caps))
    return false;
  GstCapsFeatures * f = gst_caps_get_features (caps, 0);
  return f && gst_caps_features_contains (f, GST_CS_CAPS_FEATURE_NVCODEC);
}

GstCaps *
caps_in_nvcodec_memory (GstCaps * caps)
{
#if HAVE_NVCODEC_INTEROP
  GstCaps * out = gst_caps_copy (caps);
  for (guint i = 0; i < gst_caps_get_size (out); i++)
    gst_caps_set_features (out, i,
        gst_cs_caps_features_in_memory (
            gst_caps_get_features (caps, i), GST_CS_CAPS_FEATURE_NVCODEC));
  /* Only the formats GstCudaMemory can hold, frames or fields. */
  GstCaps * formats = gst_caps_from_string (
      "video/x-raw(" GST_CS_CAPS_FEATURE_NVCODEC
      "), format = (string) " GST_CS_NVCODEC_FORMATS
      "; video/x-raw(" GST_CS_CAPS_FEATURE_NVCODEC ", " GST_CAPS_FEATURE_FORMAT_INTERLACED
      "), format = (string) " GST_CS_NVCODEC_FORMATS);
  GstCaps * res = gst_caps_intersect_full (out, formats, GST_CAPS_INTERSECT_FIRST);
  gst_caps_unref (formats);
  gst_caps_unref (out);
  return res;
#else
  (void)caps;
  return gst_caps_new_empty ();
#endif
}

GstCaps *
caps_in_device_memory (GstCaps * caps)
{
  return gst_caps_merge (
      gst_cs_caps_with_memory (caps, TRUE, NULL), caps_in_nvcodec_memory (caps));
}

bool
is_nvcodec_memory (GstMemory * mem)
{
#if HAVE_NVCODEC_INTEROP
  return mem && gst_is_cuda_memory (mem);
#else
  (void)mem;
  return false;
#endif
}

#if HAVE_NVCODEC_INTEROP
static guint context_device (GstCudaContext * ctx);
#endif

gint
memory_device (GstMemory * mem)
{
  if (mem && gst_is_cs_memory (mem))
    return reinterpret_cast<GstCsMemory *> (mem)->device_id;
#if HAVE_NVCODEC_INTEROP
  if (mem && gst_is_cuda_memory (mem))
    return (gint)context_device (GST_CUDA_MEMORY_CAST (mem)->context);
#endif
  return -1;
}

#if HAVE_NVCODEC_INTEROP

/* The contexts this process shares, one per device, each holding a
 * reference for the life of the process (elements come and go; nvcodec
 * elements and memories keep their own references). */
namespace {
struct Shared {
  std::mutex lock;
  std::map<gint, CUcontext> primary;         /* retained, never released */
  std::map<gint, GstCudaContext *> contexts; /* one reference each */
  bool loaded = false, load_failed = false;
};

Shared &
shared ()
{
  static Shared * s = new Shared; /* outlives every element */
  return *s;
}

using PrimaryRetainFn = CUresult (CUDAAPI *) (CUcontext *, CUdevice);

/* nvcodec's library loads libcuda itself; without it (no driver) there is
 * nothing to share. Called with the lock. */
bool
load_locked (Shared & s)
{
  if (!s.loaded && !s.load_failed) {
    s.loaded = gst_cuda_load_library () && CuInit (0) == CUDA_SUCCESS;
    s.load_failed = !s.loaded;
    if (s.load_failed)
      GST_INFO ("nvcodec's CUDA library cannot load the driver: no context to share");
  }
  return s.loaded;
}

/* The runtime's primary context of `device`, the one our elements work in.
 * The driver call comes through the runtime's entry-point table, so the
 * plugin does not link libcuda (it must load where there is no driver).
 * Called with the lock. */
CUcontext
primary_locked (Shared & s, gint device)
{
  auto it = s.primary.find (device);
  if (it != s.primary.end ())
    return it->second;
  void * fn = nullptr;
  cudaDriverEntryPointQueryResult status = cudaDriverEntryPointSymbolNotFound;
  CUdevice dev = 0;
  CUcontext ctx = nullptr;
  if (cudaGetDriverEntryPointByVersion ("cuDevicePrimaryCtxRetain", &fn, 12000,
          cudaEnableDefault, &status) != cudaSuccess ||
      status != cudaDriverEntryPointSuccess || !fn ||
      CuDeviceGet (&dev, device) != CUDA_SUCCESS ||
      reinterpret_cast<PrimaryRetainFn> (fn) (&ctx, dev) != CUDA_SUCCESS) {
    (void)cudaGetLastError ();
    GST_INFO ("No primary context of device %d", device);
    return nullptr;
  }
  s.primary[device] = ctx;
  return ctx;
}

/* The shared GstCudaContext of `device` (a new reference), made on first
 * use. */
GstCudaContext *
shared_context (gint device)
{
  Shared & s = shared ();
  std::lock_guard<std::mutex> guard (s.lock);
  auto it = s.contexts.find (device);
  if (it != s.contexts.end ())
    return GST_CUDA_CONTEXT (gst_object_ref (it->second));
  if (!load_locked (s))
    return nullptr;
  CUcontext primary = primary_locked (s, device);
  CUdevice dev = 0;
  if (!primary || CuDeviceGet (&dev, device) != CUDA_SUCCESS)
    return nullptr;
  GstCudaContext * ctx = gst_cuda_context_new_wrapped (primary, dev);
  if (!ctx)
    return nullptr;
  GST_INFO ("sharing primary context %p of device %d as %" GST_PTR_FORMAT, primary,
      device, ctx);
  /* Shared keeps it for the life of the process, by design (as common/
   * keeps its stream pools): not a leak for the leaks tracer. */
  GST_OBJECT_FLAG_SET (ctx, GST_OBJECT_FLAG_MAY_BE_LEAKED);
  s.contexts[device] = ctx;
  return GST_CUDA_CONTEXT (gst_object_ref (ctx));
}

CUcontext
primary_context (gint device)
{
  Shared & s = shared ();
  std::lock_guard<std::mutex> guard (s.lock);
  return load_locked (s) ? primary_locked (s, device) : nullptr;
}

} // namespace

static guint
context_device (GstCudaContext * ctx)
{
  guint device = 0;
  g_object_get (ctx, "cuda-device-id", &device, NULL);
  return device;
}

bool
answer_cuda_context_query (GstElement * element, GstQuery * query, gint device)
{
  const gchar * type = NULL;
  if (!gst_query_parse_context_type (query, &type) ||
      g_strcmp0 (type, GST_CUDA_CONTEXT_TYPE) != 0)
    return false;
  init_debug ();
  GstCudaContext * ctx = shared_context (MAX (device, 0));
  if (!ctx)
    return false;
  const bool ok = gst_cuda_handle_context_query (element, query, ctx);
  gst_object_unref (ctx);
  return ok;
}

void
take_cuda_context (GstElement * element, GstContext * context, gint device)
{
  if (g_strcmp0 (gst_context_get_context_type (context), GST_CUDA_CONTEXT_TYPE) != 0)
    return;
  init_debug ();
  GstCudaContext * other = NULL;
  if (!gst_structure_get (gst_context_get_structure (context), GST_CUDA_CONTEXT_TYPE,
          GST_TYPE_CUDA_CONTEXT, &other, NULL) ||
      !other)
    return;
  const guint odev = context_device (other);
  CUcontext primary = primary_context ((gint)odev);
  if (primary && gst_cuda_context_get_handle (other) == primary) {
    /* The application's or a neighbour's wrapper of the same context:
     * share that object from now on, so everybody hands on one. */
    Shared & s = shared ();
    std::lock_guard<std::mutex> guard (s.lock);
    if (!s.contexts.count ((gint)odev)) {
      GST_INFO_OBJECT (element, "adopting %" GST_PTR_FORMAT, other);
      s.contexts[(gint)odev] = GST_CUDA_CONTEXT (gst_object_ref (other));
    }
  } else if (device < 0 || (guint)device == odev) {
    GST_WARNING_OBJECT (element,
        "%" GST_PTR_FORMAT " (CUcontext %p) is not the primary context %p of device "
        "%u that this element works in: it reads frames of that context in place "
        "(CUDA allows it on one device), but the pipeline has two contexts",
        other, gst_cuda_context_get_handle (other), primary, odev);
  }
  gst_object_unref (other);
}

void
post_cuda_context (GstElement * element, gint device)
{
  init_debug ();
  GstCudaContext * ctx = shared_context (MAX (device, 0));
  if (!ctx)
    return;
  GstContext * context = gst_context_new_cuda_context (ctx);
  gst_object_unref (ctx);
  GST_DEBUG_OBJECT (element, "posting have-context %" GST_PTR_FORMAT, context);
  gst_element_post_message (
      element, gst_message_new_have_context (GST_OBJECT_CAST (element), context));
}

GstBufferPool *
nvcodec_pool_new (gint device, GstCaps * caps, guint size, guint min, guint max,
    GstQuery * query, GError ** error)
{
  init_debug ();
  GstCudaContext * ctx = shared_context (device);
  if (!ctx) {
    g_set_error (error, GST_CS_ERROR, GST_CS_ERROR_CUDA,
        "Cannot make frames in nvcodec's memory (memory:CUDAMemory): its CUDA "
        "library cannot share device %d's primary context",
        device);
    return NULL;
  }
  /* The pool finds nvcodec's allocator by name: registered here when no
   * nvcodec element has done it yet in this process. */
  gst_cuda_memory_init_once ();
  GstBufferPool * pool = gst_cuda_buffer_pool_new (ctx);
  GstStructure * config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_set_params (config, caps, size, min, max);
  gst_buffer_pool_config_add_option (config, GST_BUFFER_POOL_OPTION_VIDEO_META);
  nvcodec_stream::configure_pool (config, ctx, query);
  gst_object_unref (ctx);
  if (!gst_buffer_pool_set_config (pool, config)) {
    gchar * str = gst_caps_to_string (caps);
    g_set_error (error, GST_CS_ERROR, GST_CS_ERROR_CUDA,
        "nvcodec's buffer pool refuses frames of %s", str);
    g_free (str);
    gst_object_unref (pool);
    return NULL;
  }
  return pool;
}

/* Orders `stream` after the work nvcodec's memory `mem` of `context` may
 * still have on its own stream (1.24+), on the GPU: with an event of our
 * event pool where that stream is in the primary context we work in, with
 * one of its own context otherwise (a context nvcodec made, on this device
 * or another). Without a stream of ours, on the host (counted). */
static bool
order_after_nvcodec (GstMemory * mem, CUcontext primary, GstMapFlags flags,
    cudaStream_t stream, GstCsWaitCounter * waits, GError ** error)
{
  cudaStream_t theirs = nvcodec_stream::of_memory (mem);
  const bool pending = nvcodec_stream::pending (mem);
  /* A read waits for pending writes; a write for every use so far (its
   * readers leave no flag). */
  if (!theirs || !(pending || (flags & GST_MAP_WRITE)))
    return true;
  GstCudaMemory * cmem = GST_CUDA_MEMORY_CAST (mem);
  if (stream) {
    if ((CUcontext)gst_cuda_context_get_handle (cmem->context) == primary)
      return gst_cs_stream_wait_stream (
          (gint)context_device (cmem->context), stream, theirs, error);
    return nvcodec_stream::wait_in_context (cmem->context, theirs, stream, error);
  }
  if (pending) {
    gst_cs_host_wait_count (waits);
    nvcodec_stream::sync_on_host (mem);
  }
  return true;
}

#else /* !HAVE_NVCODEC_INTEROP */

bool
answer_cuda_context_query (GstElement *, GstQuery *, gint)
{
  return false;
}

void
take_cuda_context (GstElement *, GstContext *, gint)
{}

void
post_cuda_context (GstElement *, gint)
{}

GstBufferPool *
nvcodec_pool_new (gint, GstCaps *, guint, guint, guint, GstQuery *, GError ** error)
{
  g_set_error (error, GST_CS_ERROR, GST_CS_ERROR_INVALID,
      "Built without nvcodec interop (gstreamer-cuda-1.0)");
  return NULL;
}

#endif

bool
DeviceMapping::map (GstBuffer * buffer, GstMapFlags flags, gint device,
    cudaStream_t stream, GstCsWaitCounter * waits, GError ** error)
{
  unmap ();
  GstMemory * mem =
      gst_buffer_n_memory (buffer) == 1 ? gst_buffer_peek_memory (buffer, 0) : NULL;
  if (mem && gst_is_cs_memory (mem)) {
    data_ = gst_cs_memory_get_device_pointer (mem);
    size_ = mem->size;
    device_ = reinterpret_cast<GstCsMemory *> (mem)->device_id;
    return true;
  }
#if HAVE_NVCODEC_INTEROP
  if (mem && gst_is_cuda_memory (mem)) {
    init_debug ();
    GstCudaMemory * cmem = GST_CUDA_MEMORY_CAST (mem);
    const guint odev = context_device (cmem->context);
    CUcontext primary = primary_context ((gint)odev);
    CUcontext theirs = (CUcontext)gst_cuda_context_get_handle (cmem->context);
    /* Another context of the same device (an nvcodec element that made its
     * own): our stream reads its memory in place, which CUDA allows on one
     * device (measured, docs/cuda-contexts.md). Without the device's
     * primary context there is nothing to read it with. */
    if (theirs != primary)
      GST_LOG ("reading memory of CUcontext %p from primary context %p", theirs, primary);
    if (!primary) {
      g_set_error (error, GST_CS_ERROR, GST_CS_ERROR_INVALID,
          "The frame is in nvcodec memory of CUDA context %p (%s, device %u), but "
          "device %u's primary context, which gst-cudastreams works in, is not "
          "available to read it",
          theirs, GST_OBJECT_NAME (cmem->context), odev, odev);
      return false;
    }
    /* A CPU write to the memory's staging copy is uploaded by nvcodec's
     * library when it is mapped for CUDA: 1.22 waits for it there, 1.24+
     * enqueues it on the memory's stream, which we then wait for. */
    if (GST_MEMORY_FLAG_IS_SET (mem, GST_CUDA_MEMORY_TRANSFER_NEED_UPLOAD) &&
        !nvcodec_stream::available ())
      gst_cs_host_wait_count (waits);
    if (!gst_memory_map (mem, &info_, (GstMapFlags)(flags | GST_MAP_CUDA))) {
      g_set_error (error, GST_CS_ERROR, GST_CS_ERROR_CUDA,
          "Cannot map nvcodec's CUDA memory for the GPU");
      return false;
    }
    mem_ = mem;
    data_ = info_.data;
    size_ = info_.size;
    device_ = (gint)odev;
    nvcodec_ = true;
    (void)device;
    if (!order_after_nvcodec (mem, primary, flags, stream, waits, error)) {
      unmap ();
      return false;
    }
    return true;
  }
#endif
  (void)device;
  (void)stream;
  (void)waits;
  (void)flags;
  g_set_error (error, GST_CS_ERROR, GST_CS_ERROR_INVALID,
      "A device frame must be one block of CUDA device memory: memory:CUDAStreamsMemory "
      "(as made by cudaupload)%s; this buffer has %u memories, the first of type %s",
      HAVE_NVCODEC_INTEROP ? " or nvcodec's memory:CUDAMemory" : "",
      gst_buffer_n_memory (buffer),
      mem && mem->allocator ? mem->allocator->mem_type
                            : (gst_buffer_n_memory (buffer) ? "unknown" : "none"));
  return false;
}

bool
publish_to_nvcodec (
    GstBuffer * buffer, cudaEvent_t event, GstCsWaitCounter * waits, GError ** error)
{
  GstMemory * mem = gst_buffer_peek_memory (buffer, 0);
  if (!is_nvcodec_memory (mem))
    return true;
  cudaStream_t theirs = nvcodec_stream::of_memory (mem);
  if (!theirs)
    return gst_cs_host_wait_event (event, waits, error);
  nvcodec_stream::set_pending (mem);
  return GST_CS_CHECK (cudaStreamWaitEvent (theirs, event, 0), error);
}

void
DeviceMapping::unmap ()
{
  if (mem_)
    gst_memory_unmap (mem_, &info_);
  mem_ = nullptr;
  data_ = nullptr;
  size_ = 0;
  device_ = -1;
  nvcodec_ = false;
}

} // namespace gst_cs

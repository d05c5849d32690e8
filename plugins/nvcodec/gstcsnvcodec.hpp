/* SPDX-License-Identifier: LGPL-2.1-or-later */
// Living beside GStreamer's nvcodec elements (internal to the plugin): its
// memory (memory:CUDAMemory, GstCudaMemory) and its shared CUDA context
// (the gst.cuda.context GstContext). Built with gstreamer-cuda-1.0 when the
// nvcodec_interop feature is on; without it every function says "not
// nvcodec" and the elements behave as before.
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>
#include <cuda_runtime_api.h>

#include "config.h"
#include "gstcshostwait.h"

/* nvcodec's caps feature (GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY). */
#define GST_CS_CAPS_FEATURE_NVCODEC "memory:CUDAMemory"

/* Our formats that GstCudaMemory can hold (1.22 allocates all but gray). */
#define GST_CS_NVCODEC_FORMATS \
  "{ RGBA, BGRA, RGBx, BGRx, ARGB, ABGR, RGB, BGR, " \
  "NV12, NV21, I420, YV12, Y42B, Y444, P010_10LE, P016_LE, YUY2, UYVY }"

/* In nvcodec's memory: frames, then alternate fields (format:Interlaced). */
#if HAVE_NVCODEC_INTEROP
#define GST_CS_VIDEO_NVCODEC_CAPS_WITH(features) \
  "; video/x-raw(" GST_CS_CAPS_FEATURE_NVCODEC features \
  "), format = (string) " GST_CS_NVCODEC_FORMATS \
  ", width = (int) [ 1, 16384 ], height = (int) [ 1, 16384 ], " \
  "framerate = (fraction) [ 0, max ]"
#define GST_CS_VIDEO_NVCODEC_CAPS GST_CS_VIDEO_NVCODEC_CAPS_WITH ("")
#define GST_CS_VIDEO_NVCODEC_FIELD_CAPS \
  GST_CS_VIDEO_NVCODEC_CAPS_WITH (", " GST_CAPS_FEATURE_FORMAT_INTERLACED)
#else
#define GST_CS_VIDEO_NVCODEC_CAPS ""
#define GST_CS_VIDEO_NVCODEC_FIELD_CAPS ""
#endif

namespace gst_cs {

// Whether `caps` (its first structure) are in nvcodec's memory.
bool caps_are_nvcodec (const GstCaps * caps);

// `caps` again in nvcodec's memory, formats it can hold only (empty without
// the interop).
GstCaps * caps_in_nvcodec_memory (GstCaps * caps);

// `caps` in our device memory, then in nvcodec's: ours first, so that it is
// chosen where both sides take both.
GstCaps * caps_in_device_memory (GstCaps * caps);

// Whether `mem` is nvcodec's GstCudaMemory.
bool is_nvcodec_memory (GstMemory * mem);

// The device of `mem`: ours or nvcodec's device memory; -1 for others.
gint memory_device (GstMemory * mem);

// --- the shared CUDA context ---

// Answers a GST_QUERY_CONTEXT for gst.cuda.context with the GstCudaContext
// of `device` this process shares: the CUDA runtime's primary context of
// the device, wrapped once (or a GstCudaContext of that same CUcontext that
// the application or a neighbour set first). False when it is not ours to
// answer or nvcodec's library cannot load CUDA.
bool answer_cuda_context_query (GstElement * element, GstQuery * query, gint device);

// Takes note of a gst.cuda.context set on `element`: one of the primary
// context becomes the shared one; one of another context is only logged
// (frames in its memory are read in place, see DeviceMapping::map).
void take_cuda_context (GstElement * element, GstContext * context, gint device);

// Posts the shared context on the bus (have-context), so that nvcodec
// elements anywhere in the pipeline find it rather than make their own.
void post_cuda_context (GstElement * element, gint device);

// --- memory ---

// Device memory of one buffer, mapped for GPU access: ours, or nvcodec's.
class DeviceMapping {
public:
  DeviceMapping () = default;
  ~DeviceMapping () { unmap (); }
  DeviceMapping (const DeviceMapping &) = delete;
  DeviceMapping & operator= (const DeviceMapping &) = delete;

  // Maps the single memory of `buffer` (GST_MAP_READ or GST_MAP_WRITE) for
  // work on `device` enqueued on `stream`. nvcodec memory of another context
  // of its device is read in place (docs/cuda-contexts.md). From GStreamer
  // 1.24 nvcodec memory carries its producer's stream: `stream` waits on the
  // GPU for the work on it, pending writes (NEED_SYNC) before a read, and
  // everything before a write (its readers), with an event of the memory's
  // own context where it is not ours; only without a `stream` is that work
  // synchronised on the host, counted in `waits`. Fails with a message
  // naming what the buffer holds.
  bool map (GstBuffer * buffer, GstMapFlags flags, gint device, cudaStream_t stream,
      GstCsWaitCounter * waits, GError ** error);
  void unmap ();

  guint8 * data () const { return data_; }
  gsize size () const { return size_; }
  gint device () const { return device_; }
  // nvcodec's: its owner knows nothing of our events (hold the buffer).
  bool nvcodec () const { return nvcodec_; }

private:
  GstMemory * mem_ = nullptr; /* mapped through GStreamer (nvcodec's) */
  GstMapInfo info_{};
  guint8 * data_ = nullptr;
  gsize size_ = 0;
  gint device_ = -1;
  bool nvcodec_ = false;
};

// After our write of `buffer`, recorded as `event` on our stream: where
// the buffer is nvcodec's memory, hands it on without a host wait where
// nvcodec orders itself (1.24 and newer: the memory's stream waits for
// `event` on the GPU, and NEED_SYNC tells its consumers), else (1.22, whose
// elements read what they get at once) waits on the host for `event`,
// counted in `waits`. Nothing to do for our own memory.
bool publish_to_nvcodec (
    GstBuffer * buffer, cudaEvent_t event, GstCsWaitCounter * waits, GError ** error);

// A pool of nvcodec frames of `caps` on `device`'s shared context, for
// output to an element that only takes nvcodec's memory. From 1.24 its
// memory carries a stream: that of the pool downstream proposed in `query`
// (the ALLOCATION query; nvcodec's elements then order their reads without
// any wait), else one of its own. NULL and `error` set when nvcodec's
// library or the context is not available.
GstBufferPool * nvcodec_pool_new (gint device, GstCaps * caps, guint size, guint min,
    guint max, GstQuery * query, GError ** error);

} // namespace gst_cs

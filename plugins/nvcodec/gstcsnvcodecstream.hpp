/* SPDX-License-Identifier: LGPL-2.1-or-later */
// nvcodec's streams (GStreamer >= 1.24), internal to the plugin.
//
// From 1.24 a GstCudaMemory carries the GstCudaStream its producer wrote it
// on, and the flag NEED_SYNC while that work may still run; nvcodec's
// elements push without waiting and order their own reads by the memory's
// stream. These functions let our elements do the same on the GPU: wait
// for nvcodec's work with an event on its stream, and hand nvcodec frames
// whose stream waits for ours.
//
// The 1.24 functions are looked up in the gstreamer-cuda library the
// process loaded, not taken from the headers: a plugin built against 1.22's
// headers and run by a newer GStreamer meets such memory too, and reads the
// flag by its value. With 1.22's library they are absent: available()
// is false and nvcodec's elements synchronise before they push (as the
// plugin then does for them).
#pragma once

#include <gst/gst.h>
#include <cuda_runtime_api.h>

#include "config.h"

namespace gst_cs {

namespace nvcodec_stream {

// Whether the loaded gstreamer-cuda library has per-memory streams (1.24+).
bool available ();

// The CUDA stream nvcodec's memory `mem` was written on, nullptr when it
// has none (or the library is older than 1.24).
cudaStream_t of_memory (GstMemory * mem);

// Its producer may still be writing it on that stream (NEED_SYNC).
bool pending (GstMemory * mem);

// Says so, for nvcodec's consumers of memory we wrote.
void set_pending (GstMemory * mem);

// nvcodec's own host wait for that work (gst_cuda_memory_sync); the
// caller counts it.
void sync_on_host (GstMemory * mem);

// Makes `waiter` (ours, on any device) wait on the GPU for the work so far on
// `theirs`, a stream of nvcodec's `context` (a GstCudaContext that is not
// ours: a context of nvcodec's own, on this device or another). CUDA lets a
// stream wait on an event of another context or device
// (docs/cuda-contexts.md); the event must be recorded in the stream's own
// context, so it is one of that context, made once and kept for its life.
bool wait_in_context (
    gpointer context, cudaStream_t theirs, cudaStream_t waiter, GError ** error);

// Puts a stream on the config of an nvcodec buffer pool of `context` (a
// GstCudaContext), so that its memory carries one: the stream of the pool
// downstream proposed in `query` when it has one in that context (nvcodec's
// elements read such memory without any wait), else a new stream. No-op
// before 1.24.
void configure_pool (GstStructure * config, gpointer context, GstQuery * query);

} // namespace nvcodec_stream

} // namespace gst_cs

/* SPDX-License-Identifier: LGPL-2.1-or-later */
// The device, the leased stream and the host-wait counter of an element
// that is not a GstCsBaseTransform (cudabatch, a GstAggregator) (internal).
#pragma once

#include <gst/gst.h>
#include <cuda_runtime_api.h>

#include "gstcshostwait.h"
#include "gstcsstreampool.h"

namespace gst_cs {

// What GstCsBaseTransform does for its subclasses, for one owner element:
// the "device-id" it was given, resolved at start; a stream leased from the
// pool the stream-pool context gives (or made), given back at stop; the
// contexts it answers and takes (ours, and nvcodec's shared CUDA context);
// the cudastreams tracer told of the start and stop, and its frame count.
// The owner forwards its set_context, context queries and NULL->READY.
class ElementDevice {
public:
  explicit ElementDevice (GstElement * owner) : owner_ (owner) {}
  ~ElementDevice ();
  ElementDevice (const ElementDevice &) = delete;
  ElementDevice & operator= (const ElementDevice &) = delete;

  // The property; -1: the default device. Object lock of the owner.
  void set_requested (gint device);
  gint requested () const;

  // Resolves the device and leases a stream; false after posting an error.
  bool start ();
  void stop ();

  // Between start and stop, from the streaming thread.
  GstElement * owner () const { return owner_; }
  gint device () const { return device_; }
  cudaStream_t stream () const { return stream_; }
  GstCsWaitCounter * waits () { return &waits_; }
  // The tracer's handle for trace_cpu (base/gstcsframespan.hpp); nullptr:
  // not traced.
  gpointer trace () const { return trace_; }
  // Frames (batches) counted before this one, for FrameSource.
  guint64 count_frame () { return frames_++; }

  // GstElement::set_context, a GST_QUERY_CONTEXT (true where answered),
  // NULL->READY (posts the shared CUDA context for nvcodec neighbours).
  void set_context (GstContext * context);
  bool answer_context_query (GstQuery * query);
  void announce ();

private:
  gint query_device () const; /* with the object lock */

  GstElement * owner_;
  gint requested_ = -1;
  gint device_ = -1;
  GstCsStreamPool * stream_pool_ = nullptr; /* the latest one set */
  GstCsStreamPool * lease_pool_ = nullptr;  /* the one the stream is leased from */
  cudaStream_t stream_ = nullptr;
  GstCsWaitCounter waits_{};
  gpointer trace_ = nullptr;
  guint64 frames_ = 0;
};

} // namespace gst_cs

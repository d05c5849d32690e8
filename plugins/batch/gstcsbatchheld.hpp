/* SPDX-License-Identifier: LGPL-2.1-or-later */
// The nvcodec frames cudabatch's kernels still read, kept per sink pad
// (internal).
#pragma once

#include <map>
#include <memory>
#include <mutex>

#include <gst/gst.h>
#include <cuda_runtime_api.h>

#include "base/gstcsheldbuffers.hpp"

namespace gst_cs {

// nvcodec's pools know nothing of our events, so a frame of theirs that a
// batch read is kept until the batch's event has completed (HeldBuffers),
// one list per sink pad. The aggregator's thread keeps frames and lets go
// of those whose reads have completed at every pass (a batch, a timeout, a
// gap); a flush of one pad, on that pad's upstream thread, lets go of that
// pad's frames alone, after a host wait for their reads (counted), never
// for the other pads' frames; the end of the stream and a stop let go of
// all. One lock orders the threads, so a frame goes exactly once and never
// before the work that reads it.
class BatchHeld {
public:
  BatchHeld () = default;
  BatchHeld (const BatchHeld &) = delete;
  BatchHeld & operator= (const BatchHeld &) = delete;

  // Keeps `frame` of sink pad `pad` until the work enqueued so far on
  // `stream` (of `device`, current) completes.
  bool hold (guint pad, GstBuffer * frame, int device, cudaStream_t stream,
      GstCsWaitCounter * waits, GError ** error);
  // Lets go of the frames whose reads completed (never blocks).
  void release_done (int device);
  // Waits (counted) for the reads of pad `pad`'s frames and lets them go;
  // nothing where it holds none. A failure is logged for `owner`.
  void drain_pad (guint pad, int device, GstCsWaitCounter * waits, GstObject * owner);
  // The same for every pad's frames.
  void drain (int device, GstCsWaitCounter * waits, GstObject * owner);
  // Frames kept now (all pads).
  guint size ();

private:
  /* At most this many of one pad's frames: a stream's frames in flight
   * on the GPU are a few batches'. */
  static constexpr guint kPerPad = 16;
  std::mutex lock_;
  std::map<guint, std::unique_ptr<HeldBuffers>> pads_; /* by pad number */
};

} // namespace gst_cs

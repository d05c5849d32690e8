/* SPDX-License-Identifier: LGPL-2.1-or-later */
// Input buffers the GPU may still read, kept until it is done (internal).
#pragma once

#include <deque>
#include <vector>

#include <gst/gst.h>
#include <cuda_runtime_api.h>

#include "gstcshostwait.h"

namespace gst_cs {

// Memory whose owner knows nothing of our events (a peer's decoder pool, an
// upstream's system-memory pool) must not go back to its owner while a copy
// or kernel of ours still reads it. An element keeps each such input buffer
// here with an event recorded after its last read, and lets it go once the
// event has completed, checked without blocking as frames go by. At most
// `capacity` are kept: that is what the element tells upstream it holds
// (ALLOCATION query), so a full list waits for its oldest (one counted host
// wait) rather than leave upstream without buffers. Events are created once
// per slot and reused, never per frame. Used from the streaming thread.
class HeldBuffers {
public:
  explicit HeldBuffers (guint capacity) : capacity_ (capacity) {}
  ~HeldBuffers ();
  HeldBuffers (const HeldBuffers &) = delete;
  HeldBuffers & operator= (const HeldBuffers &) = delete;

  // Keeps a reference to `buffer` until the work enqueued on `stream` (of
  // `device`) so far has completed. Any device may be current: the frame's
  // owner may be another device's (an nvcodec decoder on another GPU), and
  // CUDA records an event only on a stream of the event's own device.
  bool hold (GstBuffer * buffer, int device, cudaStream_t stream,
      GstCsWaitCounter * waits, GError ** error);
  // Lets go of the buffers whose reads have completed (never blocks).
  void release_done ();
  // Waits for all (counted) and lets them go: at stop and flush.
  bool drain (GstCsWaitCounter * waits, GError ** error);
  // drain() with `device` made current, a failure only logged for `owner`
  // (at a flush or a stop there is no frame to fail); nothing when empty or
  // no device was chosen yet (`device` < 0).
  void drain_on (int device, GstCsWaitCounter * waits, GstObject * owner);

  // 0: hold() waits for the read it was given before it returns.
  void set_capacity (guint capacity) { capacity_ = capacity; }
  guint size () const { return (guint)held_.size (); }
  guint capacity () const { return capacity_; }

private:
  struct Slot {
    int device;
    cudaEvent_t event;
  };
  struct Held {
    GstBuffer * buffer;
    Slot slot;
  };
  bool take_event (int device, Slot * slot, GError ** error);
  void release_front ();

  guint capacity_;
  std::deque<Held> held_;   // oldest first
  std::vector<Slot> spare_; // events of released slots, of any device
};

} // namespace gst_cs

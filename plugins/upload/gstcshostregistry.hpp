/* SPDX-License-Identifier: LGPL-2.1-or-later */
// Page-locking recurring upstream memory for the copy engine (internal).
#pragma once

#include <atomic>
#include <memory>

#include <gst/gst.h>

namespace gst_cs {

// Upstream pools hand the same GstMemory back frame after frame. Registered
// with CUDA (cudaHostRegister), such memory is read by the copy engine
// directly, at the pinned rate, with no staging copy. A memory is
// registered the second time one element sees it (once is no sign it
// recurs, nor is a sighting by each of two elements behind a tee: see
// docs/design.md for when registration pays off), stays registered while it
// lives, and is unregistered by a destroy notify of its qdata, which
// GStreamer runs before it frees the memory (gst_mini_object_unref: dispose,
// then the qdata notifies, then free; a pooled buffer's memories are not
// unreffed while the pool keeps the buffer). The registration belongs to
// the memory, not to the element: it may outlive the element, and another
// element may use it.
//
// Only memory whose mapping lives as long as the memory is registered:
// GStreamer's system-memory allocator (gst_buffer_new_allocate with the
// default allocator, gst_memory_new_wrapped), whose data pointer is fixed
// from allocation to free (a wrapper's user data is released by its notify,
// after ours). Never fd, dmabuf, shm or other mapped memory, whose mapping
// may move or go. Memory already pinned (the project's pinned allocator,
// another registration) needs nothing from here.
class HostRegistry {
public:
  HostRegistry ();
  HostRegistry (const HostRegistry &) = delete;
  HostRegistry & operator= (const HostRegistry &) = delete;

  // Whether the copy engine may read `mem` (mapped at `data`) directly
  // because it is registered: now (second sighting, within the bound) or
  // earlier. False when it is not allowed, seen for the first time, over the
  // bound, or refused by CUDA: the caller stages it. `device` is current.
  bool registered (GstMemory * mem, const guint8 * data, int device);

  // Registered bytes this element may add to what it has registered.
  void set_max_bytes (guint64 bytes) { counts_->max_bytes = bytes; }
  guint64 max_bytes () const { return counts_->max_bytes; }

  guint64 registrations () const { return counts_->registrations; }
  guint64 unregistrations () const { return counts_->unregistrations; }
  guint64 bytes () const { return counts_->bytes; }

  // Shared with the registrations, which outlive the element.
  struct Counts {
    std::atomic<guint64> max_bytes{ 0 };
    std::atomic<guint64> bytes{ 0 };
    std::atomic<guint64> registrations{ 0 };
    std::atomic<guint64> unregistrations{ 0 };
  };

private:
  bool read_only_supported (int device);
  bool seen_before (GstMemory * mem);

  std::shared_ptr<Counts> counts_;
  int ro_device_ = -1;
  bool ro_supported_ = false;
};

} // namespace gst_cs

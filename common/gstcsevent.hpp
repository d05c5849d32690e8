/* SPDX-License-Identifier: LGPL-2.1-or-later */
// Pooled, reference-counted CUDA events (internal to the library).
//
// Creating an event per frame is avoidable cost, so events come from a
// per-device pool and go back to it when the last holder (a sync meta, a
// memory's pending-access list) lets go. They carry no timing.
//
// Two kinds: an event the CPU may wait on (one that ends work on host
// memory, which a CPU reads or writes next) is blocking-sync, so that a host
// wait on it sleeps rather than keeping a core spinning. Between GPU stages
// an event is only waited on by streams, and there that flag is pure cost:
// recording a blocking-sync event raises an interrupt, about 2 us of GPU time
// and 1 us of CPU time per frame on an H100 (measured 2026-11-25), so those
// events are plain.
#pragma once

#include <atomic>
#include <utility>

#include <glib.h>
#include <cuda_runtime_api.h>

namespace gst_cs {

class Event {
public:
  enum class Waiter { GPU, HOST };
  // An event of `device` from its pool, with one reference; nullptr and
  // `error` set when the driver cannot create one. Waiter::HOST gives a
  // blocking-sync event (see above).
  static Event * acquire (int device, Waiter waiter, GError ** error);

  void ref () { refs_.fetch_add (1, std::memory_order_relaxed); }
  void unref ();

  cudaEvent_t handle () const { return event_; }
  int device () const { return device_; }
  // The stream of the last record(), the producer a consumer compares with.
  cudaStream_t stream () const { return stream_; }

  // Records on `stream`, which must belong to device() (made current for the
  // call, so that a legacy or per-thread handle names that device's stream,
  // as it does for the caller that gave it). Every record gets a number no
  // other record of any event ever gets (0 is never one), and records on
  // one stream are numbered in the order they were enqueued, so of two
  // events recorded on one stream the one with the larger seq() completes
  // later. (Event*, seq()) names one record even after the Event was given
  // back and acquired again.
  bool record (cudaStream_t stream, GError ** error);
  guint64 seq () const { return seq_; }
  // True when the recorded work has completed (never blocks).
  bool done () const { return cudaEventQuery (event_) == cudaSuccess; }

  // Devices below this one keep their free events in an array, indexed;
  // the others (rare) in a map (gstcsevent.cpp).
  static constexpr int kIndexedDevices = 16;

  struct FreeList;

private:
  // Made by acquire() only, and never deleted: unref() gives it back to
  // its pool (`home`), with its CUDA event, for the next acquire().
  Event (int device, FreeList * home, cudaEvent_t event)
      : device_ (device), home_ (home), event_ (event)
  {}

  std::atomic<int> refs_{ 1 };
  int device_;
  FreeList * home_;
  cudaEvent_t event_;
  cudaStream_t stream_ = nullptr;
  guint64 seq_ = 0;
};

// Owning handle: copies add a reference, destruction drops one.
class EventRef {
public:
  EventRef () = default;
  explicit EventRef (Event * adopt) : e_ (adopt) {}
  EventRef (const EventRef & o) : e_ (o.e_)
  {
    if (e_)
      e_->ref ();
  }
  EventRef (EventRef && o) noexcept : e_ (std::exchange (o.e_, nullptr)) {}
  EventRef & operator= (EventRef o) noexcept
  {
    std::swap (e_, o.e_);
    return *this;
  }
  ~EventRef ()
  {
    if (e_)
      e_->unref ();
  }

  Event * get () const { return e_; }
  Event * operator->() const { return e_; }
  explicit operator bool () const { return e_ != nullptr; }
  Event * release () { return std::exchange (e_, nullptr); }

private:
  Event * e_ = nullptr;
};

} // namespace gst_cs

/* SPDX-License-Identifier: LGPL-2.1-or-later */
// Interprocess CUDA events (internal): ours, with the handles another
// process opens them by, and those another process handed us.
#pragma once

#include <deque>
#include <vector>

#include <glib.h>
#include <cuda_runtime_api.h>

namespace gst_cs {
namespace ipc {

// Events of one device made with cudaEventInterprocess (and without
// timing, which CUDA requires), each with its handle, numbered from 0.
// Made once each and destroyed with the set: an event another process may
// still wait for is never destroyed while its owner runs. Recording one
// costs about 3.5 us of host time against 0.4 for a plain event (H200):
// only the IPC elements' own frames get one.
//
// take () hands out a slot to record, put_back () returns it: a slot is
// handed out again only once its last record has completed (a query, 0.2
// us, never a wait), else a new event is made. A driver may hold back a
// record of an interprocess event whose previous record is still pending
// (one shared signal per event: HIP's does), a host wait in
// cudaEventRecord; and a peer still asking about the older record would
// learn of the later one. With a `limit`, past that many events the
// oldest slot put back is handed out even so (the GPU is that far behind).
// `in_order`: slots are put back in the order of their records on one
// stream, so the first still pending ends the search.
class OwnEvents {
public:
  explicit OwnEvents (int device, guint32 limit = 0, bool in_order = false)
      : device_ (device), limit_ (limit), in_order_ (in_order)
  {}
  ~OwnEvents ();
  OwnEvents (const OwnEvents &) = delete;
  OwnEvents & operator= (const OwnEvents &) = delete;

  // A new event and its handle, in slot size () - 1 on success.
  bool add (GError ** error);
  // A slot to record now; `is_new`: made for this call.
  bool take (guint32 * slot, GError ** error, bool * is_new = nullptr);
  // `slot` recorded (or not) and no longer in use.
  void put_back (guint32 slot);
  guint32 size () const { return (guint32)events_.size (); }
  cudaEvent_t event (guint32 slot) const { return events_[slot]; }
  const cudaIpcEventHandle_t & handle (guint32 slot) const { return handles_[slot]; }
  int device () const { return device_; }

private:
  int device_;
  guint32 limit_;
  bool in_order_;
  std::vector<cudaEvent_t> events_;
  std::vector<cudaIpcEventHandle_t> handles_;
  std::vector<guint32> free_; /* their last record has completed */
  std::deque<guint32>
      settling_; /* put back, their last record maybe pending: oldest first */
};

// Events another process exported, opened here on `device` by their slot
// there. Destroyed with the set.
class PeerEvents {
public:
  explicit PeerEvents (int device) : device_ (device) {}
  ~PeerEvents ();
  PeerEvents (const PeerEvents &) = delete;
  PeerEvents & operator= (const PeerEvents &) = delete;

  // The most slots a peer may use (a peer's slot is a number it sends).
  static constexpr guint32 kMaxEventSlots = 4096;

  // Opens the peer's slot `slot` (again: the old one is destroyed first,
  // the peer may have handed another event for it); a slot from kMaxEventSlots
  // on is an error.
  bool open (guint32 slot, const cudaIpcEventHandle_t & handle, GError ** error);
  // The event of `slot`, nullptr where none was handed.
  cudaEvent_t find (guint32 slot) const
  {
    return slot < events_.size () ? events_[slot] : nullptr;
  }

private:
  int device_;
  /* By slot: looked up for every frame each consumer releases. */
  std::vector<cudaEvent_t> events_;
};

} // namespace ipc
} // namespace gst_cs

/* SPDX-License-Identifier: LGPL-2.1-or-later */
// The frames a consumer gives back, written into a page of memory the
// producer and that consumer both map (internal): a ring of release
// records the consumer appends to and the producer reads as frames go by.
//
// Why not a socket record each: a record sent wakes the producer's server
// thread, per consumer and frame (on an H200 at 1,000 frames/s with four
// consumers, 2.7 wake-ups a frame of 6.8 us each; with the ring that
// thread's CPU a frame fell from 15-35 us to under 1: docs/ipc.md). The
// producer renders frames anyway; it reads the ring then. Only where it needs a release
// sooner (its streaming thread waits for room, it stops, no frame came
// for a while) does it arm a doorbell: the consumer's next release then
// also sends DOORBELL on the socket.
//
// The producer makes the page (a sealed memfd: the consumer can neither
// shrink nor grow it) and passes it with WELCOME. Whatever the consumer
// writes there is read like a record from it: a count that does not add
// up or a field out of range disconnects it.
#pragma once

#include <atomic>
#include <memory>
#include <string>

#include <glib.h>

namespace gst_cs {
namespace ipc {

// A frame given back: its number, the slot of the read event recorded after
// the consumer's last read of it, and that event's handle where the
// producer has not had it yet (CUDA's interprocess event handle, 64 bytes).
struct ReleaseRecord {
  guint64 seq = 0;
  guint32 slot = 0;
  bool has_handle = false;
  guint8 handle[64] = {};
};

class ReleaseRing {
public:
  // The most records unread at once. The producer sends a consumer no more
  // than max-frames (at most 64) frames it has not collected back, so an
  // honest consumer never finds the ring full.
  static constexpr guint32 kCapacity = 64;

  // The producer's side: a new page; `fd` (close-on-exec) is the caller's to
  // pass to the consumer and close. nullptr with `why` set.
  static std::unique_ptr<ReleaseRing> create (int * fd, std::string * why);
  // The consumer's side: maps the page of `fd` (the caller closes it).
  static std::unique_ptr<ReleaseRing> map (int fd, std::string * why);
  ~ReleaseRing ();
  ReleaseRing (const ReleaseRing &) = delete;
  ReleaseRing & operator= (const ReleaseRing &) = delete;

  // The consumer appends a release. FULL: no room (not appended); RING: the
  // producer asked to be told, send DOORBELL.
  enum class Put { OK, RING, FULL };
  Put put (const ReleaseRecord & r);

  // The producer reads the next release: false when none waits, or (with
  // `why` set) when the page does not add up.
  bool take (ReleaseRecord * r, std::string * why);
  // The producer wants the next release at once: the consumer sends
  // DOORBELL with it. True when releases wait already (take them: the
  // consumer may have appended them before it saw the doorbell armed).
  bool arm ();
  void disarm ();

private:
  struct Page;
  explicit ReleaseRing (Page * page) : page_ (page) {}
  Page * page_;
  guint32 next_ = 0;   /* the producer's next record, or the consumer's */
  bool armed_ = false; /* the producer's: it may be (a store spared each frame) */
};

} // namespace ipc
} // namespace gst_cs

/* SPDX-License-Identifier: LGPL-2.1-or-later */
// The records a producer sends its consumers after WELCOME (internal): a
// ring of records in memory the producer and one consumer both map
// (RecordRing), and one word every consumer of the producer sleeps on
// (Bell).
//
// Why not a socket record each: what a send costs is the wake-up of the
// reader in the other process, one a consumer. With four consumers asleep
// on an H200's host, four 200-byte sendmsg calls cost the producer's
// thread 12.07 us, one FUTEX_WAKE of all four on a shared word 5.11
// (pipelines/ipc_wake_cost.cpp, docs/ipc.md). The producer writes a frame's
// record into each consumer's ring, then rings the bell once, and only
// where a consumer sleeps: a consumer still busy with the last frame costs
// no system call at all.
//
// The socket stays for what a consumer sends back (PONG, DOORBELL, ...),
// for the pages WELCOME passes, and for the end of the connection, which
// the consumer watches on a thread of its own (gstcsipcclient.cpp).
//
// The producer makes each page (a sealed memfd: the other side can neither
// shrink nor grow it). The consumer checks every record it takes as it
// would one from the socket; the producer never reads what a consumer
// writes there but its read position and whether it sleeps, and treats a
// position that does not add up as a full ring (the consumer is
// disconnected, as one whose socket queue filled was).
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include <glib.h>

#include "ipc/gstcsipcwire.hpp"

namespace gst_cs {
namespace ipc {

// One word all consumers of a producer wait on; the producer changes it
// and wakes them once. Any process that maps it may ring it (a consumer
// wakes its own thread so at its end: the others look and sleep again).
class Bell {
public:
  // The producer's side: a new page; `fd` (close-on-exec) is the caller's.
  static std::unique_ptr<Bell> create (int * fd, std::string * why);
  // A consumer's side: maps the page of `fd` (the caller closes it).
  static std::unique_ptr<Bell> map (int fd, std::string * why);
  ~Bell ();
  Bell (const Bell &) = delete;
  Bell & operator= (const Bell &) = delete;

  // The word now: read before looking for work, passed to wait().
  guint32 value () const;
  // Changes the word (a wait() for the value before returns at once), then
  // wakes every sleeper (a system call).
  void ring ();
  // Sleeps until the word is no longer `seen` (at once if it is not), or
  // a signal.
  void wait (guint32 seen);

private:
  explicit Bell (std::atomic<guint32> * word) : word_ (word) {}
  std::atomic<guint32> * word_;
};

// The records of one consumer's connection, producer to consumer.
class RecordRing {
public:
  // The bytes of records it holds at once: 8 of the largest.
  static constexpr guint64 kBytes = 8 * kMaxMessage;

  static std::unique_ptr<RecordRing> create (int * fd, std::string * why);
  static std::unique_ptr<RecordRing> map (int fd, std::string * why);
  ~RecordRing ();
  RecordRing (const RecordRing &) = delete;
  RecordRing & operator= (const RecordRing &) = delete;

  // The producer appends a finished record: false when it has no room (a
  // consumer that stopped reading, or one that wrote its read position
  // wrong).
  bool put (const Writer & w);
  // Whether the consumer said it sleeps (after put: ring the bell).
  bool sleeping () const;

  // The consumer takes the next record into `out` (resized to it): false
  // when none waits, or (with `why` set) when the ring does not add up.
  bool take (std::vector<guint8> * out, std::string * why);
  // The consumer is about to sleep (true) or is awake (false). Say true,
  // then look again (pending): a record put meanwhile is either seen or
  // the producer sees this and rings.
  void set_sleeping (bool on);
  bool pending () const;

private:
  struct Page;
  explicit RecordRing (Page * page) : page_ (page) {}
  Page * page_;
  guint64 next_ = 0; /* the producer's write position, or the consumer's read one */
};

// The records waiting in a ring, taken at once (like RecvBatch from a
// socket) into buffers kept from one batch to the next.
class RingBatch {
public:
  // How many records were taken (0: none waited); -1 with `why` set where
  // the ring does not add up (the records before come first: count()).
  int take (RecordRing & ring, std::string * why);
  guint count () const { return count_; }
  const guint8 * data (guint i) const { return bufs_[i].data (); }
  gsize size (guint i) const { return bufs_[i].size (); }

  static constexpr guint kMax = 64;

private:
  std::vector<std::vector<guint8>> bufs_ = std::vector<std::vector<guint8>> (kMax);
  guint count_ = 0;
};

} // namespace ipc
} // namespace gst_cs

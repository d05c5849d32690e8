/* SPDX-License-Identifier: LGPL-2.1-or-later */
// The producer's side of the IPC elements (internal): the socket server of
// cudastreamsipcsink, its consumers, and the frames they hold.
//
// Forward: a frame's memory (exported once, its handle cached by each
// consumer) goes with an interprocess event recorded after the frame's
// producer (a GPU wait on the sink's stream); the consumer's stream waits
// for it on the GPU. Records go into each consumer's ring, then one ring
// of the bell wakes whichever consumers sleep (RecordRing, Bell).
//
// Back: a consumer releases a frame with its own interprocess event,
// recorded after its last read, written into a ring in a page both map
// (ReleaseRing): the streaming thread takes them as it renders, the server
// thread only where a doorbell it armed rang. The producer never makes a
// stream wait for a consumer's event: a consumer killed after recording
// it leaves such a stream stuck for ever, and every cudaFree of the
// producer after it
// (measured, pipelines/ipc_probe.cu). It keeps the frame (a reference to
// its buffer, so its memory stays out of its pool) until every consumer it
// went to has released it and that consumer's event has completed, asked
// with cudaEventQuery as frames go by and on the server's tick (never a
// host wait); a consumer whose connection is gone has its frames taken
// back once its process is gone, or a grace period after the connection
// went (its GPU reads end with its context). An exported event is recorded
// again only once its frame has come back from everyone. A consumer whose
// process does not answer a PING (its reader thread answers at once, however
// long its pipeline holds frames) within consumer-timeout is stopped or
// stuck: it is disconnected and its frames come back like a dead one's.
#pragma once

#include <atomic>
#include <ctime>
#include <condition_variable>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <gst/gst.h>
#include <cuda_runtime_api.h>

#include "ipc/gstcsipcevents.hpp"
#include "ipc/gstcsipcexport.hpp"
#include "ipc/gstcsipcmetas.hpp"
#include "ipc/gstcsipcrecords.hpp"
#include "ipc/gstcsipcreleases.hpp"
#include "ipc/gstcsipcsocket.hpp"
#include "ipc/gstcsipcwire.hpp"

namespace gst_cs {
namespace ipc {

// The most frames one consumer may hold (max-frames): its ring holds as
// many releases, so an honest consumer never finds it full.
constexpr guint kMaxFramesLimit = 64;
static_assert (kMaxFramesLimit <= ReleaseRing::kCapacity, "a release ring too small");

struct ServerSettings {
  std::string path;
  bool group = false;           // the socket open to the owner's group
  guint max_frames = 4;         // frames one consumer may hold at once
  bool wait = false;            // a consumer with no room holds the producer ...
  guint wait_timeout_ms = 1000; // ... this long at most per frame
  guint consumer_timeout_ms =
      2000; // no answer to PING that long: disconnected (0: never)
};

// A frame to send: its buffer and where its bytes are exported from.
struct OutFrame {
  GstBuffer * buffer = nullptr;     // one memory; kept until released
  GstMemory * exportable = nullptr; // owns the allocation (gst_cs_memory_get_exportable)
  gsize alloc_size = 0;             // its size
  gsize offset = 0;                 // of the frame's bytes in it
  gsize size = 0;
  GstClockTime clock_time = GST_CLOCK_TIME_NONE; // its PTS on the pipeline clock
};

// The calling thread's CPU time in ns (a system call: for diagnostics).
inline guint64
thread_cpu_ns ()
{
  timespec t;
  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &t);
  return GST_TIMESPEC_TO_TIME (t);
}

// Where the streaming thread's CPU goes in reclaim and send, summed over
// the frames (thread_cpu_ns), where the element asks (GST_DEBUG=csipcsink:4).
struct SendCosts {
  guint64 reclaim = 0; // frames taken back: the rings read, reads queried
  guint64 gpu = 0;     // the GPU wait for the frame, its event's record
  guint64 records = 0; // the FRAME record written into each consumer's ring
  guint64 bell = 0;    // the consumers that sleep woken
};

class Server : public ExportListener, public std::enable_shared_from_this<Server> {
public:
  // Listens at `s.path` and starts the server thread; nullptr with
  // `error` set. Frames are on `device`; `owner` gets warnings about
  // consumers that were dropped.
  static std::shared_ptr<Server> create (
      GstElement * owner, const ServerSettings & s, int device, GError ** error);
  ~Server () override;

  // Waits (at most `linger_ms`) for the consumers to give frames back,
  // says goodbye to them, closes the socket and stops the thread; frames
  // still held are let go. Called once, from the element's stop.
  void stop (guint linger_ms);

  // From the streaming thread.
  void set_caps (GstCaps * caps);
  void set_segment (const GstSegment & segment);
  // EOS, FLUSH_START, FLUSH_STOP (with reset_time) to every consumer.
  void broadcast (Msg type, bool reset_time = false);
  // Whether a frame rendered now goes to any consumer: one with room for
  // it, or any with slow-consumer=wait. When none takes it, each misses
  // it (counted) and nothing else is to be done for it: no copy, no GPU
  // work (a producer faster than its consumers renders many such).
  bool wanted ();
  // Sends `f` to every consumer with room for it (see ServerSettings):
  // after `stream` waits for the frame's producer and the frame's event is
  // recorded on it (outside the lock: the server thread goes on taking
  // frames back meanwhile). False with `error` set on a CUDA failure.
  bool send (const OutFrame & f, cudaStream_t stream, GError ** error);
  // Takes back the frames every consumer is done with (never blocks).
  void reclaim ();
  // A send waiting for a slow consumer returns at once while set (the
  // element's unlock, at flushes and state changes).
  void interrupt (bool on);

  guint consumers ();
  guint64 dropped () const { return dropped_.load (); }
  // The server thread's CPU time (reading consumers' records, taking
  // frames back) since the last call, in ns: the element's CPU time too.
  // Counted from the first call on (two system calls a wake-up, for a
  // traced element only).
  guint64 take_thread_ns ()
  {
    count_thread_ns_.store (true, std::memory_order_relaxed);
    return thread_ns_.exchange (0);
  }
  // Sums reclaim's and send's costs into `costs` (nullptr: not).
  void time_sends (SendCosts * costs) { costs_ = costs; }
  guint held ();

  guint32 next_export_id () override { return ++next_export_; }
  void forget (guint32 id) override;

private:
  struct Conn;
  struct Sent;
  struct InFlight;

  Server (GstElement * owner, const ServerSettings & s, int device);
  void run ();
  void accept_all ();
  void read_conn (const std::shared_ptr<Conn> & c);
  void handle (const std::shared_ptr<Conn> & c, const guint8 * buf, gsize n);
  void hello (const std::shared_ptr<Conn> & c, Reader & r);
  void harvest (const std::shared_ptr<Conn> & c);
  std::list<InFlight>::iterator retire (std::list<InFlight>::iterator it);
  bool release (const std::shared_ptr<Conn> & c, const ReleaseRecord & r);
  void close_conn (const std::shared_ptr<Conn> & c, const std::string & why, bool warn);
  void tick (std::vector<GstBuffer *> & done);
  void collect (std::vector<GstBuffer *> & done);
  bool sent_done (const Sent & s, gint64 now);
  bool wait_for_room (std::unique_lock<std::mutex> & lk, const std::shared_ptr<Conn> & c,
      gint64 deadline);
  bool preamble (
      const std::shared_ptr<Conn> & c, const Export & ex, gsize alloc_size, guint32 slot);
  bool send_to (const std::shared_ptr<Conn> & c, const Writer & w, bool drop_if_full);
  void ring_bell ();
  gint64 collecting_until () const;
  bool arm_doorbells ();
  int poll_timeout_ms ();
  void wake ();

  GstElement * owner_;
  ServerSettings s_;
  int device_;
  guint8 uuid_[16] = {};
  int listen_fd_ = -1;
  ino_t listen_ino_ = 0;
  int wake_[2] = { -1, -1 };
  int bell_fd_ = -1; /* passed with every WELCOME */
  std::unique_ptr<Bell> bell_;
  int timer_ = -1; /* fires where the next frame is overdue (reclaim) */
  std::thread thread_;
  std::thread::id thread_id_;
  std::atomic<guint32> next_export_{ 0 };
  std::atomic<guint64> dropped_{ 0 };
  std::atomic<guint64> thread_ns_{ 0 };
  std::atomic<bool> count_thread_ns_{ false };
  SendCosts * costs_ = nullptr; /* the streaming thread's */

  std::mutex lock_; /* everything below */
  std::condition_variable cond_;
  bool running_ = true;
  bool interrupted_ = false;
  guint waiting_ = 0;      /* streaming threads waiting for a consumer's room */
  bool lingering_ = false; /* stop () waits for frames to come back */
  std::vector<std::shared_ptr<Conn>> conns_;
  std::list<InFlight> frames_; /* stable: a frame is sent while others come back */
  std::list<InFlight> spare_;  /* their nodes for reuse (retire) */
  OwnEvents events_;
  guint64 seq_ = 0;
  gint64 last_render_ = 0;     /* reclaim (), once a frame: when */
  gint64 render_interval_ = 0; /* and the longest recent gap (reclaim) */
  gint64 timer_at_ = 0;        /* when timer_ fires (reclaim) */
  guint64 ping_token_ = 0;
  guint32 next_conn_ = 0;
  std::string caps_;
  guint64 caps_gen_ = 0;
  GstSegment segment_;
  guint64 segment_gen_ = 0;
  bool unrung_ = false; /* records put since the bell last rang */
  Writer frame_w_, ctl_w_;
  Slots slots_;                                /* the last batch's sources */
  Writer slots_w_;                             /* and their SLOTS record */
  guint64 slots_gen_ = 0;                      /* counts changes of slots_ */
  std::vector<std::shared_ptr<Conn>> targets_; /* send ()'s, empty between */
  std::vector<GstBuffer *> reclaimed_;         /* reclaim ()'s, empty between */
  RecvBatch rbatch_;                           /* server thread */
};

} // namespace ipc
} // namespace gst_cs

/* SPDX-License-Identifier: LGPL-2.1-or-later */
// The consumer's side of the IPC elements (internal): cudastreamsipcsrc's
// connection to a producer, the memories and events it opened, and the
// frames it made of them.
//
// A reader thread takes every record as it comes (from the record ring the
// producer puts them in, asleep on its bell in between; a second thread
// watches the socket for the connection's end): memories are opened once
// (cudaIpcOpenMemHandle) and kept until the producer says it frees them,
// the producer's events once per slot; each frame becomes a buffer at once
// (a GstCsMemory over the opened memory). Where the producer's event has
// completed (a query, 0.2 us) the buffer is ready and carries no event;
// else our stream waits on the GPU for the producer's event (host time),
// then records the buffer's own plain event: consumers in this process
// wait for that one. The
// buffers, caps, segments and the end of stream queue up for the
// streaming thread in the order they came.
//
// A frame goes back to the producer when its memory is freed: the
// connection's stream waits on the GPU for every reader of it in this
// process (the memory's sync state), records one of our interprocess
// events after them, and a record in the producer's release ring
// (ReleaseRing) tells the producer which: no message, unless the producer
// armed its doorbell. The memory's last frame gone after the producer
// said FORGET, it is closed and the producer told FORGOTTEN. The
// connection outlives the element while frames of it live (an
// application holds them).
#pragma once

#include <atomic>
#include <condition_variable>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include <gst/gst.h>
#include <cuda_runtime_api.h>

#include "ipc/gstcsipcevents.hpp"
#include "ipc/gstcsipcmetas.hpp"
#include "ipc/gstcsipcrecords.hpp"
#include "ipc/gstcsipcreleases.hpp"
#include "ipc/gstcsipcwire.hpp"

namespace gst_cs {
namespace ipc {

struct ClientSettings {
  std::string path;
  bool group = false;           // a producer of the owner's group is accepted
  guint connect_timeout_ms = 0; // 0: for ever
};

// What the streaming thread gets, in order.
struct Item {
  Msg type = Msg::BYE; // CAPS, SEGMENT, FRAME, EOS, FLUSH_START, FLUSH_STOP, BYE (gone)
  std::string text;    // CAPS: the caps; BYE: why the producer is gone
  GstSegment segment;  // SEGMENT
  bool reset_time = false;
  GstBuffer * frame = nullptr;                   // FRAME: ours to push or drop
  GstClockTime clock_time = GST_CLOCK_TIME_NONE; // FRAME: PTS on the producer's clock
  GstClockTime reader_ns =
      0;              // FRAME: the reader thread's time on it (receiving, making it)
  bool error = false; // BYE: a fault (else the producer ended it)
};

class Client : public std::enable_shared_from_this<Client> {
public:
  // Connects to `s.path`, retrying until `s.connect_timeout_ms` has passed
  // or `cancel` is set, says HELLO and takes the producer's WELCOME; then
  // the reader thread runs. nullptr with `error` set (nullptr and no
  // error: cancelled).
  static std::shared_ptr<Client> connect (GstElement * owner, const ClientSettings & s,
      const std::atomic<bool> & cancel, GError ** error);
  ~Client ();

  // The next item; false when `cancel` was set meanwhile (wake() to look).
  bool next (Item * item, const std::atomic<bool> & cancel);
  void wake ();
  // The element stops: drops what is queued (giving those frames back)
  // and asks the producer for no more frames (DRAIN). Never blocks. Frames
  // already out stay valid and go back as they are freed; once the last
  // is, the reader thread says goodbye and ends, and the connection goes
  // with its last reference.
  void stop ();

  // The device the producer's memory is on, here.
  int device () const { return device_; }
  int producer_pid () const { return producer_pid_; }
  // The time spent giving frames back (on the threads that freed them)
  // since the last call, in ns: the element's CPU time too.
  guint64 take_release_ns () { return release_ns_.exchange (0); }

private:
  // A memory of the producer, opened here.
  struct Import {
    guint8 * data = nullptr;
    gsize size = 0;
    guint alive = 0;        /* frames of it not yet freed */
    bool forgotten = false; /* the producer frees it once closed */
  };
  struct FrameRef;

  Client (GstElement * owner) : owner_ (owner) {}
  bool handshake (GError ** error);
  bool take_welcome (Reader & r, GError ** error);
  void run ();
  void watch ();
  // A record from the producer; false (with `why`) ends the connection.
  // `spent`: the reader's time on it so far (receiving it).
  bool handle (Msg type, Reader & r, std::string * why, GstClockTime spent = 0);
  bool frame (Reader & r, std::string * why, GstClockTime spent);
  bool open_export (Reader & r, std::string * why);
  void forget (guint32 id);
  void push (Item && item);
  void lost (const std::string & why, bool error);
  // A frame's memory was freed (any thread).
  static void frame_freed (gpointer data);
  void give_back (guint64 seq, guint32 import_id);
  void join_reader ();
  void send_release (guint64 seq);
  void close_import (guint32 id, Import & im);

  void drop_queue ();
  bool finished ();

  GstElement * owner_; /* for messages, until stop () */
  int fd_ = -1;
  int wake_[2] = { -1, -1 };
  int device_ = -1;
  int producer_pid_ = 0;
  std::thread reader_;
  std::thread watcher_; /* the reader thread's: watch () */
  std::atomic<bool> watch_stop_{ false };
  std::atomic<bool> hup_{ false };      /* the socket ended (hup_why_ says how) */
  std::string hup_why_;                 /* under wlock_ */
  std::unique_ptr<RecordRing> records_; /* the producer's records (WELCOME's) */
  std::unique_ptr<Bell> bell_;          /* rings when records wait */
  std::thread::id reader_id_;           /* set once, before stop () can be called */
  std::mutex join_lock_;         /* join_reader() from stop() or the last release */
  std::shared_ptr<Client> self_; /* the reader thread's, while it runs */
  std::atomic<bool> stopping_{ false };
  std::atomic<guint> frames_out_{ 0 };
  std::atomic<guint64> ready_frames_{ 0 };
  std::atomic<guint64> release_ns_{ 0 };
  cudaStream_t stream_ = nullptr; /* waits for the producer, orders releases */
  std::unique_ptr<OwnEvents> read_events_;
  std::unique_ptr<PeerEvents> write_events_;
  Slots slots_; /* the reader thread's: the last SLOTS record */

  std::mutex lock_; /* imports (taken before wlock_ where both are) */
  std::map<guint32, Import> imports_;

  std::mutex wlock_;                  /* sending, read events */
  std::vector<bool> read_sent_;       /* the producer has the handle of this read event */
  std::unique_ptr<ReleaseRing> ring_; /* the producer's release page (WELCOME's) */
  std::atomic<bool> closed_{ false }; /* set under wlock_: nothing more is sent */
  Writer w_;

  std::mutex qlock_; /* the queue */
  std::condition_variable qcond_;
  std::deque<Item> queue_;
  bool ended_ = false; /* the last item (BYE) is queued */
};

} // namespace ipc
} // namespace gst_cs

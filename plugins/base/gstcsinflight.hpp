/* SPDX-License-Identifier: LGPL-2.1-or-later */
// Frames whose GPU work is enqueued, pushed downstream in order as each
// one's work completes (internal): cudadownload's frames in flight.
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

#include <gst/gst.h>
#include <cuda_runtime_api.h>

#include "gstcshostwait.h"

namespace gst_cs {

// The element's streaming thread queues a frame once its GPU work (a copy
// into host memory) is enqueued, and returns while at most `limit` frames
// are not yet pushed. Past that, it must wait anyway: it waits on the
// oldest frame's event itself (one counted host wait) and pushes it, as
// long as no other thread is pushing one. A frame no later frame follows
// is not held: a thread of the element takes the oldest frame once it has
// been queued for kGrace without the streaming thread taking it, waits on
// its event and pushes it. At full rate the streaming thread is back
// sooner and pushes every frame itself, with no hand-over between threads
// (a wake-up of another thread a frame cost a tenth of the frames/s of
// small frames on an H200); a frame that stands alone leaves at most
// kGrace after it came, or when its copy is done if that is later.
//
// What comes between frames (serialized events and queries) is the
// streaming thread's: it drains the queue first, so they stay behind the
// frames before them. A push that fails downstream (not linked, EOS, an
// error) is answered to the streaming thread's next frame and to drain();
// the frames queued behind it are dropped. A flush, or a stop, drops what
// is queued and pushes nothing more.
class FramesInFlight {
public:
  // Pushes on `pad` of `owner`, counts its waits in `waits`.
  FramesInFlight (GstElement * owner, GstPad * pad, GstCsWaitCounter * waits);
  ~FramesInFlight () { stop (); }
  FramesInFlight (const FramesInFlight &) = delete;
  FramesInFlight & operator= (const FramesInFlight &) = delete;

  // How long a queued frame waits for the streaming thread to come back
  // and push it before the element's thread does.
  static constexpr std::chrono::microseconds kGrace{ 1000 };

  // Takes `frame`, whose GstCsSyncMeta's event ends its GPU work, queues it
  // and pushes the oldest frames until at most `limit` are not yet pushed.
  // `spin`: poll for the event rather than sleep. The thread starts the
  // first time a frame stays queued, with `device` current. Returns the
  // flow of the pushes so far: FLUSHING while flushing, else the first push
  // that failed since the last flush.
  GstFlowReturn add (GstBuffer * frame, int device, bool spin, guint limit);
  // Pushes every frame queued (or waits for the one being pushed; or drops
  // them, flushing). Returns as
  // add() does; `untold`, where given, says whether a failed push is one
  // that add() has not answered yet (no later frame came to hear it).
  GstFlowReturn drain (bool * untold = nullptr);
  // FLUSH_START: drops what is queued, pushes
  // nothing more, and lets a streaming thread waiting in add() or drain()
  // go at once.
  void flush_start ();
  // FLUSH_STOP: once the push in progress, if any, has returned (downstream
  // flushes too), drops what is queued and takes frames again.
  void flush_stop ();
  // A failed push that said "not linked" is forgotten: downstream was
  // linked again (a RECONFIGURE event).
  void forget_not_linked ();
  // flush_start(), then the thread ends; frames are taken again after.
  void stop ();

private:
  struct Frame {
    GstBuffer * buffer;
    bool spin;
    std::chrono::steady_clock::time_point queued;
  };
  void loop (int device, guint64 generation);
  void push_until (std::unique_lock<std::mutex> & lock, guint limit);
  void complete (std::unique_lock<std::mutex> & lock, const Frame & f);
  GstFlowReturn finish (const Frame & f);
  std::deque<GstBuffer *> take_queue ();
  guint unpushed () const { return (guint)queue_.size () + (busy_ ? 1 : 0); }
  GstFlowReturn answer () const { return flushing_ ? GST_FLOW_FLUSHING : flow_; }

  GstElement * owner_;
  GstPad * pad_;
  GstCsWaitCounter * waits_;
  std::mutex lock_;
  std::condition_variable wake_; // for the thread: a frame to take, or quit
  std::condition_variable done_; // a frame was pushed or dropped, or flushing
  std::deque<Frame> queue_;      // not yet taken by the thread, oldest first
  bool busy_ = false;            // a thread has a frame: waits or pushes
  bool idle_ = false;            // the thread waits for a frame to take
  bool flushing_ = false;
  guint64 generation_ = 0; // stop() ends the thread of the one before
  bool told_ = true;       // add() has answered flow_ (or it is OK)
  GstFlowReturn flow_ = GST_FLOW_OK;
  std::thread thread_;
};

} // namespace gst_cs

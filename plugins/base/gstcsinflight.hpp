/* SPDX-License-Identifier: LGPL-2.1-or-later */
// Frames whose GPU work is enqueued, pushed downstream in order as each
// one's work completes (internal): cudadownload's frames in flight.
#pragma once

#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

#include <gst/gst.h>
#include <cuda_runtime_api.h>

#include "gstcshostwait.h"

namespace gst_cs {

// The element's streaming thread queues a frame once its GPU work (a copy
// into host memory) is enqueued, and returns; a thread of its own waits on
// each frame's event (one counted host wait per frame) and pushes it on
// `pad` as soon as it completes, whether or not another frame comes. The
// streaming thread blocks only while more than `limit` frames are not yet
// pushed. With a limit of 0 and nothing before it, it waits and pushes the
// frame itself, as the thread would.
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

  // Takes `frame`, whose GstCsSyncMeta's event ends its GPU work, queues it
  // and waits until at most `limit` frames are not yet pushed. `spin`: poll
  // for the event rather than sleep. The thread starts at the first frame,
  // with `device` current. Returns the flow of the pushes so far: FLUSHING
  // while flushing, else the first push that failed since the last flush.
  GstFlowReturn add (GstBuffer * frame, int device, bool spin, guint limit);
  // Waits until every frame queued has been pushed (or dropped). Returns as
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
  };
  void loop (int device, guint64 generation);
  void complete (std::unique_lock<std::mutex> & lock, const Frame & f);
  GstFlowReturn finish (const Frame & f);
  std::deque<GstBuffer *> take_queue ();
  guint unpushed () const { return (guint)queue_.size () + (busy_ ? 1 : 0); }
  GstFlowReturn answer () const { return flushing_ ? GST_FLOW_FLUSHING : flow_; }

  GstElement * owner_;
  GstPad * pad_;
  GstCsWaitCounter * waits_;
  std::mutex lock_;
  std::condition_variable wake_; // a frame was queued, or quit
  std::condition_variable done_; // a frame was pushed or dropped, or flushing
  std::deque<Frame> queue_;      // not yet taken by the thread, oldest first
  bool busy_ = false;            // the thread has a frame: waits or pushes
  bool flushing_ = false;
  guint64 generation_ = 0; // stop() ends the thread of the one before
  bool told_ = true;       // add() has answered flow_ (or it is OK)
  GstFlowReturn flow_ = GST_FLOW_OK;
  std::thread thread_;
};

} // namespace gst_cs

/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "base/gstcsinflight.hpp"

#include "gstcserror-private.h"
#include "gstcshostwait-private.h"
#include "gstcssyncmeta.h"

GST_DEBUG_CATEGORY_STATIC (gst_cs_in_flight_debug);
#define GST_CAT_DEFAULT gst_cs_in_flight_debug

namespace gst_cs {

namespace {

void
unref_frames (std::deque<GstBuffer *> & frames)
{
  for (GstBuffer * b : frames)
    gst_buffer_unref (b);
  frames.clear ();
}

} // namespace

FramesInFlight::FramesInFlight (
    GstElement * owner, GstPad * pad, GstCsWaitCounter * waits)
    : owner_ (owner), pad_ (pad), waits_ (waits)
{
  static std::once_flag debug_once;
  std::call_once (debug_once, [] {
    GST_DEBUG_CATEGORY_INIT (
        gst_cs_in_flight_debug, "csinflight", 0, "gst-cudastreams frames in flight");
  });
}

/* Under lock_: what is queued leaves the queue; the caller lets go of it
 * without the lock (a buffer going back to an inactive pool frees pinned
 * memory, a device-wide wait). */
std::deque<GstBuffer *>
FramesInFlight::take_queue ()
{
  std::deque<GstBuffer *> taken;
  for (const Frame & f : queue_)
    taken.push_back (f.buffer);
  queue_.clear ();
  return taken;
}

GstFlowReturn
FramesInFlight::add (GstBuffer * frame, int device, bool spin, guint limit)
{
  std::unique_lock<std::mutex> lock (lock_);
  if (flushing_ || flow_ != GST_FLOW_OK) {
    told_ = true;
    const GstFlowReturn ret = answer ();
    lock.unlock ();
    gst_buffer_unref (frame);
    return ret;
  }
  if (limit == 0 && unpushed () == 0) {
    /* Nothing before it, and the caller waits for it anyway: waiting and
     * pushing here spares a hand-over to the thread and back. */
    complete (lock, { frame, spin });
  } else {
    if (!thread_.joinable ())
      thread_ = std::thread (&FramesInFlight::loop, this, device, generation_);
    queue_.push_back ({ frame, spin });
    wake_.notify_one ();
    done_.wait (
        lock, [&] { return unpushed () <= limit || flushing_ || flow_ != GST_FLOW_OK; });
  }
  if (flow_ != GST_FLOW_OK)
    told_ = true;
  return answer ();
}

GstFlowReturn
FramesInFlight::drain (bool * untold)
{
  std::unique_lock<std::mutex> lock (lock_);
  done_.wait (
      lock, [&] { return unpushed () == 0 || flushing_ || flow_ != GST_FLOW_OK; });
  if (untold)
    *untold = !told_;
  return answer ();
}

void
FramesInFlight::flush_start ()
{
  std::deque<GstBuffer *> dropped;
  {
    std::lock_guard<std::mutex> hold (lock_);
    flushing_ = true;
    dropped = take_queue ();
  }
  done_.notify_all ();
  unref_frames (dropped);
}

void
FramesInFlight::flush_stop ()
{
  std::deque<GstBuffer *> dropped;
  {
    std::unique_lock<std::mutex> lock (lock_);
    /* Its push returns: downstream flushes too (FLUSH_START went before). */
    done_.wait (lock, [&] { return !busy_; });
    dropped = take_queue ();
    flushing_ = false;
    flow_ = GST_FLOW_OK;
    told_ = true;
  }
  unref_frames (dropped);
}

void
FramesInFlight::forget_not_linked ()
{
  std::lock_guard<std::mutex> hold (lock_);
  if (flow_ == GST_FLOW_NOT_LINKED) {
    flow_ = GST_FLOW_OK;
    told_ = true;
  }
}

void
FramesInFlight::stop ()
{
  std::deque<GstBuffer *> dropped;
  {
    std::lock_guard<std::mutex> hold (lock_);
    generation_++; /* the thread's loop ends */
    flushing_ = true;
    dropped = take_queue ();
  }
  wake_.notify_all ();
  done_.notify_all ();
  if (thread_.joinable ()) {
    if (thread_.get_id () != std::this_thread::get_id ()) {
      thread_.join ();
    } else {
      /* A state change from a push of ours (downstream's streaming
       * thread): GStreamer forbids it; don't wait for ourselves. */
      GST_WARNING_OBJECT (owner_, "stopped from its own pushing thread");
      thread_.detach ();
    }
  }
  unref_frames (dropped);
  std::lock_guard<std::mutex> hold (lock_);
  flushing_ = false;
  flow_ = GST_FLOW_OK;
  told_ = true;
}

/* Waits for `f`'s GPU work (counted, on its event only) and pushes it,
 * unless a flush came meanwhile. */
GstFlowReturn
FramesInFlight::finish (const Frame & f)
{
  cudaEvent_t event = gst_buffer_get_cs_sync_meta (f.buffer)->event;
  GError * err = nullptr;
  if (!(f.spin ? gst_cs_host_poll_event (event, waits_, &err)
               : gst_cs_host_wait_event (event, waits_, &err))) {
    gst_buffer_unref (f.buffer);
    GST_CS_POST_ERROR (owner_, err, "Cannot download a frame");
    return GST_FLOW_ERROR;
  }
  {
    std::lock_guard<std::mutex> hold (lock_);
    if (flushing_) {
      gst_buffer_unref (f.buffer);
      return GST_FLOW_FLUSHING;
    }
  }
  /* A flush that begins now finds our pad flushing before it goes on
   * downstream: this push is refused there, or arrives before the flush. */
  return gst_pad_push (pad_, f.buffer);
}

void
FramesInFlight::loop (int device, guint64 generation)
{
  /* Events are waited for from any device; this spares device 0 a context
   * when the element works on another. */
  if (cudaSetDevice (device) != cudaSuccess) {
    GST_WARNING_OBJECT (owner_, "cannot make device %d current for the waits", device);
    (void)cudaGetLastError ();
  }
  std::unique_lock<std::mutex> lock (lock_);
  for (;;) {
    wake_.wait (lock, [&] { return generation_ != generation || !queue_.empty (); });
    if (generation_ != generation)
      return;
    const Frame f = queue_.front ();
    queue_.pop_front ();
    complete (lock, f);
  }
}

/* Called and returns with `lock` held; finishes `f` without it. A push
 * that fails (but for a flush) is kept for the streaming thread, and the
 * frames queued behind it are dropped. */
void
FramesInFlight::complete (std::unique_lock<std::mutex> & lock, const Frame & f)
{
  busy_ = true;
  lock.unlock ();
  const GstFlowReturn ret = finish (f);
  lock.lock ();
  busy_ = false;
  std::deque<GstBuffer *> dropped;
  if (ret != GST_FLOW_OK && !flushing_ && flow_ == GST_FLOW_OK) {
    GST_DEBUG_OBJECT (owner_, "push failed: %s", gst_flow_get_name (ret));
    flow_ = ret;
    told_ = false;
    dropped = take_queue ();
  }
  done_.notify_all ();
  if (!dropped.empty ()) {
    lock.unlock ();
    unref_frames (dropped);
    lock.lock ();
  }
}

} // namespace gst_cs

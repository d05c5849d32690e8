/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "gstcsmemorysync.hpp"

#include "gstcserror-private.h"
#include "gstcsmemory.h"
#include "gstcspinnedmemory-private.h"

namespace gst_cs {

void
MemorySync::set_writer (const EventRef & e)
{
  std::lock_guard<std::mutex> guard (lock_);
  writer_ = e;
  readers_.clear ();
}

bool
MemorySync::same_stream (const Reader & r, const EventRef & e, std::thread::id thread)
{
  if (r.event->stream () != e->stream ())
    return false;
  if (!stream_resolved_per_caller (e->stream ()))
    return true;
  /* Resolved where it was recorded: on the event's device, and for the
   * per-thread stream on the recording thread. */
  return r.event->device () == e->device () &&
         (e->stream () != cudaStreamPerThread || r.thread == thread);
}

void
MemorySync::add_reader (const EventRef & e)
{
  const std::thread::id thread = std::this_thread::get_id ();
  std::lock_guard<std::mutex> guard (lock_);
  for (auto & r : readers_) {
    if (same_stream (r, e, thread)) {
      if (e->seq () > r.event->seq ())
        r = Reader{ e, thread };
      return;
    }
  }
  readers_.push_back (Reader{ e, thread });
}

EventRef
MemorySync::writer ()
{
  std::lock_guard<std::mutex> guard (lock_);
  return writer_;
}

std::vector<EventRef>
MemorySync::pending ()
{
  std::lock_guard<std::mutex> guard (lock_);
  std::vector<EventRef> all;
  all.reserve (readers_.size () + 1);
  for (auto & r : readers_)
    all.push_back (r.event);
  if (writer_)
    all.push_back (writer_);
  return all;
}

bool
MemorySync::gpu_wait_all (cudaStream_t stream, GError ** error)
{
  /* Under the lock, without a copy of the list (an allocation every frame):
   * a wait is enqueued, never blocks, and calls nothing of ours. */
  std::lock_guard<std::mutex> guard (lock_);
  auto wait = [&] (const EventRef & e) {
    return stream_order_covers (e->stream (), stream) ||
           GST_CS_CHECK (cudaStreamWaitEvent (stream, e->handle (), 0), error);
  };
  for (auto & r : readers_)
    if (!wait (r.event))
      return false;
  return !writer_ || wait (writer_);
}

bool
MemorySync::in_flight_only_on (cudaStream_t stream)
{
  std::lock_guard<std::mutex> guard (lock_);
  /* Access on `stream` needs no look: stream order covers it. One on
   * another stream counts only while it runs (a query, never a wait); a
   * complete one is forgotten, as host_wait_all() does. */
  if (writer_ && !stream_order_covers (writer_->stream (), stream)) {
    if (!writer_->done ())
      return false;
    writer_ = EventRef ();
  }
  for (auto it = readers_.begin (); it != readers_.end ();) {
    if (stream_order_covers (it->event->stream (), stream)) {
      ++it;
    } else if (it->event->done ()) {
      it = readers_.erase (it);
    } else {
      return false;
    }
  }
  return true;
}

bool
MemorySync::gpu_wait_writer (cudaStream_t stream, GError ** error)
{
  EventRef w = writer ();
  if (!w || stream_order_covers (w->stream (), stream))
    return true;
  return GST_CS_CHECK (cudaStreamWaitEvent (stream, w->handle (), 0), error);
}

bool
MemorySync::host_wait_all (GstCsWaitCounter * counter, GError ** error)
{
  std::vector<EventRef> waited = pending ();
  for (auto & e : waited) {
    if (!e->done () && !gst_cs_host_wait_event (e->handle (), counter, error))
      return false;
  }
  /* All complete: forget them, but not a reader that came meanwhile. */
  std::lock_guard<std::mutex> guard (lock_);
  for (auto & e : waited) {
    if (writer_.get () == e.get ())
      writer_ = EventRef ();
    for (auto it = readers_.begin (); it != readers_.end (); ++it) {
      if (it->event.get () == e.get ()) {
        readers_.erase (it);
        break;
      }
    }
  }
  return true;
}

MemorySync *
memory_sync (GstMemory * mem)
{
  if (gst_is_cs_memory (mem))
    return device_memory_sync (mem);
  if (gst_is_cs_pinned_memory (mem))
    return pinned_memory_sync (mem);
  return nullptr;
}

} // namespace gst_cs

#include "gstcsmemorysync.hpp"

#include "gstcserror.h"
#include "gstcsmemory.h"
#include "gstcspinnedmemory.h"

namespace gcs {

void
MemorySync::set_writer (const EventRef & e)
{
  std::lock_guard<std::mutex> guard (lock_);
  writer_ = e;
}

void
MemorySync::add_reader (const EventRef & e)
{
  std::lock_guard<std::mutex> guard (lock_);
  for (auto & r : readers_) {
    if (r->stream () == e->stream ()) {
      r = e;
      return;
    }
  }
  readers_.push_back (e);
}

EventRef
MemorySync::writer ()
{
  std::lock_guard<std::mutex> guard (lock_);
  return writer_;
}

bool
MemorySync::gpu_wait_all (cudaStream_t stream, GError ** error)
{
  std::vector<EventRef> pending;
  {
    std::lock_guard<std::mutex> guard (lock_);
    pending.swap (readers_);
    if (writer_)
      pending.push_back (writer_);
  }
  for (auto & e : pending) {
    if (e->stream () == stream)
      continue; /* stream order already covers it */
    if (!GST_CS_CHECK (cudaStreamWaitEvent (stream, e->handle (), 0), error))
      return false;
  }
  return true;
}

bool
MemorySync::gpu_wait_writer (cudaStream_t stream, GError ** error)
{
  EventRef w = writer ();
  if (!w || w->stream () == stream)
    return true;
  return GST_CS_CHECK (cudaStreamWaitEvent (stream, w->handle (), 0), error);
}

bool
MemorySync::host_wait_all (GstCsWaitCounter * counter, GError ** error)
{
  std::vector<EventRef> pending;
  {
    std::lock_guard<std::mutex> guard (lock_);
    pending.swap (readers_);
    if (writer_)
      pending.push_back (writer_);
  }
  for (auto & e : pending) {
    if (!e->done () && !gst_cs_host_wait_event (e->handle (), counter, error))
      return false;
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

} // namespace gcs

/* SPDX-License-Identifier: LGPL-2.1-or-later */
// What GPU work may still touch a piece of memory (internal to the library).
//
// Device and pinned memory outlive the buffers that carry them: a pool hands
// the same memory out again while a copy engine may still read it. Each such
// memory keeps the event of its last GPU writer and the events of the GPU
// readers since; whoever writes next waits for them first — on the GPU when
// the writer is a stream, on the host (counted) when it is the CPU.
#pragma once

#include <mutex>
#include <thread>
#include <vector>

#include <gst/gst.h>

#include "gstcsevent.hpp"
#include "gstcshostwait-private.h"

namespace gst_cs {

// Whether CUDA resolves `stream` against the calling thread and its current
// device: 0 and cudaStreamLegacy name the current device's legacy stream,
// cudaStreamPerThread the calling thread's own stream on it. One such value
// names different streams on different devices and threads.
inline bool
stream_resolved_per_caller (cudaStream_t stream)
{
  return stream == nullptr || stream == cudaStreamLegacy || stream == cudaStreamPerThread;
}

// Whether work enqueued on `b` now is ordered after work recorded on `a`
// by stream order alone: one stream, named by a handle that means the same
// stream wherever it is used. A handle resolved per caller may have named
// another stream where `a` was recorded: a wait on the GPU then, never a
// skipped one.
inline bool
stream_order_covers (cudaStream_t a, cudaStream_t b)
{
  return a == b && !stream_resolved_per_caller (a);
}

class MemorySync {
public:
  // A new writer, recorded after its work was enqueued. It waited for every
  // earlier access first (gpu_wait_all, or the host wait of a pool), so from
  // now on its event alone says when the memory is free.
  void set_writer (const EventRef & e);
  // Of two readers on one stream the later-enqueued one (Event::seq)
  // completes last and covers the other, whatever order the two threads
  // register in; so the list holds at most one event per stream. Called on
  // the thread that recorded `e`: for cudaStreamPerThread, that thread's
  // stream is the one meant (another thread's 2 is another stream), and for
  // the legacy stream, that of the event's device.
  void add_reader (const EventRef & e);
  EventRef writer ();

  // Before a stream writes: wait on the GPU for the writer and all readers.
  // Nothing is forgotten here: should the write fail to be enqueued, the
  // next writer still waits for them.
  bool gpu_wait_all (cudaStream_t stream, GError ** error);
  // Whether every access not yet complete (writer and readers) was recorded
  // on `stream`, so that stream order alone covers them (none: true). Those
  // of other streams are queried (cudaEventQuery, no host wait); the
  // complete ones are forgotten.
  bool in_flight_only_on (cudaStream_t stream);
  // Before a stream reads: wait on the GPU for the last writer.
  bool gpu_wait_writer (cudaStream_t stream, GError ** error);
  // Before the CPU touches the memory: host-wait (counted) for any access
  // that is not yet complete; completed work costs only a query. Accesses
  // are forgotten only once they are known to be complete.
  bool host_wait_all (GstCsWaitCounter * counter, GError ** error);

private:
  struct Reader {
    EventRef event;
    std::thread::id thread; // that recorded it (for cudaStreamPerThread)
  };
  static bool same_stream (const Reader & r, const EventRef & e, std::thread::id thread);
  std::vector<EventRef> pending ();

  std::mutex lock_;
  EventRef writer_;
  std::vector<Reader> readers_;
};

// The sync state of the project's device or pinned memory, nullptr for others.
MemorySync * memory_sync (GstMemory * mem);
MemorySync * device_memory_sync (GstMemory * mem); // mem must be a GstCsMemory
MemorySync * pinned_memory_sync (GstMemory * mem); // mem must be pinned memory

} // namespace gst_cs

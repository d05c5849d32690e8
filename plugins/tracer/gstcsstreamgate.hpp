/* SPDX-License-Identifier: LGPL-2.1-or-later */
// A gate that holds a stream until the host has enqueued a timed piece of
// work (internal; the tracer's and gcs-convert-time's).
//
// Why: a start event recorded on an idle stream runs at once, while the
// host still spends microseconds in the launch that follows it; the span
// from start to end then counts the launch. Closed before the start event
// and opened once start event, work and end event are enqueued, the gate
// lets the GPU run the three back to back, as they would run behind
// earlier work: the span is the work's own.
//
// How: the stream waits (cuStreamWaitValue32) on a word of pinned host
// memory that the host raises to open it. The words come from one page for
// the whole process, allocated at the first gate and never freed (freeing
// pinned memory synchronises the device). A gate is opened when its owner
// opens it or drops it (RAII), and by any host wait of the process before
// it blocks (gst_cs_host_wait_set_hook): a thread that blocks on the GPU
// might wait for work behind a gate, whose owner might wait for it. A
// watchdog thread opens any gate closed for more than 2 ms: a thread of
// another library that waits for the whole device while holding the
// driver's lock (a cudaFree) would otherwise stall a gate's owner, which
// waits for that lock, for ever.
#pragma once

#include <cuda_runtime_api.h>

namespace gst_cs {

class StreamGate {
public:
  StreamGate () = default;
  // Closes a gate on `stream` of `device` (current). An open gate comes
  // back (closed () false) where the device cannot use stream memory
  // operations, every word is taken, or the wait cannot be enqueued: the
  // work then runs ungated.
  static StreamGate close (int device, cudaStream_t stream);
  // Whether the stream is still held by this gate.
  bool closed () const { return slot_ >= 0; }
  // Lets the stream go on, after everything this thread enqueued before.
  void open ();
  // Whether it held the stream until its owner opened it: false for a gate
  // never closed or opened early by a host wait.
  bool held () const { return held_; }

  StreamGate (StreamGate && other) noexcept
  {
    *this = static_cast<StreamGate &&> (other);
  }
  StreamGate & operator= (StreamGate && other) noexcept;
  ~StreamGate () { open (); }
  StreamGate (const StreamGate &) = delete;
  StreamGate & operator= (const StreamGate &) = delete;

private:
  int slot_ = -1;
  bool held_ = false;
};

// Whether gates can close on `device` (its stream memory operations).
bool stream_gates_supported (int device);

} // namespace gst_cs

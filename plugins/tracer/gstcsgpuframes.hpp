/* SPDX-License-Identifier: LGPL-2.1-or-later */
// The tracer's side of the frame spans (base/gstcsframespan.hpp): events
// with timing on the element's stream, before its waits (begin) and around
// its own work (start, end), for one frame in every () per element, read
// back later without blocking (cudaEventQuery) as frames go by, and with a
// host wait only at the end of a run (drain). A frame's GPU time is its own
// work, start to end, with the stream held by a gate (gstcsstreamgate.hpp)
// from before start until the end is enqueued, so that the host's launch
// does not count; start - begin is its wait for its input (and for the
// host's enqueuing): of several inputs (cudabatch's frames), for the one
// that completed last, as the stream waits for all of them.
#pragma once

#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/gstcsframespan.hpp"
#include "tracer/gstcstimingevents.hpp"
#include "tracer/gstcstracejson.hpp"
#include "tracer/gstcstracestats.hpp"

namespace gst_cs {

// FrameObserver's open, work and close (TraceObserver forwards them).
class GpuFrames final {
public:
  GpuFrames (TraceStats & stats, TraceJson & json) : stats_ (stats), json_ (json) {}
  ~GpuFrames ();
  void set_nvtx (bool on) { nvtx_ = on; }
  // Whether traced frames gate their stream (TraceOptions::gate).
  void set_gate (bool on) { gate_ = on; }

  bool open (FrameSpanData & span);
  void work (FrameSpanData & span, bool begins);
  void close (FrameSpanData & span);
  // Waits (counted, on the host) for every frame still in flight and reads
  // it back. Not from a streaming thread: at the end of a run.
  void drain ();

  struct Frame;

private:
  // GPU times are differences of events (cudaEventElapsedTime); an anchor
  // per device places them on the CPU's clock: an event recorded when the
  // device's first frame was opened, at the CPU time of that record (the
  // GPU is idle then, so the two agree within a few µs). A float of
  // milliseconds loses µs after some seconds, so a frame read back a
  // second after the anchor becomes the next anchor.
  struct Anchor {
    cudaEvent_t event = nullptr;
    double us = 0;
  };
  struct Queue {
    std::deque<std::shared_ptr<Frame>> frames;
    // Its front was found running: asked again once it holds this many.
    size_t ask_at = 0;
  };
  void resolve_ready (Queue & queue);
  bool resolve (Frame & f, bool wait);
  bool position (int device, cudaEvent_t e, double * us);

  TraceStats & stats_;
  TraceJson & json_;
  bool nvtx_ = false;
  bool gate_ = false;
  TimingEventPool events_;
  std::mutex lock_;
  // Frames not read back yet, per device and stream: the events of one
  // stream complete in order, so only each queue's front is asked.
  std::map<std::pair<int, cudaStream_t>, Queue> pending_;
  // The frame that last wrote each sync event: a consumer's producer.
  std::unordered_map<cudaEvent_t, std::shared_ptr<Frame>> writers_;
  std::vector<std::unique_ptr<Anchor>> anchors_; // per device
  guint64 dropped_ = 0;
  // Each element's host-wait count at its last frame's end: a frame's
  // waits are those since (a download waits after its span, for the frame
  // before).
  std::unordered_map<guint64, guint64> waits_at_end_; // by TraceStats::key
};

} // namespace gst_cs

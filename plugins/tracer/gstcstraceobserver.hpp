/* SPDX-License-Identifier: LGPL-2.1-or-later */
// What our elements report to while the tracer lives (frame_observer):
// their timed frames' GPU work goes to GpuFrames, their CPU time to
// CpuTime, and their starts and stops say when a pipeline runs: the first
// of ours to start in a pipeline lists its elements, the last to stop ends
// the run (its summary). Nothing here uses GStreamer's tracing hooks.
#pragma once

#include <functional>
#include <mutex>
#include <unordered_map>

#include "base/gstcsframespan.hpp"
#include "tracer/gstcscputime.hpp"
#include "tracer/gstcsgpuframes.hpp"
#include "tracer/gstcstracestats.hpp"

namespace gst_cs {

class TraceObserver final : public FrameObserver {
public:
  // Called with the key of a pipeline's top-level element (TraceStats::key)
  // when its run ends.
  using Summarize = std::function<void (guint64 root)>;
  TraceObserver (GpuFrames & gpu, CpuTime & cpu, TraceStats & stats, Summarize summarize)
      : gpu_ (gpu), cpu_ (cpu), stats_ (stats), summarize_ (std::move (summarize))
  {}
  // GPU time of one frame in `every` per element.
  void set_every (guint every) { every_.store (every ? every : 1); }

  bool open (FrameSpanData & span) override { return gpu_.open (span); }
  void work (FrameSpanData & span, bool begins) override { gpu_.work (span, begins); }
  void close (FrameSpanData & span) override { gpu_.close (span); }
  gpointer started (GstElement * element) override;
  void stopped (GstElement * element) override;
  void cpu (gpointer handle, GstElement * element, GstPad * pad, GstClockTime begin,
      GstClockTime end) override
  {
    cpu_.ours (static_cast<CpuSums *> (handle), element, pad, begin, end);
  }

private:
  GpuFrames & gpu_;
  CpuTime & cpu_;
  TraceStats & stats_;
  Summarize summarize_;
  std::mutex lock_;
  // By TraceStats::key.
  std::unordered_map<guint64, guint64> root_of_; // ours, started
  std::unordered_map<guint64, int> running_;     // ours started, per root
};

} // namespace gst_cs

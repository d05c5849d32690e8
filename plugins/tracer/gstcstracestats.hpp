/* SPDX-License-Identifier: LGPL-2.1-or-later */
// What the tracer sums per element, and the summary made of it.
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <set>
#include <string>
#include <vector>

#include <gst/gst.h>

namespace gst_cs {

struct ElementStats {
  std::string name;
  bool ours = false;         // a cudastreams element (GPU time measured)
  guint64 gpu_frames = 0;    // frames whose GPU work was timed
  guint64 ungated = 0;       // ... without a stream gate: launch latency included
  std::vector<float> gpu_us; // each frame's GPU time of its own work
  double gpu_wait_us = 0;    // sum: waiting on the GPU for the input's producer
  double enqueue_cpu_us = 0; // sum: CPU time of the per-frame GPU path
  guint64 host_waits = 0;    // sum over the timed frames
  guint64 cpu_frames = 0;    // buffers pushed into it
  double cpu_us = 0;         // sum: CPU time in its chain, pushes downstream excluded
  std::set<std::string> streams;
};

// An element's CPU time as the push hooks add it, without a lock.
struct CpuSums {
  std::atomic<guint64> frames{ 0 }, ns{ 0 };
};

// One summary line's figures (GPU ones NaN where not measured).
struct SummaryRow {
  std::string element, streams, note;
  std::string mark; // what the GPU figures include besides the work
  guint64 frames = 0;
  double gpu_mean = 0, gpu_p50 = 0, gpu_p99 = 0, gpu_wait = 0, cpu = 0, host_waits = 0;
};

class TraceStats {
public:
  // `element` is a key only (it may be gone by then): `name` names it.
  void add_gpu_frame (GstElement * element, const std::string & name,
      const std::string & stream, double gpu_us, double wait_us, double enqueue_cpu_us,
      guint64 host_waits, bool gated);
  // A buffer enters `element` (alive: from its streaming thread): the
  // summary lists elements in this order. Its CPU sums, to add to until
  // epoch () changes; they live as long as this.
  CpuSums * cpu_sums (GstElement * element);
  // Changes when take_summary () starts afresh; unique to this instance,
  // so that callers can cache what cpu_sums () gave under it.
  guint64 epoch () const { return epoch_.load (std::memory_order_acquire); }
  TraceStats ();
  bool empty ();
  // The rows, upstream elements first as they were first seen; clears.
  std::vector<SummaryRow> take_summary ();

private:
  ElementStats & get (GstElement * element, const gchar * name, bool ours);
  std::mutex lock_;
  std::map<GstElement *, ElementStats> elements_;
  std::vector<GstElement *> order_;
  // Never shrinks: the push hooks of other threads may still hold them.
  std::unordered_map<GstElement *, std::unique_ptr<CpuSums>> cpu_;
  std::atomic<guint64> epoch_;
};

// The summary as a table for people.
std::string format_summary (const std::vector<SummaryRow> & rows);

} // namespace gst_cs

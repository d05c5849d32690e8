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

// An element's CPU time as the streaming threads add it, without a lock.
struct CpuSums {
  std::atomic<guint64> frames{ 0 }, ns{ 0 };
};

struct ElementStats {
  std::string name;
  bool ours = false;         // a cudastreams element (GPU time measured)
  guint64 gpu_frames = 0;    // frames whose GPU work was timed
  guint64 ungated = 0;       // ... without a stream gate: launch latency included
  std::vector<float> gpu_us; // each frame's GPU time of its own work
  double gpu_wait_us = 0;    // sum: waiting on the GPU for the input's producer
  double enqueue_cpu_us = 0; // sum: CPU time of the per-frame GPU path
  guint64 host_waits = 0;    // sum over the timed frames
  guint64 cpu_frames = 0;    // buffers it took
  double cpu_us = 0;         // sum: CPU time of its per-frame path, pushes excluded
  std::string cpu_note;      // why its CPU time is not measured
  guint64 root = 0;          // its top-level pipeline's key; 0: not known
  std::set<std::string> streams;
  std::shared_ptr<CpuSums> cpu; // where its CPU time is added
};

// One summary line's figures (GPU ones NaN where not measured).
struct SummaryRow {
  std::string element, streams, note;
  std::string mark; // what the GPU figures include besides the work
  guint64 frames = 0;
  double gpu_mean = 0, gpu_p50 = 0, gpu_p99 = 0, gpu_wait = 0, cpu = 0, host_waits = 0;
};

// Elements are known by a key of their own (key ()), never by their
// address: an element made after another was freed may get its address,
// and must not get its figures.
class TraceStats {
public:
  // The key of `element` (alive): no other element of the process has it or
  // will. Given once, kept in the element; when it is freed, its CPU sums
  // go too (with the figures of its last run, where not summed up yet).
  guint64 key (GstElement * element);
  // `element` is a key: `name` names it.
  void add_gpu_frame (guint64 element, const std::string & name,
      const std::string & stream, double gpu_us, double wait_us, double enqueue_cpu_us,
      guint64 host_waits, bool gated);
  // `element` is in the pipeline `root` (alive: from a state change or a
  // bin's signal): the summary lists elements in this order.
  void seen (GstElement * element, GstElement * root, bool ours);
  // Why the element `name` (key `element`) has no CPU time measured.
  void set_cpu_note (guint64 element, const gchar * name, const std::string & note);
  // Its CPU sums, to add to from any thread.
  std::shared_ptr<CpuSums> cpu_sums (guint64 element);
  bool empty ();
  // The rows of the elements of the pipeline `root` (a key; and of those
  // whose pipeline is not known), upstream elements first; forgets them.
  std::vector<SummaryRow> take_summary (guint64 root);

private:
  ElementStats & get (guint64 element, const gchar * name, bool ours);
  void forget (guint64 element);
  std::mutex lock_;
  std::map<guint64, ElementStats> elements_;
  std::vector<guint64> order_;
  // Of the elements alive: the streaming threads add to them without a
  // lock, through a reference of their own.
  std::unordered_map<guint64, std::shared_ptr<CpuSums>> cpu_;
};

// The summary as a table for people.
std::string format_summary (const std::vector<SummaryRow> & rows);

} // namespace gst_cs

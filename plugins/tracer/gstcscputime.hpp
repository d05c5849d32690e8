/* SPDX-License-Identifier: LGPL-2.1-or-later */
// CPU time per element, without GStreamer's tracing hooks: once any tracer
// registers one, the core looks its hook tables up at every hook point of
// every buffer, hooked or not (some 5,000 instructions a frame on a
// device-resident converter row), which alone costs more than the 3% this
// tracer may. So:
// - our elements time their per-frame path themselves (the base class and
//   cudabatch, through FrameObserver::cpu), their pushes excluded;
// - the other elements of the pipelines ours run in get pad probes: a
//   buffer's arrival at a sink pad to the element's next push from the same
//   thread is its own CPU time (the work a filter does before it pushes).
//   An element whose pushes come from another thread (a queue, a source's
//   loop) is found out after a few buffers and its probes go; sources and
//   sinks are listed, not timed.
// A thread keeps the arrivals whose push is still to come by a key of the
// element's run, which no other run or element has: an arrival never taken
// (the element pushed from another thread) is never taken by another.
#pragma once

#include <memory>

#include <gst/gst.h>

#include "tracer/gstcstracejson.hpp"
#include "tracer/gstcstracestats.hpp"

namespace gst_cs {

class CpuTime {
public:
  CpuTime (TraceStats & stats, TraceJson & json) : stats_ (stats), json_ (json) {}
  // The first of ours in the top-level pipeline `root` starts: lists its
  // elements, probing those of other plugins, and follows elements added
  // later.
  void watch (GstElement * root);
  // One pass of our element's per-frame path (FrameObserver::cpu).
  void ours (CpuSums * sums, GstElement * element, GstPad * pad, GstClockTime begin,
      GstClockTime end);

  // The probes' side (public for the C callbacks).
  struct Probed;
  void add_element (GstElement * element, GstElement * root);
  void add_pad (const std::shared_ptr<Probed> & probed, GstPad * pad);
  // A buffer at its sink pad number `pad` (Probed::sink_pads).
  void arrived (Probed & probed, guint pad);
  // False: the element's pushes do not follow its arrivals: probes go.
  bool pushed (Probed & probed);

private:
  void add_bin (GstBin * bin, GstElement * root);
  void record (CpuSums * sums, const gchar * element, const gchar * pad,
      GstClockTime begin, GstClockTime end);

  TraceStats & stats_;
  TraceJson & json_;
};

} // namespace gst_cs

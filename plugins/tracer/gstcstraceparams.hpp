/* SPDX-License-Identifier: LGPL-2.1-or-later */
// The cudastreams tracer's parameters, from GST_TRACERS="cudastreamstrace(...)".
#pragma once

#include <string>
#include <vector>

#include <glib.h>

namespace gst_cs {

struct TraceOptions {
  bool nvtx = false; // an NVTX range per element per frame
  std::string file;  // Chrome/Perfetto trace-event JSON; empty: none
  bool print = true; // the summary on stderr too, not only in the log
  // GPU time of one frame in `every` per element: each traced frame records
  // three timing events on the element's stream, which cost a GPU-bound
  // stream about 1.5 us each and the host some 4.7 us in all, reading back
  // included (H200, 2026-11-27): one in 16 cost a device-resident converter
  // row (11 us a frame) 3.5% of its frames, one in 64 0.9%. 1 traces every
  // frame.
  guint every = 32;
  // Gate each traced frame's stream until its work is enqueued (stream
  // memory operations), so that its GPU time leaves the host's launch out:
  // ungated, an 11 us kernel on an idle stream read 19 us (H200). A gate
  // stuck behind another thread's device-wide wait is opened by the gates'
  // watchdog after 2 ms (gstcsstreamgate.hpp).
  bool gate = true;
  std::vector<std::string> unknown; // parameters nobody asked for
  std::string invalid;              // set when the string does not parse
};

// "nvtx=true,file=trace.json" (GStreamer's tracer syntax); NULL or "" gives
// the defaults.
TraceOptions parse_trace_params (const gchar * params);

} // namespace gst_cs

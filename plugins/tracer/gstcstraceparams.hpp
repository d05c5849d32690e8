/* SPDX-License-Identifier: LGPL-2.1-or-later */
// The cudastreams tracer's parameters, from GST_TRACERS="cudastreams(...)".
#pragma once

#include <string>
#include <vector>

#include <glib.h>

namespace gst_cs {

struct TraceOptions {
  bool nvtx = false;                // an NVTX range per element per frame
  std::string file;                 // Chrome/Perfetto trace-event JSON; empty: none
  bool print = true;                // the summary on stderr too, not only in the log
  std::vector<std::string> unknown; // parameters nobody asked for
  std::string invalid;              // set when the string does not parse
};

// "nvtx=true,file=trace.json" (GStreamer's tracer syntax); NULL or "" gives
// the defaults.
TraceOptions parse_trace_params (const gchar * params);

} // namespace gst_cs

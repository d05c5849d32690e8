/* SPDX-License-Identifier: LGPL-2.1-or-later */
// The tracer's GstTracerRecords: what GST_DEBUG=GST_TRACER:7 shows and
// gst-stats-1.0 reads, as for GStreamer's own tracers.
#pragma once

#include <gst/gst.h>

#include "tracer/gstcstracestats.hpp"

namespace gst_cs {

// Once per process, before the first log.
void trace_records_init ();

// One frame's GPU work in one of our elements (times in ns).
void log_frame_record (const gchar * element, guint64 ts, GstClockTime pts,
    const gchar * stream, guint64 gpu_ns, guint64 wait_ns, guint64 cpu_ns,
    guint64 host_waits);
// One buffer through any element's chain (its pad `pad`: the sink pad, or
// cudabatch's src pad): its CPU time, pushes downstream excluded (ns).
void log_cpu_record (
    const gchar * element, const gchar * pad, guint64 ts, guint64 cpu_ns);
// One summary row.
void log_summary_record (const SummaryRow & row);

} // namespace gst_cs

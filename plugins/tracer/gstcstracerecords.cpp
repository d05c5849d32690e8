/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "tracer/gstcstracerecords.hpp"

#include <cmath>

namespace gst_cs {
namespace {
GstTracerRecord *frame_record, *cpu_record, *summary_record;
GstDebugCategory * tracer_category;

/* Records are written at GST_TRACER:7 only: the names they need are not
 * made otherwise. */
bool
wanted ()
{
  return tracer_category &&
         gst_debug_category_get_threshold (tracer_category) >= GST_LEVEL_TRACE;
}

/* A field of a record: its type and what it means, as the core tracers
 * describe theirs. */
GstStructure *
field (GType type, const gchar * description, GstTracerValueScope scope)
{
  return gst_structure_new ("value", "type", G_TYPE_GTYPE, type, "related-to",
      GST_TYPE_TRACER_VALUE_SCOPE, scope, "description", G_TYPE_STRING, description,
      NULL);
}

/* Records live as long as the process: GStreamer keeps them referenced. */
GstTracerRecord *
keep (GstTracerRecord * record)
{
  GST_OBJECT_FLAG_SET (record, GST_OBJECT_FLAG_MAY_BE_LEAKED);
  return record;
}
} // namespace

void
trace_records_init ()
{
  static gsize done = 0;
  if (!g_once_init_enter (&done))
    return;
  GST_DEBUG_CATEGORY_GET (tracer_category, "GST_TRACER");
  const auto E = GST_TRACER_VALUE_SCOPE_ELEMENT;
  const auto P = GST_TRACER_VALUE_SCOPE_PAD;
  const auto T = GST_TRACER_VALUE_SCOPE_PROCESS;
  frame_record = keep (gst_tracer_record_new ("cudastreams-frame.class", "element",
      GST_TYPE_STRUCTURE, field (G_TYPE_STRING, "the element", E), "ts",
      GST_TYPE_STRUCTURE,
      field (G_TYPE_UINT64, "when the frame's GPU work was read back (ns)", T), "pts",
      GST_TYPE_STRUCTURE, field (G_TYPE_UINT64, "the input buffer's PTS", E), "stream",
      GST_TYPE_STRUCTURE, field (G_TYPE_STRING, "the CUDA stream (device:handle)", E),
      "gpu-ns", GST_TYPE_STRUCTURE,
      field (G_TYPE_UINT64, "GPU time of the element's own work", E), "gpu-wait-ns",
      GST_TYPE_STRUCTURE,
      field (G_TYPE_UINT64, "GPU time waited for the input's producer", E), "cpu-ns",
      GST_TYPE_STRUCTURE,
      field (G_TYPE_UINT64, "CPU time enqueuing the frame's GPU work", E), "host-waits",
      GST_TYPE_STRUCTURE, field (G_TYPE_UINT64, "host waits since the previous frame", E),
      NULL));
  cpu_record = keep (gst_tracer_record_new ("cudastreams-cpu.class", "pad",
      GST_TYPE_STRUCTURE,
      field (G_TYPE_STRING, "the sink pad (element.pad; cudabatch: src)", P), "ts",
      GST_TYPE_STRUCTURE, field (G_TYPE_UINT64, "when the buffer left the chain (ns)", T),
      "cpu-ns", GST_TYPE_STRUCTURE,
      field (G_TYPE_UINT64, "CPU time in the chain, downstream excluded", P), NULL));
  summary_record = keep (gst_tracer_record_new ("cudastreams-summary.class", "element",
      GST_TYPE_STRUCTURE, field (G_TYPE_STRING, "the element", E), "frames",
      GST_TYPE_STRUCTURE, field (G_TYPE_UINT64, "frames", E), "gpu-mean-us",
      GST_TYPE_STRUCTURE,
      field (G_TYPE_DOUBLE, "GPU µs/frame, mean (-1: not measured)", E), "gpu-p50-us",
      GST_TYPE_STRUCTURE, field (G_TYPE_DOUBLE, "GPU µs/frame, median", E), "gpu-p99-us",
      GST_TYPE_STRUCTURE, field (G_TYPE_DOUBLE, "GPU µs/frame, 99th percentile", E),
      "gpu-wait-us", GST_TYPE_STRUCTURE,
      field (G_TYPE_DOUBLE, "GPU µs/frame waited for the input", E), "cpu-us",
      GST_TYPE_STRUCTURE, field (G_TYPE_DOUBLE, "CPU µs/frame in the chain", E),
      "host-waits", GST_TYPE_STRUCTURE, field (G_TYPE_DOUBLE, "host waits per frame", E),
      "streams", GST_TYPE_STRUCTURE,
      field (G_TYPE_STRING, "the CUDA streams it ran on", E), "note", GST_TYPE_STRUCTURE,
      field (G_TYPE_STRING, "why figures are missing, or what the GPU ones include", E),
      NULL));
  g_once_init_leave (&done, 1);
}

void
log_frame_record (const gchar * element, guint64 ts, GstClockTime pts,
    const gchar * stream, guint64 gpu_ns, guint64 wait_ns, guint64 cpu_ns,
    guint64 host_waits)
{
  if (!wanted ())
    return;
  gst_tracer_record_log (frame_record, element, ts, (guint64)pts, stream, gpu_ns, wait_ns,
      cpu_ns, host_waits);
}

void
log_cpu_record (const gchar * element, const gchar * pad, guint64 ts, guint64 cpu_ns)
{
  if (!wanted ())
    return;
  gchar * name = g_strdup_printf ("%s.%s", element, pad);
  gst_tracer_record_log (cpu_record, name, ts, cpu_ns);
  g_free (name);
}

void
log_summary_record (const SummaryRow & r)
{
  auto v = [] (double x) { return std::isnan (x) ? -1.0 : x; };
  gst_tracer_record_log (summary_record, r.element.c_str (), r.frames, v (r.gpu_mean),
      v (r.gpu_p50), v (r.gpu_p99), v (r.gpu_wait), v (r.cpu), v (r.host_waits),
      r.streams.c_str (), (r.note.empty () ? r.mark : r.note).c_str ());
}

} // namespace gst_cs

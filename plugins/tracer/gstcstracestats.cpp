/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "tracer/gstcstracestats.hpp"

#include <algorithm>
#include <cmath>

#include "base/gstcsbasetransform.h"

namespace gst_cs {

namespace {
/* Epochs of every TraceStats of the process: never one twice. */
std::atomic<guint64> next_epoch{ 1 };
} // namespace

TraceStats::TraceStats () : epoch_ (next_epoch.fetch_add (1)) {}

ElementStats &
TraceStats::get (GstElement * element, const gchar * name, bool ours)
{
  auto it = elements_.find (element);
  if (it != elements_.end ())
    return it->second;
  ElementStats & s = elements_[element];
  s.name = name ? name : "?";
  s.ours = ours;
  order_.push_back (element);
  return s;
}

void
TraceStats::add_gpu_frame (GstElement * element, const std::string & name,
    const std::string & stream, double gpu_us, double wait_us, double enqueue_cpu_us,
    guint64 host_waits, bool gated)
{
  std::lock_guard<std::mutex> hold (lock_);
  ElementStats & s = get (element, name.c_str (), true);
  s.gpu_frames++;
  s.ungated += gated ? 0 : 1;
  s.gpu_us.push_back ((float)gpu_us);
  s.gpu_wait_us += wait_us;
  s.enqueue_cpu_us += enqueue_cpu_us;
  s.host_waits += host_waits;
  s.streams.insert (stream);
}

CpuSums *
TraceStats::cpu_sums (GstElement * element)
{
  std::lock_guard<std::mutex> hold (lock_);
  get (element, GST_OBJECT_NAME (element), GST_IS_CS_BASE_TRANSFORM (element));
  std::unique_ptr<CpuSums> & sums = cpu_[element];
  if (!sums)
    sums = std::make_unique<CpuSums> ();
  return sums.get ();
}

bool
TraceStats::empty ()
{
  std::lock_guard<std::mutex> hold (lock_);
  return elements_.empty ();
}

namespace {
/* The nearest-rank percentile of sorted samples. */
double
percentile (const std::vector<float> & sorted, double p)
{
  if (sorted.empty ())
    return NAN;
  size_t rank = (size_t)std::ceil (p / 100.0 * sorted.size ());
  return sorted[std::min (sorted.size (), std::max<size_t> (rank, 1)) - 1];
}

SummaryRow
row_of (ElementStats & s)
{
  SummaryRow r;
  r.element = s.name;
  r.frames = std::max (s.gpu_frames, s.cpu_frames);
  r.cpu = s.cpu_frames ? s.cpu_us / s.cpu_frames : NAN;
  r.gpu_mean = r.gpu_p50 = r.gpu_p99 = r.gpu_wait = r.host_waits = NAN;
  if (!s.ours) {
    r.note = "CPU only: not a cudastreams element";
    return r;
  }
  if (!s.gpu_frames) {
    r.note = "no GPU work (zero-copy or passthrough)";
    return r;
  }
  std::sort (s.gpu_us.begin (), s.gpu_us.end ());
  double sum = 0;
  for (float v : s.gpu_us)
    sum += v;
  r.gpu_mean = sum / s.gpu_frames;
  r.gpu_p50 = percentile (s.gpu_us, 50);
  r.gpu_p99 = percentile (s.gpu_us, 99);
  r.gpu_wait = s.gpu_wait_us / s.gpu_frames;
  /* The waits of the frames between sampled ones count on the next sampled
   * one (GpuFrames): per frame is over every frame. */
  r.host_waits = (double)s.host_waits / r.frames;
  for (const std::string & st : s.streams)
    r.streams += (r.streams.empty () ? "" : " ") + st;
  /* Without a gate the span starts before the host's launch of the work
   * (stream memory operations unusable, or a host wait opened it). */
  if (s.ungated)
    r.mark = s.ungated == s.gpu_frames
                 ? "includes launch latency"
                 : "includes launch latency in " + std::to_string (s.ungated) + " of " +
                       std::to_string (s.gpu_frames) + " frames";
  return r;
}
} // namespace

std::vector<SummaryRow>
TraceStats::take_summary ()
{
  std::lock_guard<std::mutex> hold (lock_);
  /* A push hook still adding under the old epoch counts in the next run. */
  epoch_.store (next_epoch.fetch_add (1), std::memory_order_release);
  std::vector<SummaryRow> rows;
  for (GstElement * e : order_) {
    ElementStats & s = elements_[e];
    auto sums = cpu_.find (e);
    if (sums != cpu_.end ()) {
      s.cpu_frames = sums->second->frames.exchange (0);
      s.cpu_us = sums->second->ns.exchange (0) / 1000.0;
    }
    rows.push_back (row_of (s));
  }
  elements_.clear ();
  order_.clear ();
  return rows;
}

namespace {
std::string
figure (double v, const char * format = "%.1f")
{
  if (std::isnan (v))
    return "-";
  gchar * s = g_strdup_printf (format, v);
  std::string out = s;
  g_free (s);
  return out;
}
} // namespace

std::string
format_summary (const std::vector<SummaryRow> & rows)
{
  std::string out = "cudastreams tracer summary (per frame; GPU: own work, wait: on "
                    "the input's producer, on the GPU)\n";
  gchar * head =
      g_strdup_printf ("%-24s %8s %9s %9s %9s %9s %9s %7s  %s\n", "element", "frames",
          "gpu-mean", "gpu-p50", "gpu-p99", "gpu-wait", "cpu", "waits", "stream / note");
  out += head;
  g_free (head);
  for (const SummaryRow & r : rows) {
    const std::string where = !r.note.empty ()  ? r.note
                              : r.mark.empty () ? r.streams
                                                : r.streams + " (GPU " + r.mark + ")";
    gchar * line = g_strdup_printf (
        "%-24s %8" G_GUINT64_FORMAT " %9s %9s %9s %9s %9s %7s  %s\n", r.element.c_str (),
        r.frames, figure (r.gpu_mean).c_str (), figure (r.gpu_p50).c_str (),
        figure (r.gpu_p99).c_str (), figure (r.gpu_wait).c_str (),
        figure (r.cpu).c_str (), figure (r.host_waits, "%.2f").c_str (), where.c_str ());
    out += line;
    g_free (line);
  }
  out += "(µs; waits: host waits per frame)\n";
  return out;
}

} // namespace gst_cs

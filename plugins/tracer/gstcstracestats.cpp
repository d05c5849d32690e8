/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "tracer/gstcstracestats.hpp"

#include <algorithm>
#include <cmath>

#include "base/gstcsbasetransform.h"

namespace gst_cs {

namespace {
/* Element qdata: its key, and the stats to tell when it is freed. */
struct KeyData {
  guint64 key;
  TraceStats * stats;
};
G_DEFINE_QUARK (gst_cs_tracer_key, key)
} // namespace

guint64
TraceStats::key (GstElement * element)
{
  static std::atomic<guint64> next{ 1 };
  if (auto * k =
          static_cast<KeyData *> (g_object_get_qdata (G_OBJECT (element), key_quark ())))
    return k->key;
  /* The tracer lives as long as the process: the stats outlive elements. */
  auto * made = new KeyData{ next.fetch_add (1), this };
  if (g_object_replace_qdata (
          G_OBJECT (element), key_quark (), NULL, made,
          [] (gpointer p) {
            auto * k = static_cast<KeyData *> (p);
            k->stats->forget (k->key);
            delete k;
          },
          NULL))
    return made->key;
  delete made; /* another thread gave it one first */
  return static_cast<KeyData *> (g_object_get_qdata (G_OBJECT (element), key_quark ()))
      ->key;
}

void
TraceStats::forget (guint64 element)
{
  std::lock_guard<std::mutex> hold (lock_);
  cpu_.erase (element);
}

ElementStats &
TraceStats::get (guint64 element, const gchar * name, bool ours)
{
  auto it = elements_.find (element);
  if (it != elements_.end ())
    return it->second;
  ElementStats & s = elements_[element];
  s.name = name ? name : "?";
  s.ours = ours;
  auto sums = cpu_.find (element);
  if (sums != cpu_.end ())
    s.cpu = sums->second;
  order_.push_back (element);
  return s;
}

void
TraceStats::add_gpu_frame (guint64 element, const std::string & name,
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

void
TraceStats::seen (GstElement * element, GstElement * root, bool ours)
{
  const guint64 k = key (element), r = key (root);
  std::lock_guard<std::mutex> hold (lock_);
  get (k, GST_OBJECT_NAME (element), ours).root = r;
}

void
TraceStats::set_cpu_note (guint64 element, const gchar * name, const std::string & note)
{
  std::lock_guard<std::mutex> hold (lock_);
  get (element, name, false).cpu_note = note;
}

std::shared_ptr<CpuSums>
TraceStats::cpu_sums (guint64 element)
{
  std::lock_guard<std::mutex> hold (lock_);
  std::shared_ptr<CpuSums> & sums = cpu_[element];
  if (!sums)
    sums = std::make_shared<CpuSums> ();
  auto it = elements_.find (element);
  if (it != elements_.end () && !it->second.cpu)
    it->second.cpu = sums;
  return sums;
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
    r.note = "not a cudastreams element: " +
             (s.cpu_note.empty () ? std::string ("CPU only, to its push") : s.cpu_note);
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
TraceStats::take_summary (guint64 root)
{
  std::lock_guard<std::mutex> hold (lock_);
  std::vector<SummaryRow> rows;
  std::vector<guint64> others;
  for (guint64 e : order_) {
    ElementStats & s = elements_[e];
    if (s.root && s.root != root) {
      others.push_back (e);
      continue;
    }
    if (s.cpu) {
      s.cpu_frames = s.cpu->frames.exchange (0);
      s.cpu_us = s.cpu->ns.exchange (0) / 1000.0;
    }
    rows.push_back (row_of (s));
    elements_.erase (e);
  }
  order_ = others;
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
  std::string out = "cudastreamstrace summary (per frame; GPU: own work, wait: on "
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
    /* Elements not timed (sources, sinks) count no frames either. */
    const std::string frames = r.frames ? std::to_string (r.frames) : "-";
    gchar * line = g_strdup_printf ("%-24s %8s %9s %9s %9s %9s %9s %7s  %s\n",
        r.element.c_str (), frames.c_str (), figure (r.gpu_mean).c_str (),
        figure (r.gpu_p50).c_str (), figure (r.gpu_p99).c_str (),
        figure (r.gpu_wait).c_str (), figure (r.cpu).c_str (),
        figure (r.host_waits, "%.2f").c_str (), where.c_str ());
    out += line;
    g_free (line);
  }
  out += "(µs; waits: host waits per frame)\n";
  return out;
}

} // namespace gst_cs

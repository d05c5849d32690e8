/* SPDX-License-Identifier: LGPL-2.1-or-later */
/**
 * SECTION:tracer-cudastreamstrace
 * @title: cudastreamstrace
 *
 * GPU time per element for the cudastreams elements, which only enqueue
 * their work: CPU-time tracers make them look free and the element that
 * finally waits look guilty. While this tracer lives, each of our elements
 * records a start and an end event with timing on its stream for one frame
 * in `every`; they are read back later, never blocking the streaming
 * thread. It registers none of GStreamer's tracing hooks (once one is, the
 * core pays for them at every hook point of every buffer): our elements
 * report to it, and the other elements of their pipelines get pad probes.
 *
 * Parameters: `nvtx` (an NVTX range per element per frame, named with the
 * element and the PTS), `file` (Chrome/Perfetto trace-event JSON), `print`
 * (the summary on stderr, default true), `every`, `gate`. Per frame it
 * logs `cudastreams-frame` and `cudastreams-cpu` records, and a
 * `cudastreams-summary` record per element when a pipeline's last
 * cudastreams element stops (GST_DEBUG=GST_TRACER:7). Elements of other
 * plugins get CPU time only.
 *
 * |[
 * GST_TRACERS="cudastreamstrace(file=trace.json)" gst-launch-1.0 videotestsrc num-buffers=300 ! \
 *   cudaupload ! cudaconvertscale ! cudadownload ! fakesink
 * ]|
 *
 * Since: 0.2
 */
#include "tracer/gstcstracer.h"

#include <atomic>
#include <string>

#include "tracer/gstcscputime.hpp"
#include "tracer/gstcsgpuframes.hpp"
#include "tracer/gstcstraceparams.hpp"
#include "tracer/gstcstraceobserver.hpp"
#include "tracer/gstcstracerecords.hpp"

GST_DEBUG_CATEGORY (gst_cs_tracer_debug);
#define GST_CAT_DEFAULT gst_cs_tracer_debug

struct GstCsTracerPrivate {
  gst_cs::TraceOptions options;
  gst_cs::TraceStats stats;
  gst_cs::TraceJson json;
  gst_cs::GpuFrames gpu{ stats, json };
  gst_cs::CpuTime cpu{ stats, json };
  std::unique_ptr<gst_cs::TraceObserver> observer;
  bool observing = false; /* this instance's observer is the frame observer */
  std::mutex summary_lock;
};

struct _GstCsTracer {
  GstTracer parent;
  GstCsTracerPrivate * priv;
};

G_DEFINE_TYPE (GstCsTracer, gst_cs_tracer, GST_TYPE_TRACER);

/* Warnings of the tracer go to the log and, since GST_DEBUG hides warnings
 * by default, to stderr: a user who asked for a file should learn why there
 * is none. */
static void
warn (GstCsTracer * self, const std::string & text)
{
  GST_WARNING_OBJECT (self, "%s", text.c_str ());
  g_printerr ("cudastreamstrace: %s\n", text.c_str ());
}

/* Reads back what is in flight, logs and prints the summary of the
 * pipeline `root` (its key) and writes the trace file: when a pipeline's
 * last cudastreams element stops. */
static void
summarize (GstCsTracer * self, guint64 root)
{
  GstCsTracerPrivate * priv = self->priv;
  std::lock_guard<std::mutex> hold (priv->summary_lock);
  priv->gpu.drain ();
  if (priv->stats.empty ())
    return;
  const std::vector<gst_cs::SummaryRow> rows = priv->stats.take_summary (root);
  if (rows.empty ())
    return;
  for (const gst_cs::SummaryRow & r : rows)
    gst_cs::log_summary_record (r);
  const std::string table = gst_cs::format_summary (rows);
  GST_INFO_OBJECT (self, "\n%s", table.c_str ());
  if (priv->options.print)
    g_printerr ("%s", table.c_str ());
  GError * err = NULL;
  if (!priv->options.file.empty () && !priv->json.write (priv->options.file, &err)) {
    warn (self, err->message);
    g_clear_error (&err);
  }
}

static void
gst_cs_tracer_constructed (GObject * object)
{
  auto * self = GST_CS_TRACER (object);
  GstCsTracerPrivate * priv = self->priv;
  G_OBJECT_CLASS (gst_cs_tracer_parent_class)->constructed (object);
  gchar * params = NULL;
  g_object_get (object, "params", &params, NULL);
  priv->options = gst_cs::parse_trace_params (params);
  if (!priv->options.invalid.empty ())
    warn (self, "cannot parse the parameters \"" + priv->options.invalid +
                    "\": running with the defaults");
  for (const std::string & name : priv->options.unknown)
    warn (self,
        "unknown parameter " + name + " ignored (known: nvtx, file, print, every, gate)");
  g_free (params);
  /* Said now rather than at the end of a long run. */
  if (!priv->options.file.empty ()) {
    GError * err = NULL;
    if (!priv->json.write (priv->options.file, &err)) {
      warn (self, std::string (err->message) + ": the summary is still logged");
      g_clear_error (&err);
    }
    priv->json.enable (true);
  }
  priv->gpu.set_nvtx (priv->options.nvtx);
  priv->gpu.set_gate (priv->options.gate);
  priv->observer = std::make_unique<gst_cs::TraceObserver> (priv->gpu, priv->cpu,
      priv->stats, [self] (guint64 root) { summarize (self, root); });
  priv->observer->set_every (priv->options.every);
  gst_cs::trace_records_init ();

  gst_cs::FrameObserver * none = nullptr;
  priv->observing =
      gst_cs::frame_observer.compare_exchange_strong (none, priv->observer.get ());
  if (!priv->observing)
    warn (self, "another cudastreamstrace is active: this one times nothing");
  /* No tracing hook holds it (GStreamer drops a tracer that registers
   * none): it lives as long as the process, as hooked tracers do until
   * gst_deinit. */
  gst_object_ref (self);
}

static void
gst_cs_tracer_finalize (GObject * object)
{
  auto * self = GST_CS_TRACER (object);
  if (self->priv->observing)
    gst_cs::frame_observer.store (nullptr, std::memory_order_release);
  delete self->priv;
  G_OBJECT_CLASS (gst_cs_tracer_parent_class)->finalize (object);
}

static void
gst_cs_tracer_class_init (GstCsTracerClass * klass)
{
  GObjectClass * gobject_class = G_OBJECT_CLASS (klass);
  gobject_class->constructed = gst_cs_tracer_constructed;
  gobject_class->finalize = gst_cs_tracer_finalize;
  GST_DEBUG_CATEGORY_INIT (gst_cs_tracer_debug, "cstracer", 0, "cudastreamstrace tracer");
}

static void
gst_cs_tracer_init (GstCsTracer * self)
{
  self->priv = new GstCsTracerPrivate ();
}

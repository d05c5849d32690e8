/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gcs-batch-latency: the latency cudabatch adds on live sources.
 *
 *   gcs-batch-latency [--streams 8] [--fps 30] [--seconds 6] [--warmup 1]
 *       [--timeout-us 40000] [--width 1280 --height 720] [--size 640] [--check]
 *
 * Runs N live sources into one cudabatch, twice:
 *
 *   videotestsrc is-live=true ! video/x-raw,format=NV12,... ! valve name=vI
 *     ! cudaupload ! b.sink_I       (I = 0 .. N-1)
 *   cudabatch name=b width=SIZE height=SIZE dtype=float16
 *     batched-push-timeout=T ! fakesink sync=false
 *
 *  - row "live": every source runs throughout;
 *  - row "stall": source 0's valve drops its frames from a third of the
 *    timed run to two thirds of it, as a camera that stalls and comes back;
 *    batches must go out partial after the timeout, never wait for it.
 *
 * Each row runs --warmup seconds untimed first (pools, the CUDA context,
 * and the live sources catching up with the clock after them), then
 * --seconds timed.
 *
 * Per batch, a probe on cudabatch's src pad reads the pipeline clock as the
 * batch leaves (running time: clock time minus base time) and, per slot
 * with a frame, the frame's capture time: a live source stamps each frame
 * with the running time it was captured at, so the slot's PTS in the
 * running time of its sink pad's segment. Their difference is the
 * frame's latency from capture, its upload included. Probes on cudabatch's
 * sink pads also read the clock as each frame arrives there: the batch's
 * time less that is what the batching added (the target: <= one
 * frame interval + the timeout). Reported per row, over all slot frames
 * and over the oldest frame of each batch: mean, p50, p99 and max in ms,
 * beside one frame interval and the timeout, and how many batches went out
 * partial.
 *
 * The batch meta is read through its registered API type and the public
 * struct (gstcsbatchmeta.h), so this program links GStreamer only and
 * runs the plugin GST_PLUGIN_PATH finds: the GPU's, or the CUDA stand-in's
 * (where the figures mean nothing; the test batch_latency_fake runs it).
 *
 * One human block per row, then "RESULT {json}" per row, "SUMMARY" lines.
 * --check: exit 1 unless both rows made batches and the stall row made
 * partial ones (the timeout fired) and full ones again after the stall.
 */
#include <gst/gst.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "gstcsbatchmeta.h"

namespace {

struct Options {
  guint streams = 8;
  guint fps = 30;
  gdouble seconds = 6.0;
  gdouble warmup = 1.0; /* untimed start: pools, contexts, sources catching up */
  guint64 timeout_us = 40000;
  guint width = 1280, height = 720;
  guint size = 640; /* the tensor's width and height */
  bool check = false;
};

/* What the probe saw, in ms; read after the pipeline stopped. */
struct Samples {
  std::mutex lock;
  std::vector<double> slots;  /* every slot frame's latency from capture */
  std::vector<double> oldest; /* per batch, its oldest frame's */
  /* From arrival at cudabatch's sink pad: what the batching added. */
  std::vector<double> batching, batching_oldest;
  /* Each frame's arrival (running time), by sink pad and PTS, until its
   * batch leaves. */
  std::map<std::pair<GQuark, GstClockTime>, GstClockTime> arrived;
  guint batches = 0, partial = 0;
  guint partial_in_stall = 0, full_after_stall = 0;
  GstClockTime warmup = 0;
  GstClockTime stall_from = GST_CLOCK_TIME_NONE, stall_to = GST_CLOCK_TIME_NONE;
  GType meta_api = 0;
};

struct Stats {
  double mean = 0, p50 = 0, p99 = 0, max = 0;
};

Stats
stats_of (std::vector<double> v)
{
  Stats s;
  if (v.empty ())
    return s;
  std::sort (v.begin (), v.end ());
  double sum = 0;
  for (double x : v)
    sum += x;
  s.mean = sum / v.size ();
  s.p50 = v[v.size () / 2];
  s.p99 = v[std::min (v.size () - 1, (size_t)(v.size () * 0.99))];
  s.max = v.back ();
  return s;
}

/* The running time of `pts` on cudabatch's sink pad `name`. */
GstClockTime
capture_time (GstElement * batch, GQuark name, GstClockTime pts)
{
  GstPad * pad = gst_element_get_static_pad (batch, g_quark_to_string (name));
  GstEvent * ev = pad ? gst_pad_get_sticky_event (pad, GST_EVENT_SEGMENT, 0) : NULL;
  GstClockTime rt = GST_CLOCK_TIME_NONE;
  if (ev) {
    const GstSegment * seg;
    gst_event_parse_segment (ev, &seg);
    rt = gst_segment_to_running_time (seg, GST_FORMAT_TIME, pts);
    gst_event_unref (ev);
  }
  gst_clear_object (&pad);
  return rt;
}

/* The pipeline clock's running time at `element`, or NONE. */
GstClockTime
running_now (GstElement * element)
{
  GstClock * clock = gst_element_get_clock (element);
  if (!clock)
    return GST_CLOCK_TIME_NONE;
  const GstClockTime now =
      gst_clock_get_time (clock) - gst_element_get_base_time (element);
  gst_object_unref (clock);
  return now;
}

struct Arrivals {
  Samples * samples;
  GQuark pad;
};

/* A frame arriving at one of cudabatch's sink pads. */
GstPadProbeReturn
on_arrival (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  auto * a = static_cast<Arrivals *> (data);
  GstElement * batch = gst_pad_get_parent_element (pad);
  const GstClockTime now = batch ? running_now (batch) : GST_CLOCK_TIME_NONE;
  gst_clear_object (&batch);
  const GstClockTime pts = GST_BUFFER_PTS (GST_PAD_PROBE_INFO_BUFFER (info));
  if (GST_CLOCK_TIME_IS_VALID (now) && GST_CLOCK_TIME_IS_VALID (pts)) {
    std::lock_guard<std::mutex> g (a->samples->lock);
    a->samples->arrived[{ a->pad, pts }] = now;
  }
  return GST_PAD_PROBE_OK;
}

/* The time of one batch leaving cudabatch, against each slot's capture
 * and arrival. */
GstPadProbeReturn
on_batch (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  auto * s = static_cast<Samples *> (data);
  GstElement * batch = gst_pad_get_parent_element (pad);
  const GstClockTime now = running_now (batch);
  if (!GST_CLOCK_TIME_IS_VALID (now)) {
    gst_object_unref (batch);
    return GST_PAD_PROBE_OK;
  }
  std::lock_guard<std::mutex> g (s->lock);
  if (now < s->warmup) {
    gst_object_unref (batch);
    return GST_PAD_PROBE_OK;
  }
  /* Registered by the library on the first batch meta, so found here. */
  if (!s->meta_api)
    s->meta_api = g_type_from_name ("GstCsBatchMetaAPI");
  auto * meta = s->meta_api ? (GstCsBatchMeta *)gst_buffer_get_meta (
                                  GST_PAD_PROBE_INFO_BUFFER (info), s->meta_api)
                            : NULL;
  s->batches++;
  bool partial = false;
  double oldest = -1, oldest_batching = -1;
  for (guint i = 0; meta && i < meta->n_slots; i++) {
    const GstCsBatchSlot & slot = meta->slots[i];
    if (slot.empty) {
      partial = true;
      continue;
    }
    auto arrival = s->arrived.find ({ slot.pad_name, slot.pts });
    if (arrival != s->arrived.end ()) {
      const double ms = ((double)GST_CLOCK_DIFF (arrival->second, now)) / GST_MSECOND;
      s->batching.push_back (ms);
      oldest_batching = std::max (oldest_batching, ms);
      s->arrived.erase (arrival);
    }
    const GstClockTime rt = capture_time (batch, slot.pad_name, slot.pts);
    if (!GST_CLOCK_TIME_IS_VALID (rt))
      continue;
    const double ms = ((double)GST_CLOCK_DIFF (rt, now)) / GST_MSECOND;
    s->slots.push_back (ms);
    oldest = std::max (oldest, ms);
  }
  if (oldest >= 0)
    s->oldest.push_back (oldest);
  if (oldest_batching >= 0)
    s->batching_oldest.push_back (oldest_batching);
  s->partial += partial;
  if (GST_CLOCK_TIME_IS_VALID (s->stall_from) && now >= s->stall_from &&
      now < s->stall_to)
    s->partial_in_stall += partial;
  if (GST_CLOCK_TIME_IS_VALID (s->stall_to) && now >= s->stall_to + GST_SECOND / 2)
    s->full_after_stall += !partial;
  gst_object_unref (batch);
  return GST_PAD_PROBE_OK;
}

std::string
pipeline_line (const Options & o)
{
  gchar * batch = g_strdup_printf ("cudabatch name=b width=%u height=%u dtype=float16 "
                                   "batched-push-timeout=%" G_GUINT64_FORMAT
                                   " ! fakesink name=out sync=false async=false",
      o.size, o.size, o.timeout_us);
  std::string line = batch;
  g_free (batch);
  for (guint i = 0; i < o.streams; i++) {
    gchar * part = g_strdup_printf (
        " videotestsrc is-live=true pattern=%u ! video/x-raw,format=NV12,width=%u,"
        "height=%u,framerate=%u/1 ! valve name=v%u ! cudaupload ! b.sink_%u",
        i % 20, o.width, o.height, o.fps, i, i);
    line += part;
    g_free (part);
  }
  return line;
}

/* Runs the pipeline `seconds`; opens and closes valve v0 for a stall row.
 * False where it failed to run (an error message on the bus). */
bool
run (GstElement * pipeline, const Options & o, Samples * s, bool stall)
{
  GstElement * valve = gst_bin_get_by_name (GST_BIN (pipeline), "v0");
  const GstClockTime warm = (GstClockTime)(o.warmup * GST_SECOND);
  const GstClockTime total = warm + (GstClockTime)(o.seconds * GST_SECOND);
  s->warmup = warm;
  if (stall)
    s->stall_from = warm + (total - warm) / 3,
    s->stall_to = warm + 2 * (total - warm) / 3;
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  GstBus * bus = gst_element_get_bus (pipeline);
  bool ok = true, stalled = false, resumed = false;
  const gint64 start = g_get_monotonic_time ();
  for (;;) {
    const GstClockTime el = (g_get_monotonic_time () - start) * GST_USECOND;
    if (el >= total)
      break;
    if (stall && !stalled && el >= s->stall_from)
      g_object_set (valve, "drop", TRUE, NULL), stalled = true;
    if (stall && !resumed && el >= s->stall_to)
      g_object_set (valve, "drop", FALSE, NULL), resumed = true;
    GstMessage * m = gst_bus_timed_pop_filtered (
        bus, 20 * GST_MSECOND, (GstMessageType)(GST_MESSAGE_ERROR | GST_MESSAGE_EOS));
    if (m && GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR) {
      GError * err = NULL;
      gst_message_parse_error (m, &err, NULL);
      g_printerr ("error from %s: %s\n", GST_OBJECT_NAME (m->src), err->message);
      g_error_free (err);
      ok = false;
    }
    if (m) {
      gst_message_unref (m);
      break;
    }
  }
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (valve);
  return ok;
}

void
report (const char * row, const Options & o, Samples & s, bool ran)
{
  const double frame_ms = 1000.0 / o.fps, timeout_ms = o.timeout_us / 1000.0;
  const Stats all = stats_of (s.slots), old = stats_of (s.oldest);
  const Stats added = stats_of (s.batching), added_old = stats_of (s.batching_oldest);
  const bool within =
      ran && !s.batching_oldest.empty () && added_old.max <= frame_ms + timeout_ms;
  std::printf ("--- %s: %u live %ux%u NV12 streams at %u fps -> cudabatch %u x 3 x %u x "
               "%u float16, batched-push-timeout %.1f ms\n",
      row, o.streams, o.width, o.height, o.fps, o.streams, o.size, o.size, timeout_ms);
  std::printf ("  batches %u (%u partial), slot frames %zu\n", s.batches, s.partial,
      s.slots.size ());
  std::printf ("  from capture (upload included), every slot frame: mean %.2f  p50 %.2f  "
               "p99 %.2f  max %.2f ms\n",
      all.mean, all.p50, all.p99, all.max);
  std::printf ("  from capture, oldest per batch: mean %.2f  p50 %.2f  p99 %.2f  max "
               "%.2f ms\n",
      old.mean, old.p50, old.p99, old.max);
  std::printf ("  added by the batching (arrival at cudabatch), every slot frame: mean "
               "%.2f  p50 %.2f  p99 %.2f  max %.2f ms\n",
      added.mean, added.p50, added.p99, added.max);
  std::printf (
      "  added by the batching, oldest per batch: mean %.2f  p50 %.2f  p99 %.2f  "
      "max %.2f ms\n",
      added_old.mean, added_old.p50, added_old.p99, added_old.max);
  std::printf ("  bound: one frame %.2f ms + timeout %.2f ms = %.2f ms: added max %s\n",
      frame_ms, timeout_ms, frame_ms + timeout_ms, within ? "within" : "OVER");
  std::printf (
      "RESULT {\"impl\":\"ours\",\"case\":\"batch-latency-%s\",\"status\":\"%s\","
      "\"streams\":%u,\"fps\":%u,\"width\":%u,\"height\":%u,\"timeout_ms\":%.3f,"
      "\"frame_ms\":%.3f,\"batches\":%u,\"partial\":%u,\"mean_ms\":%.3f,"
      "\"p50_ms\":%.3f,\"p99_ms\":%.3f,\"max_ms\":%.3f,\"oldest_p99_ms\":%.3f,"
      "\"oldest_max_ms\":%.3f,\"added_p99_ms\":%.3f,\"added_max_ms\":%.3f,"
      "\"within_bound\":%s}\n",
      row, ran ? "ok" : "error", o.streams, o.fps, o.width, o.height, timeout_ms,
      frame_ms, s.batches, s.partial, all.mean, all.p50, all.p99, all.max, old.p99,
      old.max, added_old.p99, added_old.max, within ? "true" : "false");
}

bool
parse (int argc, char ** argv, Options * o)
{
  for (int i = 1; i < argc; i++) {
    const char * a = argv[i];
    const char * v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp (a, "--check")) {
      o->check = true;
      continue;
    }
    if (!v)
      return false;
    if (!strcmp (a, "--streams"))
      o->streams = (guint)atoi (v);
    else if (!strcmp (a, "--fps"))
      o->fps = (guint)atoi (v);
    else if (!strcmp (a, "--seconds"))
      o->seconds = atof (v);
    else if (!strcmp (a, "--warmup"))
      o->warmup = atof (v);
    else if (!strcmp (a, "--timeout-us"))
      o->timeout_us = g_ascii_strtoull (v, NULL, 10);
    else if (!strcmp (a, "--width"))
      o->width = (guint)atoi (v);
    else if (!strcmp (a, "--height"))
      o->height = (guint)atoi (v);
    else if (!strcmp (a, "--size"))
      o->size = (guint)atoi (v);
    else
      return false;
    i++;
  }
  return o->streams > 0 && o->fps > 0 && o->seconds > 0 && o->warmup >= 0;
}

/* One row; `s` filled. */
bool
row (const Options & o, bool stall, Samples * s)
{
  GError * err = NULL;
  GstElement * pipeline = gst_parse_launch (pipeline_line (o).c_str (), &err);
  if (!pipeline || err) {
    g_printerr ("cannot make the pipeline: %s\n", err ? err->message : "?");
    g_clear_error (&err);
    gst_clear_object (&pipeline);
    return false;
  }
  GstElement * batch = gst_bin_get_by_name (GST_BIN (pipeline), "b");
  GstPad * src = gst_element_get_static_pad (batch, "src");
  gst_pad_add_probe (src, GST_PAD_PROBE_TYPE_BUFFER, on_batch, s, NULL);
  gst_object_unref (src);
  /* The request pads the links made, before anything flows. */
  GstIterator * it = gst_element_iterate_sink_pads (batch);
  GValue v = G_VALUE_INIT;
  while (gst_iterator_next (it, &v) == GST_ITERATOR_OK) {
    GstPad * sink = GST_PAD (g_value_get_object (&v));
    auto * a = new Arrivals{ s, g_quark_from_string (GST_PAD_NAME (sink)) };
    gst_pad_add_probe (sink, GST_PAD_PROBE_TYPE_BUFFER, on_arrival, a,
        [] (gpointer p) { delete static_cast<Arrivals *> (p); });
    g_value_reset (&v);
  }
  g_value_unset (&v);
  gst_iterator_free (it);
  gst_object_unref (batch);
  const bool ok = run (pipeline, o, s, stall);
  gst_object_unref (pipeline);
  return ok;
}

} // namespace

int
main (int argc, char ** argv)
{
  gst_init (&argc, &argv);
  Options o;
  if (!parse (argc, argv, &o)) {
    g_printerr ("usage: %s [--streams N] [--fps F] [--seconds S] [--warmup S] "
                "[--timeout-us T] [--width W --height H] [--size TENSOR] [--check]\n",
        argv[0]);
    return 2;
  }
  GstElement * probe = gst_element_factory_make ("cudabatch", NULL);
  if (!probe) {
    g_printerr ("no cudabatch element (GST_PLUGIN_PATH?)\n");
    return 77;
  }
  gst_object_unref (probe);
  Samples live, stall;
  const bool live_ok = row (o, false, &live);
  report ("live", o, live, live_ok);
  const bool stall_ok = row (o, true, &stall);
  report ("stall", o, stall, stall_ok);
  std::printf ("SUMMARY batch latency live: added by the batching p99 %.2f ms, max %.2f "
               "ms (oldest frame per batch; from capture: max %.2f ms); bound %.2f ms\n",
      stats_of (live.batching_oldest).p99, stats_of (live.batching_oldest).max,
      stats_of (live.oldest).max, 1000.0 / o.fps + o.timeout_us / 1000.0);
  std::printf ("SUMMARY batch latency stall: %u of %u batches partial (%u during the "
               "stall), added by the batching max %.2f ms (from capture: %.2f ms)\n",
      stall.partial, stall.batches, stall.partial_in_stall,
      stats_of (stall.batching_oldest).max, stats_of (stall.oldest).max);
  if (!o.check)
    return live_ok && stall_ok ? 0 : 1;
  const bool good = live_ok && stall_ok && live.batches > 0 && !live.slots.empty () &&
                    stall.partial_in_stall > 0 && stall.full_after_stall > 0;
  if (!good)
    g_printerr ("check failed: live %u batches, stall %u partial within the stall, %u "
                "full after it\n",
        live.batches, stall.partial_in_stall, stall.full_after_stall);
  return good ? 0 : 1;
}

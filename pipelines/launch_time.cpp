/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gcs-launch-time: a pipeline as gst-launch-1.0 runs it, timed. The
 * description goes to PAUSED (the first frame prerolls: module loads, run
 * time compiles, pool allocations fall there), then PLAYING until EOS.
 *
 * Timed: from the sink's frame N/5 to EOS, frames/s and the process's CPU
 * time per frame over the same span. Not from PLAYING: GPU elements push
 * before their work is done (ours and nvcodec's alike), so at EOS the GPU
 * may still have a queue of frames to run. In the steady state that queue
 * is as long at frame N/5 as at EOS, so the span between them counts the
 * GPU's frames. The only thing added per frame is a counter on the sink's
 * pad; nothing else of the harness runs per frame, so the figures are the
 * user's pipeline's, ours or nvcodec's alike.
 *
 *   gcs-launch-time --frames N [--timeout S] -- DESCRIPTION...
 *
 * N is how many frames the description's source makes (imagefreeze
 * num-buffers=N, a file of N frames); the description ends in one sink. One
 * line out:
 *   LAUNCH {"frames":F,"seconds":s,"fps":f,"cpu_us":c,"host_waits":w}
 * F frames timed; host_waits sums the "host-waits" properties of the
 * pipeline's elements over the whole run (ours count their host waits
 * there; -1 where none has one), or
 *   LAUNCH {"error":"..."}
 * and exit status 1. */
#include <gst/gst.h>

#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

double
cpu_seconds ()
{
  struct rusage u;
  getrusage (RUSAGE_SELF, &u);
  return u.ru_utime.tv_sec + u.ru_stime.tv_sec +
         (u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

std::string
json_escaped (const char * s)
{
  std::string out;
  for (const char * p = s; *p; p++) {
    if (*p == '"' || *p == '\\')
      out += '\\';
    if ((unsigned char)*p >= 0x20)
      out += *p;
  }
  return out;
}

int
fail (const std::string & why)
{
  std::printf ("LAUNCH {\"error\":\"%s\"}\n", json_escaped (why.c_str ()).c_str ());
  return 1;
}

/* The sum of the elements' "host-waits" (guint64) properties, -1 where no
 * element has one. */
gint64
host_waits (GstBin * bin)
{
  gint64 total = -1;
  GstIterator * it = gst_bin_iterate_recurse (bin);
  GValue item = G_VALUE_INIT;
  while (gst_iterator_next (it, &item) == GST_ITERATOR_OK) {
    GObject * e = G_OBJECT (g_value_get_object (&item));
    GParamSpec * spec =
        g_object_class_find_property (G_OBJECT_GET_CLASS (e), "host-waits");
    if (spec && spec->value_type == G_TYPE_UINT64) {
      guint64 w = 0;
      g_object_get (e, "host-waits", &w, NULL);
      total = (total < 0 ? 0 : total) + (gint64)w;
    }
    g_value_reset (&item);
  }
  g_value_unset (&item);
  gst_iterator_free (it);
  return total;
}

/* The sink's frames, and the time and CPU time at the mark. */
struct Count {
  long mark = 0;
  std::atomic<long> frames{ 0 };
  gint64 mark_us = 0;
  double mark_cpu = 0;
};

GstPadProbeReturn
on_frame (GstPad *, GstPadProbeInfo *, gpointer data)
{
  auto * c = static_cast<Count *> (data);
  if (++c->frames == c->mark) {
    c->mark_us = g_get_monotonic_time ();
    c->mark_cpu = cpu_seconds ();
  }
  return GST_PAD_PROBE_OK;
}

/* The sink pad of the pipeline's one sink (an element without src pads). */
GstPad *
sink_pad (GstBin * bin)
{
  GstPad * pad = NULL;
  GstIterator * it = gst_bin_iterate_sinks (bin);
  GValue item = G_VALUE_INIT;
  if (gst_iterator_next (it, &item) == GST_ITERATOR_OK) {
    pad = gst_element_get_static_pad (GST_ELEMENT (g_value_get_object (&item)), "sink");
    g_value_unset (&item);
  }
  gst_iterator_free (it);
  return pad;
}

/* Waits for `state` (or an error), as gst-launch-1.0 does. */
bool
reach (GstElement * pipeline, GstState state, GstClockTime timeout, std::string * why)
{
  if (gst_element_set_state (pipeline, state) == GST_STATE_CHANGE_FAILURE) {
    *why = std::string ("cannot go to ") + gst_element_state_get_name (state);
    return false;
  }
  if (gst_element_get_state (pipeline, NULL, NULL, timeout) != GST_STATE_CHANGE_SUCCESS) {
    *why = std::string ("did not reach ") + gst_element_state_get_name (state);
    return false;
  }
  return true;
}

} // namespace

int
main (int argc, char ** argv)
{
  /* GStreamer's own options are not taken: its option parser would eat
   * the "--" before the description. */
  gst_init (NULL, NULL);
  long frames = 0;
  double timeout_s = 120;
  std::string desc;
  for (int i = 1; i < argc; i++) {
    if (std::strcmp (argv[i], "--frames") == 0 && i + 1 < argc)
      frames = std::atol (argv[++i]);
    else if (std::strcmp (argv[i], "--timeout") == 0 && i + 1 < argc)
      timeout_s = std::atof (argv[++i]);
    else if (std::strcmp (argv[i], "--") == 0) {
      for (i++; i < argc; i++)
        desc += std::string (argv[i]) + " ";
    }
  }
  if (frames < 2 || desc.empty ())
    return fail ("usage: gcs-launch-time --frames N [--timeout S] -- DESCRIPTION");
  GError * err = NULL;
  GstElement * pipeline = gst_parse_launch (desc.c_str (), &err);
  if (!pipeline || err) {
    std::string why = err ? err->message : "cannot parse the description";
    g_clear_error (&err);
    return fail (why);
  }
  Count count;
  count.mark = std::max (1L, frames / 5);
  GstPad * pad = sink_pad (GST_BIN (pipeline));
  if (!pad)
    return fail ("the description has no sink with a sink pad");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, on_frame, &count, NULL);
  gst_object_unref (pad);
  const GstClockTime timeout = (GstClockTime)(timeout_s * GST_SECOND);
  std::string why;
  GstBus * bus = gst_element_get_bus (pipeline);
  if (!reach (pipeline, GST_STATE_PAUSED, timeout, &why)) {
    GstMessage * m = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
    if (m) {
      GError * e = NULL;
      gst_message_parse_error (m, &e, NULL);
      why += std::string (": ") + e->message;
      g_error_free (e);
      gst_message_unref (m);
    }
    gst_element_set_state (pipeline, GST_STATE_NULL);
    return fail (why);
  }
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  GstMessage * m = gst_bus_timed_pop_filtered (
      bus, timeout, (GstMessageType)(GST_MESSAGE_EOS | GST_MESSAGE_ERROR));
  const gint64 t1 = g_get_monotonic_time ();
  const double c1 = cpu_seconds ();
  int rc = 0;
  if (!m)
    rc = fail ("no EOS within the timeout");
  else if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR) {
    GError * e = NULL;
    gst_message_parse_error (m, &e, NULL);
    rc = fail (std::string (GST_OBJECT_NAME (GST_MESSAGE_SRC (m))) + ": " + e->message);
    g_error_free (e);
  } else if (count.frames.load () <= count.mark) {
    rc = fail ("the sink got " + std::to_string (count.frames.load ()) + " frames of " +
               std::to_string (frames));
  } else {
    const double seconds = (t1 - count.mark_us) / 1e6;
    const long timed = count.frames.load () - count.mark;
    const double c0 = count.mark_cpu;
    std::printf ("LAUNCH {\"frames\":%ld,\"seconds\":%.6f,\"fps\":%.1f,\"cpu_us\":%.2f,"
                 "\"host_waits\":%" G_GINT64_FORMAT "}\n",
        timed, seconds, timed / seconds, (c1 - c0) * 1e6 / timed,
        host_waits (GST_BIN (pipeline)));
  }
  if (m)
    gst_message_unref (m);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (pipeline);
  return rc;
}

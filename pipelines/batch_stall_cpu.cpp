/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gcs-batch-stall-cpu: the CPU cudabatch's process spends while no live
 * source has a frame.
 *
 *   gcs-batch-stall-cpu [--seconds 10] [--timeout-us 20000] [--check]
 *
 * Runs, twice,
 *
 *   appsrc is-live=true do-timestamp=true caps=NV12 1920x1080 30/1
 *     ! cudastreamsupload ! cudastreamsbatch batched-push-timeout=T
 *     ! fakesink sync=false
 *
 *  - row "stall": 3 frames a frame interval apart, then none for --seconds
 *    (a camera that stalls);
 *  - row "no-frame": no frame at all for --seconds (a camera still
 *    connecting).
 *
 * Each row waits half a second after its frames were batched, then reads
 * the process's CPU time (getrusage: every thread, user and system) over
 * the stall and prints it as a share of one core, with the GAP events
 * cudabatch sent meanwhile (one per frame interval, or per timeout where
 * no frame rate is known yet). Before issue 55's fix a stall took a whole
 * core: the aggregator woke again at once, for ever.
 *
 * "RESULT {json}" per row, then "SUMMARY" lines. --check: exit 1 where a
 * row used more than 1% of a core. The names are ours (nvcodec may own
 * cudaupload), so GST_PLUGIN_PATH must find this project's plugin: the
 * GPU's, or the CUDA stand-in's (where the figures are the host's alone).
 */
#include <gst/gst.h>
#include <sys/resource.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

struct Options {
  gdouble seconds = 10.0;
  guint64 timeout_us = 20000;
  bool check = false;
};

struct Row {
  const char * name;
  guint frames;
};

/* Seconds of CPU the process has used so far, every thread. */
double
cpu_seconds ()
{
  struct rusage u;
  getrusage (RUSAGE_SELF, &u);
  return u.ru_utime.tv_sec + u.ru_utime.tv_usec / 1e6 + u.ru_stime.tv_sec +
         u.ru_stime.tv_usec / 1e6;
}

struct Seen {
  std::atomic<guint> batches{ 0 }, gaps{ 0 };
};

GstPadProbeReturn
count (GstPad *, GstPadProbeInfo * info, gpointer data)
{
  auto * seen = static_cast<Seen *> (data);
  if (GST_PAD_PROBE_INFO_TYPE (info) & GST_PAD_PROBE_TYPE_BUFFER)
    seen->batches++;
  else if (GST_EVENT_TYPE (GST_PAD_PROBE_INFO_EVENT (info)) == GST_EVENT_GAP)
    seen->gaps++;
  return GST_PAD_PROBE_OK;
}

bool
push_frame (GstElement * src)
{
  const gsize size = 1920 * 1080 * 3 / 2;
  GstBuffer * buf = gst_buffer_new_allocate (NULL, size, NULL);
  gst_buffer_memset (buf, 0, 0x80, size);
  GST_BUFFER_DURATION (buf) = GST_SECOND / 30;
  GstFlowReturn ret = GST_FLOW_ERROR;
  g_signal_emit_by_name (src, "push-buffer", buf, &ret);
  gst_buffer_unref (buf);
  return ret == GST_FLOW_OK;
}

/* Runs `row`; the share of one core over the stall, or -1 on failure. */
double
run (const Options & o, const Row & row)
{
  gchar * line = g_strdup_printf (
      "appsrc name=src is-live=true do-timestamp=true format=time "
      "caps=video/x-raw,format=NV12,width=1920,height=1080,framerate=30/1 "
      "! cudastreamsupload ! cudastreamsbatch name=b "
      "batched-push-timeout=%" G_GUINT64_FORMAT
      " width=640 height=640 dtype=float16 ! fakesink name=out sync=false async=false",
      o.timeout_us);
  GError * err = NULL;
  GstElement * p = gst_parse_launch (line, &err);
  g_free (line);
  if (!p) {
    g_printerr ("%s: %s\n", row.name, err ? err->message : "cannot build the pipeline");
    g_clear_error (&err);
    return -1;
  }
  Seen seen;
  GstElement * out = gst_bin_get_by_name (GST_BIN (p), "out");
  GstPad * pad = gst_element_get_static_pad (out, "sink");
  gst_pad_add_probe (pad,
      (GstPadProbeType)(GST_PAD_PROBE_TYPE_BUFFER | GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM),
      count, &seen, NULL);
  gst_object_unref (pad);
  gst_object_unref (out);
  GstElement * src = gst_bin_get_by_name (GST_BIN (p), "src");
  gst_element_set_state (p, GST_STATE_PLAYING);
  gst_element_get_state (p, NULL, NULL, 10 * GST_SECOND);
  for (guint k = 0; k < row.frames; k++) {
    if (!push_frame (src))
      g_printerr ("%s: frame %u refused\n", row.name, k);
    g_usleep (G_USEC_PER_SEC / 30);
  }
  for (int i = 0; i < 500 && seen.batches.load () < row.frames; i++)
    g_usleep (10000);
  g_usleep (G_USEC_PER_SEC / 2);
  const guint gaps0 = seen.gaps.load ();
  const double cpu0 = cpu_seconds ();
  const gint64 t0 = g_get_monotonic_time ();
  g_usleep ((gulong)(o.seconds * G_USEC_PER_SEC));
  const double cpu = cpu_seconds () - cpu0;
  const double wall = (g_get_monotonic_time () - t0) / 1e6;
  const guint gaps = seen.gaps.load () - gaps0;
  const double share = 100.0 * cpu / wall;
  GstMessage * error = gst_bus_pop_filtered (GST_ELEMENT_BUS (p), GST_MESSAGE_ERROR);
  g_print ("%-9s %u frames, then %.1f s without: CPU %.3f s = %.2f%% of a core, "
           "%u batches, %u GAP events (%.1f/s)%s\n",
      row.name, row.frames, wall, cpu, share, seen.batches.load (), gaps, gaps / wall,
      error ? ", AN ERROR" : "");
  g_print ("RESULT {\"row\": \"%s\", \"frames\": %u, \"seconds\": %.2f, \"cpu_s\": %.4f, "
           "\"core_percent\": %.3f, \"batches\": %u, \"gaps\": %u, \"timeout_us\": "
           "%" G_GUINT64_FORMAT ", \"error\": %s}\n",
      row.name, row.frames, wall, cpu, share, seen.batches.load (), gaps, o.timeout_us,
      error ? "true" : "false");
  if (error)
    gst_message_unref (error);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (src);
  gst_object_unref (p);
  return error || seen.batches.load () < row.frames ? -1 : share;
}

bool
parse (int argc, char ** argv, Options * o)
{
  for (int i = 1; i < argc; i++) {
    const char * a = argv[i];
    const char * v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp (a, "--check")) {
      o->check = true;
    } else if (!strcmp (a, "--seconds") && v) {
      o->seconds = g_ascii_strtod (v, NULL), i++;
    } else if (!strcmp (a, "--timeout-us") && v) {
      o->timeout_us = g_ascii_strtoull (v, NULL, 10), i++;
    } else {
      g_printerr ("usage: %s [--seconds S] [--timeout-us T] [--check]\n", argv[0]);
      return false;
    }
  }
  return true;
}

} // namespace

int
main (int argc, char ** argv)
{
  gst_init (&argc, &argv);
  Options o;
  if (!parse (argc, argv, &o))
    return 2;
  const Row rows[] = { { "stall", 3 }, { "no-frame", 0 } };
  bool ok = true;
  std::string summary;
  for (const Row & row : rows) {
    const double share = run (o, row);
    ok = ok && share >= 0 && (!o.check || share <= 1.0);
    gchar * l = share >= 0
                    ? g_strdup_printf ("SUMMARY batch stall-cpu %s: %.2f%% of a core "
                                       "(target <= 1%%)\n",
                          row.name, share)
                    : g_strdup_printf ("SUMMARY batch stall-cpu %s: FAILED\n", row.name);
    summary += l;
    g_free (l);
  }
  g_print ("%s", summary.c_str ());
  return ok ? 0 : 1;
}

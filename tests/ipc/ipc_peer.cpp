/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gcs-ipc-peer: one side of the IPC tests, run as a process of its own by
 * tests/elements/ipc_gpu.cpp (and by hand). GStreamer only: the plugin it
 * loads (GST_PLUGIN_PATH) decides whether it runs on a GPU or on the CUDA
 * stand-in.
 *
 *   gcs-ipc-peer produce SOCKET [--frames N] [--fps F] [--format F] [--width W]
 *       [--height H] [--consumers K] [--sink-props "..."] [--batch]
 *     frames whose bytes say their number (frame_byte) into cudastreamsipcsink
 *     (slow-consumer=wait unless --sink-props says otherwise), once K
 *     consumers are there (default 1); prints "PRODUCER ..." at the end.
 *   gcs-ipc-peer consume SOCKET [--frames N] [--hold-ms T] [--slow-us U]
 *       [--src-props "..."] [--download-props "..."] [--batch] [--timeout S]
 *     cudastreamsipcsrc ! cudadownload ! appsink: checks every frame's bytes
 *     against its number; prints "FRAME i" as they come and "CONSUMER ..." at
 *     the end; exits 0 when every frame was right, in order, without gaps.
 *   gcs-ipc-peer garbage SOCKET [--seed S]
 *     connects and sends random and malformed records; exits 0 when the
 *     producer closed each connection.
 *   gcs-ipc-peer ring-garbage SOCKET
 *     connects as two consumers and writes release rings that do not add
 *     up (a count larger than the ring; a release of a frame it was never
 *     sent, once the first frame came); exits 0 when the producer closed
 *     both connections.
 *   --signals US (either role): every US microseconds a signal whose
 *     handler does nothing, installed without SA_RESTART, goes to the
 *     main thread and every thread with a name of its own (storm_targets),
 *     as a profiler's SIGPROF or an application's SIGCHLD may: a call the
 *     IPC elements make that it interrupts (EINTR) must be made again,
 *     never taken for a failure.
 */
#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <gst/gst.h>
#include <gst/video/video.h>

#include <dirent.h>
#include <execinfo.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <atomic>

#include "gstcsbatchmeta.h"
#include "ipc/gstcsipcrecords.hpp"
#include "ipc/gstcsipcreleases.hpp"
#include "ipc/gstcsipcwire.hpp"
#include <string>
#include <thread>
#include <vector>

namespace {

struct Options {
  std::string role, socket;
  guint frames = 30;
  gdouble fps = 0; /* 0: as fast as it goes */
  std::string format = "NV12";
  gint width = 64, height = 48;
  guint consumers = 1;
  std::string sink_props, src_props;
  bool batch = false;
  guint hold_ms = 0;
  guint slow_us = 0; /* consume: each frame held this long before its download */
  guint timeout_s = 60;
  guint seed = 1;
  std::string download_props;
  guint switch_at = 0; /* produce: frames from this one on are twice as wide */
  guint flush_at = 0;  /* produce: a flush before this frame */
  std::string upload_props;
  guint signals_us = 0; /* --signals: a signal to every thread this often */
};

/* Bounds stretched by CK_TIMEOUT_MULTIPLIER, check's own factor for slow
 * runs, which the test passes on (scripts/gpu-ipc.sh sets it under
 * compute-sanitizer, whose processes start and run many times slower). */
double
time_multiplier ()
{
  const char * v = g_getenv ("CK_TIMEOUT_MULTIPLIER");
  const double k = v ? g_ascii_strtod (v, NULL) : 1.0;
  return k > 1.0 ? k : 1.0;
}

guint
scaled (guint n)
{
  return (guint)(n * time_multiplier ());
}

/* The caps of the reference timestamp each produced frame carries. */
GstCaps *
test_caps ()
{
  static GstCaps * caps = gst_caps_new_empty_simple ("timestamp/x-gcs-ipc-test");
  return caps;
}

/* Byte k of frame i: every byte depends on both. */
guint8
frame_byte (guint64 i, gsize k)
{
  return (guint8)((k * 31 + i * 101 + (k >> 8) * 7) ^ (i >> 3));
}

/* "WHO pts md5 slots" of a batch: its bytes' MD5 (read through a host
 * mapping), then each slot of its batch meta as
 * "pad:index:WxH:scale_x,scale_y:offset_x,offset_y:empty:pts"; takes `s`. */
void
print_sample (GstSample * s, const char * who)
{
  GstBuffer * b = gst_sample_get_buffer (s);
  GstMapInfo map;
  gchar * md5 = NULL;
  if (gst_buffer_map (b, &map, GST_MAP_READ)) {
    md5 = g_compute_checksum_for_data (G_CHECKSUM_MD5, map.data, map.size);
    gst_buffer_unmap (b, &map);
  }
  std::string slots = " no-batch-meta";
  /* By its API's name: the peer does not link the library that registers
   * it (the plugin it loads does, the GPU's or the stand-in's). */
  const GType api = g_type_from_name ("GstCsBatchMetaAPI");
  if (const auto * m =
          api ? reinterpret_cast<const GstCsBatchMeta *> (gst_buffer_get_meta (b, api))
              : nullptr) {
    slots.clear ();
    for (guint i = 0; i < m->n_slots; i++) {
      const GstCsBatchSlot & sl = m->slots[i];
      gchar * t =
          g_strdup_printf (" %s:%u:%dx%d:%.17g,%.17g:%.17g,%.17g:%d:%" G_GUINT64_FORMAT,
              sl.pad_name ? g_quark_to_string (sl.pad_name) : "-", sl.pad_index,
              sl.source_width, sl.source_height, sl.scale_x, sl.scale_y, sl.offset_x,
              sl.offset_y, sl.empty ? 1 : 0, sl.pts);
      slots += t;
      g_free (t);
    }
  }
  std::printf ("%s %" G_GUINT64_FORMAT " %s%s\n", (const char *)who, GST_BUFFER_PTS (b),
      md5 ? md5 : "unmappable", slots.c_str ());
  std::fflush (stdout);
  g_free (md5);
  gst_sample_unref (s);
}

GstFlowReturn
print_batch (GstAppSink * sink, gpointer who)
{
  print_sample (gst_app_sink_pull_sample (sink), (const char *)who);
  return GST_FLOW_OK;
}

void
print_batch_sample (GstSample * s)
{
  print_sample (s, "GOT");
}

bool
parse (int argc, char ** argv, Options * o)
{
  if (argc < 3)
    return false;
  o->role = argv[1];
  o->socket = argv[2];
  for (int i = 3; i + 1 < argc; i += 2) {
    const std::string k = argv[i], v = argv[i + 1];
    if (k == "--frames")
      o->frames = (guint)std::stoul (v);
    else if (k == "--fps")
      o->fps = std::stod (v);
    else if (k == "--format")
      o->format = v;
    else if (k == "--width")
      o->width = std::stoi (v);
    else if (k == "--height")
      o->height = std::stoi (v);
    else if (k == "--consumers")
      o->consumers = (guint)std::stoul (v);
    else if (k == "--sink-props")
      o->sink_props = v;
    else if (k == "--src-props")
      o->src_props = v;
    else if (k == "--batch")
      o->batch = v == "1";
    else if (k == "--hold-ms")
      o->hold_ms = (guint)std::stoul (v);
    else if (k == "--slow-us")
      o->slow_us = (guint)std::stoul (v);
    else if (k == "--timeout")
      o->timeout_s = (guint)std::stoul (v);
    else if (k == "--seed")
      o->seed = (guint)std::stoul (v);
    else if (k == "--download-props")
      o->download_props = v;
    else if (k == "--switch-at")
      o->switch_at = (guint)std::stoul (v);
    else if (k == "--flush-at")
      o->flush_at = (guint)std::stoul (v);
    else if (k == "--upload-props")
      o->upload_props = v;
    else if (k == "--signals")
      o->signals_us = (guint)std::stoul (v);
    else
      return false;
  }
  return true;
}

/* The first error on the bus, or "" at EOS; "timeout" after `s` seconds. */
std::string
wait_end (GstElement * pipeline, guint s)
{
  GstBus * bus = gst_element_get_bus (pipeline);
  GstMessage * m = gst_bus_timed_pop_filtered (
      bus, s * GST_SECOND, (GstMessageType)(GST_MESSAGE_EOS | GST_MESSAGE_ERROR));
  std::string why = m ? "" : "timeout";
  if (m && GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR) {
    GError * err = NULL;
    gst_message_parse_error (m, &err, NULL);
    why = err->message;
    g_error_free (err);
  }
  if (m)
    gst_message_unref (m);
  gst_object_unref (bus);
  return why;
}

guint64
uint64_prop (GstElement * e, const char * name)
{
  guint64 v = 0;
  g_object_get (e, name, &v, NULL);
  return v;
}

/* Before frame `at` (user data; 0: never), a flush in the streaming
 * thread: FLUSH_START, FLUSH_STOP keeping the running time, the segment
 * again. */
GstPadProbeReturn
flush_before (GstPad * pad, GstPadProbeInfo * info, gpointer at)
{
  GstBuffer * b = GST_PAD_PROBE_INFO_BUFFER (info);
  if (!GPOINTER_TO_UINT (at) || GST_BUFFER_OFFSET (b) != GPOINTER_TO_UINT (at))
    return GST_PAD_PROBE_OK;
  GstEvent * segment = gst_pad_get_sticky_event (pad, GST_EVENT_SEGMENT, 0);
  gst_pad_push_event (pad, gst_event_new_flush_start ());
  gst_pad_push_event (pad, gst_event_new_flush_stop (FALSE));
  if (segment)
    gst_pad_push_event (pad, segment);
  return GST_PAD_PROBE_OK;
}

/* The appsrc's caps at `width`; frames pushed from now on have them. */
void
set_caps (GstElement * src, const Options & o, gint width, GstVideoInfo * info)
{
  gchar * caps =
      g_strdup_printf ("video/x-raw,format=%s,width=%d,height=%d,framerate=%d/1",
          o.format.c_str (), width, o.height, o.fps > 0 ? (int)o.fps : 30);
  GstCaps * c = gst_caps_from_string (caps);
  g_free (caps);
  gst_video_info_from_caps (info, c);
  g_object_set (src, "caps", c, NULL);
  gst_caps_unref (c);
}

int
produce (const Options & o)
{
  /* Every consumer that keeps up gets every frame, however loaded the
   * machine: the producer waits for room (tests may say otherwise). */
  const std::string props = "slow-consumer=wait wait-timeout=10000 " + o.sink_props;
  gchar * desc;
  if (o.batch)
    /* Two streams of one source into 2 x 3 x 32 x 32 uint8 batches. A
     * latency of its own lets cudabatch wait for a stream whose thread a
     * loaded machine starved: the consumer counts a batch missed or
     * repeated as a gap. 0.2 s, times the run's slowness (under
     * compute-sanitizer every CUDA call is many times slower). */
    desc = g_strdup_printf (
        "appsrc name=src format=time is-live=true ! cudaupload ! tee name=t "
        "t. ! queue ! b.sink_0 t. ! queue ! b.sink_1 "
        "cudabatch name=b width=32 height=32 dtype=uint8 latency=%" G_GUINT64_FORMAT
        " ! tee name=bt "
        "bt. ! queue ! cudastreamsipcsink name=sink socket-path=%s %s "
        "bt. ! queue ! appsink name=ref sync=false emit-signals=true",
        (guint64)(200 * GST_MSECOND * time_multiplier ()), o.socket.c_str (),
        props.c_str ());
  else
    desc = g_strdup_printf ("appsrc name=src format=time is-live=true ! cudaupload %s ! "
                            "identity name=flusher ! "
                            "cudastreamsipcsink name=sink socket-path=%s %s",
        o.upload_props.c_str (), o.socket.c_str (), props.c_str ());
  GError * err = NULL;
  GstElement * pipeline = gst_parse_launch (desc, &err);
  g_free (desc);
  if (!pipeline) {
    std::printf ("PRODUCER error=%s\n", err->message);
    return 2;
  }
  GstElement * src = gst_bin_get_by_name (GST_BIN (pipeline), "src");
  GstElement * sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  if (GstElement * flusher = gst_bin_get_by_name (GST_BIN (pipeline), "flusher")) {
    GstPad * pad = gst_element_get_static_pad (flusher, "src");
    gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, flush_before,
        GUINT_TO_POINTER (o.flush_at), NULL);
    gst_object_unref (pad);
    gst_object_unref (flusher);
  }
  if (GstElement * ref = gst_bin_get_by_name (GST_BIN (pipeline), "ref")) {
    g_signal_connect (ref, "new-sample", G_CALLBACK (print_batch), (gpointer) "SENT");
    gst_object_unref (ref);
  }
  GstVideoInfo info;
  set_caps (src, o, o.width, &info);
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  /* Every consumer there first, so that each gets every frame. */
  const gint64 until = g_get_monotonic_time () + (gint64)o.timeout_s * G_USEC_PER_SEC;
  guint n = 0;
  while ((g_object_get (sink, "consumers", &n, NULL), n) < o.consumers &&
         g_get_monotonic_time () < until)
    g_usleep (5000);
  std::printf ("PRODUCER consumers=%u\n", n);
  std::fflush (stdout);
  const gint64 start = g_get_monotonic_time ();
  const GstClockTime duration = GST_SECOND / (o.fps > 0 ? (guint64)o.fps : 30);
  for (guint i = 0; i < o.frames; i++) {
    if (o.fps > 0) {
      const gint64 due = start + (gint64)(i * 1e6 / o.fps);
      const gint64 now = g_get_monotonic_time ();
      if (due > now)
        g_usleep (due - now);
    }
    if (o.switch_at && i == o.switch_at)
      set_caps (src, o, 2 * o.width, &info);
    GstBuffer * b = gst_buffer_new_allocate (NULL, info.size, NULL);
    GstMapInfo map;
    gst_buffer_map (b, &map, GST_MAP_WRITE);
    for (gsize k = 0; k < map.size; k++)
      map.data[k] = frame_byte (i, k);
    gst_buffer_unmap (b, &map);
    GST_BUFFER_PTS (b) = i * duration;
    GST_BUFFER_DURATION (b) = duration;
    GST_BUFFER_OFFSET (b) = i;
    /* A meta of GStreamer's that it serialises from 1.24 on. */
    gst_buffer_add_reference_timestamp_meta (
        b, test_caps (), 1000 + i, GST_CLOCK_TIME_NONE);
    const GstFlowReturn ret = gst_app_src_push_buffer (GST_APP_SRC (src), b);
    if (ret != GST_FLOW_OK) {
      std::printf ("PRODUCER push: %s\n", gst_flow_get_name (ret));
      break;
    }
  }
  gst_app_src_end_of_stream (GST_APP_SRC (src));
  const std::string why = wait_end (pipeline, o.timeout_s);
  /* From the first push to the end of stream: how long the consumers'
   * pace held the sink up (appsrc queues what is pushed). */
  const gint64 run_ms = (g_get_monotonic_time () - start) / 1000;
  /* Every frame back within a bound, whoever died holding some. */
  guint held = 0;
  const gint64 back = g_get_monotonic_time () + scaled (3) * G_USEC_PER_SEC;
  while ((g_object_get (sink, "frames-held", &held, NULL), held) > 0 &&
         g_get_monotonic_time () < back)
    g_usleep (10000);
  g_object_get (sink, "consumers", &n, NULL);
  std::printf ("PRODUCER sent=%u run_ms=%" G_GINT64_FORMAT " consumers=%u held=%u "
               "dropped=%" G_GUINT64_FORMAT " copied=%" G_GUINT64_FORMAT
               " host_waits=%" G_GUINT64_FORMAT " end=%s\n",
      o.frames, run_ms, n, held, uint64_prop (sink, "frames-dropped"),
      uint64_prop (sink, "frames-copied"), uint64_prop (sink, "host-waits"),
      why.empty () ? "eos" : why.c_str ());
  std::fflush (stdout);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (src);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
  return why.empty () ? 0 : 1;
}

/* The number a frame's bytes say (from its first byte and the next ones):
 * the offset travels too, but the bytes are what was delivered. */
bool
check_frame (GstBuffer * b, guint64 index, std::string * what)
{
  GstMapInfo map;
  if (!gst_buffer_map (b, &map, GST_MAP_READ))
    return false;
  gsize first_bad = map.size;
  for (gsize k = 0; k < map.size && first_bad == map.size; k++)
    if (map.data[k] != frame_byte (index, k))
      first_bad = k;
  if (first_bad < map.size) {
    /* Which frame the bytes are (a later one: rewritten too soon; an
     * earlier one or none: read before the write), from byte 0 on. */
    gint64 seen = -1;
    for (guint64 i = 0; i < index + 1000 && seen < 0; i++) {
      bool all = true;
      for (gsize k = 0; k < MIN (map.size, (gsize)64) && all; k++)
        all = map.data[k] == frame_byte (i, k);
      if (all)
        seen = (gint64)i;
    }
    gsize bad = 0;
    for (gsize k = 0; k < map.size; k++)
      bad += map.data[k] != frame_byte (index, k);
    *what = " (" + std::to_string (bad) + " of " + std::to_string (map.size) +
            " bytes wrong from byte " + std::to_string (first_bad) + "; bytes 0-63 " +
            (seen >= 0 ? "those of frame " + std::to_string (seen)
                       : "of no frame, byte 0 = " + std::to_string (map.data[0])) +
            ")";
  }
  gst_buffer_unmap (b, &map);
  return first_bad == map.size;
}

GstPadProbeReturn
on_flush (GstPad *, GstPadProbeInfo * info, gpointer)
{
  if (GST_EVENT_TYPE (GST_PAD_PROBE_INFO_EVENT (info)) == GST_EVENT_FLUSH_STOP) {
    std::printf ("FLUSHED\n");
    std::fflush (stdout);
  }
  return GST_PAD_PROBE_OK;
}

int
consume (const Options & o)
{
  /* A slow consumer holds the producer's frames (the download lets each
   * go once copied). */
  gchar * slow =
      o.slow_us ? g_strdup_printf ("identity sleep-time=%u !", o.slow_us) : g_strdup ("");
  /* Its producer may take that much longer to start too (--src-props may
   * say otherwise: set after). */
  gchar * desc = g_strdup_printf ("cudastreamsipcsrc name=src socket-path=%s "
                                  "connection-timeout=%u %s ! %s %s "
                                  "%s ! appsink name=out sync=false",
      o.socket.c_str (), scaled (10000), o.src_props.c_str (), slow,
      o.batch ? "queue" : "cudadownload", o.download_props.c_str ());
  g_free (slow);
  GError * err = NULL;
  GstElement * pipeline = gst_parse_launch (desc, &err);
  g_free (desc);
  if (!pipeline) {
    std::printf ("CONSUMER error=%s\n", err->message);
    return 2;
  }
  GstElement * src = gst_bin_get_by_name (GST_BIN (pipeline), "src");
  GstElement * out = gst_bin_get_by_name (GST_BIN (pipeline), "out");
  GstPad * in = gst_element_get_static_pad (out, "sink");
  gst_pad_add_probe (in, GST_PAD_PROBE_TYPE_EVENT_FLUSH, on_flush, NULL, NULL);
  gst_object_unref (in);
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  guint got = 0, bad = 0, gaps = 0, caps_seen = 0, refmeta = 0;
  gint64 first = -1, last = -1;
  GstCaps * last_caps = NULL;
  std::string end = "eos";
  while (got < o.frames) {
    GstSample * s =
        gst_app_sink_try_pull_sample (GST_APP_SINK (out), o.timeout_s * GST_SECOND);
    if (!s) {
      /* An error comes with an EOS (the source's): the error is the end. */
      end = wait_end (pipeline, 1);
      if (end.empty () || end == "timeout")
        end = gst_app_sink_is_eos (GST_APP_SINK (out)) ? "eos" : "timeout";
      break;
    }
    GstBuffer * b = gst_sample_get_buffer (s);
    if (!last_caps || !gst_caps_is_equal (last_caps, gst_sample_get_caps (s))) {
      gst_caps_replace (&last_caps, gst_sample_get_caps (s));
      caps_seen++;
      gchar * text = gst_caps_to_string (last_caps);
      std::printf ("CAPS %s\n", text);
      g_free (text);
    }
    GstReferenceTimestampMeta * rm =
        gst_buffer_get_reference_timestamp_meta (b, test_caps ());
    bool ok;
    gint64 i;
    std::string what;
    if (o.batch) {
      /* Its bytes against the producer's (the test compares the lines). */
      i = (gint64)(GST_BUFFER_PTS (b) / (GST_SECOND / (o.fps > 0 ? (guint64)o.fps : 30)));
      gst_sample_ref (s);
      print_batch_sample (s);
      ok = gst_buffer_get_size (b) == 2 * 3 * 32 * 32;
    } else {
      i = (gint64)GST_BUFFER_OFFSET (b);
      ok = check_frame (b, (guint64)i, &what);
      refmeta += rm && rm->timestamp == (GstClockTime)(1000 + i);
    }
    if (!ok)
      bad++;
    if (last >= 0 && i != last + 1)
      gaps++;
    if (first < 0)
      first = i;
    last = i;
    got++;
    std::printf ("FRAME %" G_GINT64_FORMAT "%s%s\n", i, ok ? "" : " bad", what.c_str ());
    std::fflush (stdout);
    if (o.hold_ms)
      g_usleep (o.hold_ms * 1000);
    gst_sample_unref (s);
  }
  if (got == o.frames && end == "eos")
    end = "frames";
  gst_clear_caps (&last_caps);
  std::printf ("CONSUMER got=%u first=%" G_GINT64_FORMAT " last=%" G_GINT64_FORMAT
               " bad=%u gaps=%u caps=%u refmeta=%u host_waits=%" G_GUINT64_FORMAT
               " end=%s\n",
      got, first, last, bad, gaps, caps_seen, refmeta, uint64_prop (src, "host-waits"),
      end.c_str ());
  std::fflush (stdout);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (src);
  gst_object_unref (out);
  gst_object_unref (pipeline);
  return bad == 0 && gaps == 0 && (end == "eos" || end == "frames") ? 0 : 1;
}

/* A record's header of the protocol's version (plugins/ipc/gstcsipcwire.hpp),
 * saying `size` bytes, cut or padded to that size. */
std::vector<guint8>
header (guint16 type, guint32 size)
{
  std::vector<guint8> r (MAX (size, 16u), 0);
  const guint32 magic = gst_cs::ipc::kMagic;
  const guint16 version = gst_cs::ipc::kVersion;
  memcpy (r.data (), &magic, 4);
  memcpy (r.data () + 4, &version, 2);
  memcpy (r.data () + 6, &type, 2);
  memcpy (r.data () + 8, &size, 4);
  r.resize (size);
  return r;
}

/* A connection to the producer's socket, which may not listen yet (a slow
 * start): it has until `until` to. -1 when it never did. */
int
connect_until (const Options & o, gint64 until)
{
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  strncpy (a.sun_path, o.socket.c_str (), sizeof a.sun_path - 1);
  for (;;) {
    int fd = socket (AF_UNIX, SOCK_SEQPACKET, 0);
    if (connect (fd, (sockaddr *)&a, sizeof a) == 0)
      return fd;
    const int err = errno;
    close (fd);
    if ((err != ENOENT && err != ECONNREFUSED) || g_get_monotonic_time () > until) {
      std::printf ("cannot connect: %s\n", g_strerror (err));
      return -1;
    }
    g_usleep (20 * 1000);
  }
}

/* Reads until the producer closes the connection: true when it did (a
 * close with our last record still unread reaches us as ECONNRESET). */
bool
closed_by_producer (int fd)
{
  guint8 buf[4096];
  ssize_t n;
  while ((n = recv (fd, buf, sizeof buf, 0)) > 0) {
  }
  const bool closed = n == 0 || errno == ECONNRESET;
  close (fd);
  return closed;
}

/* Records a peer must refuse: random bytes, a bad magic, a header shorter
 * than itself, a size that lies, a record larger than any, one that comes
 * before HELLO. Each on a connection of its own, so that each is refused
 * on its own merits. */
int
garbage (const Options & o)
{
  GRand * rand = g_rand_new_with_seed (o.seed);
  std::vector<std::vector<guint8>> records;
  for (int n = 0; n < 8; n++) {
    std::vector<guint8> r (g_rand_int_range (rand, 1, 4096));
    for (auto & b : r)
      b = (guint8)g_rand_int (rand);
    records.push_back (r);
  }
  records.push_back (header (1, 10)); /* shorter than a header */
  auto lie = header (1, 20);
  lie[8] = 40; /* says 40 bytes, has 20 */
  records.push_back (lie);
  records.push_back (header (17, 16));                        /* DOORBELL before HELLO */
  records.push_back (header (99, 16));                        /* an unknown type */
  records.push_back (std::vector<guint8> (200 * 1024, 0x55)); /* oversized */
  auto version = header (1, 20);
  version[4] = 9; /* another protocol version */
  records.push_back (version);
  int refused = 0;
  /* The producer may not listen yet (a slow start): it has until our
   * timeout to. */
  const gint64 until = g_get_monotonic_time () + (gint64)o.timeout_s * G_USEC_PER_SEC;
  for (auto & r : records) {
    const int fd = connect_until (o, until);
    if (fd < 0)
      return 1;
    (void)send (fd, r.data (), r.size (), MSG_NOSIGNAL);
    /* The producer answers with BYE and closes. */
    refused += closed_by_producer (fd);
  }
  g_rand_free (rand);
  std::printf ("GARBAGE sent=%zu closed=%d\n", records.size (), refused);
  return refused == (int)records.size () ? 0 : 1;
}

/* ring-garbage: a consumer that says HELLO as it should, maps the release
 * page WELCOME brings, then writes there what the producer must refuse. */
int
ring_garbage (const Options & o)
{
  const gint64 until = g_get_monotonic_time () + (gint64)o.timeout_s * G_USEC_PER_SEC;
  /* Both connections first: the producer (--consumers 3 with the test's
   * own consumer) starts only once both are there, so it runs while each
   * writes its garbage, however fast it would send its frames. */
  struct Conn {
    int fd = -1, page = -1, pages[3] = { -1, -1, -1 };
    std::unique_ptr<gst_cs::ipc::ReleaseRing> ring;
    std::unique_ptr<gst_cs::ipc::RecordRing> records;
  } conns[2];
  for (Conn & c : conns) {
    c.fd = connect_until (o, until);
    if (c.fd < 0)
      return 1;
    auto hello = header (1, 20);
    const guint32 pid = (guint32)getpid ();
    memcpy (hello.data () + 16, &pid, 4);
    (void)send (c.fd, hello.data (), hello.size (), MSG_NOSIGNAL);
    /* WELCOME, with the fds of the release page, the record ring and
     * the bell. */
    guint8 buf[4096];
    iovec iov = { buf, sizeof buf };
    alignas (cmsghdr) char control[CMSG_SPACE (3 * sizeof (int))];
    msghdr m = {};
    m.msg_iov = &iov;
    m.msg_iovlen = 1;
    m.msg_control = control;
    m.msg_controllen = sizeof control;
    if (recvmsg (c.fd, &m, 0) > 0 && CMSG_FIRSTHDR (&m))
      memcpy (c.pages, CMSG_DATA (CMSG_FIRSTHDR (&m)), sizeof c.pages);
    c.page = c.pages[0];
    std::string why;
    if (c.page >= 0)
      c.ring = gst_cs::ipc::ReleaseRing::map (c.page, &why);
    if (c.ring && c.pages[1] >= 0)
      c.records = gst_cs::ipc::RecordRing::map (c.pages[1], &why);
    if (!c.records) {
      std::printf ("RING-GARBAGE no release page or record ring: %s\n", why.c_str ());
      return 1;
    }
  }
  /* Once the producer runs (a first FRAME, type 9): the first writes a
   * count of records waiting larger than the ring (the consumer's counter
   * is the page's first word, ReleaseRing::Page), the second a release of
   * a frame it was never sent, with a read event it never had. Before
   * that, the first's would have it disconnected before the producer
   * started, which waits for all three. */
  std::vector<guint8> rec;
  guint16 type = 0;
  while (type != 9 && g_get_monotonic_time () < until) {
    std::string why;
    if (conns[1].records->take (&rec, &why))
      memcpy (&type, rec.data () + 6, 2);
    else
      g_usleep (1000);
  }
  void * p = mmap (NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, conns[0].page, 0);
  if (p == MAP_FAILED) {
    std::printf ("RING-GARBAGE cannot map: %s\n", g_strerror (errno));
    return 1;
  }
  *static_cast<volatile guint32 *> (p) = 1000;
  munmap (p, 4096);
  gst_cs::ipc::ReleaseRecord r;
  r.seq = G_GUINT64_CONSTANT (1) << 40;
  r.slot = 7;
  (void)conns[1].ring->put (r);
  int closed = 0;
  const auto bell = header (17, 16);
  for (int i = 0; i < 2; i++) {
    Conn & c = conns[i];
    for (int fd : c.pages)
      if (fd >= 0)
        close (fd);
    (void)send (c.fd, bell.data (), bell.size (), MSG_NOSIGNAL);
    closed += closed_by_producer (c.fd);
    /* Why, by the BYE the producer put into the record ring before it
     * closed: so that the test tells a refusal of the ring from a
     * disconnection for any other reason. */
    std::string why;
    while (c.records->take (&rec, &why)) {
      gst_cs::ipc::Msg type;
      gst_cs::ipc::Reader body (nullptr, 0);
      if (gst_cs::ipc::parse_header (rec.data (), rec.size (), &type, &body, &why) &&
          type == gst_cs::ipc::Msg::BYE)
        std::printf ("RING-GARBAGE BYE %d: %s\n", i, body.str ().c_str ());
    }
  }
  std::printf ("RING-GARBAGE closed=%d\n", closed);
  return closed == 2 ? 0 : 1;
}

} // namespace

/* A crash prints its stack to stderr, which the test shows: a peer that
 * dies by a signal otherwise leaves only its exit status. */
static void
print_stack_and_die (int sig)
{
  void * frames[64];
  const int n = backtrace (frames, 64);
  backtrace_symbols_fd (frames, n, STDERR_FILENO);
  signal (sig, SIG_DFL);
  raise (sig);
}

void
ignore_signal (int)
{}

/* The threads a signal storm reaches (not the sender): the main thread
 * and every thread given a name of its own (ours, GStreamer's tasks,
 * GLib's, CUDA's). Not those that kept the name they inherited: threads
 * another library starts and does not name, such as compute-sanitizer's
 * in the process it watches (with those signalled too, a consumer under
 * the sanitizer did not connect within 90 s; without, it runs). */
static std::vector<pid_t>
storm_targets (pid_t sender, std::string * names)
{
  auto comm = [] (const std::string & path) {
    gchar * text = NULL;
    std::string name;
    if (g_file_get_contents (path.c_str (), &text, NULL, NULL))
      name = g_strchomp (text);
    g_free (text);
    return name;
  };
  const pid_t pid = getpid ();
  const std::string inherited = comm ("/proc/self/comm");
  std::vector<pid_t> tids;
  names->clear ();
  DIR * d = opendir ("/proc/self/task");
  if (!d)
    return tids;
  while (struct dirent * e = readdir (d)) {
    const pid_t tid = (pid_t)atoi (e->d_name);
    if (tid <= 0 || tid == sender)
      continue;
    const std::string name =
        tid == pid ? inherited
                   : comm ("/proc/self/task/" + std::to_string (tid) + "/comm");
    if (tid != pid && (name.empty () || name == inherited))
      continue;
    tids.push_back (tid);
    *names += (names->empty () ? "" : ",") + name;
  }
  closedir (d);
  return tids;
}

/* --signals: SIGUSR2 every `us` microseconds to each of the threads
 * storm_targets lists (looked at again every 64 signals: threads come,
 * go and take their names), for as long as the process lives. Each new
 * list is printed ("SIGNALS to gcs-ipc-peer,csipc-reader,..."), for the
 * test to see that the IPC elements' threads were among them. */
void
start_signal_storm (guint us)
{
  struct sigaction sa = {};
  sa.sa_handler = ignore_signal;
  sa.sa_flags = 0; /* no SA_RESTART: interrupted calls fail with EINTR */
  sigemptyset (&sa.sa_mask);
  sigaction (SIGUSR2, &sa, NULL);
  std::thread ([us] {
    const pid_t self = (pid_t)syscall (SYS_gettid);
    std::vector<pid_t> tids;
    std::string names, printed;
    for (guint n = 0;; n++) {
      g_usleep (us);
      if (n % 64 == 0) {
        tids = storm_targets (self, &names);
        if (names != printed) {
          std::printf ("SIGNALS to %s\n", names.c_str ());
          std::fflush (stdout);
          printed = names;
        }
      }
      for (pid_t tid : tids)
        syscall (SYS_tgkill, getpid (), tid, SIGUSR2);
    }
  }).detach ();
}

int
main (int argc, char ** argv)
{
  signal (SIGSEGV, print_stack_and_die);
  signal (SIGABRT, print_stack_and_die);
  gst_init (&argc, &argv);
  Options o;
  if (!parse (argc, argv, &o)) {
    std::fprintf (stderr,
        "usage: %s produce|consume|garbage|ring-garbage SOCKET [options]\n", argv[0]);
    return 2;
  }
  o.timeout_s = scaled (o.timeout_s);
  if (o.signals_us)
    start_signal_storm (o.signals_us);
  /* A peer that hangs is a failure, never a hung test. */
  alarm (o.timeout_s + scaled (30));
  if (o.role == "produce")
    return produce (o);
  if (o.role == "consume")
    return consume (o);
  if (o.role == "garbage")
    return garbage (o);
  if (o.role == "ring-garbage")
    return ring_garbage (o);
  std::fprintf (stderr, "unknown role %s\n", o.role.c_str ());
  return 2;
}

/* SPDX-License-Identifier: LGPL-2.1-or-later */
// On a GPU (or the stand-in): cudabatch as a GstAggregator, with the
// behaviours GStreamer's own aggregator tests assert (docs/testing.md,
// "GStreamer's aggregator tests") and those of issue 55:
//  - live sources that all stall, or never send a frame: one pass of the
//    aggregator per interval (counted in its debug log), GAP events that
//    tile the time after stream-start, caps and segment, no spinning core;
//  - one stalled among live sources, an EOS among stalled ones, the last
//    pad released and another added: partial batches, EOS only when every
//    pad ended, no spinning;
//  - a batch's caps and tensor from one reading of the properties and pads
//    (a property set or a pad released while the batch negotiates);
//  - a pad flushed or released while its frame is being batched, a GAP
//    event on a pad, a tag event;
//  - flushing seeks (one FLUSH_START and one FLUSH_STOP downstream, the
//    batches inside the new segment at the running time of their frames),
//    many of them, state changes while streaming;
//  - the LATENCY query: upstream's plus batched-push-timeout, which is
//    GstAggregator's latency under another name; the timeout changed while
//    PLAYING holds for the next batch.
#include <gst/app/gstappsrc.h>
#include <gst/check/gstcheck.h>

#include <atomic>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "gstcudastreams.h"
#include "testutil.h"

namespace {

struct Source {
  const char * format;
  gint w, h;
};

const Source kNv12 = { "NV12", 64, 48 };
const Source kI420 = { "I420", 32, 24 };

std::string
caps_of (const Source & s)
{
  GstVideoInfo info = testutil::video_info (s.format, s.w, s.h);
  GstCaps * caps = gst_video_info_to_caps (&info);
  gchar * c = gst_caps_to_string (caps);
  std::string out = c;
  g_free (c);
  gst_caps_unref (caps);
  return out;
}

/* "cudabatch name=cs `props` ! fakesink name=out" fed by "appsrc name=sI !
 * cudaupload name=upI" per source; live sources stamp their frames with
 * the running time they are pushed at, as a camera does. */
GstElement *
batch_pipeline (const std::vector<Source> & sources, const std::string & props, bool live)
{
  std::string line =
      "cudabatch name=cs " + props + " ! fakesink name=out sync=false async=false";
  for (size_t i = 0; i < sources.size (); i++) {
    const std::string n = std::to_string (i);
    line += " appsrc name=s" + n + " format=time is-live=" + (live ? "true" : "false") +
            (live ? " do-timestamp=true" : "") + " caps=\"" + caps_of (sources[i]) +
            "\" ! cudaupload name=up" + n + " ! cs.sink_" + n;
  }
  GError * err = NULL;
  GstElement * pipeline = gst_parse_launch (line.c_str (), &err);
  fail_unless (pipeline && !err, "%s: %s", line.c_str (), err ? err->message : "");
  return pipeline;
}

GstElement *
source_of (GstElement * pipeline, size_t i)
{
  return testutil::by_name (pipeline, ("s" + std::to_string (i)).c_str ());
}

/* Pushes frame `k` of source `i` (random codes); PTS k/30 where not live. */
void
push_frame (GstElement * pipeline, size_t i, const Source & s, guint k,
    GstBufferFlags flags = (GstBufferFlags)0)
{
  GstVideoInfo info = testutil::video_info (s.format, s.w, s.h);
  GstBuffer * frame = testutil::random_buffer (info.size, (guint32)(1000 * i + k + 1));
  GST_BUFFER_PTS (frame) = k * GST_SECOND / 30;
  GST_BUFFER_DURATION (frame) = GST_SECOND / 30;
  GST_BUFFER_FLAG_SET (frame, flags);
  GstElement * src = source_of (pipeline, i);
  fail_unless_equals_int (
      gst_app_src_push_buffer (GST_APP_SRC (src), frame), GST_FLOW_OK);
  gst_object_unref (src);
}

void
end_source (GstElement * pipeline, size_t i)
{
  GstElement * src = source_of (pipeline, i);
  gst_app_src_end_of_stream (GST_APP_SRC (src));
  gst_object_unref (src);
}

/* --- what reached the sink ------------------------------------------ */

/* One buffer or event at the sink, in order. */
struct Item {
  GstEventType event = GST_EVENT_UNKNOWN; /* UNKNOWN: a buffer */
  GstClockTime pts = GST_CLOCK_TIME_NONE, duration = GST_CLOCK_TIME_NONE;
  gsize size = 0;       /* a buffer's bytes */
  gsize caps_bytes = 0; /* a buffer's: what the caps in use say it holds */
  GstSegment segment;   /* the segment in use (of a buffer or SEGMENT) */
  std::vector<GstCsBatchSlot> slots;
  const GstMemory * memory = nullptr; /* a buffer's: which tensor of the pool */
};

/* The bytes a tensor of `caps` (other/tensors, one static tensor) holds. */
gsize
bytes_of_caps (GstCaps * caps)
{
  const GstStructure * st = gst_caps_get_structure (caps, 0);
  const gchar * dims = gst_structure_get_string (st, "dimensions");
  const gchar * type = gst_structure_get_string (st, "types");
  if (!dims || !type)
    return 0;
  gsize n = g_str_equal (type, "uint8") ? 1 : g_str_equal (type, "float16") ? 2 : 4;
  gchar ** parts = g_strsplit (dims, ":", -1);
  for (gchar ** p = parts; *p; p++)
    n *= g_ascii_strtoull (*p, NULL, 10);
  g_strfreev (parts);
  return n;
}

struct Sink {
  std::mutex lock;
  std::vector<Item> items;
  GstSegment segment;

  Sink () { gst_segment_init (&segment, GST_FORMAT_UNDEFINED); }
  std::vector<Item> snapshot ()
  {
    std::lock_guard<std::mutex> l (lock);
    return items;
  }
  size_t count (GstEventType type)
  {
    std::lock_guard<std::mutex> l (lock);
    size_t n = 0;
    for (const Item & it : items)
      n += it.event == type;
    return n;
  }
};

GstPadProbeReturn
record (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  Sink * sink = static_cast<std::shared_ptr<Sink> *> (data)->get ();
  Item it;
  if (GST_PAD_PROBE_INFO_TYPE (info) & GST_PAD_PROBE_TYPE_BUFFER) {
    GstBuffer * buf = GST_PAD_PROBE_INFO_BUFFER (info);
    it.pts = GST_BUFFER_PTS (buf);
    it.duration = GST_BUFFER_DURATION (buf);
    it.size = gst_buffer_get_size (buf);
    GstCaps * caps = gst_pad_get_current_caps (pad);
    it.caps_bytes = caps ? bytes_of_caps (caps) : 0;
    gst_clear_caps (&caps);
    if (GstCsBatchMeta * m = gst_buffer_get_cs_batch_meta (buf))
      it.slots.assign (m->slots, m->slots + m->n_slots);
    it.memory = gst_buffer_n_memory (buf) ? gst_buffer_peek_memory (buf, 0) : nullptr;
  } else {
    GstEvent * ev = GST_PAD_PROBE_INFO_EVENT (info);
    it.event = GST_EVENT_TYPE (ev);
    if (it.event == GST_EVENT_GAP)
      gst_event_parse_gap (ev, &it.pts, &it.duration);
    if (it.event == GST_EVENT_SEGMENT) {
      const GstSegment * s = NULL;
      gst_event_parse_segment (ev, &s);
      std::lock_guard<std::mutex> l (sink->lock);
      gst_segment_copy_into (s, &sink->segment);
    }
    if (it.event == GST_EVENT_FLUSH_STOP) {
      std::lock_guard<std::mutex> l (sink->lock);
      gst_segment_init (&sink->segment, GST_FORMAT_UNDEFINED);
    }
  }
  std::lock_guard<std::mutex> l (sink->lock);
  it.segment = sink->segment;
  sink->items.push_back (it);
  return GST_PAD_PROBE_OK;
}

/* What reaches the sink of `pipeline`, from now on. The record lives while
 * the probe does, not only while the test holds it: a failed check jumps
 * out of the test (check runs the tests in its own process: CUDA cannot
 * be used in a forked child) and leaves the pipeline playing, whose
 * probe must not then write into the test's stack. */
std::shared_ptr<Sink>
watch_sink (GstElement * pipeline)
{
  auto sink = std::make_shared<Sink> ();
  testutil::add_probe (pipeline, "out", "sink",
      (GstPadProbeType)(GST_PAD_PROBE_TYPE_BUFFER | GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM |
                        GST_PAD_PROBE_TYPE_EVENT_FLUSH),
      record, new std::shared_ptr<Sink> (sink),
      [] (gpointer held) { delete static_cast<std::shared_ptr<Sink> *> (held); });
  return sink;
}

std::vector<Item>
batches_of (const std::vector<Item> & items)
{
  std::vector<Item> out;
  for (const Item & it : items)
    if (it.event == GST_EVENT_UNKNOWN)
      out.push_back (it);
  return out;
}

void
start (GstElement * pipeline)
{
  fail_unless (
      gst_element_set_state (pipeline, GST_STATE_PLAYING) != GST_STATE_CHANGE_FAILURE);
}

void
stop (GstElement * pipeline)
{
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
}

/* --- the aggregator's passes, from its debug log ---------------------- */

/* What the log function below looks for. Static, never freed, and the log
 * function installed once before any thread runs: GStreamer 1.22 frees a
 * log function's entry on removal while other threads may still call it. */
struct Watched {
  std::atomic<GObject *> element{ nullptr };
  std::atomic<guint> passes{ 0 };
  std::atomic<bool> hooked{ false };
  std::mutex lock;
  std::string text;
  std::function<void ()> hook;
};
Watched watched;

/* Every message goes to GStreamer's own log function, but GstAggregator's
 * debug and log lines of a watched element, which are counted (its
 * "Actually aggregating": one aggregate pass each) and may run the
 * watched hook on the thread that logs them. */
void
watch_log (GstDebugCategory * cat, GstDebugLevel level, const gchar * file,
    const gchar * function, gint line, GObject * object, GstDebugMessage * message,
    gpointer)
{
  GObject * element = watched.element.load ();
  if (!element || object != element ||
      !g_str_equal (gst_debug_category_get_name (cat), "aggregator")) {
    gst_debug_log_default (cat, level, file, function, line, object, message, NULL);
    return;
  }
  const gchar * m = gst_debug_message_get (message);
  if (g_str_has_prefix (m, "Actually aggregating"))
    watched.passes++;
  std::function<void ()> hook;
  {
    std::lock_guard<std::mutex> l (watched.lock);
    if (!watched.hook || !strstr (m, watched.text.c_str ()))
      return;
    hook = std::move (watched.hook);
    watched.hook = nullptr;
  }
  hook ();
  watched.hooked = true;
}

/* Before any test: our log function in place of GStreamer's. */
void
install_watch_log ()
{
  gst_debug_remove_log_function (gst_debug_log_default);
  gst_debug_add_log_function (watch_log, NULL, NULL);
}

/* GstAggregator's lines of `element`, watched while a Watch lives: its
 * aggregate passes, and a hook run once on the thread that logs a given
 * message, to act between two steps of that thread as a racing thread
 * could. */
class Watch {
public:
  explicit Watch (GstElement * element)
  {
    watched.passes = 0;
    watched.hooked = false;
    gst_debug_set_threshold_for_name ("aggregator", GST_LEVEL_LOG);
    watched.element = G_OBJECT (element);
  }
  ~Watch ()
  {
    watched.element = nullptr;
    gst_debug_unset_threshold_for_name ("aggregator");
    std::lock_guard<std::mutex> l (watched.lock);
    watched.hook = nullptr;
  }
  Watch (const Watch &) = delete;
  Watch & operator= (const Watch &) = delete;

  guint passes () const { return watched.passes.load (); }
  /* `hook` runs once, on the first message of GstAggregator containing
   * `text` that concerns the element. */
  void once (const char * text, std::function<void ()> hook)
  {
    std::lock_guard<std::mutex> l (watched.lock);
    watched.text = text;
    watched.hook = std::move (hook);
  }
  bool hooked () const { return watched.hooked.load (); }
};

/* Passes of the aggregator over `seconds` now, against what the element
 * may make there: one per `interval` (the timeout), a few more for the
 * edges. */
void
check_sleeps (Watch & w, double seconds, GstClockTime interval, const char * what)
{
  const guint before = w.passes ();
  const gint64 t0 = g_get_monotonic_time ();
  g_usleep ((gulong)(seconds * G_USEC_PER_SEC));
  const double elapsed = (g_get_monotonic_time () - t0) / 1e6;
  const guint passes = w.passes () - before;
  const guint bound = (guint)(elapsed * GST_SECOND / interval) + 4;
  g_print ("%s: %u passes of the aggregator in %.2f s (at most %u)\n", what, passes,
      elapsed, bound);
  fail_unless (passes <= bound,
      "%s: %u passes of the aggregator in %.2f s, more than one per %" GST_TIME_FORMAT
      ": it spins",
      what, passes, elapsed, GST_TIME_ARGS (interval));
}

/* The GAP events after `from`: each begins where the batch or GAP before
 * it ended (they tile the time, which never goes back) and lasts at least
 * `interval` (more where it caught up with the clock). */
size_t
check_gaps (const std::vector<Item> & items, size_t from, GstClockTime interval)
{
  size_t gaps = 0;
  GstClockTime end = GST_CLOCK_TIME_NONE;
  for (size_t i = 0; i < items.size (); i++) {
    const Item & it = items[i];
    if (it.event != GST_EVENT_GAP && it.event != GST_EVENT_UNKNOWN)
      continue;
    if (it.event == GST_EVENT_GAP && i >= from) {
      gaps++;
      fail_unless (GST_CLOCK_TIME_IS_VALID (it.pts), "a GAP without a time");
      fail_unless (it.duration >= interval,
          "a GAP of %" GST_TIME_FORMAT ", shorter than %" GST_TIME_FORMAT,
          GST_TIME_ARGS (it.duration), GST_TIME_ARGS (interval));
      if (GST_CLOCK_TIME_IS_VALID (end))
        fail_unless (it.pts == end,
            "a GAP at %" GST_TIME_FORMAT ", not where the last ended (%" GST_TIME_FORMAT
            ")",
            GST_TIME_ARGS (it.pts), GST_TIME_ARGS (end));
    }
    end = it.pts + it.duration;
  }
  return gaps;
}

/* Stream-start, caps and segment came before the first buffer or GAP. */
void
check_sticky_first (const std::vector<Item> & items)
{
  bool start = false, caps = false, segment = false;
  for (const Item & it : items) {
    start |= it.event == GST_EVENT_STREAM_START;
    caps |= it.event == GST_EVENT_CAPS;
    segment |= it.event == GST_EVENT_SEGMENT;
    if (it.event == GST_EVENT_UNKNOWN || it.event == GST_EVENT_GAP) {
      fail_unless (start && caps && segment,
          "data before stream-start (%d), caps (%d) and segment (%d)", start, caps,
          segment);
      return;
    }
  }
}

} // namespace

/* --- live sources that stall ------------------------------------------ */

/* GStreamer's test_timeout_pipeline, and issue 55: a live source sends 3
 * frames and stalls. Each timeout with nothing queued sends a GAP of one
 * frame interval and moves the position on, so the aggregator sleeps to
 * the next deadline: at most one pass per timeout (one per frame interval
 * in fact), where it woke again at once, for ever, before. */
GST_START_TEST (test_stall_sleeps)
{
  GstElement * pipeline = batch_pipeline ({ kNv12 }, "batched-push-timeout=20000", true);
  std::shared_ptr<Sink> sink = watch_sink (pipeline);
  GstElement * cs = testutil::by_name (pipeline, "cs");
  Watch w (cs);
  start (pipeline);
  for (guint k = 0; k < 3; k++) {
    push_frame (pipeline, 0, kNv12, k);
    g_usleep (G_USEC_PER_SEC / 30);
  }
  testutil::wait_until (
      [&] { return batches_of (sink->snapshot ()).size () == 3; }, "3 batches");
  const size_t before = sink->snapshot ().size ();
  check_sleeps (w, 2.0, 20 * GST_MSECOND, "a live source stalled");
  const std::vector<Item> items = sink->snapshot ();
  fail_unless (check_gaps (items, before, GST_SECOND / 30) > 0, "no GAP in 2 s of stall");
  fail_unless_equals_int (batches_of (items).size (), 3);
  /* The frames come back: batches again. */
  push_frame (pipeline, 0, kNv12, 3);
  testutil::wait_until (
      [&] { return batches_of (sink->snapshot ()).size () == 4; }, "a 4th batch");
  end_source (pipeline, 0);
  testutil::run_to_eos (pipeline, "stall");
  gst_object_unref (cs);
  gst_object_unref (pipeline);
}
GST_END_TEST;

/* A live camera still connecting: no frame ever. The aggregator sleeps a
 * timeout at a time (no frame rate is known yet), sending GAP events
 * after stream-start, caps and segment. */
GST_START_TEST (test_no_frame_sleeps)
{
  GstElement * pipeline = batch_pipeline ({ kNv12 }, "batched-push-timeout=20000", true);
  std::shared_ptr<Sink> sink = watch_sink (pipeline);
  GstElement * cs = testutil::by_name (pipeline, "cs");
  Watch w (cs);
  start (pipeline);
  check_sleeps (w, 1.5, 20 * GST_MSECOND, "no frame yet");
  const std::vector<Item> items = sink->snapshot ();
  check_sticky_first (items);
  fail_unless (check_gaps (items, 0, 20 * GST_MSECOND) > 0, "no GAP event");
  /* The first frame makes a batch; the caps now have its frame rate. */
  push_frame (pipeline, 0, kNv12, 0);
  testutil::wait_until (
      [&] { return batches_of (sink->snapshot ()).size () == 1; }, "a batch");
  const Item b = batches_of (sink->snapshot ())[0];
  fail_unless_equals_uint64 (b.size, b.caps_bytes);
  end_source (pipeline, 0);
  testutil::run_to_eos (pipeline, "no frame");
  gst_object_unref (cs);
  gst_object_unref (pipeline);
}
GST_END_TEST;

/* One live source ends, the other stalls: partial batches of the first,
 * then sleep (no spinning over the ended pad); EOS when both ended. */
GST_START_TEST (test_eos_beside_stalled)
{
  GstElement * pipeline =
      batch_pipeline ({ kNv12, kI420 }, "batch-size=2 batched-push-timeout=20000", true);
  std::shared_ptr<Sink> sink = watch_sink (pipeline);
  GstElement * cs = testutil::by_name (pipeline, "cs");
  Watch w (cs);
  start (pipeline);
  for (guint k = 0; k < 2; k++) {
    push_frame (pipeline, 0, kNv12, k);
    g_usleep (G_USEC_PER_SEC / 30);
  }
  end_source (pipeline, 0);
  testutil::wait_until (
      [&] { return batches_of (sink->snapshot ()).size () == 2; }, "2 batches");
  check_sleeps (w, 1.0, 20 * GST_MSECOND, "one ended, one stalled");
  fail_unless_equals_int (sink->count (GST_EVENT_EOS), 0);
  for (const Item & b : batches_of (sink->snapshot ())) {
    fail_unless (!b.slots[0].empty && b.slots[1].empty);
    fail_unless_equals_uint64 (b.size, b.caps_bytes);
  }
  end_source (pipeline, 1);
  testutil::run_to_eos (pipeline, "eos beside stalled");
  gst_object_unref (cs);
  gst_object_unref (pipeline);
}
GST_END_TEST;

/* "appsrc name=`name` ! cudaupload" for `s`, linked to cudabatch's new
 * pad `pad` while it plays. */
static void
add_source (GstElement * pipeline, GstElement * cs, const Source & s, const char * name,
    const char * pad)
{
  const std::string line = std::string ("appsrc name=") + name +
                           " format=time is-live=true do-timestamp=true caps=\"" +
                           caps_of (s) + "\" ! cudaupload";
  GError * err = NULL;
  GstElement * bin = gst_parse_bin_from_description (line.c_str (), TRUE, &err);
  fail_unless (bin && !err, "%s: %s", line.c_str (), err ? err->message : "");
  gst_bin_add (GST_BIN (pipeline), bin);
  GstPad * sink = gst_element_request_pad_simple (cs, pad);
  GstPad * src = gst_element_get_static_pad (bin, "src");
  fail_unless (sink != NULL && gst_pad_link (src, sink) == GST_PAD_LINK_OK);
  fail_unless (gst_element_sync_state_with_parent (bin));
  gst_object_unref (src);
  gst_object_unref (sink);
}

/* GStreamer's test_add_remove, live: the only pad is released. No pad is
 * no end of stream (pads may come again), and no spinning: the element
 * sleeps; a new pad's frames make batches. */
GST_START_TEST (test_last_pad_released)
{
  GstElement * pipeline = batch_pipeline ({ kNv12 }, "batched-push-timeout=20000", true);
  std::shared_ptr<Sink> sink = watch_sink (pipeline);
  GstElement * cs = testutil::by_name (pipeline, "cs");
  Watch w (cs);
  start (pipeline);
  push_frame (pipeline, 0, kNv12, 0);
  testutil::wait_until (
      [&] { return batches_of (sink->snapshot ()).size () == 1; }, "a batch");
  GstPad * pad = gst_element_get_static_pad (cs, "sink_0");
  GstPad * peer = gst_pad_get_peer (pad);
  gst_pad_unlink (peer, pad);
  gst_element_release_request_pad (cs, pad);
  gst_object_unref (pad);
  gst_object_unref (peer);
  check_sleeps (w, 1.0, 20 * GST_MSECOND, "no pad");
  fail_unless_equals_int (sink->count (GST_EVENT_EOS), 0);
  add_source (pipeline, cs, kI420, "late", "sink_1");
  GstElement * late = testutil::by_name (pipeline, "late");
  GstVideoInfo info = testutil::video_info (kI420.format, kI420.w, kI420.h);
  gst_app_src_push_buffer (GST_APP_SRC (late), testutil::random_buffer (info.size, 5));
  testutil::wait_until ([&] { return batches_of (sink->snapshot ()).size () == 2; },
      "a batch of the new pad");
  const Item b = batches_of (sink->snapshot ())[1];
  fail_unless_equals_int (b.slots.size (), 1);
  fail_unless_equals_int (b.slots[0].pad_index, 1);
  gst_app_src_end_of_stream (GST_APP_SRC (late));
  end_source (pipeline, 0); /* its appsrc is still there, unlinked */
  testutil::run_to_eos (pipeline, "last pad released");
  gst_object_unref (late);
  gst_object_unref (cs);
  gst_object_unref (pipeline);
}
GST_END_TEST;

/* batched-push-timeout changed while PLAYING holds for the batch waiting:
 * from a minute to 20 ms, the partial batch goes out. */
GST_START_TEST (test_timeout_changed_while_playing)
{
  GstElement * pipeline = batch_pipeline (
      { kNv12, kI420 }, "batch-size=2 batched-push-timeout=60000000", true);
  std::shared_ptr<Sink> sink = watch_sink (pipeline);
  GstElement * cs = testutil::by_name (pipeline, "cs");
  start (pipeline);
  push_frame (pipeline, 0, kNv12, 0);
  g_usleep (G_USEC_PER_SEC / 2);
  fail_unless_equals_int (batches_of (sink->snapshot ()).size (), 0);
  g_object_set (cs, "batched-push-timeout", (guint64)20000, NULL);
  testutil::wait_until (
      [&] { return batches_of (sink->snapshot ()).size () == 1; }, "the partial batch");
  const Item b = batches_of (sink->snapshot ())[0];
  fail_unless (!b.slots[0].empty && b.slots[1].empty);
  end_source (pipeline, 0);
  end_source (pipeline, 1);
  testutil::run_to_eos (pipeline, "timeout changed");
  gst_object_unref (cs);
  gst_object_unref (pipeline);
}
GST_END_TEST;

/* --- one reading per batch -------------------------------------------- */

/* Every batch's bytes are what its caps say. */
static void
check_caps_match (const std::vector<Item> & batches, const char * what)
{
  for (size_t k = 0; k < batches.size (); k++)
    fail_unless (batches[k].size == batches[k].caps_bytes,
        "%s: batch %zu has %zu bytes, its caps say %zu", what, k, batches[k].size,
        batches[k].caps_bytes);
}

/* Both sources' frame `k`, and waits for the batch they make. */
static void
push_both (GstElement * pipeline, Sink * sink, guint k, size_t batches)
{
  push_frame (pipeline, 1, kI420, k);
  push_frame (pipeline, 0, kNv12, k);
  testutil::wait_until (
      [&] { return batches_of (sink->snapshot ()).size () == batches; }, "a batch");
}

/* After a first batch, width is set between batches, so that the second
 * batch renegotiates its caps from inside the element's pass; `hook` runs
 * while it does, on its thread (between the element's reading of the
 * properties and pads and GstAggregator asking it for caps, or popping the
 * chosen frames). */
static void
race_second_batch (
    GstElement * pipeline, Sink * sink, Watch & w, std::function<void ()> hook)
{
  GstElement * cs = testutil::by_name (pipeline, "cs");
  start (pipeline);
  push_both (pipeline, sink, 0, 1);
  g_object_set (cs, "width", 48, NULL);
  w.once ("updating caps from", std::move (hook));
  push_both (pipeline, sink, 1, 2);
  fail_unless (w.hooked ());
  gst_object_unref (cs);
}

/* Issue 55: width, then height set while PLAYING, height while the batch
 * negotiates. The batch and its caps are of one reading (48 x 24), the
 * next batch of the new height (48 x 36), never caps of 36 rows on 24 rows'
 * bytes. */
GST_START_TEST (test_caps_of_one_reading)
{
  GstElement * pipeline =
      batch_pipeline ({ kNv12, kI420 }, "width=32 height=24 dtype=float32", false);
  std::shared_ptr<Sink> sink = watch_sink (pipeline);
  GstElement * cs = testutil::by_name (pipeline, "cs");
  Watch w (cs);
  race_second_batch (
      pipeline, sink.get (), w, [cs] { g_object_set (cs, "height", 36, NULL); });
  push_both (pipeline, sink.get (), 2, 3);
  end_source (pipeline, 0);
  end_source (pipeline, 1);
  testutil::run_to_eos (pipeline, "height set while negotiating");
  const std::vector<Item> batches = batches_of (sink->snapshot ());
  fail_unless_equals_int (batches.size (), 3);
  check_caps_match (batches, "height set while negotiating");
  fail_unless_equals_uint64 (batches[0].size, 2 * 3 * 32 * 24 * 4);
  fail_unless_equals_uint64 (batches[1].size, 2 * 3 * 48 * 24 * 4);
  fail_unless_equals_uint64 (batches[2].size, 2 * 3 * 48 * 36 * 4);
  gst_object_unref (cs);
  gst_object_unref (pipeline);
}
GST_END_TEST;

/* GStreamer's test_remove_pad_on_aggregate, and issue 55 (batch-size 0):
 * sink_1 is released while the batch that took its frame negotiates.
 * GstAggregator hands over a frame the element peeked whatever happened to
 * its pad since, so the batch goes out as planned, both frames in it, with
 * caps of its 2 slots (not of the one pad left); the next batch has one
 * slot. */
GST_START_TEST (test_pad_released_while_batching)
{
  GstElement * pipeline = batch_pipeline ({ kNv12, kI420 }, "width=32 height=24", false);
  std::shared_ptr<Sink> sink = watch_sink (pipeline);
  GstElement * cs = testutil::by_name (pipeline, "cs");
  GstPad * pad1 = gst_element_get_static_pad (cs, "sink_1");
  Watch w (cs);
  race_second_batch (pipeline, sink.get (), w, [cs, pad1] {
    GstPad * peer = gst_pad_get_peer (pad1);
    gst_pad_unlink (peer, pad1);
    gst_object_unref (peer);
    gst_element_release_request_pad (cs, pad1);
  });
  push_frame (pipeline, 0, kNv12, 2);
  end_source (pipeline, 0);
  testutil::run_to_eos (pipeline, "pad released while batching");
  const std::vector<Item> batches = batches_of (sink->snapshot ());
  fail_unless_equals_int (batches.size (), 3);
  check_caps_match (batches, "pad released while batching");
  fail_unless_equals_int (batches[1].slots.size (), 2);
  fail_unless (!batches[1].slots[0].empty && !batches[1].slots[1].empty);
  fail_unless_equals_int (batches[2].slots.size (), 1);
  end_source (pipeline, 1);
  gst_object_unref (pad1);
  gst_object_unref (cs);
  gst_object_unref (pipeline);
}
GST_END_TEST;

/* Flushes source `src` (FLUSH_START, then FLUSH_STOP, through its
 * cudaupload), as a source does for a seek of its own. */
static void
flush_source (GstElement * src)
{
  fail_unless (gst_element_send_event (src, gst_event_new_flush_start ()));
  fail_unless (gst_element_send_event (src, gst_event_new_flush_stop (FALSE)));
}

/* GStreamer's test_flush_on_aggregate: source 1 flushes on its own (the
 * other streams on) while the batch that took its frame negotiates. The
 * frame the element peeked is still handed over (GstAggregator promises
 * it), so that batch is whole; the pad's next frame, which comes after the
 * flush reset the pad's segment, is batched too. */
GST_START_TEST (test_flush_while_batching)
{
  GstElement * pipeline = batch_pipeline ({ kNv12, kI420 }, "batch-size=2", false);
  std::shared_ptr<Sink> sink = watch_sink (pipeline);
  GstElement * cs = testutil::by_name (pipeline, "cs");
  GstElement * s1 = source_of (pipeline, 1);
  Watch w (cs);
  race_second_batch (pipeline, sink.get (), w, [s1] { flush_source (s1); });
  push_both (pipeline, sink.get (), 2, 3);
  end_source (pipeline, 0);
  end_source (pipeline, 1);
  testutil::run_to_eos (pipeline, "flush while batching");
  const std::vector<Item> batches = batches_of (sink->snapshot ());
  fail_unless_equals_int (batches.size (), 3);
  for (const Item & b : batches)
    fail_unless (!b.slots[0].empty && !b.slots[1].empty);
  check_caps_match (batches, "flush while batching");
  gst_object_unref (s1);
  gst_object_unref (cs);
  gst_object_unref (pipeline);
}
GST_END_TEST;

/* --- events on the inputs --------------------------------------------- */

/* Turns frames flagged GAP into GAP events for their time, as a source
 * with nothing to show sends them. */
static GstPadProbeReturn
frames_to_gaps (GstPad * pad, GstPadProbeInfo * info, gpointer)
{
  GstBuffer * buf = GST_PAD_PROBE_INFO_BUFFER (info);
  if (!GST_BUFFER_FLAG_IS_SET (buf, GST_BUFFER_FLAG_GAP))
    return GST_PAD_PROBE_OK;
  gst_pad_push_event (
      pad, gst_event_new_gap (GST_BUFFER_PTS (buf), GST_BUFFER_DURATION (buf)));
  return GST_PAD_PROBE_DROP;
}

/* A tensor goes back to its pool with its batch meta (pooled): a batch
 * made in it again shows nothing of the last one's slots. The sink lets
 * each batch go before the next is made (no last sample), so the second,
 * with nothing from sink_1, is made in the first's tensor. */
GST_START_TEST (test_reused_tensor_shows_no_old_slot)
{
  GstElement * pipeline = batch_pipeline ({ kNv12, kI420 }, "batch-size=2", false);
  GstElement * out = gst_bin_get_by_name (GST_BIN (pipeline), "out");
  g_object_set (out, "enable-last-sample", FALSE, NULL);
  gst_object_unref (out);
  std::shared_ptr<Sink> sink = watch_sink (pipeline);
  testutil::add_probe (
      pipeline, "s1", "src", GST_PAD_PROBE_TYPE_BUFFER, frames_to_gaps, NULL);
  start (pipeline);
  const GstBufferFlags gap = GST_BUFFER_FLAG_GAP, none = (GstBufferFlags)0;
  for (guint k = 0; k < 2; k++)
    for (size_t i = 0; i < 2; i++)
      push_frame (pipeline, i, i ? kI420 : kNv12, k, k && i ? gap : none);
  end_source (pipeline, 0);
  end_source (pipeline, 1);
  testutil::run_to_eos (pipeline, "a partial batch after a full one");
  const std::vector<Item> batches = batches_of (sink->snapshot ());
  fail_unless_equals_int (batches.size (), 2);
  fail_unless (batches[1].memory == batches[0].memory,
      "the second batch was not made in the first's tensor: the test shows nothing");
  const GstCsBatchSlot &was = batches[0].slots[1], &now = batches[1].slots[1];
  fail_unless (!was.empty && was.source_width == kI420.w && was.pad_name != 0);
  fail_unless (now.empty);
  fail_unless_equals_int (now.pad_index, 0);
  fail_unless_equals_int (now.pad_name, 0);
  fail_unless_equals_uint64 (now.pts, GST_CLOCK_TIME_NONE);
  fail_unless_equals_int (now.source_width, 0);
  fail_unless_equals_int (now.source_height, 0);
  fail_unless (now.scale_x == 1.0 && now.scale_y == 1.0);
  fail_unless (now.offset_x == 0.0 && now.offset_y == 0.0);
  fail_unless (!batches[1].slots[0].empty);
  stop (pipeline);
}
GST_END_TEST;

/* GStreamer's test_aggregate_gap: GstAggregator hands a pad's GAP event to
 * the element as an empty buffer flagged GAP. Where one pad sends a GAP
 * its slot is empty; where both do, the GAP goes downstream (no tensor of
 * empty slots); a tag event on the way holds nothing up. */
GST_START_TEST (test_gap_events_on_pads)
{
  GstElement * pipeline = batch_pipeline ({ kNv12, kI420 }, "batch-size=2", false);
  std::shared_ptr<Sink> sink = watch_sink (pipeline);
  for (const char * src : { "s0", "s1" })
    testutil::add_probe (
        pipeline, src, "src", GST_PAD_PROBE_TYPE_BUFFER, frames_to_gaps, NULL);
  start (pipeline);
  GstElement * s0 = source_of (pipeline, 0);
  fail_unless (gst_element_send_event (
      s0, gst_event_new_tag (gst_tag_list_new (GST_TAG_TITLE, "camera 0", NULL))));
  gst_object_unref (s0);
  /* frame 1: sink_1 has nothing to show; frame 2: neither has */
  const GstBufferFlags gap = GST_BUFFER_FLAG_GAP, none = (GstBufferFlags)0;
  const GstBufferFlags flags[4][2] = { { none, none }, { none, gap }, { gap, gap },
    { none, none } };
  for (guint k = 0; k < 4; k++)
    for (size_t i = 0; i < 2; i++)
      push_frame (pipeline, i, i ? kI420 : kNv12, k, flags[k][i]);
  end_source (pipeline, 0);
  end_source (pipeline, 1);
  testutil::run_to_eos (pipeline, "GAP events");
  const std::vector<Item> items = sink->snapshot ();
  const std::vector<Item> batches = batches_of (items);
  fail_unless_equals_int (batches.size (), 3);
  fail_unless (!batches[0].slots[0].empty && !batches[0].slots[1].empty);
  fail_unless (!batches[1].slots[0].empty && batches[1].slots[1].empty);
  fail_unless (!batches[2].slots[0].empty && !batches[2].slots[1].empty);
  fail_unless_equals_uint64 (batches[2].pts, 3 * GST_SECOND / 30);
  size_t gaps = 0;
  for (const Item & it : items)
    if (it.event == GST_EVENT_GAP) {
      gaps++;
      fail_unless_equals_uint64 (it.pts, 2 * GST_SECOND / 30);
      fail_unless_equals_uint64 (
          it.pts + it.duration, 2 * GST_SECOND / 30 + GST_SECOND / 30);
    }
  fail_unless_equals_int (gaps, 1);
  stop (pipeline);
}
GST_END_TEST;

/* --- seeks and state changes ------------------------------------------ */

/* Two videotestsrc into cudabatch. */
static GstElement *
seekable_pipeline (const char * props, bool live)
{
  std::string line =
      std::string ("cudabatch name=cs ") + props + " ! fakesink name=out sync=false";
  for (int i = 0; i < 2; i++)
    line += std::string (" videotestsrc is-live=") + (live ? "true" : "false") +
            " ! video/x-raw,format=NV12,width=64,height=48,framerate=30/1 ! cudaupload"
            " ! cs.sink_" +
            std::to_string (i);
  GstElement * pipeline = gst_parse_launch (line.c_str (), NULL);
  fail_unless (pipeline != NULL, "%s", line.c_str ());
  return pipeline;
}

static void
wait_state (GstElement * pipeline, GstState state)
{
  GstState now = GST_STATE_VOID_PENDING;
  fail_unless (gst_element_get_state (pipeline, &now, NULL, 60 * GST_SECOND) !=
                   GST_STATE_CHANGE_FAILURE &&
               now == state);
}

/* GStreamer's test_flushing_seek: a flushing seek to [2 s, 3 s) through
 * cudabatch. One FLUSH_START and one FLUSH_STOP reach downstream; every
 * batch after it lies in the new segment, stamped with the position of its
 * frames' running time there (2 s + k/30), 30 of them, then EOS. */
GST_START_TEST (test_flushing_seek)
{
  GstElement * pipeline = seekable_pipeline ("batch-size=2", false);
  std::shared_ptr<Sink> sink = watch_sink (pipeline);
  fail_unless (
      gst_element_set_state (pipeline, GST_STATE_PAUSED) != GST_STATE_CHANGE_FAILURE);
  wait_state (pipeline, GST_STATE_PAUSED);
  const size_t before = sink->snapshot ().size ();
  fail_unless (gst_element_seek (pipeline, 1.0, GST_FORMAT_TIME,
      (GstSeekFlags)(GST_SEEK_FLAG_FLUSH | GST_SEEK_FLAG_ACCURATE), GST_SEEK_TYPE_SET,
      2 * GST_SECOND, GST_SEEK_TYPE_SET, 3 * GST_SECOND));
  wait_state (pipeline, GST_STATE_PAUSED);
  start (pipeline);
  testutil::run_to_eos (pipeline, "flushing seek");
  const std::vector<Item> all = sink->snapshot ();
  const std::vector<Item> after (all.begin () + before, all.end ());
  size_t starts = 0, stops = 0;
  for (const Item & it : after) {
    starts += it.event == GST_EVENT_FLUSH_START;
    stops += it.event == GST_EVENT_FLUSH_STOP;
  }
  fail_unless_equals_int (starts, 1);
  fail_unless_equals_int (stops, 1);
  size_t k = 0;
  bool flushed = false;
  for (const Item & it : after) {
    flushed |= it.event == GST_EVENT_FLUSH_STOP;
    if (!flushed || it.event != GST_EVENT_UNKNOWN)
      continue;
    guint64 cstart, cstop;
    fail_unless (gst_segment_clip (&it.segment, GST_FORMAT_TIME, it.pts,
                     it.pts + it.duration, &cstart, &cstop),
        "batch %zu at %" GST_TIME_FORMAT " outside its segment [%" GST_TIME_FORMAT
        ", %" GST_TIME_FORMAT ")",
        k, GST_TIME_ARGS (it.pts), GST_TIME_ARGS (it.segment.start),
        GST_TIME_ARGS (it.segment.stop));
    fail_unless_equals_uint64 (it.pts, 2 * GST_SECOND + k * GST_SECOND / 30);
    fail_unless_equals_uint64 (
        gst_segment_to_running_time (&it.segment, GST_FORMAT_TIME, it.pts),
        k * GST_SECOND / 30);
    k++;
  }
  fail_unless_equals_int (k, 30);
  gst_object_unref (pipeline);
}
GST_END_TEST;

/* GStreamer's test_infinite_seek (live and not): flushing seeks while
 * playing, one after another; batches go on after each, no error, no
 * hang. */
static void
seek_again_and_again (bool live)
{
  GstElement * pipeline = seekable_pipeline ("batched-push-timeout=20000", live);
  std::shared_ptr<Sink> sink = watch_sink (pipeline);
  start (pipeline);
  wait_state (pipeline, GST_STATE_PLAYING);
  GstBus * bus = gst_element_get_bus (pipeline);
  for (int i = 0; i < 20; i++) {
    const size_t seen = batches_of (sink->snapshot ()).size ();
    testutil::wait_until (
        [&] { return batches_of (sink->snapshot ()).size () > seen; }, "a batch");
    const gboolean seeked = gst_element_seek_simple (pipeline, GST_FORMAT_TIME,
        (GstSeekFlags)(GST_SEEK_FLAG_FLUSH | GST_SEEK_FLAG_ACCURATE), 0);
    fail_unless (seeked || live, "seek %d refused", i);
    GstMessage * error = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
    fail_if (error != NULL, "an error after seek %d", i);
  }
  const size_t seen = batches_of (sink->snapshot ()).size ();
  testutil::wait_until (
      [&] { return batches_of (sink->snapshot ()).size () > seen; }, "a last batch");
  gst_object_unref (bus);
  stop (pipeline);
}

GST_START_TEST (test_seek_again_and_again)
{
  seek_again_and_again (false);
  seek_again_and_again (true);
}
GST_END_TEST;

/* GStreamer's test_change_state_intensive: state changes one after another
 * while frames flow; each state is reached. */
GST_START_TEST (test_state_changes)
{
  GstElement * pipeline = seekable_pipeline ("", false);
  const GstState states[] = { GST_STATE_PLAYING, GST_STATE_NULL, GST_STATE_PAUSED,
    GST_STATE_READY, GST_STATE_PLAYING, GST_STATE_PAUSED, GST_STATE_PLAYING,
    GST_STATE_READY, GST_STATE_PAUSED, GST_STATE_NULL, GST_STATE_PLAYING,
    GST_STATE_NULL };
  for (GstState s : states) {
    fail_unless (gst_element_set_state (pipeline, s) != GST_STATE_CHANGE_FAILURE);
    wait_state (pipeline, s);
  }
  gst_object_unref (pipeline);
}
GST_END_TEST;

/* --- latency ---------------------------------------------------------- */

/* The LATENCY answer of `pad`: live, min and max. */
static void
query_latency (GstPad * pad, gboolean * live, GstClockTime * min, GstClockTime * max)
{
  GstQuery * q = gst_query_new_latency ();
  fail_unless (gst_pad_query (pad, q));
  gst_query_parse_latency (q, live, min, max);
  gst_query_unref (q);
}

/* cudabatch answers the LATENCY query with what it holds: upstream's
 * latency and batched-push-timeout, which is GstAggregator's latency
 * under another name (setting either sets both, and posts a LATENCY
 * message where it changed). */
GST_START_TEST (test_latency)
{
  GstElement * pipeline = batch_pipeline ({ kNv12 }, "batched-push-timeout=20000", true);
  GstElement * src = source_of (pipeline, 0);
  g_object_set (src, "min-latency", (gint64)(10 * GST_MSECOND), NULL);
  GstElement * cs = testutil::by_name (pipeline, "cs");
  GstElement * up = testutil::by_name (pipeline, "up0");
  start (pipeline);
  wait_state (pipeline, GST_STATE_PLAYING);
  GstPad * up_src = gst_element_get_static_pad (up, "src");
  GstPad * cs_src = gst_element_get_static_pad (cs, "src");
  gboolean live = FALSE;
  GstClockTime up_min, up_max, min, max;
  query_latency (up_src, &live, &up_min, &up_max);
  fail_unless (live);
  fail_unless (up_min >= 10 * GST_MSECOND);
  query_latency (cs_src, &live, &min, &max);
  fail_unless (live);
  fail_unless_equals_uint64 (min, up_min + 20 * GST_MSECOND);
  if (GST_CLOCK_TIME_IS_VALID (up_max))
    fail_unless_equals_uint64 (max, up_max + 20 * GST_MSECOND);
  /* GstAggregator's latency is the timeout */
  g_object_set (cs, "latency", (guint64)(50 * GST_MSECOND), NULL);
  guint64 timeout = 0;
  g_object_get (cs, "batched-push-timeout", &timeout, NULL);
  fail_unless_equals_uint64 (timeout, 50000);
  query_latency (cs_src, &live, &min, &max);
  fail_unless_equals_uint64 (min, up_min + 50 * GST_MSECOND);
  /* and the timeout GstAggregator's latency, with a LATENCY message */
  GstBus * bus = gst_element_get_bus (pipeline);
  gst_bus_set_flushing (bus, TRUE);
  gst_bus_set_flushing (bus, FALSE);
  g_object_set (cs, "batched-push-timeout", (guint64)30000, NULL);
  guint64 latency = 0;
  g_object_get (cs, "latency", &latency, NULL);
  fail_unless_equals_uint64 (latency, 30 * GST_MSECOND);
  query_latency (cs_src, &live, &min, &max);
  fail_unless_equals_uint64 (min, up_min + 30 * GST_MSECOND);
  GstMessage * m = gst_bus_pop_filtered (bus, GST_MESSAGE_LATENCY);
  fail_unless (m != NULL, "no LATENCY message for the new timeout");
  gst_message_unref (m);
  gst_object_unref (bus);
  gst_object_unref (cs_src);
  gst_object_unref (up_src);
  gst_object_unref (up);
  gst_object_unref (cs);
  gst_object_unref (src);
  stop (pipeline);
}
GST_END_TEST;

static Suite *
batch_aggregator_gpu_suite (void)
{
  install_watch_log ();
  Suite * s = suite_create ("batch_aggregator_gpu");
  TCase * tc = tcase_create ("gpu");
  tcase_set_timeout (tc, 300);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_stall_sleeps);
  tcase_add_test (tc, test_no_frame_sleeps);
  tcase_add_test (tc, test_eos_beside_stalled);
  tcase_add_test (tc, test_last_pad_released);
  tcase_add_test (tc, test_timeout_changed_while_playing);
  tcase_add_test (tc, test_caps_of_one_reading);
  tcase_add_test (tc, test_pad_released_while_batching);
  tcase_add_test (tc, test_flush_while_batching);
  tcase_add_test (tc, test_gap_events_on_pads);
  tcase_add_test (tc, test_reused_tensor_shows_no_old_slot);
  tcase_add_test (tc, test_flushing_seek);
  tcase_add_test (tc, test_seek_again_and_again);
  tcase_add_test (tc, test_state_changes);
  tcase_add_test (tc, test_latency);
  return s;
}

TESTUTIL_GPU_CHECK_MAIN (batch_aggregator_gpu);

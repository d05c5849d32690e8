/* SPDX-License-Identifier: LGPL-2.1-or-later */
// On a GPU (and on the CUDA stand-in): cudadownload lets each frame go as
// soon as its copy is done, whether or not another frame comes, with any
// max-in-flight; frames leave in order; a flush, a state change or EOS with
// copies in flight pushes nothing it should not and keeps nothing it should
// not; a flow error downstream reaches upstream or the bus.
#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "testutil.h"

static const char * kCaps = "video/x-raw,format=NV12,width=64,height=48,framerate=30/1";
static const gsize kFrameBytes = 64 * 48 * 3 / 2;
static const GstClockTime kFrame = GST_SECOND / 30;
/* How long a test waits for what must happen before it says it did not:
 * a frame of this size takes microseconds. Not a timing: only a failure
 * waits this long. */
static const int kPatienceSeconds = 10;

/* Frame `i`: random bytes, PTS i frames. */
static GstBuffer *
frame (int i)
{
  GstBuffer * b = testutil::random_buffer (kFrameBytes, 100 + i);
  GST_BUFFER_PTS (b) = i * kFrame;
  GST_BUFFER_DURATION (b) = kFrame;
  return b;
}

static void
expect_same (GstBuffer * in, GstBuffer * out, const char * what, int i)
{
  fail_unless_equals_uint64 (GST_BUFFER_PTS (out), GST_BUFFER_PTS (in));
  GstMapInfo map;
  fail_unless (gst_buffer_map (in, &map, GST_MAP_READ));
  fail_unless (gst_buffer_get_size (out) == map.size &&
                   gst_buffer_memcmp (out, 0, map.data, map.size) == 0,
      "%s: frame %d differs", what, i);
  gst_buffer_unmap (in, &map);
}

/* The next frame out of `h`, or NULL when none comes. */
static GstBuffer *
pull_within (GstHarness * h)
{
  const gint64 until = g_get_monotonic_time () + kPatienceSeconds * G_TIME_SPAN_SECOND;
  GstBuffer * b = NULL;
  while (!(b = gst_harness_try_pull (h)) && g_get_monotonic_time () < until)
    g_usleep (1000);
  return b;
}

/* Request and response: an application pushes a frame and waits for its
 * copy, and pushes the next only then. No further frame and no EOS comes
 * to push the first one out. */
static void
frame_alone_case (const char * props)
{
  gchar * desc = g_strdup_printf ("appsrc name=src format=time caps=\"%s\" ! "
                                  "cudaupload ! cudadownload name=down %s ! "
                                  "appsink name=out sync=false",
      kCaps, props);
  GstElement * pipeline = gst_parse_launch (desc, NULL);
  fail_unless (pipeline != NULL, "%s", desc);
  g_free (desc);
  GstElement * src = testutil::by_name (pipeline, "src");
  GstElement * out = testutil::by_name (pipeline, "out");
  GstElement * down = testutil::by_name (pipeline, "down");
  fail_unless (
      gst_element_set_state (pipeline, GST_STATE_PLAYING) != GST_STATE_CHANGE_FAILURE);
  for (int i = 0; i < 3; i++) {
    GstBuffer * in = frame (i);
    fail_unless_equals_int (
        gst_app_src_push_buffer (GST_APP_SRC (src), gst_buffer_ref (in)), GST_FLOW_OK);
    GstSample * s =
        gst_app_sink_try_pull_sample (GST_APP_SINK (out), kPatienceSeconds * GST_SECOND);
    fail_unless (s != NULL, "'%s': frame %d did not come out alone", props, i);
    expect_same (in, gst_sample_get_buffer (s), props, i);
    /* One host wait per frame, for its copy. */
    fail_unless_equals_uint64 (testutil::host_waits (down), i + 1);
    gst_sample_unref (s);
    gst_buffer_unref (in);
  }
  fail_unless_equals_int (gst_app_src_end_of_stream (GST_APP_SRC (src)), GST_FLOW_OK);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (down);
  gst_object_unref (out);
  gst_object_unref (src);
  gst_object_unref (pipeline);
}

GST_START_TEST (test_frame_alone_comes_out)
{
  for (const char * props :
      { "", "max-in-flight=0", "max-in-flight=3", "max-in-flight=16", "spin-wait=true" })
    frame_alone_case (props);
}
GST_END_TEST;

/* More frames than may be in flight, pushed at once, then pulled, without
 * an EOS behind them: all come out, in order. */
GST_START_TEST (test_frames_in_order)
{
  const int frames = 20;
  for (int in_flight : { 3, 16 }) {
    gchar * line =
        g_strdup_printf ("cudaupload ! cudadownload max-in-flight=%d", in_flight);
    GstHarness * h = testutil::harness_parse_ours (line);
    gst_harness_set_src_caps_str (h, kCaps);
    std::vector<GstBuffer *> in;
    for (int i = 0; i < frames; i++) {
      in.push_back (frame (i));
      fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in[i])), GST_FLOW_OK);
    }
    for (int i = 0; i < frames; i++) {
      GstBuffer * out = pull_within (h);
      fail_unless (out != NULL, "%s: frame %d of %d did not come out", line, i, frames);
      expect_same (in[i], out, line, i);
      gst_buffer_unref (out);
    }
    for (GstBuffer * b : in)
      gst_buffer_unref (b);
    gst_harness_teardown (h);
    g_free (line);
  }
}
GST_END_TEST;

/* Holds the frames cudadownload pushes (a blocking probe on its src pad)
 * and says when the first is held: the copies behind it stay in flight
 * until the probe goes, or a flush or a state change releases the pad. */
struct Gate {
  std::mutex lock;
  std::condition_variable cond;
  int arrived = 0;
  GstPad * pad = nullptr;
  gulong id = 0;

  explicit Gate (GstHarness * h)
  {
    GstElement * down = testutil::by_name (h->element, "down");
    pad = gst_element_get_static_pad (down, "src");
    gst_object_unref (down);
    id = gst_pad_add_probe (pad,
        (GstPadProbeType)(GST_PAD_PROBE_TYPE_BLOCK | GST_PAD_PROBE_TYPE_BUFFER), arrive,
        this, NULL);
  }
  ~Gate ()
  {
    open ();
    gst_object_unref (pad);
  }
  static GstPadProbeReturn arrive (GstPad *, GstPadProbeInfo *, gpointer data)
  {
    auto * g = static_cast<Gate *> (data);
    {
      std::lock_guard<std::mutex> hold (g->lock);
      g->arrived++;
    }
    g->cond.notify_all ();
    return GST_PAD_PROBE_OK; /* stays blocked */
  }
  bool wait_first ()
  {
    std::unique_lock<std::mutex> hold (lock);
    return cond.wait_for (
        hold, std::chrono::seconds (kPatienceSeconds), [this] { return arrived > 0; });
  }
  void open ()
  {
    if (id)
      gst_pad_remove_probe (pad, id);
    id = 0;
  }
};

/* A harness of cudaupload ! cudadownload with four frames pushed: the first
 * held at the gate, the copies of the other three in flight behind it. */
static GstHarness *
four_in_flight (std::vector<GstBuffer *> * in, Gate ** gate)
{
  GstHarness * h = testutil::harness_parse_ours (
      "cudaupload ! cudadownload name=down max-in-flight=4");
  gst_harness_set_src_caps_str (h, kCaps);
  *gate = new Gate (h);
  for (int i = 0; i < 4; i++) {
    in->push_back (frame (i));
    fail_unless_equals_int (
        gst_harness_push (h, gst_buffer_ref (in->back ())), GST_FLOW_OK);
  }
  fail_unless ((*gate)->wait_first (), "frame 0 did not leave cudadownload");
  return h;
}

static void
unref_all (std::vector<GstBuffer *> & buffers)
{
  for (GstBuffer * b : buffers)
    gst_buffer_unref (b);
  buffers.clear ();
}

/* The buffers and events that reach the harness's sink pad, in order:
 * "B<frame>" and the events' names. */
struct Arrivals {
  std::mutex lock;
  std::vector<std::string> seen;

  static GstPadProbeReturn note (GstPad *, GstPadProbeInfo * info, gpointer data)
  {
    auto * a = static_cast<Arrivals *> (data);
    std::string what;
    if (GST_PAD_PROBE_INFO_TYPE (info) & GST_PAD_PROBE_TYPE_BUFFER)
      what = "B" +
             std::to_string (GST_BUFFER_PTS (GST_PAD_PROBE_INFO_BUFFER (info)) / kFrame);
    else
      what = GST_EVENT_TYPE_NAME (GST_PAD_PROBE_INFO_EVENT (info));
    std::lock_guard<std::mutex> hold (a->lock);
    a->seen.push_back (what);
    return GST_PAD_PROBE_OK;
  }
  std::string list ()
  {
    std::lock_guard<std::mutex> hold (lock);
    std::string s;
    for (const std::string & w : seen)
      s += (s.empty () ? "" : " ") + w;
    return s;
  }
};

/* A flush with copies in flight: the frame in the push is refused, the
 * three behind it are dropped; after FLUSH_STOP the next frame comes out,
 * alone, and no old one follows it. */
GST_START_TEST (test_flush_with_copies_in_flight)
{
  std::vector<GstBuffer *> in;
  Gate * gate = NULL;
  GstHarness * h = four_in_flight (&in, &gate);
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_start ()));
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_stop (TRUE)));
  gate->open ();
  GstSegment segment;
  gst_segment_init (&segment, GST_FORMAT_TIME);
  fail_unless (gst_harness_push_event (h, gst_event_new_segment (&segment)));
  GstBuffer * next = frame (100);
  fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (next)), GST_FLOW_OK);
  GstBuffer * out = pull_within (h);
  fail_unless (out != NULL, "the frame after the flush did not come out");
  expect_same (next, out, "after the flush", 100);
  gst_buffer_unref (out);
  /* Everything before EOS has arrived once EOS has. */
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  GstEvent * e = NULL;
  while ((e = gst_harness_try_pull_event (h)) && GST_EVENT_TYPE (e) != GST_EVENT_EOS)
    gst_event_unref (e);
  fail_unless (e != NULL, "no EOS");
  gst_event_unref (e);
  fail_unless_equals_int (gst_harness_buffers_received (h), 1);
  gst_buffer_unref (next);
  unref_all (in);
  delete gate;
  gst_harness_teardown (h);
}
GST_END_TEST;

/* To NULL with copies in flight: no hang, nothing pushed, and the element
 * starts again from nothing. */
GST_START_TEST (test_null_with_copies_in_flight)
{
  std::vector<GstBuffer *> in;
  Gate * gate = NULL;
  GstHarness * h = four_in_flight (&in, &gate);
  fail_unless_equals_int (
      gst_element_set_state (h->element, GST_STATE_NULL), GST_STATE_CHANGE_SUCCESS);
  gate->open ();
  fail_unless_equals_int (gst_harness_buffers_received (h), 0);
  /* cudaupload let go of its inputs too */
  for (GstBuffer * b : in)
    fail_unless_equals_int (GST_MINI_OBJECT_REFCOUNT_VALUE (b), 1);
  gst_harness_play (h);
  GstBuffer * next = frame (10);
  fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (next)), GST_FLOW_OK);
  GstBuffer * out = pull_within (h);
  fail_unless (out != NULL, "no frame came out after a restart");
  expect_same (next, out, "after a restart", 10);
  gst_buffer_unref (out);
  gst_buffer_unref (next);
  unref_all (in);
  delete gate;
  gst_harness_teardown (h);
}
GST_END_TEST;

static GstPadProbeReturn
note_eos (GstPad *, GstPadProbeInfo * info, gpointer data)
{
  if (GST_EVENT_TYPE (GST_PAD_PROBE_INFO_EVENT (info)) == GST_EVENT_EOS) {
    auto * gate = static_cast<Gate *> (data);
    std::lock_guard<std::mutex> hold (gate->lock);
    gate->arrived = -1;
    gate->cond.notify_all ();
  }
  return GST_PAD_PROBE_OK;
}

/* EOS with copies in flight: every frame before it comes out, in order,
 * then EOS. */
GST_START_TEST (test_eos_with_copies_in_flight)
{
  std::vector<GstBuffer *> in;
  Gate * gate = NULL;
  GstHarness * h = four_in_flight (&in, &gate);
  Arrivals arrivals;
  gst_pad_add_probe (
      h->sinkpad, GST_PAD_PROBE_TYPE_DATA_DOWNSTREAM, Arrivals::note, &arrivals, NULL);
  GstElement * down = testutil::by_name (h->element, "down");
  GstPad * down_sink = gst_element_get_static_pad (down, "sink");
  gst_pad_add_probe (
      down_sink, GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM, note_eos, gate, NULL);
  gboolean pushed = FALSE;
  std::thread eos (
      [&] { pushed = gst_pad_push_event (h->srcpad, gst_event_new_eos ()); });
  {
    std::unique_lock<std::mutex> hold (gate->lock);
    fail_unless (gate->cond.wait_for (hold, std::chrono::seconds (kPatienceSeconds),
        [&] { return gate->arrived < 0; }));
  }
  gate->open (); /* EOS has reached cudadownload: the frames may go */
  eos.join ();
  fail_unless (pushed);
  const std::string arrived = arrivals.list ();
  fail_unless_equals_string (arrived.c_str (), "B0 B1 B2 B3 eos");
  for (int i = 0; i < 4; i++) {
    GstBuffer * out = gst_harness_pull (h);
    expect_same (in[i], out, "before EOS", i);
    gst_buffer_unref (out);
  }
  gst_object_unref (down_sink);
  gst_object_unref (down);
  unref_all (in);
  delete gate;
  gst_harness_teardown (h);
}
GST_END_TEST;

/* Downstream's answer to every frame: not linked. */
static GstPadProbeReturn
refuse (GstPad *, GstPadProbeInfo * info, gpointer)
{
  gst_buffer_unref (GST_PAD_PROBE_INFO_BUFFER (info));
  GST_PAD_PROBE_INFO_DATA (info) = NULL;
  GST_PAD_PROBE_INFO_FLOW_RETURN (info) = GST_FLOW_NOT_LINKED;
  return GST_PAD_PROBE_HANDLED;
}

/* cudaupload ! cudadownload into a sink that refuses every frame. */
static GstHarness *
refusing_download (int in_flight, GstBus ** bus)
{
  gchar * line =
      g_strdup_printf ("cudaupload ! cudadownload max-in-flight=%d", in_flight);
  GstHarness * h = testutil::harness_parse_ours (line);
  g_free (line);
  gst_pad_add_probe (h->sinkpad, GST_PAD_PROBE_TYPE_BUFFER, refuse, NULL, NULL);
  *bus = testutil::watch_bus (h->element);
  gst_harness_set_src_caps_str (h, kCaps);
  return h;
}

static void
close_refusing (GstHarness * h, GstBus * bus)
{
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
}

/* Downstream refuses the frames (not linked): upstream hears of it within
 * max-in-flight + 2 frames; after EOS, when upstream can no longer hear of
 * it, the element posts the error itself. */
GST_START_TEST (test_flow_error_reaches_upstream)
{
  GstBus * bus = NULL;
  GstHarness * h = refusing_download (2, &bus);
  GstFlowReturn ret = GST_FLOW_OK;
  for (int i = 0; i < 4 && ret == GST_FLOW_OK; i++)
    ret = gst_harness_push (h, frame (i));
  fail_unless_equals_int (ret, GST_FLOW_NOT_LINKED);
  close_refusing (h, bus);

  for (int in_flight : { 0, 2 }) {
    h = refusing_download (in_flight, &bus);
    const GstFlowReturn first = gst_harness_push (h, frame (0));
    gst_harness_push_event (h, gst_event_new_eos ());
    std::string errors = testutil::pop_messages (bus, GST_MESSAGE_ERROR);
    if (first == GST_FLOW_NOT_LINKED) /* upstream was told */
      fail_unless (errors.empty (), "%d in flight: %s", in_flight, errors.c_str ());
    else
      fail_unless (errors.find ("not-linked") != std::string::npos,
          "%d in flight: the frame before EOS was refused, and no one heard: '%s'",
          in_flight, errors.c_str ());
    close_refusing (h, bus);
  }
}
GST_END_TEST;

static Suite *
download_gpu_suite (void)
{
  Suite * s = suite_create ("download_gpu");
  TCase * tc = tcase_create ("gpu");
  tcase_set_timeout (tc, 300);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_frame_alone_comes_out);
  tcase_add_test (tc, test_frames_in_order);
  tcase_add_test (tc, test_flush_with_copies_in_flight);
  tcase_add_test (tc, test_null_with_copies_in_flight);
  tcase_add_test (tc, test_eos_with_copies_in_flight);
  tcase_add_test (tc, test_flow_error_reaches_upstream);
  return s;
}

TESTUTIL_GPU_CHECK_MAIN (download_gpu);

/* SPDX-License-Identifier: LGPL-2.1-or-later */
// On a GPU (and on the CUDA stand-in): each element answers the LATENCY
// query with the latency it adds, and adds none it does not report: from a
// live source into a sink that syncs to the clock with the pipeline's
// latency, no frame arrives late. The source misses frames now and then, as
// cameras do, so an element that holds a frame until others arrive is seen.
//
// The pipeline runs on a test clock that moves only when the test moves
// it, a frame at a time, and only once every frame due by then has reached
// the sink: a loaded machine makes no frame late, a frame held back does.
#include <gst/check/gstcheck.h>
#include <gst/check/gsttestclock.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <utility>
#include <vector>

#include "testutil.h"

static const int kRate = 100;
static const GstClockTime kFrame = GST_SECOND / kRate;
static const int kSourceFrames = 340;
/* Of every 34 frames the source makes, the last 4 are lost on the way (a
 * camera that misses some): 300 reach the sink. */
static const int kPeriod = 34, kLost = 4;
static const int kSinkFrames = kSourceFrames - kSourceFrames / kPeriod * kLost;
/* How long the test waits, in real time, for what must happen while the
 * clock stands still; only a failure waits this long. */
static const int kPatienceSeconds = 10;

static bool
lost (int i)
{
  return i % kPeriod >= kPeriod - kLost;
}

/* What the probes saw, from the streaming threads. */
struct Watch {
  std::mutex lock;
  std::condition_variable cond; /* a frame was made or arrived */
  GstClock * clock = nullptr;
  int made = 0; /* frames the source made, lost ones too */
  /* Each frame that reached the sink: its running time, and the clock's
   * (the base time is 0) when it came. */
  std::vector<std::pair<GstClockTime, GstClockTime>> arrivals;
  int arrived () const { return (int)arrivals.size (); }
};

/* Lets every clock wait that is due go (a test clock lets none go by
 * itself) until `done` (called under the watch's lock) says so, or the
 * patience runs out. */
template <typename Done>
static bool
run_clock_until (GstTestClock * clock, Watch * w, Done done)
{
  const auto until =
      std::chrono::steady_clock::now () + std::chrono::seconds (kPatienceSeconds);
  std::unique_lock<std::mutex> hold (w->lock);
  for (;;) {
    hold.unlock ();
    while (GstClockID id = gst_test_clock_process_next_clock_id (clock))
      gst_clock_id_unref (id);
    hold.lock ();
    if (done ())
      return true;
    if (std::chrono::steady_clock::now () > until)
      return false;
    /* woken by a frame, or to see to waits that came meanwhile */
    w->cond.wait_for (hold, std::chrono::milliseconds (1));
  }
}

static GstPadProbeReturn
made (GstPad *, GstPadProbeInfo *, gpointer data)
{
  auto * w = static_cast<Watch *> (data);
  std::lock_guard<std::mutex> hold (w->lock);
  const int i = w->made++;
  w->cond.notify_all ();
  return lost (i) ? GST_PAD_PROBE_DROP : GST_PAD_PROBE_OK;
}

/* The sink's own account of lateness (the jitter of its QoS events) is
 * taken when it starts to wait for the clock, which may be a step or two
 * of the test's clock after the frame reached it: taken here instead. */
static GstPadProbeReturn
arrive (GstPad *, GstPadProbeInfo * info, gpointer data)
{
  auto * w = static_cast<Watch *> (data);
  const GstClockTime pts = GST_BUFFER_PTS (GST_PAD_PROBE_INFO_BUFFER (info));
  std::lock_guard<std::mutex> hold (w->lock);
  w->arrivals.emplace_back (pts, gst_clock_get_time (w->clock));
  w->cond.notify_all ();
  return GST_PAD_PROBE_OK;
}

/* The minimum latency the LATENCY query answers at `element`'s src pad. */
static GstClockTime
reported_latency (GstElement * pipeline, const char * element)
{
  GstElement * e = testutil::by_name (pipeline, element);
  GstPad * pad = gst_element_get_static_pad (e, "src");
  GstQuery * q = gst_query_new_latency ();
  fail_unless (gst_pad_query (pad, q), "%s: no answer to LATENCY", element);
  gboolean live = FALSE;
  GstClockTime min = 0;
  gst_query_parse_latency (q, &live, &min, NULL);
  fail_unless (live, "%s: upstream is live", element);
  gst_query_unref (q);
  gst_object_unref (pad);
  gst_object_unref (e);
  return min;
}

/* Moves the clock a frame at a time. Before each step every frame due by
 * the clock's next time (running time plus `latency`) has reached the sink,
 * or the test fails: nothing else would bring it while the clock stands. */
static void
step_through (GstTestClock * clock, GstClockTime latency, Watch * w, const char * chain)
{
  for (GstClockTime now = 0;; now += kFrame) {
    gst_test_clock_set_time (clock, now);
    const int made = MIN ((int)(now / kFrame) + 1, kSourceFrames);
    fail_unless (run_clock_until (clock, w, [&] { return w->made >= made; }),
        "%s: the source made %d of the %d frames due", chain, w->made, made);
    int due = 0;
    for (int i = 0; i < made; i++)
      due += !lost (i) && i * kFrame + latency <= now + kFrame;
    fail_unless (run_clock_until (clock, w, [&] { return w->arrived () >= due; }),
        "%s: %d of the %d frames due at %" GST_TIME_FORMAT " reached the sink: one is "
        "held until later frames come",
        chain, w->arrived (), due, GST_TIME_ARGS (now + kFrame));
    if (made == kSourceFrames && due == kSinkFrames)
      return;
  }
}

/* Past the last frame's time: the sink renders what it has, and EOS. */
static void
finish (GstElement * pipeline, GstTestClock * clock, Watch * w, const char * chain)
{
  gst_test_clock_set_time (clock, (kSourceFrames + 10) * kFrame + GST_SECOND);
  GstBus * bus = gst_element_get_bus (pipeline);
  GstMessage * msg = NULL;
  run_clock_until (clock, w, [&] {
    msg =
        gst_bus_pop_filtered (bus, (GstMessageType)(GST_MESSAGE_EOS | GST_MESSAGE_ERROR));
    return msg != NULL;
  });
  fail_unless (
      msg != NULL && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS, "%s: no EOS", chain);
  gst_message_unref (msg);
  gst_object_unref (bus);
  gst_element_set_state (pipeline, GST_STATE_NULL);
}

/* `chain` between a live source and a synchronising sink; `last` names its
 * last element, whose answer to LATENCY is the source's (the elements hold
 * no frame). The sink allows no time for processing (GStreamer's default
 * is 20 ms): the clock stands still while frames are processed. */
static void
check_live (const char * chain, const char * last)
{
  gchar * desc =
      g_strdup_printf ("videotestsrc name=src is-live=true num-buffers=%d ! "
                       "video/x-raw,format=NV12,width=64,height=48,framerate=%d/1 ! %s ! "
                       "fakesink name=sink sync=true processing-deadline=0",
          kSourceFrames, kRate, chain);
  GstElement * pipeline = gst_parse_launch (desc, NULL);
  fail_unless (pipeline != NULL, "%s", desc);
  g_free (desc);
  GstClock * clock = gst_test_clock_new ();
  gst_pipeline_use_clock (GST_PIPELINE (pipeline), clock);
  Watch w;
  w.clock = clock;
  testutil::add_probe (pipeline, "src", "src", GST_PAD_PROBE_TYPE_BUFFER, made, &w);
  testutil::add_probe (pipeline, "sink", "sink", GST_PAD_PROBE_TYPE_BUFFER, arrive, &w);
  fail_unless (
      gst_element_set_state (pipeline, GST_STATE_PLAYING) != GST_STATE_CHANGE_FAILURE);
  /* The first frame, due at 0, negotiates the caps: then all can answer. */
  fail_unless (run_clock_until (GST_TEST_CLOCK (clock), &w, [&] { return w.made > 0; }));
  const GstClockTime source = reported_latency (pipeline, "src");
  const GstClockTime latency = reported_latency (pipeline, last);
  fail_unless_equals_uint64 (source, kFrame);
  /* The elements hold no frame: they add nothing to the source's. */
  fail_unless_equals_uint64 (latency, source);
  step_through (GST_TEST_CLOCK (clock), latency, &w, chain);
  fail_unless_equals_uint64 (gst_element_get_base_time (pipeline), 0);
  finish (pipeline, GST_TEST_CLOCK (clock), &w, chain);
  /* The sink renders a frame at its running time plus the latency. */
  int late = 0;
  GstClockTimeDiff worst = G_MININT64;
  for (const auto & a : w.arrivals) {
    const GstClockTimeDiff after = GST_CLOCK_DIFF (a.first + latency, a.second);
    late += after > 0;
    worst = MAX (worst, after);
  }
  GST_INFO ("%s: %d frames, the latest %" G_GINT64_FORMAT " us after its time", chain,
      w.arrived (), worst / 1000);
  fail_unless (late == 0, "%s: %d of %d frames late, one by %" G_GINT64_FORMAT " us",
      chain, late, w.arrived (), worst / 1000);
  fail_unless_equals_int (w.arrived (), kSinkFrames);
  gst_object_unref (clock);
  gst_object_unref (pipeline);
}

GST_START_TEST (test_upload)
{
  check_live ("cudaupload name=last", "last");
}
GST_END_TEST;

GST_START_TEST (test_crop)
{
  check_live ("cudaupload ! cudacrop name=last left=2 top=2", "last");
}
GST_END_TEST;

GST_START_TEST (test_convertscale)
{
  check_live ("cudaupload ! cudaconvertscale name=last ! "
              "video/x-raw(memory:CUDAStreamsMemory),format=RGBA,width=32,height=24",
      "last");
}
GST_END_TEST;

GST_START_TEST (test_download)
{
  check_live ("cudaupload ! cudadownload name=last", "last");
}
GST_END_TEST;

/* Frames in flight overlap copies; they hold no frame back. */
GST_START_TEST (test_download_in_flight)
{
  check_live ("cudaupload ! cudadownload name=last max-in-flight=3", "last");
}
GST_END_TEST;

/* All of them in one pipeline. */
GST_START_TEST (test_all)
{
  check_live ("cudaupload ! cudacrop left=2 top=2 ! cudaconvertscale ! "
              "video/x-raw(memory:CUDAStreamsMemory),format=RGBA,width=32,height=24 ! "
              "cudadownload name=last max-in-flight=2",
      "last");
}
GST_END_TEST;

static Suite *
latency_gpu_suite (void)
{
  Suite * s = suite_create ("latency_gpu");
  TCase * tc = tcase_create ("gpu");
  tcase_set_timeout (tc, 120);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_upload);
  tcase_add_test (tc, test_crop);
  tcase_add_test (tc, test_convertscale);
  tcase_add_test (tc, test_download);
  tcase_add_test (tc, test_download_in_flight);
  tcase_add_test (tc, test_all);
  return s;
}

TESTUTIL_GPU_CHECK_MAIN (latency_gpu);

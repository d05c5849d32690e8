/* SPDX-License-Identifier: LGPL-2.1-or-later */
// On a GPU: the events cudaconvertscale and cudacrop take part in, as
// GStreamer's videoconvertscale, videoflip and videocrop do: late frames
// dropped before any GPU work (QoS), pointer positions carried back into
// upstream's frame (navigation), and the image-orientation tags of
// videoflip 1.28 (global and stream scopes, a new stream starting upright,
// the tag passed on upright), also while threads change video-direction
// as frames flow.
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>

#include <cstring>
#include <string>
#include <vector>

#include "gstcudastreams.h"
#include "testutil.h"

/* --- a harness around one of our elements -------------------------------- */

/* "cudastreamsupload ! `element` name=x ! cudastreamsdownload", the
 * download pushing each frame before push returns. */
static GstHarness *
harness_around (const char * element)
{
  gchar * launch = g_strdup_printf ("cudastreamsupload ! %s name=x ! "
                                    "cudastreamsdownload max-in-flight=0",
      element);
  GstHarness * h = testutil::harness_parse_ours (launch);
  g_free (launch);
  return h;
}

static GstElement *
inner (GstHarness * h)
{
  GstElement * x = gst_bin_get_by_name (GST_BIN (h->element), "x");
  fail_unless (x != NULL);
  return x;
}

/* A random frame of the harness's input caps, at `pts`. */
static GstBuffer *
frame_at (GstHarness * h, GstClockTime pts, guint32 seed = 1)
{
  GstCaps * caps = gst_pad_get_current_caps (h->srcpad);
  GstVideoInfo info;
  fail_unless (caps && gst_video_info_from_caps (&info, caps));
  gst_caps_unref (caps);
  GstBuffer * buf = testutil::video_frame (&info, testutil::Content::RANDOM, seed);
  GST_BUFFER_PTS (buf) = pts;
  GST_BUFFER_DURATION (buf) = GST_SECOND / 30;
  return buf;
}

/* The size of the frames the harness's sink gets now. */
static void
output_size (GstHarness * h, gint * w, gint * height)
{
  GstCaps * caps = gst_pad_get_current_caps (h->sinkpad);
  fail_unless (caps != NULL);
  GstStructure * s = gst_caps_get_structure (caps, 0);
  fail_unless (gst_structure_get_int (s, "width", w) &&
               gst_structure_get_int (s, "height", height));
  gst_caps_unref (caps);
}

/* --- QoS ------------------------------------------------------------------ */

/* Downstream says frames before 2 s are late (a QoS event: 1 s late at
 * 1 s): the element drops such a frame before doing anything with it, says
 * so on the bus (a QoS message, one frame dropped) and passes later frames
 * on, as GStreamer's video filters do by default. */
GST_START_TEST (test_qos_drops_late_frames)
{
  const struct {
    const char *element, *out;
  } cases[] = {
    { "cudastreamsconvertscale", "video/x-raw,format=NV12,width=32,height=24" },
    { "cudastreamscrop left=4 top=2", "video/x-raw,format=NV12,width=60,height=46" },
  };
  for (const auto & c : cases) {
    const char * element = c.element;
    GstHarness * h = harness_around (element);
    GstElement * x = inner (h);
    gboolean qos = FALSE;
    g_object_get (x, "qos", &qos, NULL);
    fail_unless (qos, "%s: QoS is off", element);
    GstBus * bus = testutil::watch_bus (h->element);
    gst_harness_set_src_caps_str (
        h, "video/x-raw,format=NV12,width=64,height=48,framerate=30/1");
    gst_harness_set_sink_caps_str (h, c.out);
    fail_unless_equals_int (gst_harness_push (h, frame_at (h, 0)), GST_FLOW_OK);
    gst_buffer_unref (gst_harness_pull (h));

    fail_unless (gst_harness_push_upstream_event (
        h, gst_event_new_qos (GST_QOS_TYPE_UNDERFLOW, 1.0, GST_SECOND, GST_SECOND)));
    fail_unless_equals_int (
        gst_harness_push (h, frame_at (h, GST_SECOND / 30)), GST_FLOW_OK);
    GstBuffer * late = gst_harness_try_pull (h);
    fail_unless (late == NULL, "%s: the late frame came out", element);
    GstMessage * msg = gst_bus_pop_filtered (bus, GST_MESSAGE_QOS);
    fail_unless (msg != NULL, "%s: no QoS message", element);
    fail_unless (GST_MESSAGE_SRC (msg) == GST_OBJECT (x));
    guint64 processed = 0, dropped = 0;
    gst_message_parse_qos_stats (msg, NULL, &processed, &dropped);
    fail_unless_equals_uint64 (dropped, 1);
    gst_message_unref (msg);

    fail_unless_equals_int (
        gst_harness_push (h, frame_at (h, 3 * GST_SECOND)), GST_FLOW_OK);
    GstBuffer * on_time = gst_harness_pull (h);
    fail_unless (on_time != NULL);
    gst_buffer_unref (on_time);
    fail_unless_equals_uint64 (testutil::host_waits (x), 0);
    gst_object_unref (x);
    gst_element_set_bus (h->element, NULL);
    gst_object_unref (bus);
    gst_harness_teardown (h);
  }
}
GST_END_TEST;

/* --- navigation ------------------------------------------------------------ */

static GstEvent *
pointer_event (double x, double y)
{
  return gst_event_new_navigation (gst_structure_new ("application/x-gst-navigation",
      "event", G_TYPE_STRING, "mouse-move", "button", G_TYPE_INT, 0, "pointer_x",
      G_TYPE_DOUBLE, x, "pointer_y", G_TYPE_DOUBLE, y, NULL));
}

/* Where a pointer at (x, y) of the harness's output reaches upstream. */
static void
pointer_upstream (GstHarness * h, double x, double y, double * ux, double * uy)
{
  fail_unless (gst_harness_push_upstream_event (h, pointer_event (x, y)));
  for (;;) {
    GstEvent * e = gst_harness_pull_upstream_event (h);
    fail_unless (e != NULL, "the navigation event did not reach upstream");
    const bool nav = GST_EVENT_TYPE (e) == GST_EVENT_NAVIGATION;
    if (nav) {
      const GstStructure * s = gst_event_get_structure (e);
      fail_unless (gst_structure_get_double (s, "pointer_x", ux) &&
                   gst_structure_get_double (s, "pointer_y", uy));
    }
    gst_event_unref (e);
    if (nav)
      return;
  }
}

struct Pointer {
  double x, y, want_x, want_y;
};

/* Negotiates `in` to `out` through `element` with one frame, then sends
 * each pointer upstream. */
static void
check_pointers (const char * element, const char * in, const char * out,
    const std::vector<Pointer> & pointers)
{
  GstHarness * h = harness_around (element);
  gst_harness_set_src_caps_str (h, in);
  gst_harness_set_sink_caps_str (h, out);
  fail_unless_equals_int (gst_harness_push (h, frame_at (h, 0)), GST_FLOW_OK);
  gst_buffer_unref (gst_harness_pull (h));
  for (const Pointer & p : pointers) {
    double x, y;
    pointer_upstream (h, p.x, p.y, &x, &y);
    fail_unless (G_APPROX_VALUE (x, p.want_x, 1e-6) && G_APPROX_VALUE (y, p.want_y, 1e-6),
        "%s, %s -> %s: (%g, %g) went upstream as (%g, %g), not (%g, %g)", element, in,
        out, p.x, p.y, x, y, p.want_x, p.want_y);
  }
  gst_harness_teardown (h);
}

#define NV12_64x48 "video/x-raw,format=NV12,width=64,height=48,framerate=30/1"

/* cudaconvertscale: scaled back (as videoconvertscale does), turned back
 * (as videoflip does), borders undone (a pointer on one: the picture's
 * edge). */
GST_START_TEST (test_navigation_through_convertscale)
{
  check_pointers ("cudastreamsconvertscale", NV12_64x48,
      "video/x-raw,format=NV12,width=32,height=24",
      { { 10, 6, 20, 12 }, { 0, 0, 0, 0 }, { 32, 24, 64, 48 } });
  /* turned clockwise: the output's top right is the input's top left */
  check_pointers ("cudastreamsconvertscale video-direction=90r", NV12_64x48,
      "video/x-raw,format=NV12,width=24,height=32",
      { { 12, 8, 16, 24 }, { 24, 0, 0, 0 }, { 24, 32, 64, 0 } });
  check_pointers ("cudastreamsconvertscale video-direction=horiz", NV12_64x48,
      "video/x-raw,format=NV12,width=64,height=48", { { 10, 6, 54, 6 } });
  /* 64x48 in 64x64 at 1/1: a picture of 48 lines between borders of 8 */
  check_pointers ("cudastreamsconvertscale", NV12_64x48,
      "video/x-raw,format=NV12,width=64,height=64,pixel-aspect-ratio=1/1",
      { { 16, 20, 16, 12 }, { 16, 2, 16, 0 }, { 40, 60, 40, 48 } });
}
GST_END_TEST;

/* cudacrop: moved by left and top, as videocrop does; of alternate fields,
 * whose crop counts field lines, by twice top (the pointer is in the
 * frame). */
GST_START_TEST (test_navigation_through_crop)
{
  check_pointers ("cudastreamscrop left=4 top=3", NV12_64x48,
      "video/x-raw,format=NV12,width=60,height=45", { { 10, 10, 14, 13 } });
  check_pointers ("cudastreamscrop left=4 top=3",
      "video/x-raw(format:Interlaced),format=NV12,width=64,height=48,framerate=30/1,"
      "interlace-mode=alternate",
      "video/x-raw(format:Interlaced),format=NV12,width=60,height=42,"
      "interlace-mode=alternate",
      { { 10, 10, 14, 16 } });
}
GST_END_TEST;

/* --- image-orientation tags ------------------------------------------------ */

static GstHarness *
auto_orientation ()
{
  GstHarness * h = harness_around ("cudastreamsconvertscale video-direction=auto");
  gst_harness_set_sink_caps_str (h, "video/x-raw,format=RGBA");
  gst_harness_set_src_caps_str (
      h, "video/x-raw,format=RGBA,width=16,height=8,framerate=30/1");
  return h;
}

/* Sends a tag list of `scope` with `orientation` (none where NULL) and
 * returns the image-orientation of the tag list that comes out (NULL:
 * none), to be freed. */
static gchar *
send_tag (GstHarness * h, const char * orientation, GstTagScope scope)
{
  GstTagList * tags =
      orientation ? gst_tag_list_new (GST_TAG_IMAGE_ORIENTATION, orientation, NULL)
                  : gst_tag_list_new_empty ();
  gst_tag_list_set_scope (tags, scope);
  fail_unless (gst_harness_push_event (h, gst_event_new_tag (tags)));
  gchar * out = NULL;
  for (GstEvent * e; (e = gst_harness_try_pull_event (h));) {
    if (GST_EVENT_TYPE (e) == GST_EVENT_TAG) {
      GstTagList * t = NULL;
      gst_event_parse_tag (e, &t);
      g_free (out);
      out = NULL;
      gst_tag_list_get_string (t, GST_TAG_IMAGE_ORIENTATION, &out);
    }
    gst_event_unref (e);
  }
  return out;
}

/* Whether the next frame comes out turned (16x8 in, 8x16 out). */
static bool
turned (GstHarness * h)
{
  fail_unless_equals_int (gst_harness_push (h, frame_at (h, 0)), GST_FLOW_OK);
  GstBuffer * out = gst_harness_pull (h);
  fail_unless (out != NULL);
  gst_buffer_unref (out);
  gint w = 0, height = 0;
  output_size (h, &w, &height);
  fail_unless ((w == 16 && height == 8) || (w == 8 && height == 16), "%dx%d", w, height);
  return w == 8;
}

/* videoflip 1.28's test_orientation_tag: a stream tag turns the frames; a
 * new stream starts upright. The tag passed on says rotate-0: the frames
 * are upright now. */
GST_START_TEST (test_orientation_tag_and_new_stream)
{
  GstHarness * h = auto_orientation ();
  fail_if (turned (h));
  gchar * passed = send_tag (h, "rotate-90", GST_TAG_SCOPE_STREAM);
  fail_unless_equals_string (passed, "rotate-0");
  g_free (passed);
  fail_unless (turned (h));
  fail_unless (gst_harness_push_event (h, gst_event_new_stream_start ("2")));
  fail_if (turned (h));
  gst_harness_teardown (h);
}
GST_END_TEST;

/* videoflip 1.28's test_orientation_tag_scopes: a stream tag's orientation
 * wins over a global one; a stream tag list without one falls back to the
 * global one; a global one without one goes back to upright unless a
 * stream tag set one. */
GST_START_TEST (test_orientation_tag_scopes)
{
  GstHarness * h = auto_orientation ();
  const struct {
    const char * orientation;
    GstTagScope scope;
    bool turned;
  } steps[] = {
    { "rotate-90", GST_TAG_SCOPE_GLOBAL, true },
    { "rotate-0", GST_TAG_SCOPE_STREAM, false },
    { "rotate-90", GST_TAG_SCOPE_GLOBAL, false },
    { "rotate-90", GST_TAG_SCOPE_STREAM, true },
    { NULL, GST_TAG_SCOPE_STREAM, true },
    { NULL, GST_TAG_SCOPE_GLOBAL, false },
    { "rotate-90", GST_TAG_SCOPE_STREAM, true },
    { NULL, GST_TAG_SCOPE_GLOBAL, true },
  };
  int n = 0;
  for (const auto & s : steps) {
    g_free (send_tag (h, s.orientation, s.scope));
    fail_unless (turned (h) == s.turned, "step %d: %s %s: %s", n,
        s.orientation ? s.orientation : "(none)",
        s.scope == GST_TAG_SCOPE_STREAM ? "stream" : "global",
        s.turned ? "not turned" : "turned");
    n++;
  }
  gst_harness_teardown (h);
}
GST_END_TEST;

/* videofilter.c's test_videoflip with video-direction=auto: an empty tag
 * list, an orientation that needs no new size and one that is no
 * orientation: frames keep coming at the input's size. */
GST_START_TEST (test_orientation_odd_tags)
{
  GstHarness * h = auto_orientation ();
  g_free (send_tag (h, NULL, GST_TAG_SCOPE_STREAM));
  fail_if (turned (h));
  g_free (send_tag (h, "rotate-180", GST_TAG_SCOPE_STREAM));
  fail_if (turned (h));
  gchar * passed = send_tag (h, "invalid", GST_TAG_SCOPE_STREAM);
  fail_unless_equals_string (passed, "invalid"); /* not ours to correct */
  g_free (passed);
  fail_if (turned (h));
  gst_harness_teardown (h);
}
GST_END_TEST;

/* --- video-direction under stress ----------------------------------------- */

struct Toggler {
  GstElement * x;
  GstVideoOrientationMethod m;
  gint stop = 0;
};

static gpointer
toggle (gpointer user)
{
  auto * t = static_cast<Toggler *> (user);
  while (!g_atomic_int_get (&t->stop)) {
    g_object_set (t->x, "video-direction", t->m, NULL);
    g_usleep (100);
  }
  return NULL;
}

/* The RGBA frame `in` (w x h) turned clockwise. */
static std::vector<guint8>
turned_clockwise (const guint8 * in, gint w, gint h)
{
  std::vector<guint8> out ((size_t)w * h * 4);
  for (gint y = 0; y < w; y++)
    for (gint x = 0; x < h; x++)
      memcpy (&out[((size_t)y * h + x) * 4], &in[((size_t)(h - 1 - x) * w + y) * 4], 4);
  return out;
}

/* videoflip's test_stress_change_method: two threads set video-direction
 * to identity and to 90r over and over while frames flow; every frame
 * comes out whole, as its caps say: the input, or the input turned. */
GST_START_TEST (test_direction_stress)
{
  GstHarness * h = harness_around ("cudastreamsconvertscale");
  gst_harness_set_sink_caps_str (h, "video/x-raw,format=RGBA");
  gst_harness_set_src_caps_str (
      h, "video/x-raw,format=RGBA,width=16,height=8,framerate=30/1");
  GstElement * x = inner (h);
  Toggler a{ x, GST_VIDEO_ORIENTATION_IDENTITY }, b{ x, GST_VIDEO_ORIENTATION_90R };
  GThread * ta = g_thread_new ("identity", toggle, &a);
  GThread * tb = g_thread_new ("90r", toggle, &b);
  gint turned_frames = 0;
  const gint frames = 200;
  for (gint i = 0; i < frames; i++) {
    GstBuffer * in = frame_at (h, i * GST_SECOND / 30, 100 + i);
    GstMapInfo im;
    fail_unless (gst_buffer_map (in, &im, GST_MAP_READ));
    std::vector<guint8> original (im.data, im.data + im.size);
    gst_buffer_unmap (in, &im);
    GstBuffer * out = gst_harness_push_and_pull (h, in);
    fail_unless (out != NULL, "frame %d did not come out", i);
    gint w = 0, height = 0;
    output_size (h, &w, &height);
    GstMapInfo om;
    fail_unless (gst_buffer_map (out, &om, GST_MAP_READ));
    if (w == 8) {
      turned_frames++;
      const std::vector<guint8> want = turned_clockwise (original.data (), 16, 8);
      fail_unless (
          om.size >= want.size () && !memcmp (om.data, want.data (), want.size ()),
          "frame %d is not the input turned", i);
    } else {
      fail_unless (w == 16 && om.size >= original.size () &&
                       !memcmp (om.data, original.data (), original.size ()),
          "frame %d (%dx%d) is not the input", i, w, height);
    }
    gst_buffer_unmap (out, &om);
    gst_buffer_unref (out);
  }
  g_atomic_int_set (&a.stop, 1);
  g_atomic_int_set (&b.stop, 1);
  g_thread_join (ta);
  g_thread_join (tb);
  g_print ("DIRECTION-STRESS %d of %d frames turned\n", turned_frames, frames);
  gst_object_unref (x);
  gst_harness_teardown (h);
}
GST_END_TEST;

static Suite *
events_gpu_suite (void)
{
  Suite * s = suite_create ("events_gpu");
  TCase * tc = tcase_create ("general");
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_qos_drops_late_frames);
  tcase_add_test (tc, test_navigation_through_convertscale);
  tcase_add_test (tc, test_navigation_through_crop);
  tcase_add_test (tc, test_orientation_tag_and_new_stream);
  tcase_add_test (tc, test_orientation_tag_scopes);
  tcase_add_test (tc, test_orientation_odd_tags);
  tcase_add_test (tc, test_direction_stress);
  return s;
}

TESTUTIL_GPU_CHECK_MAIN (events_gpu)

/* SPDX-License-Identifier: LGPL-2.1-or-later */
// On a GPU: cudaupload ! cudadownload is bit-exact for every format and
// size, honours strides, waits on the host once per frame at the download
// only, and survives a tee of device buffers.
#include <gst/base/gstbasetransform.h>
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>

#include "gstcudastreams.h"
#include "gstcsmemory-private.h"
#include "gstcsvideo-private.h"
#include "testutil.h"

using testutil::Captured;

struct Size {
  int w, h, frames;
};

/* Random content (snow), captured as it enters cudaupload, compared with
 * what leaves cudadownload. */
static void
check_roundtrip (const char * format, Size s, const char * down_props, guint * pinned)
{
  gchar * what = g_strdup_printf (
      "%s %dx%d%s%s", format, s.w, s.h, *down_props ? " " : "", down_props);
  gchar * desc = g_strdup_printf (
      "videotestsrc pattern=snow num-buffers=%d ! "
      "video/x-raw,format=%s,width=%d,height=%d,framerate=30/1 ! "
      "cudaupload name=up ! cudadownload name=down %s ! appsink name=out sync=false",
      s.frames, format, s.w, s.h, down_props);
  GstElement * pipeline = gst_parse_launch (desc, NULL);
  fail_unless (pipeline != NULL, "%s", desc);
  g_free (desc);
  Captured in, out;
  testutil::capture_pad (pipeline, "up", "sink", &in);
  testutil::capture_appsink (pipeline, "out", &out);
  testutil::run_to_eos (pipeline, what);
  testutil::assert_all_frames_equal (in, out, what);
  if (pinned)
    *pinned = in.pinned;
  g_free (what);
  gst_object_unref (pipeline);
}

GST_START_TEST (test_roundtrip_all_formats)
{
  const Size sizes[] = { { 64, 48, 4 }, { 63, 47, 4 }, { 1920, 1080, 3 },
    { 3840, 2160, 2 } };
  for (const char * f : testutil::all_formats) {
    for (const Size & s : sizes) {
      guint pinned = 0;
      check_roundtrip (f, s, "", &pinned);
      /* videotestsrc wrote into the pinned pool cudaupload proposed */
      fail_unless (pinned == (guint)s.frames, "%s %dx%d: %u of %d frames were pinned", f,
          s.w, s.h, pinned, s.frames);
    }
  }
}
GST_END_TEST;

/* Every raw format GStreamer describes without tiling or complex packing
 * (listed from gst_video_format_get_info: a newer GStreamer's additions
 * are in it): small frames, an even and an odd size (odd widths end inside
 * a macro-pixel of YUY2, IYU1 or YUV9's chroma), bit-exact, palettes
 * (RGB8P) included. */
GST_START_TEST (test_roundtrip_every_format)
{
  const Size sizes[] = { { 16, 8, 2 }, { 13, 7, 2 } };
  for (const char * f : testutil::plain_formats ()) {
    for (const Size & s : sizes)
      check_roundtrip (f, s, "", NULL);
  }
}
GST_END_TEST;

GST_START_TEST (test_roundtrip_in_flight)
{
  for (const char * f : { "NV12", "RGBA", "I420" }) {
    check_roundtrip (f, { 1920, 1080, 12 }, "max-in-flight=3", NULL);
    check_roundtrip (f, { 33, 17, 7 }, "max-in-flight=16", NULL);
  }
}
GST_END_TEST;

/* A random frame of `info` with odd strides and gaps between planes
 * (GstVideoMeta), in pageable memory. */
static GstBuffer *
strided_frame (const GstVideoInfo * info, guint32 seed)
{
  gsize offset[GST_VIDEO_MAX_PLANES] = {};
  gint stride[GST_VIDEO_MAX_PLANES] = {};
  gsize size = 123; /* a gap before the first plane, too */
  for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES (info); p++) {
    stride[p] = (gint)gst_cs_video_plane_row_bytes (info, p) + 37 + 8 * p;
    offset[p] = size;
    size += (gsize)stride[p] * gst_cs_video_plane_rows (info, p) + 51;
  }
  GstBuffer * buf = testutil::random_buffer (size, seed);
  gst_buffer_add_video_meta_full (buf, GST_VIDEO_FRAME_FLAG_NONE,
      GST_VIDEO_INFO_FORMAT (info), info->width, info->height,
      GST_VIDEO_INFO_N_PLANES (info), offset, stride);
  return buf;
}

/* Input buffers with odd strides and gaps between planes (GstVideoMeta),
 * from pageable memory. */
GST_START_TEST (test_strided_input)
{
  for (const char * f : { "NV12", "I420", "RGB", "YUY2", "P010_10LE", "Y444" }) {
    GstVideoInfo info;
    gst_video_info_set_format (&info, gst_video_format_from_string (f), 101, 37);
    GstHarness * h = testutil::harness_parse_ours ("cudaupload ! cudadownload");
    gchar * caps =
        g_strdup_printf ("video/x-raw,format=%s,width=101,height=37,framerate=30/1", f);
    gst_harness_set_src_caps_str (h, caps);
    g_free (caps);
    Captured in, out;
    in.info = info;
    for (int i = 0; i < 5; i++) {
      GstBuffer * buf = strided_frame (&info, 1000 + i);
      GST_BUFFER_PTS (buf) = i * GST_SECOND / 30;
      in.buffers.push_back (gst_buffer_ref (buf));
      fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_OK);
    }
    fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
    testutil::pull_frames (h, 5, &out, f);
    testutil::assert_all_frames_equal (in, out, f);
    gst_harness_teardown (h);
  }
}
GST_END_TEST;

/* Returns the host waits of the process up to EOS (before the teardown,
 * whose frees of the pools are counted waits too). */
static guint64
host_waits_case (const char * down_props)
{
  const int frames = 120;
  gchar * desc =
      g_strdup_printf ("videotestsrc num-buffers=%d ! "
                       "video/x-raw,format=NV12,width=1920,height=1080,framerate=30/1 ! "
                       "cudaupload name=up ! cudadownload name=down %s ! fakesink",
          frames, down_props);
  GstElement * pipeline = gst_parse_launch (desc, NULL);
  g_free (desc);
  const guint64 before = gst_cs_host_waits_total ();
  guint64 at_eos = 0;
  testutil::run_to_eos (pipeline, down_props, 120 * GST_SECOND, &at_eos);
  fail_unless_equals_uint64 (testutil::host_waits (pipeline, "up"), 0);
  fail_unless_equals_uint64 (testutil::host_waits (pipeline, "down"), frames);
  gst_object_unref (pipeline);
  return at_eos - before;
}

GST_START_TEST (test_host_waits)
{
  guint64 before = gst_cs_host_waits_total ();
  const guint64 steady = host_waits_case ("") + host_waits_case ("max-in-flight=4");
  guint64 total = gst_cs_host_waits_total () - before;
  GST_INFO ("host waits in the process: %" G_GUINT64_FORMAT, total);
  if (testutil::on_stand_in ()) {
    /* No copy completes by itself there, so the pinned pool waits (counted)
     * for many frames it hands out again: no bound on the total, but an
     * exact account: every host block the runtime saw was a counted wait.
     * With no frames in flight, where cudadownload's thread waits for each
     * copy before the streaming thread goes on: with frames in flight one
     * thread's wait may run the work that another's then finds done while
     * it polls (a counted wait, and no block). */
    before = gst_cs_host_waits_total ();
    const guint64 blocks_before = testutil::runtime_host_blocks ();
    host_waits_case ("max-in-flight=0");
    total = gst_cs_host_waits_total () - before;
    const guint64 blocks = testutil::runtime_host_blocks () - blocks_before;
    fail_unless (total == blocks,
        "the project counted %" G_GUINT64_FORMAT
        " host waits, the runtime saw %" G_GUINT64_FORMAT " host blocks",
        total, blocks);
    return;
  }
  /* Up to EOS nothing else in the process waited: no hidden stream or
   * device syncs (the pinned pool's reuse waits, if any, are counted in the
   * total too). */
  fail_unless (
      steady >= 240 && steady <= 240 + 10, "waits up to EOS %" G_GUINT64_FORMAT, steady);
}
GST_END_TEST;

GST_START_TEST (test_tee_of_device_buffers)
{
  GstElement * pipeline = gst_parse_launch (
      "videotestsrc pattern=snow num-buffers=30 ! "
      "video/x-raw,format=I420,width=640,height=360,framerate=30/1 ! cudaupload name=up "
      "! "
      "tee name=t t. ! queue ! cudadownload ! appsink name=a sync=false "
      "t. ! queue ! cudadownload max-in-flight=2 ! appsink name=b sync=false",
      NULL);
  Captured in, a, b;
  testutil::capture_pad (pipeline, "up", "sink", &in);
  testutil::capture_appsink (pipeline, "a", &a);
  testutil::capture_appsink (pipeline, "b", &b);
  testutil::run_to_eos (pipeline);
  testutil::assert_all_frames_equal (in, a, "branch a");
  testutil::assert_all_frames_equal (a, b, "branch b");
  gst_object_unref (pipeline);
}
GST_END_TEST;

/* Any element can still read device frames: a CPU map yields a host copy. */
GST_START_TEST (test_cpu_map_of_device_memory)
{
  GstElement * pipeline = gst_parse_launch (
      "videotestsrc pattern=snow num-buffers=3 ! "
      "video/x-raw,format=NV12,width=64,height=48,framerate=30/1 ! cudaupload name=up ! "
      "appsink name=out sync=false",
      NULL);
  Captured in, out;
  testutil::capture_pad (pipeline, "up", "sink", &in);
  testutil::capture_appsink (pipeline, "out", &out);
  testutil::run_to_eos (pipeline);
  fail_unless_equals_int (out.buffers.size (), 3);
  GstBuffer * first = out.buffers[0];
  fail_unless (gst_is_cs_memory (gst_buffer_peek_memory (first, 0)));
  GstCsSyncMeta * meta = gst_buffer_get_cs_sync_meta (first);
  fail_unless (meta != NULL && meta->event != NULL && meta->stream != NULL);
  guint64 before = gst_cs_memory_host_map_waits ();
  testutil::assert_all_frames_equal (in, out, "mapped device frames");
  fail_unless (gst_cs_memory_host_map_waits () >= before + 3);
  gst_object_unref (pipeline);
}
GST_END_TEST;

static const char * kNv12 = "video/x-raw,format=NV12,width=64,height=48,framerate=30/1";

GST_START_TEST (test_short_buffer_is_an_error)
{
  GstHarness * h = testutil::harness_parse_ours ("cudaupload ! cudadownload");
  GstBus * bus = testutil::watch_bus (h->element);
  gst_harness_set_src_caps_str (h, kNv12);
  GstBuffer * buf = gst_buffer_new_allocate (NULL, 100, NULL);
  gst_buffer_memset (buf, 0, 7, 100);
  fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_ERROR);
  std::string errors = testutil::pop_messages (bus, GST_MESSAGE_ERROR);
  fail_unless (errors.find ("smaller than its caps say") != std::string::npos, "%s",
      errors.c_str ());
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);

  /* exactly the right size is fine */
  h = testutil::harness_parse_ours ("cudaupload ! cudadownload");
  bus = testutil::watch_bus (h->element);
  gst_harness_set_src_caps_str (h, kNv12);
  buf = gst_buffer_new_allocate (NULL, 64 * 48 * 3 / 2, NULL);
  gst_buffer_memset (buf, 0, 7, 64 * 48 * 3 / 2);
  fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_OK);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  Captured out;
  testutil::pull_frames (h, 1, &out, "the right size");
  errors = testutil::pop_messages (bus, GST_MESSAGE_ERROR);
  fail_unless (errors.empty (), "%s", errors.c_str ());
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
}
GST_END_TEST;

/* Device input to cudaupload passes through untouched. */
GST_START_TEST (test_upload_passthrough_of_device_buffers)
{
  GstElement * pipeline = gst_parse_launch (
      "videotestsrc pattern=snow num-buffers=5 ! "
      "video/x-raw,format=NV12,width=320,height=240 ! cudaupload name=a ! "
      "cudaupload name=b ! cudadownload ! appsink name=out sync=false",
      NULL);
  Captured in, out;
  testutil::capture_pad (pipeline, "a", "sink", &in);
  testutil::capture_appsink (pipeline, "out", &out);
  testutil::run_to_eos (pipeline);
  testutil::assert_all_frames_equal (in, out, "through two uploads");
  GstElement * b = testutil::by_name (pipeline, "b");
  fail_unless (gst_base_transform_is_passthrough (GST_BASE_TRANSFORM (b)));
  gst_object_unref (b);
  gst_object_unref (pipeline);
}
GST_END_TEST;

/* Flushing seeks and repeated start/stop: frames keep flowing, no hang. */
GST_START_TEST (test_flush_and_state_changes)
{
  GstElement * pipeline = gst_parse_launch (
      "videotestsrc num-buffers=200 ! "
      "video/x-raw,format=RGBA,width=640,height=360,framerate=30/1 ! cudaupload ! "
      "cudadownload max-in-flight=3 name=down ! fakesink sync=false",
      NULL);
  for (int round = 0; round < 3; round++) {
    fail_unless (
        gst_element_set_state (pipeline, GST_STATE_PAUSED) != GST_STATE_CHANGE_FAILURE);
    fail_unless (gst_element_get_state (pipeline, NULL, NULL, 10 * GST_SECOND) ==
                 GST_STATE_CHANGE_SUCCESS);
    fail_unless (gst_element_seek_simple (pipeline, GST_FORMAT_TIME,
        (GstSeekFlags)(GST_SEEK_FLAG_FLUSH | GST_SEEK_FLAG_ACCURATE), GST_SECOND));
    fail_unless (gst_element_get_state (pipeline, NULL, NULL, 10 * GST_SECOND) ==
                 GST_STATE_CHANGE_SUCCESS);
    gchar * what = g_strdup_printf ("round %d", round);
    testutil::run_to_eos (pipeline, what); /* ends in NULL */
    g_free (what);
  }
  gst_object_unref (pipeline);
}
GST_END_TEST;

static Suite *
updown_gpu_suite (void)
{
  Suite * s = suite_create ("updown_gpu");
  TCase * tc = tcase_create ("gpu");
  tcase_set_timeout (tc, 600);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_roundtrip_all_formats);
  tcase_add_test (tc, test_roundtrip_every_format);
  tcase_add_test (tc, test_roundtrip_in_flight);
  tcase_add_test (tc, test_strided_input);
  tcase_add_test (tc, test_host_waits);
  tcase_add_test (tc, test_tee_of_device_buffers);
  tcase_add_test (tc, test_cpu_map_of_device_memory);
  tcase_add_test (tc, test_short_buffer_is_an_error);
  tcase_add_test (tc, test_upload_passthrough_of_device_buffers);
  tcase_add_test (tc, test_flush_and_state_changes);
  return s;
}

TESTUTIL_GPU_CHECK_MAIN (updown_gpu);

/* SPDX-License-Identifier: LGPL-2.1-or-later */
// On a GPU (and on the CUDA stand-in): a cudacrop property changed by the
// application while cudacrop negotiates (after it computed the output size,
// before it applies the caps) never fails the pipeline; the frame in hand
// gets the crop its caps were computed with, the next ones the new crop.
#include <gst/check/gstcheck.h>

#include "gstcudastreams.h"
#include "testutil.h"

using testutil::Captured;

struct Race {
  GstElement * crop = nullptr;
  gint changes = 0;
};

/* cudacrop asks downstream to accept the caps it computed: that is between
 * its transform_caps and its set_caps. An application thread setting the
 * properties at that moment is played here, deterministically. */
static GstPadProbeReturn
change_while_negotiating (GstPad *, GstPadProbeInfo * info, gpointer user)
{
  auto * race = static_cast<Race *> (user);
  GstQuery * q = GST_PAD_PROBE_INFO_QUERY (info);
  if (GST_QUERY_TYPE (q) == GST_QUERY_ACCEPT_CAPS && race->changes == 0) {
    race->changes++;
    g_object_set (race->crop, "left", 5, "right", 10, NULL);
  }
  return GST_PAD_PROBE_OK;
}

GST_START_TEST (test_property_change_during_negotiation)
{
  GstElement * pipeline = gst_parse_launch (
      "videotestsrc pattern=snow num-buffers=10 ! "
      "video/x-raw,format=RGBA,width=64,height=48,framerate=30/1 ! cudaupload name=up ! "
      "cudacrop name=crop left=2 ! cudadownload name=down max-in-flight=0 ! "
      "appsink name=out sync=false",
      NULL);
  Race race;
  race.crop = testutil::by_name (pipeline, "crop");
  testutil::add_probe (pipeline, "down", "sink", GST_PAD_PROBE_TYPE_QUERY_DOWNSTREAM,
      change_while_negotiating, &race);
  Captured in, out;
  testutil::capture_pad (pipeline, "up", "sink", &in);
  testutil::capture_appsink (pipeline, "out", &out);

  testutil::run_to_eos (pipeline);
  fail_unless_equals_int (race.changes, 1);
  fail_unless_equals_int (out.buffers.size (), 10);
  for (size_t i = 0; i < out.buffers.size (); i++) {
    /* 62 wide: the crop the caps were computed with (left 2); 49: the new
     * one (left 5, right 10) */
    const gint w = out.infos[i].width;
    fail_unless (w == 62 || w == 49, "frame %zu is %d wide", i, w);
    GstBuffer * expected = testutil::crop_on_cpu (
        in.buffers[i], &in.infos[i], w == 62 ? 2 : 5, 0, &out.infos[i]);
    gchar * what = g_strdup_printf ("frame %zu (%d wide)", i, w);
    testutil::assert_frames_equal (
        expected, &out.infos[i], out.buffers[i], &out.infos[i], what);
    g_free (what);
    gst_buffer_unref (expected);
  }
  fail_unless_equals_int (out.infos.back ().width, 49);
  gst_object_unref (race.crop);
  gst_object_unref (pipeline);
}
GST_END_TEST;

static Suite *
crop_race_gpu_suite (void)
{
  Suite * s = suite_create ("crop_race_gpu");
  TCase * tc = tcase_create ("gpu");
  tcase_set_timeout (tc, 120);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_property_change_during_negotiation);
  return s;
}

TESTUTIL_GPU_CHECK_MAIN (crop_race_gpu);

/* SPDX-License-Identifier: LGPL-2.1-or-later */
// On a GPU (and on the CUDA stand-in): cudaupload and cudadownload tell
// upstream they take GstVideoCropMeta when downstream does, and then honour
// it: the frames that come out are exactly CPU videocrop's.
#include <gst/check/gstcheck.h>

#include "gstcudastreams.h"
#include "testutil.h"

using testutil::Captured;

/* An appsink that says it reads video and crop metas, as a renderer that
 * crops while drawing would: the probe answers the ALLOCATION query for it
 * (appsink itself does not answer it). */
static GstPadProbeReturn
accept_crop_meta (GstPad *, GstPadProbeInfo * info, gpointer)
{
  GstQuery * q = GST_PAD_PROBE_INFO_QUERY (info);
  if (GST_QUERY_TYPE (q) != GST_QUERY_ALLOCATION)
    return GST_PAD_PROBE_OK;
  gst_query_add_allocation_meta (q, GST_VIDEO_META_API_TYPE, NULL);
  gst_query_add_allocation_meta (q, GST_VIDEO_CROP_META_API_TYPE, NULL);
  return GST_PAD_PROBE_HANDLED;
}

struct Seen {
  guint with_crop_meta = 0;
};

static GstPadProbeReturn
count_crop_meta (GstPad *, GstPadProbeInfo * info, gpointer user)
{
  if (gst_buffer_get_video_crop_meta (GST_PAD_PROBE_INFO_BUFFER (info)))
    static_cast<Seen *> (user)->with_crop_meta++;
  return GST_PAD_PROBE_OK;
}

/* `chain` sits between the test pattern and the appsink that takes crop
 * metas; videocrop somewhere in it crops with `crop` by a crop meta, and
 * the element named `victim` (`victim_desc`) receives it with every frame.
 * What comes out is exactly videocrop's, with no crop meta left. */
static void
check_chain (const char * format, const char * crop, const char * chain,
    const char * victim, const char * victim_desc)
{
  gchar * what = g_strdup_printf ("%s %s", format, crop);
  Captured expected, out;
  GstElement * pipeline =
      testutil::parse_beside_videocrop (format, 8, crop, chain, &expected, &out);
  testutil::add_probe (pipeline, "out", "sink", GST_PAD_PROBE_TYPE_QUERY_DOWNSTREAM,
      accept_crop_meta, NULL);
  Seen seen;
  testutil::add_probe (
      pipeline, victim, "sink", GST_PAD_PROBE_TYPE_BUFFER, count_crop_meta, &seen);
  testutil::run_to_eos (pipeline, what);
  /* a frame that still carries a crop meta is compared as the consumer
   * would see it: gst_video_frame_map does not apply it */
  for (GstBuffer * b : out.buffers)
    fail_if (gst_buffer_get_video_crop_meta (b),
        "%s: an output frame still carries a crop meta", what);
  testutil::assert_all_cropped_equal (expected, out, what);
  fail_unless (seen.with_crop_meta == 8, "%s: %s got %u frames with a crop meta", what,
      victim_desc, seen.with_crop_meta);
  g_free (what);
  gst_object_unref (pipeline);
}

/* Every format and crop, with videocrop at `%s` in `chain`. */
static void
check_all (const char * chain, const char * victim, const char * victim_desc)
{
  for (const char * f : { "RGBA", "RGB", "NV12", "I420", "Y42B", "YUY2", "UYVY" }) {
    for (const char * c :
        { "left=8 right=2 top=4 bottom=6", "left=3 right=6 top=1 bottom=2" }) {
      gchar * with_crop = g_strdup_printf (chain, c);
      check_chain (f, c, with_crop, victim, victim_desc);
      g_free (with_crop);
    }
  }
}

/* videocrop ! cudaupload: the crop meta goes into the upload. */
GST_START_TEST (test_crop_meta_into_upload)
{
  check_all ("videocrop %s ! cudaupload name=up ! cudadownload", "up", "cudaupload");
}
GST_END_TEST;

/* cudaupload ! videocrop: the crop meta, on device frames, goes into the
 * download. */
GST_START_TEST (test_crop_meta_into_download)
{
  check_all (
      "cudaupload ! videocrop %s ! cudadownload name=down", "down", "cudadownload");
}
GST_END_TEST;

static Suite *
cropmeta_gpu_suite (void)
{
  Suite * s = suite_create ("cropmeta_gpu");
  TCase * tc = tcase_create ("gpu");
  tcase_set_timeout (tc, 300);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_crop_meta_into_upload);
  tcase_add_test (tc, test_crop_meta_into_download);
  return s;
}

TESTUTIL_GPU_CHECK_MAIN (cropmeta_gpu);

/* SPDX-License-Identifier: LGPL-2.1-or-later */
// On two GPUs (and on the CUDA stand-in with FAKECUDA_DEVICES=2): frames made
// on one device and used by an element of another are copied across (the
// consumer's stream waiting on the producer's event), pixel-exact, never read
// in place, in every format the converter takes; the elements leave the
// application thread's current device as they found it; a frame that names a
// device the process does not have is refused with an error that names both
// devices; and cudabatch on device 1 batches frames of device 0 beside its
// own, the tensor the one it makes of frames all on device 1, without a host
// wait.
#include <gst/check/gstcheck.h>
#include <gst/app/gstappsrc.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "convert/gstcsconvertcaps.h"
#include "gstcudastreams.h"
#include "testutil.h"

using testutil::Captured;

/* `chain` beside CPU videocrop, on the same random frames: the same pixels. */
static void
check_against_videocrop (const char * format, const char * crop, const char * chain)
{
  gchar * what = g_strdup_printf ("%s %s, %s", format, crop, chain);
  Captured expected, out;
  GstElement * pipeline =
      testutil::parse_beside_videocrop (format, 12, crop, chain, &expected, &out);
  testutil::run_to_eos (pipeline, what);
  testutil::assert_all_cropped_equal (expected, out, what);
  g_free (what);
  gst_object_unref (pipeline);
}

/* Every element on its own device: the crop of device-0 frames on device 1,
 * the download of device-1 frames on device 0, an upload of device frames
 * (passthrough) onto another device; zero-copy and packed crops alike. */
GST_START_TEST (test_frames_cross_devices)
{
  const char * chains[] = {
    "cudaupload device-id=0 ! cudacrop device-id=1 %s ! cudadownload device-id=1",
    "cudaupload device-id=0 ! cudacrop device-id=1 %s ! cudadownload device-id=0",
    "cudaupload device-id=1 ! cudaupload device-id=0 ! cudacrop device-id=0 %s ! "
    "cudadownload device-id=1",
  };
  for (const char * f : { "NV12", "RGBA", "I420", "YUY2" }) {
    for (const char * crop :
        { "left=4 right=6 top=2 bottom=4", "left=3 right=5 top=1 bottom=2" }) {
      for (const char * chain : chains) {
        gchar * c = g_strdup_printf (chain, crop);
        check_against_videocrop (f, crop, c);
        g_free (c);
      }
    }
  }
}
GST_END_TEST;

/* Three random frames of `format`, 33x18, through `chain` (after an
 * appsrc, before an appsink), captured. */
static void
run_chain (const char * format, const char * chain, Captured * out)
{
  const GstVideoInfo info = testutil::video_info (format, 33, 18);
  GstCaps * caps = gst_video_info_to_caps (&info);
  gchar * caps_str = gst_caps_to_string (caps);
  gchar * desc = g_strdup_printf (
      "appsrc name=src format=time caps=\"%s\" ! %s ! appsink name=out sync=false",
      caps_str, chain);
  GError * err = NULL;
  GstElement * pipeline = gst_parse_launch (desc, &err);
  fail_unless (pipeline && !err, "%s: %s", desc, err ? err->message : "");
  testutil::capture_appsink (pipeline, "out", out);
  testutil::push_frames (
      pipeline, "src", &info, testutil::Content::RANDOM, 70, 3, GST_SECOND / 30);
  testutil::run_to_eos (pipeline, desc);
  gst_object_unref (pipeline);
  g_free (desc);
  g_free (caps_str);
  gst_caps_unref (caps);
}

/* Every format the converter takes, in its device layout, across devices:
 * uploaded on device 0, scaled (the same format) by cudaconvertscale on
 * device 1 and downloaded on device 0, the frames of the same chain all on
 * device 1, byte for byte; uploaded on device 0 and downloaded on device 1
 * (a copy across, nothing else), the frames that went in. */
GST_START_TEST (test_every_format_across)
{
  const char * scaled =
      "cudastreamsupload device-id=%d ! cudastreamsconvertscale device-id=1 ! "
      "video/x-raw(memory:CUDAStreamsMemory),width=24,height=13 ! "
      "cudastreamsdownload device-id=%d";
  gchar * across = g_strdup_printf (scaled, 0, 0);
  gchar * one_device = g_strdup_printf (scaled, 1, 1);
  const GValue * formats = gst_cs_convert_formats ();
  const guint n = gst_value_list_get_size (formats);
  for (guint i = 0; i < n; i++) {
    const char * f = g_value_get_string (gst_value_list_get_value (formats, i));
    gchar * what = g_strdup_printf ("%s scaled on device 1 from device 0", f);
    Captured expected, got;
    run_chain (f, one_device, &expected);
    run_chain (f, across, &got);
    testutil::assert_all_frames_equal (expected, got, what);
    g_free (what);
    what = g_strdup_printf ("%s uploaded on device 0, downloaded on device 1", f);
    Captured in, copied;
    run_chain (f, "identity", &in);
    run_chain (
        f, "cudastreamsupload device-id=0 ! cudastreamsdownload device-id=1", &copied);
    testutil::assert_all_frames_equal (in, copied, what);
    g_free (what);
  }
  std::printf ("%u formats across devices: scaled and copied as on one device\n", n);
  g_free (across);
  g_free (one_device);
}
GST_END_TEST;

/* The application's thread uses device 1; starting, running and stopping
 * elements on device 0 from it (state changes, pools freed) leaves it on
 * device 1. */
GST_START_TEST (test_application_device_kept)
{
  fail_unless_equals_int (cudaSetDevice (1), cudaSuccess);
  GstElement * pipeline = gst_parse_launch (
      "videotestsrc num-buffers=5 ! video/x-raw,format=NV12,width=64,height=48 ! "
      "cudaupload device-id=0 ! cudacrop device-id=0 left=2 ! cudadownload device-id=0 ! "
      "fakesink",
      NULL);
  int current = -1;
  for (GstState s : { GST_STATE_READY, GST_STATE_PAUSED, GST_STATE_PLAYING }) {
    gst_element_set_state (pipeline, s);
    gst_element_get_state (pipeline, NULL, NULL, 10 * GST_SECOND);
    fail_unless_equals_int (cudaGetDevice (&current), cudaSuccess);
    fail_unless_equals_int (current, 1);
  }
  testutil::run_to_eos (pipeline); /* ends in NULL: pools freed */
  fail_unless_equals_int (cudaGetDevice (&current), cudaSuccess);
  fail_unless_equals_int (current, 1);
  gst_object_unref (pipeline);
  cudaSetDevice (0);
}
GST_END_TEST;

/* An application that wraps its memory with a device this process does not
 * have (a wrong id, a device hidden by CUDA_VISIBLE_DEVICES): an element
 * error naming both devices, no crash, no hang. */
GST_START_TEST (test_frame_of_missing_device)
{
  GstVideoInfo info;
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_NV12, 64, 48);
  void * data = nullptr;
  fail_unless_equals_int (cudaSetDevice (0), cudaSuccess);
  fail_unless_equals_int (cudaMalloc (&data, info.size), cudaSuccess);
  GstBuffer * buf = gst_buffer_new ();
  gst_buffer_append_memory (
      buf, gst_cs_memory_new_wrapped (7, data, info.size, NULL, NULL));
  GstElement * p = gst_parse_launch (
      "appsrc name=src format=time caps=\"video/x-raw(memory:CUDAStreamsMemory),"
      "format=NV12,width=64,height=48,framerate=30/1\" ! "
      "cudacrop device-id=1 left=6 right=10 top=4 bottom=2 ! cudadownload device-id=1 ! "
      "fakesink",
      NULL);
  fail_unless (p != NULL);
  gst_element_set_state (p, GST_STATE_PLAYING);
  GstElement * src = testutil::by_name (p, "src");
  gst_app_src_push_buffer (GST_APP_SRC (src), buf);
  gst_app_src_end_of_stream (GST_APP_SRC (src));
  gst_object_unref (src);
  testutil::Outcome o = testutil::run_to_end (p, 20 * GST_SECOND);
  gst_object_unref (p);
  std::printf ("a frame of device 7 into cudacrop device-id=1: %s\n", o.error.c_str ());
  fail_unless (!o.eos, "a frame of device 7 was taken");
  fail_unless (o.error.find ("device 7") != std::string::npos &&
                   o.error.find ("device 1") != std::string::npos,
      "the error does not name both devices: %s", o.error.c_str ());
  cudaFree (data);
}
GST_END_TEST;

/* --- cudabatch --------------------------------------------------------- */

/* A source of cudabatch: its frames' caps, and the device they are
 * uploaded to. */
struct BatchSource {
  const char * format;
  gint w, h;
  gint device;
};

/* "cudabatch device-id=1 `props`" fed by an appsrc and our upload per
 * source (by its own name: nvcodec's cudaupload may have won that one), on
 * the source's device. */
static GstElement *
batch_pipeline (const std::vector<BatchSource> & sources, const char * props)
{
  std::string line = std::string ("cudabatch name=cs device-id=1 ") + props +
                     " ! fakesink name=out sync=false async=false";
  for (size_t i = 0; i < sources.size (); i++) {
    gchar * part = g_strdup_printf (
        " appsrc name=s%zu format=time caps=\"video/x-raw,format=%s,width=%d,"
        "height=%d,framerate=30/1\" ! cudastreamsupload device-id=%d ! cs.sink_%zu",
        i, sources[i].format, sources[i].w, sources[i].h, sources[i].device, i);
    line += part;
    g_free (part);
  }
  GError * err = NULL;
  GstElement * pipeline = gst_parse_launch (line.c_str (), &err);
  fail_unless (pipeline && !err, "%s: %s", line.c_str (), err ? err->message : "");
  return pipeline;
}

/* Random frames (the same for the same source and frame number), `frames`
 * of each source, batched; the tensors as they came out, read on the host.
 * The element never waits on the host. */
static std::vector<std::vector<guint8>>
batch_tensors (const std::vector<BatchSource> & sources, const char * props, guint frames,
    const std::string & what)
{
  std::vector<std::vector<guint8>> tensors;
  GstElement * pipeline = batch_pipeline (sources, props);
  testutil::capture_bytes (pipeline, "out", "sink", &tensors);
  fail_unless (
      gst_element_set_state (pipeline, GST_STATE_PLAYING) != GST_STATE_CHANGE_FAILURE);
  for (size_t i = 0; i < sources.size (); i++) {
    GstVideoInfo info;
    gst_video_info_set_format (&info, gst_video_format_from_string (sources[i].format),
        sources[i].w, sources[i].h);
    gchar * name = g_strdup_printf ("s%zu", i);
    GstElement * src = testutil::by_name (pipeline, name);
    for (guint k = 0; k < frames; k++) {
      GstBuffer * frame = testutil::random_buffer (info.size, (guint32)(100 * i + k + 1));
      GST_BUFFER_PTS (frame) = k * GST_SECOND / 30;
      GST_BUFFER_DURATION (frame) = GST_SECOND / 30;
      fail_unless_equals_int (
          gst_app_src_push_buffer (GST_APP_SRC (src), frame), GST_FLOW_OK);
    }
    gst_app_src_end_of_stream (GST_APP_SRC (src));
    gst_object_unref (src);
    g_free (name);
  }
  testutil::run_to_eos (pipeline, what.c_str ());
  fail_unless_equals_int (tensors.size (), frames);
  fail_unless_equals_uint64 (testutil::host_waits (pipeline, "cs"), 0);
  gst_object_unref (pipeline);
  return tensors;
}

/* cudabatch on device 1 with its sources uploaded as `sources` say, beside
 * the same batches of the same frames uploaded on device 1: byte for byte. */
static void
check_batch_across (const std::vector<BatchSource> & sources, const char * props)
{
  const guint frames = 4;
  std::string what = std::string ("cudabatch device-id=1 ") + props + " of";
  std::vector<BatchSource> local = sources;
  for (BatchSource & s : local) {
    what += std::string (" ") + s.format + " (device " + std::to_string (s.device) + ")";
    s.device = 1;
  }
  const auto expected = batch_tensors (local, props, frames, what + ", all on device 1");
  const auto got = batch_tensors (sources, props, frames, what);
  for (guint k = 0; k < frames; k++) {
    fail_unless_equals_int (got[k].size (), expected[k].size ());
    fail_unless (got[k] == expected[k],
        "%s: batch %u differs from the batch of frames on device 1", what.c_str (), k);
  }
  std::printf (
      "%s: %u batches the same as on one device, host waits 0\n", what.c_str (), frames);
}

/* Frames of device 0 in slots of cudabatch on device 1, one slot of its own
 * device among them: each is copied across on the batch's stream, after
 * its producer's event (the stand-in reads junk otherwise), and the tensor
 * is the one-device tensor exactly. The converter's launch per slot (mixed
 * formats), into a float tensor and into uint8 NHWC, and the one fused
 * launch of decoders' NV12 (as batch_gpu's test_fused_path). */
GST_START_TEST (test_batch_frames_of_other_device)
{
  const std::vector<BatchSource> mixed = {
    { "NV12", 64, 48, 0 },
    { "RGBA", 40, 30, 0 },
    { "I420", 50, 38, 1 },
    { "YUY2", 36, 20, 0 },
  };
  check_batch_across (mixed, "width=32 height=24 dtype=float32");
  check_batch_across (mixed, "width=32 height=24 dtype=uint8 layout=nhwc");
  const std::vector<BatchSource> nv12 = {
    { "NV12", 64, 48, 0 },
    { "NV12", 38, 22, 1 },
    { "NV12", 20, 60, 0 },
  };
  check_batch_across (nv12, "width=32 height=24 dtype=float16");
}
GST_END_TEST;

static Suite *
crossdevice_suite (void)
{
  Suite * s = suite_create ("crossdevice_gpu");
  TCase * tc = tcase_create ("gpu");
  tcase_set_timeout (tc, 300);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_frames_cross_devices);
  tcase_add_test (tc, test_every_format_across);
  tcase_add_test (tc, test_application_device_kept);
  tcase_add_test (tc, test_frame_of_missing_device);
  tcase_add_test (tc, test_batch_frames_of_other_device);
  return s;
}

int
main (int argc, char ** argv)
{
  gst_check_init (&argc, &argv);
  testutil::require_gpu_or_skip ("crossdevice_gpu");
  int n = 0;
  if (cudaGetDeviceCount (&n) != cudaSuccess || n < 2) {
    std::printf (
        "SKIP crossdevice_gpu: needs two CUDA devices, this machine has %d\n", n);
    return 77;
  }
  return gst_check_run_suite (crossdevice_suite (), "crossdevice_gpu", __FILE__);
}

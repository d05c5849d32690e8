/* SPDX-License-Identifier: LGPL-2.1-or-later */
// Caps an element cannot take or make are refused with a negotiation
// warning that names the field and the value (in its message and its debug
// text): input outside what the element takes (a size of 0 or above 16384,
// a format it does not handle), output downstream accepts but the element
// cannot make from its input (a size, format or frame rate it keeps), at
// the caps event or at a renegotiation downstream asks for. GStreamer's own
// message ("Internal data stream error", not-negotiated, from upstream)
// names neither.
#include <string>
#include <vector>

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>

#include "testutil.h"

namespace {
struct Said {
  GstMessageType type;
  std::string source, message, debug;
};

/* Every error and warning on `bus`, popped. */
std::vector<Said>
messages (GstBus * bus)
{
  std::vector<Said> out;
  while (GstMessage * m = gst_bus_pop_filtered (
             bus, (GstMessageType)(GST_MESSAGE_ERROR | GST_MESSAGE_WARNING))) {
    GError * err = NULL;
    gchar * dbg = NULL;
    if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR)
      gst_message_parse_error (m, &err, &dbg);
    else
      gst_message_parse_warning (m, &err, &dbg);
    out.push_back (
        { GST_MESSAGE_TYPE (m), GST_OBJECT_NAME (m->src), err->message, dbg ? dbg : "" });
    g_error_free (err);
    g_free (dbg);
    gst_message_unref (m);
  }
  return out;
}

std::string
dump (const std::vector<Said> & said)
{
  std::string out;
  for (const Said & s : said)
    out += std::string (s.type == GST_MESSAGE_ERROR ? "ERROR " : "WARNING ") + s.source +
           ": " + s.message + " (" + s.debug + ")\n";
  return out;
}

/* A harness around the bin `launch` (its first element's sink, its last
 * element's src), with a bus, offered `caps` from upstream; `size` gets a
 * frame's. */
GstHarness *
harness_offered (const char * launch, const char * caps, GstBus ** bus, gsize * size)
{
  GstHarness * h = gst_harness_new_parse (launch);
  gst_harness_set_live (h, FALSE);
  *bus = testutil::watch_bus (h->element);
  gst_harness_play (h);
  GstCaps * c = gst_caps_from_string (caps);
  GstVideoInfo info;
  *size = gst_video_info_from_caps (&info, c) ? info.size : 1;
  gst_harness_push_event (h, gst_event_new_stream_start ("refusal"));
  gst_harness_push_event (h, gst_event_new_caps (c));
  gst_caps_unref (c);
  GstSegment segment;
  gst_segment_init (&segment, GST_FORMAT_TIME);
  gst_harness_push_event (h, gst_event_new_segment (&segment));
  return h;
}

void
teardown (GstHarness * h, GstBus * bus)
{
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
}

/* The messages posted while `launch` is offered `caps` and a frame from
 * upstream; `accepted` gets whether the frame went through (a sticky caps
 * event refused is only seen at the next push). */
std::vector<Said>
offer (const char * launch, const char * caps, gboolean * accepted)
{
  GstBus * bus;
  gsize size;
  GstHarness * h = harness_offered (launch, caps, &bus, &size);
  *accepted =
      gst_harness_push (h, gst_buffer_new_allocate (NULL, size, NULL)) == GST_FLOW_OK;
  std::vector<Said> said = messages (bus);
  teardown (h, bus);
  return said;
}

/* One message of `type` from the element `source`, whose debug text holds
 * each of `words`, among `said`. */
void
expect (const std::vector<Said> & said, GstMessageType type, const char * source,
    std::vector<const char *> words, const char * what)
{
  for (const Said & s : said) {
    if (s.type != type || s.source != source)
      continue;
    bool all = true;
    for (const char * w : words)
      all = all && s.debug.find (w) != std::string::npos;
    if (all)
      return;
  }
  std::string wanted;
  for (const char * w : words)
    wanted += std::string (" \"") + w + "\"";
  fail ("%s: no %s from %s whose debug text says%s; got:\n%s", what,
      type == GST_MESSAGE_ERROR ? "error" : "warning", source, wanted.c_str (),
      dump (said).c_str ());
}

constexpr const char * kNV12 =
    "video/x-raw,format=NV12,width=64,height=48,framerate=30/1";
constexpr const char * kDeviceNV12 = "video/x-raw(memory:CUDAStreamsMemory),format=NV12,"
                                     "width=64,height=48,framerate=30/1";
} // namespace

/* --- input the element does not take ------------------------------------ */

GST_START_TEST (test_input_size_out_of_range)
{
  gboolean accepted;
  std::vector<Said> said = offer ("cudastreamsupload name=up",
      "video/x-raw,format=NV12,width=20000,height=48,framerate=30/1", &accepted);
  fail_unless (!accepted, "a width above 16384 is refused");
  expect (said, GST_MESSAGE_WARNING, "up", { "width", "20000", "[ 1, 16384 ]" },
      "width 20000");

  said = offer ("cudastreamsdownload name=down",
      "video/x-raw(memory:CUDAStreamsMemory),format=NV12,width=64,height=0", &accepted);
  fail_unless (!accepted, "a height of 0 is refused");
  expect (
      said, GST_MESSAGE_WARNING, "down", { "height", "0", "[ 1, 16384 ]" }, "height 0");
}
GST_END_TEST;

GST_START_TEST (test_input_format_not_handled)
{
  gboolean accepted;
  std::vector<Said> said = offer ("cudastreamsupload name=up",
      "video/x-raw,format=UYVP,width=64,height=48,framerate=30/1", &accepted);
  fail_unless (!accepted, "UYVP (a complex packing) is refused");
  expect (said, GST_MESSAGE_WARNING, "up", { "format", "UYVP", "NV12" }, "UYVP");

  said = offer ("cudastreamsconvertscale name=cs",
      "video/x-raw(memory:CUDAStreamsMemory),format=v210,width=64,height=48", &accepted);
  fail_unless (!accepted, "v210 is refused");
  expect (said, GST_MESSAGE_WARNING, "cs", { "format", "v210" }, "v210");
}
GST_END_TEST;

/* The crop names its sides and the input's size. */
GST_START_TEST (test_crop_larger_than_frame)
{
  gboolean accepted;
  std::vector<Said> said =
      offer ("cudastreamscrop name=crop left=40 right=30", kDeviceNV12, &accepted);
  fail_unless (!accepted, "a crop wider than the frame is refused");
  expect (said, GST_MESSAGE_WARNING, "crop", { "width", "64" }, "crop 70 of 64");
  bool named = false;
  for (const Said & s : said)
    named = named || (s.message.find ("left 40") != std::string::npos &&
                         s.message.find ("right 30") != std::string::npos &&
                         s.message.find ("64x48") != std::string::npos);
  fail_unless (named, "the sides are named:\n%s", dump (said).c_str ());
}
GST_END_TEST;

/* --- output downstream accepts, which the element cannot make ----------- */

GST_START_TEST (test_output_size_not_made)
{
  gboolean accepted;
  /* cudaupload does not scale. */
  std::vector<Said> said = offer ("cudastreamsupload name=up ! "
                                  "capsfilter caps=video/x-raw(memory:CUDAStreamsMemory),"
                                  "width=32",
      kNV12, &accepted);
  fail_unless (!accepted, "a width cudaupload cannot make is refused");
  expect (said, GST_MESSAGE_WARNING, "up", { "width", "32", "64" }, "upload width 32");

  /* cudacrop makes the size its sides leave. */
  said = offer ("cudastreamscrop name=crop left=10 ! "
                "capsfilter caps=video/x-raw(memory:CUDAStreamsMemory),width=32",
      kDeviceNV12, &accepted);
  fail_unless (!accepted, "a width the crop does not leave is refused");
  expect (said, GST_MESSAGE_WARNING, "crop", { "width", "32", "54" }, "crop width 32");
}
GST_END_TEST;

GST_START_TEST (test_output_format_not_made)
{
  gboolean accepted;
  /* cudadownload does not convert. */
  std::vector<Said> said =
      offer ("cudastreamsdownload name=down ! capsfilter caps=video/x-raw,format=RGBA",
          kDeviceNV12, &accepted);
  fail_unless (!accepted, "a format cudadownload cannot make is refused");
  expect (
      said, GST_MESSAGE_WARNING, "down", { "format", "RGBA", "NV12" }, "download RGBA");
}
GST_END_TEST;

GST_START_TEST (test_output_framerate_not_made)
{
  gboolean accepted;
  /* cudaconvertscale keeps the frame rate. */
  std::vector<Said> said = offer ("cudastreamsconvertscale name=cs ! "
                                  "capsfilter caps=video/x-raw(memory:CUDAStreamsMemory),"
                                  "framerate=60/1",
      kDeviceNV12, &accepted);
  fail_unless (!accepted, "a frame rate cudaconvertscale cannot make is refused");
  expect (
      said, GST_MESSAGE_WARNING, "cs", { "framerate", "60/1", "30/1" }, "convert 60/1");
}
GST_END_TEST;

/* Downstream asks for new caps while frames flow: the renegotiation before
 * the next frame fails, and says why. */
GST_START_TEST (test_output_refused_on_renegotiation)
{
  GstBus * bus;
  gsize size;
  GstHarness * h = harness_offered (
      "cudastreamsupload name=up ! capsfilter name=f", kNV12, &bus, &size);
  fail_unless_equals_int (
      gst_harness_push (h, gst_buffer_new_allocate (NULL, size, NULL)), GST_FLOW_OK);
  GstElement * f = gst_bin_get_by_name (GST_BIN (h->element), "f");
  GstCaps * narrow =
      gst_caps_from_string ("video/x-raw(memory:CUDAStreamsMemory),width=32");
  g_object_set (f, "caps", narrow, NULL);
  gst_caps_unref (narrow);
  gst_object_unref (f);
  const GstFlowReturn flow =
      gst_harness_push (h, gst_buffer_new_allocate (NULL, size, NULL));
  std::vector<Said> said = messages (bus);
  teardown (h, bus);
  fail_unless_equals_int (flow, GST_FLOW_NOT_NEGOTIATED);
  expect (said, GST_MESSAGE_WARNING, "up", { "width", "32", "64" }, "renegotiated width");
}
GST_END_TEST;

/* Caps that negotiate say nothing. */
GST_START_TEST (test_accepted_caps_say_nothing)
{
  gboolean accepted;
  std::vector<Said> said = offer ("cudastreamsupload ! cudastreamsconvertscale ! "
                                  "capsfilter caps=video/x-raw(memory:CUDAStreamsMemory),"
                                  "width=32 ! cudastreamsdownload",
      kNV12, &accepted);
  fail_unless (accepted, "the caps are taken");
  fail_unless (said.empty (), "no message:\n%s", dump (said).c_str ());
}
GST_END_TEST;

static Suite *
refusal_gpu_suite (void)
{
  Suite * s = suite_create ("refusal_gpu");
  TCase * tc = tcase_create ("gpu");
  tcase_set_timeout (tc, 300);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_input_size_out_of_range);
  tcase_add_test (tc, test_input_format_not_handled);
  tcase_add_test (tc, test_crop_larger_than_frame);
  tcase_add_test (tc, test_output_size_not_made);
  tcase_add_test (tc, test_output_format_not_made);
  tcase_add_test (tc, test_output_framerate_not_made);
  tcase_add_test (tc, test_output_refused_on_renegotiation);
  tcase_add_test (tc, test_accepted_caps_say_nothing);
  return s;
}

TESTUTIL_GPU_CHECK_MAIN (refusal_gpu);

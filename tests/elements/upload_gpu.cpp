/* SPDX-License-Identifier: LGPL-2.1-or-later */
// On a GPU (and on the CUDA stand-in, where a copy that is not waited for
// runs late every time): cudaupload never lets a producer rewrite memory a
// copy still reads, and lets go of pageable input once it is staged.
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>

#include <vector>

#include "gstcudastreams.h"
#include "gstcspinnedmemory-private.h"
#include "testutil.h"

static const gsize kFrame = 64 * 48 * 4;

/* cudaupload between a harness of `format` 64x48 system memory frames and
 * one that takes device memory. */
static GstHarness *
upload_harness (const char * format)
{
  GstHarness * h = testutil::harness_ours ("cudaupload");
  gchar * caps =
      g_strdup_printf ("video/x-raw,format=%s,width=64,height=48,framerate=30/1", format);
  gchar * device_caps = g_strdup_printf ("video/x-raw(memory:CUDAStreamsMemory),"
                                         "format=%s,width=64,height=48,framerate=30/1",
      format);
  gst_harness_set_src_caps_str (h, caps);
  gst_harness_set_sink_caps_str (h, device_caps);
  g_free (caps);
  g_free (device_caps);
  return h;
}

static void
expect_frame (GstBuffer * out, guint8 value, int index)
{
  GstMapInfo map;
  fail_unless (gst_buffer_map (out, &map, GST_MAP_READ)); /* a host copy, waited for */
  gsize bad = 0;
  while (bad < kFrame && map.data[bad] == value)
    bad++;
  fail_unless (bad == kFrame, "frame %d: byte %zu is 0x%02x, expected 0x%02x", index, bad,
      bad < kFrame ? map.data[bad] : 0, value);
  gst_buffer_unmap (out, &map);
}

/* A producer with its own ring of pinned buffers (memory of the project's
 * pinned allocator, not of the pool cudaupload offers) rewrites a buffer as
 * soon as cudaupload lets go of it. cudaupload keeps it until its copy has
 * read it, without a host wait until it holds as many as it told upstream
 * (3); the ring has one more, so the producer never finds one still held. */
GST_START_TEST (test_foreign_pinned_ring)
{
  GstHarness * h = upload_harness ("RGBA");
  GstAllocator * pinned = gst_cs_pinned_allocator_get ();
  const guint held = 3;
  GstBuffer * ring[held + 1];
  for (GstBuffer *& b : ring)
    b = gst_buffer_new_allocate (pinned, kFrame, NULL);
  const int frames = 9;
  for (int i = 0; i < frames; i++) {
    GstBuffer * b = ring[i % G_N_ELEMENTS (ring)];
    fail_unless (GST_MINI_OBJECT_REFCOUNT_VALUE (b) == 1, "frame %d: still held", i);
    gst_buffer_memset (b, 0, 0x10 + i, kFrame);
    GST_BUFFER_PTS (b) = i * GST_SECOND / 30;
    fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (b)), GST_FLOW_OK);
    /* let go already (its copy has run): the producer rewrites it at once */
    if (GST_MINI_OBJECT_REFCOUNT_VALUE (b) == 1)
      gst_buffer_memset (b, 0, 0xee, kFrame);
  }
  for (int i = 0; i < frames; i++) {
    GstBuffer * out = gst_harness_pull (h);
    expect_frame (out, 0x10 + i, i);
    gst_buffer_unref (out);
  }
  /* Nothing waits for the copies here: on the stand-in, which runs them
   * only when waited for, each frame past the third waits for the oldest. */
  fail_unless (testutil::host_waits (h->element) <= (guint64)frames - held);
  gst_harness_teardown (h);
  for (GstBuffer * b : ring)
    gst_buffer_unref (b);
  gst_object_unref (pinned);
}
GST_END_TEST;

/* Pageable input goes through pinned staging: the element lets go of it once
 * its copy threads have read it (maybe after the frame was pushed), with no
 * host wait; the producer rewrites it as soon as it is let go. */
GST_START_TEST (test_pageable_staged)
{
  for (const char * format : { "RGBA", "NV12", "I420" }) {
    GstHarness * h = upload_harness (format);
    GstVideoInfo info;
    gst_video_info_set_format (&info, gst_video_format_from_string (format), 64, 48);
    const int frames = 5;
    for (int i = 0; i < frames; i++) {
      GstBuffer * buf = gst_buffer_new_allocate (NULL, info.size, NULL);
      gst_buffer_memset (buf, 0, i, info.size);
      GST_BUFFER_PTS (buf) = i * GST_SECOND / 30;
      GstBuffer * expected = gst_buffer_copy_deep (buf);
      gst_buffer_ref (buf);
      fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_OK);
      /* The threads read it whatever the GPU does: nothing here waits. */
      for (int polls = 0; GST_MINI_OBJECT_REFCOUNT_VALUE (buf) > 1 && polls < 100000;
           polls++)
        g_usleep (100);
      fail_unless (GST_MINI_OBJECT_REFCOUNT_VALUE (buf) == 1, "%s: input kept", format);
      gst_buffer_memset (buf, 0, 0xee, info.size); /* rewritten at once */
      gst_buffer_unref (buf);
      GstBuffer * out = gst_harness_pull (h);
      testutil::assert_frames_equal (expected, &info, out, &info, format);
      gst_buffer_unref (out);
      gst_buffer_unref (expected);
    }
    fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
    /* Staging is reused every 3 frames; the host copies above waited */
    fail_unless_equals_uint64 (testutil::host_waits (h->element), 0);
    gst_harness_teardown (h);
  }
}
GST_END_TEST;

/* Every host block the CUDA runtime sees is one the project counted, over a
 * pipeline's whole life: pools allocated and freed, pageable and pinned
 * input, renegotiation. (On the stand-in, which counts them itself.) The
 * downloads keep no frames in flight: their thread then waits for each copy
 * before the streaming thread goes on, so no thread finds done, while it
 * polls, work that another's wait ran (a counted wait, and no block). */
GST_START_TEST (test_every_host_block_counted)
{
  if (!testutil::on_stand_in ())
    return; /* a GPU runtime does not count its own host blocks */
  const char * pipelines[] = {
    "videotestsrc num-buffers=20 ! video/x-raw,format=NV12,width=64,height=48 ! "
    "cudaupload ! cudacrop left=2 top=2 ! cudadownload max-in-flight=0 ! fakesink",
    "videotestsrc num-buffers=20 ! video/x-raw,format=I420,width=64,height=48 ! "
    "videoconvert ! video/x-raw,format=YUY2 ! cudaupload ! cudadownload max-in-flight=0 "
    "! fakesink",
  };
  for (const char * desc : pipelines) {
    guint64 ours = gst_cs_host_waits_total ();
    guint64 runtime = testutil::runtime_host_blocks ();
    GstElement * pipeline = gst_parse_launch (desc, NULL);
    testutil::run_to_eos (pipeline, desc);
    gst_object_unref (pipeline);
    fail_unless_equals_uint64 (
        gst_cs_host_waits_total () - ours, testutil::runtime_host_blocks () - runtime);
  }
}
GST_END_TEST;

static Suite *
upload_gpu_suite (void)
{
  Suite * s = suite_create ("upload_gpu");
  TCase * tc = tcase_create ("gpu");
  tcase_set_timeout (tc, 300);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_foreign_pinned_ring);
  tcase_add_test (tc, test_pageable_staged);
  tcase_add_test (tc, test_every_host_block_counted);
  return s;
}

TESTUTIL_GPU_CHECK_MAIN (upload_gpu);

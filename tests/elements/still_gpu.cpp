/* SPDX-License-Identifier: LGPL-2.1-or-later */
// On a GPU: a still frame (imagefreeze sends a copy of one buffer, and so
// one event record, every frame) makes cudastreamsconvertscale's stream
// wait once, not every frame; fresh frames are each waited for, and read
// after they were written.
//
// Which check holds where: "read early" (the output is the value just
// written, not the last one) on both, since each write is held back until
// the element's push returned: behind a stream gate on a GPU (a small
// memset would otherwise be done before the converter reads, wait or
// not), and on the stand-in by its streams, which run only when something
// waits for them. The counts of cudaStreamWaitEvent calls are checked on
// the stand-in alone, which counts them (a GPU's runtime does not).
#include <gst/check/gstcheck.h>
#include <gst/video/video.h>

#include "fakecuda.h"
#include "gstcudastreams.h"
#include "gstcsbufferpool-private.h"
#include "gstcsmemory-private.h"
#include "streamgate.hpp"
#include "testutil.h"

namespace {

constexpr gint kWidth = 64, kHeight = 48;
/* Frames each test pushes. */
constexpr int kFrames = 6;

guint64
stream_waits ()
{
  return testutil::on_stand_in () ? fakecuda_stream_waits_thread () : 0;
}

gchar *
device_caps (gint width, gint height)
{
  return g_strdup_printf ("video/x-raw(" GST_CAPS_FEATURE_MEMORY_CS
                          "),format=NV12,width=%d,height=%d,framerate=30/1",
      width, height);
}

struct Still {
  GstCsStreamPool * streams = gst_cs_stream_pool_new (0, 1, 0, NULL);
  cudaStream_t writer = gst_cs_stream_pool_lease (streams);
  GstBufferPool * pool = gst_cs_buffer_pool_new (0);
  GstHarness * h = testutil::harness_ours ("cudastreamsconvertscale");
  GstBuffer * frame = NULL;

  Still ()
  {
    gchar * in = device_caps (kWidth, kHeight);
    gchar * out = device_caps (kWidth / 2, kHeight / 2);
    gst_harness_set_src_caps_str (h, in);
    gst_harness_set_sink_caps_str (h, out);
    GstCaps * caps = gst_caps_from_string (in);
    GstVideoInfo info;
    fail_unless (gst_video_info_from_caps (&info, caps));
    GstStructure * config = gst_buffer_pool_get_config (pool);
    gst_buffer_pool_config_set_params (config, caps, info.size, 1, 1);
    fail_unless (gst_buffer_pool_set_config (pool, config));
    fail_unless (gst_buffer_pool_set_active (pool, TRUE));
    fail_unless_equals_int (
        gst_buffer_pool_acquire_buffer (pool, &frame, NULL), GST_FLOW_OK);
    gst_caps_unref (caps);
    g_free (in);
    g_free (out);
    /* A first frame, ungated: the memory holds 0x00 (what a read too early
     * finds of it), and the converter's kernel is loaded (a first launch
     * loads it, which may wait for the whole device: never behind a
     * closed gate). */
    write (0x00);
    push_and_check (0x00);
  }
  ~Still ()
  {
    gst_harness_teardown (h);
    gst_buffer_unref (frame);
    gst_buffer_pool_set_active (pool, FALSE);
    gst_object_unref (pool);
    gst_object_unref (streams);
  }

  /* Writes a flat frame of `value` (every byte) on the writer's stream,
   * after the reads of the last one, and records it; behind `gate` where
   * given (closed here, opened by push_and_check ()). */
  void write (guint8 value, StreamGate * gate = NULL)
  {
    GstMemory * mem = gst_buffer_peek_memory (frame, 0);
    fail_unless (gst_cs_buffer_wait_writable (frame, writer, NULL));
    if (gate)
      gate->close (writer);
    fail_unless_equals_int (cudaMemsetAsync (gst_cs_memory_get_device_pointer (mem),
                                value, gst_memory_get_sizes (mem, NULL, NULL), writer),
        cudaSuccess);
    fail_unless (gst_cs_sync_meta_record (frame, 0, writer, NULL) != NULL);
  }

  /* Pushes a copy of the frame (as imagefreeze does) and checks the output
   * is flat `value`: a flat frame scales to itself. `gate`, where given,
   * is opened once the push returned: the write behind it is still to
   * come when the converter's work is enqueued, which reads it only if it
   * waits for it (the push itself must not wait for it on the host).
   * Returns the cudaStreamWaitEvent calls the push made. */
  guint64 push_and_check (guint8 value, StreamGate * gate = NULL)
  {
    const guint64 before = stream_waits ();
    fail_unless_equals_int (gst_harness_push (h, gst_buffer_copy (frame)), GST_FLOW_OK);
    const guint64 waits = stream_waits () - before;
    if (gate)
      gate->open ();
    GstBuffer * out = gst_harness_pull (h);
    fail_unless (out != NULL);
    GstVideoInfo info;
    gst_video_info_set_format (&info, GST_VIDEO_FORMAT_NV12, kWidth / 2, kHeight / 2);
    GstVideoFrame f;
    fail_unless (gst_video_frame_map (&f, &info, out, GST_MAP_READ));
    for (guint p = 0; p < 2; p++) {
      const guint8 * row = (const guint8 *)GST_VIDEO_FRAME_PLANE_DATA (&f, p);
      for (gint y = 0; y < GST_VIDEO_FRAME_COMP_HEIGHT (&f, p); y++) {
        for (gint x = 0; x < GST_VIDEO_FRAME_COMP_WIDTH (&f, 0) && x < kWidth / 2; x++)
          fail_unless (row[x] == value, "plane %u at %d,%d is %u, not %u: read early", p,
              x, y, row[x], value);
        row += GST_VIDEO_FRAME_PLANE_STRIDE (&f, p);
      }
    }
    gst_video_frame_unmap (&f);
    gst_buffer_unref (out);
    return waits;
  }
};

} // namespace

/* One record sent again and again: one wait, on its first frame. */
GST_START_TEST (test_still_frame_waited_once)
{
  Still still;
  StreamGate gate;
  still.write (0x40, &gate);
  for (int i = 0; i < kFrames; i++) {
    const guint64 waits = still.push_and_check (0x40, i == 0 ? &gate : NULL);
    if (testutil::on_stand_in ())
      fail_unless (waits == (i == 0 ? 1u : 0u),
          "frame %d: %" G_GUINT64_FORMAT " cudaStreamWaitEvent calls", i, waits);
  }
}
GST_END_TEST;

/* A new record every frame (a new frame in the same memory): each is
 * waited for, and the converter reads each frame's own bytes. */
GST_START_TEST (test_fresh_frames_waited_each)
{
  Still still;
  for (guint8 v = 0x10; v < 0x10 + kFrames; v++) {
    StreamGate gate;
    still.write (v, &gate);
    const guint64 waits = still.push_and_check (v, &gate);
    if (testutil::on_stand_in ())
      fail_unless (waits == 1,
          "frame 0x%02x: %" G_GUINT64_FORMAT " cudaStreamWaitEvent calls", v, waits);
  }
}
GST_END_TEST;

static Suite *
still_gpu_suite (void)
{
  /* The built kernels only. The two tests share a process, and together
   * convert one description often enough that the converter compiles a
   * kernel for it; loading that kernel can wait for the whole device, on
   * the pushing thread, while the test's gate holds a stream closed until
   * the push returns. Where an earlier run left the kernel in the disk
   * cache, it is loaded at once: every run after the first on a machine
   * would hang. */
  g_setenv ("GST_CS_CONVERT_RTC", "0", TRUE);
  Suite * s = suite_create ("still_gpu");
  TCase * tc = tcase_create ("general");
  tcase_add_test (tc, test_still_frame_waited_once);
  tcase_add_test (tc, test_fresh_frames_waited_each);
  suite_add_tcase (s, tc);
  return s;
}

TESTUTIL_GPU_CHECK_MAIN (still_gpu);

/* SPDX-License-Identifier: LGPL-2.1-or-later */
// On a GPU (and on the CUDA stand-in): the elements take the application's
// stream pool however it is handed in, and give their stream lease back to
// the pool they took it from.
#include <gst/check/gstcheck.h>

#include "gstcudastreams.h"
#include "testutil.h"

static GstBusSyncReply
answer_need_context (GstBus *, GstMessage * msg, gpointer pool)
{
  const gchar * type = NULL;
  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_NEED_CONTEXT &&
      gst_message_parse_context_type (msg, &type) &&
      g_strcmp0 (type, GST_CS_STREAM_POOL_CONTEXT_TYPE) == 0) {
    GstContext * ctx = gst_cs_context_new_stream_pool (GST_CS_STREAM_POOL (pool));
    gst_element_set_context (GST_ELEMENT (GST_MESSAGE_SRC (msg)), ctx);
    gst_context_unref (ctx);
  }
  return GST_BUS_PASS;
}

/* The usual way to hand an application's streams to a pipeline: answer
 * need-context from a bus sync handler while the elements start. Every
 * element then works on them: the frames say they were made there. */
GST_START_TEST (test_pool_from_need_context)
{
  cudaStream_t mine = nullptr;
  fail_unless_equals_int (
      cudaStreamCreateWithFlags (&mine, cudaStreamNonBlocking), cudaSuccess);
  GstCsStreamPool * pool = gst_cs_stream_pool_new_wrapped (0, &mine, 1);
  GstElement * pipeline = gst_parse_launch (
      "videotestsrc num-buffers=3 ! "
      "video/x-raw,format=RGBA,width=64,height=48 ! cudaupload name=up ! "
      "cudacrop left=2 top=2 ! appsink name=out sync=false",
      NULL);
  /* run_to_eos() calls it from the bus's sync handler, which it sets */
  testutil::set_bus_handler (pipeline, answer_need_context, pool);
  testutil::Captured out;
  testutil::capture_appsink (pipeline, "out", &out);
  testutil::run_to_eos (pipeline);
  fail_unless_equals_int (out.buffers.size (), 3);
  for (GstBuffer * b : out.buffers) {
    GstCsSyncMeta * meta = gst_buffer_get_cs_sync_meta (b);
    fail_unless (meta != NULL);
    fail_unless (meta->stream == mine,
        "a frame was made on stream %p, not the application's %p", meta->stream, mine);
  }
  gst_object_unref (pipeline);
  gst_object_unref (pool);
  cudaStreamDestroy (mine);
}
GST_END_TEST;

/* A new stream-pool context arrives while the element runs: the stream it
 * leased goes back to the pool it came from when it stops. (A pool leases
 * its least-leased stream, the first one on a tie: after the element is
 * gone, the first lease of the old pool is the element's stream again only
 * if that was given back.) */
GST_START_TEST (test_lease_returned_to_its_pool)
{
  GstCsStreamPool * old_pool = gst_cs_stream_pool_new (0, 2, 0, NULL);
  GstCsStreamPool * new_pool = gst_cs_stream_pool_new (0, 2, 0, NULL);
  cudaStream_t first = gst_cs_stream_pool_lease (old_pool);
  gst_cs_stream_pool_release (old_pool, first);

  GstElement * pipeline = gst_parse_launch (
      "videotestsrc is-live=true ! video/x-raw,format=NV12,width=64,height=48 ! "
      "cudaupload ! fakesink",
      NULL);
  GstContext * ctx = gst_cs_context_new_stream_pool (old_pool);
  gst_element_set_context (pipeline, ctx);
  gst_context_unref (ctx);
  fail_unless (
      gst_element_set_state (pipeline, GST_STATE_PLAYING) != GST_STATE_CHANGE_FAILURE);
  fail_unless (gst_element_get_state (pipeline, NULL, NULL, 10 * GST_SECOND) ==
               GST_STATE_CHANGE_SUCCESS);
  ctx = gst_cs_context_new_stream_pool (new_pool);
  gst_element_set_context (pipeline, ctx);
  gst_context_unref (ctx);
  gst_element_set_state (pipeline, GST_STATE_NULL);

  cudaStream_t again = gst_cs_stream_pool_lease (old_pool);
  fail_unless (
      again == first, "the element's lease of the old pool was never given back");
  gst_cs_stream_pool_release (old_pool, again);
  gst_object_unref (pipeline);
  gst_object_unref (old_pool);
  gst_object_unref (new_pool);
}
GST_END_TEST;

static Suite *
context_gpu_suite (void)
{
  Suite * s = suite_create ("context_gpu");
  TCase * tc = tcase_create ("gpu");
  tcase_set_timeout (tc, 120);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_pool_from_need_context);
  tcase_add_test (tc, test_lease_returned_to_its_pool);
  return s;
}

TESTUTIL_GPU_CHECK_MAIN (context_gpu);

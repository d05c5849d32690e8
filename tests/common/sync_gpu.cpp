/* SPDX-License-Identifier: LGPL-2.1-or-later */
// On a GPU: the stream pool, its context, the sync meta and the host-wait
// counter.
#include <gst/check/gstcheck.h>

#include "fakecuda.h"
#include "gstcudastreams.h"
#include "gstcsbufferpool-private.h"
#include "gstcsmemory-private.h"
#include "gstcsstreamwait-private.h"
#include "gstcssyncmeta-private.h"
#include "testutil.h"

/* cudaStreamWaitEvent calls of this thread so far, where the stand-in
 * counts them; 0 on a real runtime. */
static guint64
stream_waits ()
{
  return testutil::on_stand_in () ? fakecuda_stream_waits_thread () : 0;
}

/* How many cudaStreamWaitEvent calls `f` made, checked against `want` on
 * the stand-in (a real runtime does not tell). */
template <typename F>
static void
expect_stream_waits (guint64 want, const char * what, F && f)
{
  const guint64 before = stream_waits ();
  f ();
  if (testutil::on_stand_in ())
    fail_unless (stream_waits () - before == want,
        "%s: %" G_GUINT64_FORMAT " cudaStreamWaitEvent calls, not %" G_GUINT64_FORMAT,
        what, stream_waits () - before, want);
}

/* A buffer of `size` bytes of `alloc`'s device memory. */
static GstBuffer *
device_buffer (GstAllocator * alloc, gsize size)
{
  GstBuffer * buf = gst_buffer_new ();
  gst_buffer_append_memory (
      buf, gst_cs_allocator_alloc (GST_CS_ALLOCATOR (alloc), size, NULL));
  return buf;
}

/* `n` streams of device 0, leased from a pool of their own, which goes
 * with the last of them. */
struct Streams {
  GstCsStreamPool * pool;
  cudaStream_t s[3] = {};
  explicit Streams (guint n) : pool (gst_cs_stream_pool_new (0, n, 0, NULL))
  {
    fail_unless (pool != NULL && n <= G_N_ELEMENTS (s));
    for (guint i = 0; i < n; i++)
      s[i] = gst_cs_stream_pool_lease (pool);
  }
  ~Streams () { gst_object_unref (pool); }
};

GST_START_TEST (test_stream_pool_shares_when_exhausted)
{
  GError * err = NULL;
  GstCsStreamPool * pool = gst_cs_stream_pool_new (0, 2, 0, &err);
  fail_unless (pool != NULL, "%s", err ? err->message : "");
  fail_unless_equals_int (gst_cs_stream_pool_get_size (pool), 2);
  cudaStream_t a = gst_cs_stream_pool_lease (pool);
  cudaStream_t b = gst_cs_stream_pool_lease (pool);
  cudaStream_t c = gst_cs_stream_pool_lease (pool);
  fail_unless (a && b && c);
  fail_unless (a != b, "two leases of a two-stream pool share a stream");
  fail_unless (c == a || c == b);
  unsigned flags = 0;
  fail_unless_equals_int (cudaStreamGetFlags (a, &flags), cudaSuccess);
  fail_unless (flags & cudaStreamNonBlocking);
  gst_cs_stream_pool_release (pool, a);
  /* the freed slot is the least leased one now */
  fail_unless (gst_cs_stream_pool_lease (pool) == a);
  gst_object_unref (pool);
}
GST_END_TEST;

GST_START_TEST (test_default_pool_is_per_process)
{
  GstCsStreamPool * a = gst_cs_stream_pool_get_default (0, NULL);
  GstCsStreamPool * b = gst_cs_stream_pool_get_default (0, NULL);
  fail_unless (a != NULL && a == b);
  gst_object_unref (a);
  gst_object_unref (b);
}
GST_END_TEST;

/* An application hands in its own stream through the context: the upload's
 * output says it was produced on that stream. */
GST_START_TEST (test_application_stream_through_context)
{
  cudaStream_t mine = nullptr;
  fail_unless_equals_int (
      cudaStreamCreateWithFlags (&mine, cudaStreamNonBlocking), cudaSuccess);
  GstCsStreamPool * pool = gst_cs_stream_pool_new_wrapped (0, &mine, 1);
  GstContext * ctx = gst_cs_context_new_stream_pool (pool);
  GstElement * pipeline = gst_parse_launch ("videotestsrc num-buffers=3 ! "
                                            "video/x-raw,format=RGBA,width=64,height=48 "
                                            "! cudaupload ! appsink name=out sync=false",
      NULL);
  gst_element_set_context (pipeline, ctx);
  testutil::Captured out;
  testutil::capture_appsink (pipeline, "out", &out);
  testutil::run_to_eos (pipeline);
  fail_unless_equals_int (out.buffers.size (), 3);
  for (GstBuffer * b : out.buffers) {
    GstCsSyncMeta * meta = gst_buffer_get_cs_sync_meta (b);
    fail_unless (meta != NULL);
    fail_unless (meta->stream == mine);
  }
  gst_object_unref (pipeline);
  gst_context_unref (ctx);
  gst_object_unref (pool);
}
GST_END_TEST;

/* Elements of one pipeline announce and share one pool. */
GST_START_TEST (test_pool_announced_by_have_context)
{
  GstElement * pipeline = gst_parse_launch ("videotestsrc num-buffers=2 ! cudaupload ! "
                                            "cudadownload ! fakesink",
      NULL);
  testutil::run_to_eos (pipeline);
  GstContext * ctx = gst_element_get_context (pipeline, GST_CS_STREAM_POOL_CONTEXT_TYPE);
  fail_unless (ctx != NULL, "no stream-pool context was posted");
  GstCsStreamPool * pool = NULL;
  fail_unless (gst_cs_context_get_stream_pool (ctx, &pool));
  GstCsStreamPool * def = gst_cs_stream_pool_get_default (0, NULL);
  fail_unless (pool == def);
  gst_object_unref (def);
  gst_object_unref (pool);
  gst_context_unref (ctx);
  gst_object_unref (pipeline);
}
GST_END_TEST;

GST_START_TEST (test_sync_meta_record_copy_wait)
{
  GstCsStreamPool * spool = gst_cs_stream_pool_new (0, 2, 0, NULL);
  cudaStream_t s1 = gst_cs_stream_pool_lease (spool);
  cudaStream_t s2 = gst_cs_stream_pool_lease (spool);
  GstAllocator * alloc = gst_cs_allocator_new (0);
  GstBuffer * buf = device_buffer (alloc, 4096);

  /* produce: fill on s1, record */
  fail_unless_equals_int (
      cudaMemsetAsync (gst_cs_memory_get_device_pointer (gst_buffer_peek_memory (buf, 0)),
          0x5a, 4096, s1),
      cudaSuccess);
  GError * err = NULL;
  GstCsSyncMeta * meta = gst_cs_sync_meta_record (buf, 0, s1, &err);
  fail_unless (meta != NULL, "%s", err ? err->message : "");
  fail_unless (meta->stream == s1 && meta->event != NULL && meta->device_id == 0);
  cudaEvent_t ev0 = meta->event;

  /* a copy of the buffer shares the memory and so the event */
  GstBuffer * copy = gst_buffer_copy (buf);
  GstCsSyncMeta * cm = gst_buffer_get_cs_sync_meta (copy);
  fail_unless (cm != NULL && cm->event == ev0 && cm->stream == s1);

  /* consume on s2 (GPU-side wait), then on the host: exactly one wait */
  fail_unless (gst_cs_sync_meta_wait (copy, s2, NULL));
  GstCsWaitCounter counter = {};
  guint64 total = gst_cs_host_waits_total ();
  fail_unless (gst_cs_sync_meta_wait_host (copy, &counter, NULL));
  fail_unless_equals_uint64 (gst_cs_wait_counter_get (&counter), 1);
  fail_unless_equals_uint64 (gst_cs_host_waits_total (), total + 1);
  fail_unless_equals_int (cudaEventQuery (ev0), cudaSuccess);

  /* the host sees what the GPU wrote */
  GstMapInfo map;
  fail_unless (gst_buffer_map (copy, &map, GST_MAP_READ));
  for (gsize i = 0; i < map.size; i++)
    fail_unless (map.data[i] == 0x5a, "byte %zu", i);
  gst_buffer_unmap (copy, &map);

  /* a new record on the copy replaces its event, not the original's */
  fail_unless (gst_cs_sync_meta_record (copy, 0, s2, NULL) != NULL);
  fail_unless (gst_buffer_get_cs_sync_meta (copy)->stream == s2);
  fail_unless (gst_buffer_get_cs_sync_meta (buf)->event == ev0);

  gst_buffer_unref (copy);
  gst_buffer_unref (buf);
  gst_object_unref (alloc);
  gst_object_unref (spool);
}
GST_END_TEST;

/* A stream made to follow another one (nvcodec's, in the plugin) reads what
 * the other wrote, and the CPU does not wait for it. On the stand-in the
 * writer's work runs only when something waits for it: without the wait,
 * the read would see the old bytes every time. The event goes back to its
 * pool at once; its next use must not move the wait already enqueued. */
GST_START_TEST (test_stream_wait_stream)
{
  cudaStream_t writer = nullptr, reader = nullptr, other = nullptr;
  for (cudaStream_t * s : { &writer, &reader, &other })
    fail_unless_equals_int (
        cudaStreamCreateWithFlags (s, cudaStreamNonBlocking), cudaSuccess);
  const size_t n = 4096;
  void * dev = nullptr;
  guint8 * host = nullptr;
  fail_unless_equals_int (cudaMalloc (&dev, n), cudaSuccess);
  fail_unless_equals_int (cudaMallocHost ((void **)&host, n), cudaSuccess);
  /* cudaMemset runs on the legacy stream, which non-blocking streams do not
   * follow: without the wait here the writer's 0x5a could land first and
   * the zeros after it (seen once on an H200). */
  fail_unless_equals_int (cudaMemset (dev, 0x00, n), cudaSuccess);
  fail_unless_equals_int (cudaDeviceSynchronize (), cudaSuccess);
  const guint64 waits = gst_cs_host_waits_total ();

  fail_unless_equals_int (cudaMemsetAsync (dev, 0x5a, n, writer), cudaSuccess);
  GError * err = NULL;
  fail_unless (
      gst_cs_stream_wait_stream (0, reader, writer, &err), "%s", err ? err->message : "");
  /* The same pooled event, recorded again on another stream. */
  fail_unless (
      gst_cs_stream_wait_stream (0, other, reader, &err), "%s", err ? err->message : "");
  fail_unless_equals_int (
      cudaMemcpyAsync (host, dev, n, cudaMemcpyDeviceToHost, reader), cudaSuccess);
  fail_unless_equals_uint64 (gst_cs_host_waits_total (), waits);
  fail_unless (
      gst_cs_stream_wait_stream (0, reader, reader, &err), "a stream follows itself");

  fail_unless_equals_int (cudaStreamSynchronize (reader), cudaSuccess);
  gsize bad = 0;
  while (bad < n && host[bad] == 0x5a)
    bad++;
  fail_unless (bad == n, "byte %zu is 0x%02x: the read ran before the write", bad,
      bad < n ? host[bad] : 0);
  fail_unless_equals_int (cudaStreamSynchronize (other), cudaSuccess);
  cudaFreeHost (host);
  cudaFree (dev);
  for (cudaStream_t s : { writer, reader, other })
    cudaStreamDestroy (s);
}
GST_END_TEST;

/* A stream that already waits for an event record (imagefreeze sends one
 * buffer, and so one record, every frame) is not made to wait for it again;
 * every new record is waited for, also one of an event given back to its
 * pool and taken again. On the stand-in the writer's work runs only when
 * something waits for it: a wait skipped wrongly reads the old bytes. */
GST_START_TEST (test_wait_memo_skips_only_a_waited_record)
{
  Streams streams (3);
  cudaStream_t writer = streams.s[0], reader = streams.s[1], third = streams.s[2];
  GstAllocator * alloc = gst_cs_allocator_new (0);
  GstBuffer * buf = device_buffer (alloc, 4096);
  void * dev = gst_cs_memory_get_device_pointer (gst_buffer_peek_memory (buf, 0));
  guint8 host[4096];
  GstCsWaitMemo memo = {};
  GError * err = NULL;

  for (guint8 frame = 1; frame <= 4; frame++) {
    /* A new frame in the same memory, after the reads of the last one. */
    fail_unless (gst_cs_buffer_wait_writable (buf, writer, NULL));
    fail_unless_equals_int (
        cudaMemsetAsync (dev, frame, sizeof host, writer), cudaSuccess);
    fail_unless (
        gst_cs_sync_meta_record (buf, 0, writer, &err), "%s", err ? err->message : "");
    for (int again = 0; again < 3; again++) {
      /* What imagefreeze pushes: a copy, sharing the record. */
      GstBuffer * copy = gst_buffer_copy (buf);
      expect_stream_waits (again == 0 ? 1 : 0, "a record waited for once",
          [&] { fail_unless (gst_cs_sync_meta_wait_memo (copy, reader, &memo, NULL)); });
      fail_unless_equals_int (
          cudaMemcpyAsync (host, dev, sizeof host, cudaMemcpyDeviceToHost, reader),
          cudaSuccess);
      fail_unless_equals_int (cudaStreamSynchronize (reader), cudaSuccess);
      for (guint8 v : host)
        fail_unless (v == frame, "frame %u read before it was written", frame);
      gst_buffer_unref (copy);
    }
  }

  /* The writer's own stream never waits. A memo is of one stream: another
   * one waits, and then the first one again. */
  expect_stream_waits (0, "stream order",
      [&] { fail_unless (gst_cs_sync_meta_wait_memo (buf, writer, &memo, NULL)); });
  expect_stream_waits (0, "the record the reader waited for",
      [&] { fail_unless (gst_cs_sync_meta_wait_memo (buf, reader, &memo, NULL)); });
  expect_stream_waits (1, "a memo of another stream",
      [&] { fail_unless (gst_cs_sync_meta_wait_memo (buf, third, &memo, NULL)); });
  expect_stream_waits (1, "a memo that moved to another stream",
      [&] { fail_unless (gst_cs_sync_meta_wait_memo (buf, reader, &memo, NULL)); });
  gst_cs_wait_memo_forget (&memo);
  expect_stream_waits (1, "a forgotten memo",
      [&] { fail_unless (gst_cs_sync_meta_wait_memo (buf, reader, &memo, NULL)); });
  gst_buffer_unref (buf);

  /* A buffer without memory: its event is the meta's alone, and goes back to
   * the pool with it; the next record takes the same event again. */
  GstBuffer * first = gst_buffer_new ();
  fail_unless (gst_cs_sync_meta_record (first, 0, writer, NULL));
  const cudaEvent_t recycled = gst_buffer_get_cs_sync_meta (first)->event;
  expect_stream_waits (1, "first record",
      [&] { fail_unless (gst_cs_sync_meta_wait_memo (first, reader, &memo, NULL)); });
  gst_buffer_unref (first);
  GstBuffer * second = gst_buffer_new ();
  fail_unless (gst_cs_sync_meta_record (second, 0, writer, NULL));
  fail_unless (gst_buffer_get_cs_sync_meta (second)->event == recycled,
      "the event pool gave another event: this test needs the same one");
  expect_stream_waits (1, "a new record of a recycled event",
      [&] { fail_unless (gst_cs_sync_meta_wait_memo (second, reader, &memo, NULL)); });
  gst_buffer_unref (second);

  fail_unless_equals_int (cudaStreamSynchronize (reader), cudaSuccess);
  fail_unless_equals_int (cudaStreamSynchronize (third), cudaSuccess);
  gst_object_unref (alloc);
}
GST_END_TEST;

/* The device pool's buffers keep their sync meta from one use to the next,
 * without the last use's event: a consumer of a buffer back from the pool
 * must not take that event for its pixels'. The memory still knows its
 * last writer, and its next writer waits for it. A copy made before the
 * release keeps the event. */
GST_START_TEST (test_pooled_sync_meta_is_reset)
{
  Streams streams (2);
  cudaStream_t writer = streams.s[0], next = streams.s[1];
  GstVideoInfo info;
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_RGBA, 64, 48);
  GstCaps * caps = gst_video_info_to_caps (&info);
  GstBufferPool * pool = gst_cs_buffer_pool_new (0);
  GstStructure * config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_set_params (config, caps, info.size, 1, 1);
  fail_unless (gst_buffer_pool_set_config (pool, config));
  fail_unless (gst_buffer_pool_set_active (pool, TRUE));
  gst_caps_unref (caps);

  GstBuffer * buf = NULL;
  fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &buf, NULL), GST_FLOW_OK);
  GstCsSyncMeta * meta = gst_buffer_get_cs_sync_meta (buf);
  fail_unless (meta != NULL, "a pooled buffer comes with its sync meta");
  fail_unless (meta->event == NULL && meta->stream == NULL && meta->device_id == -1);
  GstBuffer * empty_copy = gst_buffer_copy (buf);
  GstCsSyncMeta * ecm = gst_buffer_get_cs_sync_meta (empty_copy);
  fail_unless (ecm == NULL || ecm->event == NULL, "a copy of no event has an event");
  gst_buffer_unref (empty_copy);

  fail_unless (gst_cs_sync_meta_record (buf, 0, writer, NULL) == meta,
      "the record goes into the pooled meta");
  fail_unless (meta->event != NULL && meta->stream == writer && meta->device_id == 0);
  GstBuffer * first = buf;
  gst_buffer_unref (buf); /* back to the pool */

  GstBuffer * again = NULL;
  fail_unless_equals_int (
      gst_buffer_pool_acquire_buffer (pool, &again, NULL), GST_FLOW_OK);
  fail_unless (again == first, "the pool made another buffer");
  meta = gst_buffer_get_cs_sync_meta (again);
  fail_unless (meta != NULL, "the meta did not stay with the buffer");
  fail_unless (meta->event == NULL && meta->stream == NULL && meta->device_id == -1,
      "a stale event on a buffer back from the pool");
  /* The memory's writer is still known: the next writer waits for it. */
  expect_stream_waits (1, "the last writer",
      [&] { fail_unless (gst_cs_buffer_wait_writable (again, next, NULL)); });
  /* Without an event the consumer falls back to the memory's writer. */
  expect_stream_waits (1, "the memory's writer",
      [&] { fail_unless (gst_cs_sync_meta_wait (again, next, NULL)); });

  /* A copy keeps its event when the buffer goes back (and, its memory
   * shared, is dropped rather than pooled). */
  fail_unless (gst_cs_sync_meta_record (again, 0, next, NULL) == meta);
  const cudaEvent_t event = meta->event;
  GstBuffer * copy = gst_buffer_copy (again);
  gst_buffer_unref (again);
  GstCsSyncMeta * cm = gst_buffer_get_cs_sync_meta (copy);
  fail_unless (cm && cm->event == event && cm->stream == next, "the copy lost its event");
  expect_stream_waits (1, "the copy's event",
      [&] { fail_unless (gst_cs_sync_meta_wait (copy, writer, NULL)); });

  gst_buffer_unref (copy);
  fail_unless_equals_int (cudaStreamSynchronize (writer), cudaSuccess);
  gst_buffer_pool_set_active (pool, FALSE);
  gst_object_unref (pool);
}
GST_END_TEST;

/* A host write through a CPU mapping reaches the device. */
GST_START_TEST (test_cpu_write_mapping)
{
  GstAllocator * alloc = gst_cs_allocator_new (0);
  GstMemory * mem = gst_cs_allocator_alloc (GST_CS_ALLOCATOR (alloc), 1000, NULL);
  GstMapInfo map;
  fail_unless (gst_memory_map (mem, &map, GST_MAP_WRITE));
  memset (map.data, 0xc3, map.size);
  gst_memory_unmap (mem, &map);
  guint8 host[1000] = {};
  fail_unless_equals_int (cudaMemcpy (host, gst_cs_memory_get_device_pointer (mem), 1000,
                              cudaMemcpyDeviceToHost),
      cudaSuccess);
  for (guint8 v : host)
    fail_unless_equals_int (v, 0xc3);
  gst_memory_unref (mem);
  gst_object_unref (alloc);
}
GST_END_TEST;

/* Out of device memory is a clear error naming the size and the device. */
GST_START_TEST (test_out_of_memory_error)
{
  GstAllocator * alloc = gst_cs_allocator_new (0);
  GError * err = NULL;
  GstMemory * mem =
      gst_cs_allocator_alloc (GST_CS_ALLOCATOR (alloc), (gsize)1 << 50, &err);
  fail_unless (mem == NULL);
  fail_unless (g_error_matches (err, GST_CS_ERROR, GST_CS_ERROR_OUT_OF_MEMORY), "%s",
      err ? err->message : "no error");
  fail_unless (strstr (err->message, "on CUDA device 0") != NULL, "%s", err->message);
  fail_unless (
      strstr (err->message, "cudaMalloc failed: cudaErrorMemoryAllocation") != NULL, "%s",
      err->message);
  g_clear_error (&err);
  /* the runtime is usable afterwards */
  mem = gst_cs_allocator_alloc (GST_CS_ALLOCATOR (alloc), 1024, &err);
  fail_unless (mem != NULL);
  gst_memory_unref (mem);
  gst_object_unref (alloc);
}
GST_END_TEST;

static Suite *
sync_gpu_suite (void)
{
  Suite * s = suite_create ("sync_gpu");
  TCase * tc = tcase_create ("gpu");
  tcase_set_timeout (tc, 120);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_stream_pool_shares_when_exhausted);
  tcase_add_test (tc, test_default_pool_is_per_process);
  tcase_add_test (tc, test_application_stream_through_context);
  tcase_add_test (tc, test_pool_announced_by_have_context);
  tcase_add_test (tc, test_sync_meta_record_copy_wait);
  tcase_add_test (tc, test_stream_wait_stream);
  tcase_add_test (tc, test_wait_memo_skips_only_a_waited_record);
  tcase_add_test (tc, test_pooled_sync_meta_is_reset);
  tcase_add_test (tc, test_cpu_write_mapping);
  tcase_add_test (tc, test_out_of_memory_error);
  return s;
}

TESTUTIL_GPU_CHECK_MAIN (sync_gpu);

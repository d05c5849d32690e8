/* SPDX-License-Identifier: LGPL-2.1-or-later */
// On a GPU (and on the CUDA stand-in, where work not ordered by an event runs
// late every time): memory that GPU work still reads is not rewritten early,
// whatever order readers register in, whatever fails on the way, and
// whoever the reader is (an element or an application's own stream).
#include <gst/check/gstcheck.h>

#include <dlfcn.h>

#include <atomic>
#include <cstring>

#include "gstcudastreams.h"
#include "gstcsmemory-private.h"
#include "gstcsbufferpool-private.h"
#include "gstcssyncmeta-private.h"
#include "streamgate.hpp"
#include "testutil.h"

static const gsize kBytes = 4096;

/* A device buffer, streams and pinned host memory for the readers' copies
 * (pinned: a copy into pageable memory would complete before it returns). */
struct Bench {
  GstCsStreamPool * streams = nullptr;
  cudaStream_t producer, reader, writer, writer2;
  GstAllocator * alloc = nullptr;
  GstBuffer * frame = nullptr;
  guint8 * host_a = nullptr;
  guint8 * host_b = nullptr;

  Bench ()
  {
    streams = gst_cs_stream_pool_new (0, 4, 0, NULL);
    fail_unless (streams != NULL);
    producer = gst_cs_stream_pool_lease (streams);
    reader = gst_cs_stream_pool_lease (streams);
    writer = gst_cs_stream_pool_lease (streams);
    writer2 = gst_cs_stream_pool_lease (streams);
    alloc = gst_cs_allocator_new (0);
    frame = new_device_buffer ();
    fail_unless_equals_int (cudaMallocHost ((void **)&host_a, kBytes), cudaSuccess);
    fail_unless_equals_int (cudaMallocHost ((void **)&host_b, kBytes), cudaSuccess);
  }
  ~Bench ()
  {
    gst_buffer_unref (frame);
    cudaFreeHost (host_a);
    cudaFreeHost (host_b);
    gst_object_unref (alloc);
    gst_object_unref (streams);
  }
  GstBuffer * new_device_buffer ()
  {
    GstBuffer * b = gst_buffer_new ();
    gst_buffer_append_memory (
        b, gst_cs_allocator_alloc (GST_CS_ALLOCATOR (alloc), kBytes, NULL));
    return b;
  }
  guint8 * device (GstBuffer * b)
  {
    return gst_cs_memory_get_device_pointer (gst_buffer_peek_memory (b, 0));
  }
  /* The producer rule: fill on `stream`, record. */
  void write (GstBuffer * b, int value, cudaStream_t stream)
  {
    fail_unless_equals_int (
        cudaMemsetAsync (device (b), value, kBytes, stream), cudaSuccess);
    GError * err = NULL;
    fail_unless (gst_cs_sync_meta_record (b, 0, stream, &err) != NULL, "%s",
        err ? err->message : "");
  }
  /* A consumer's read of `frame` into `host` on the reader stream. */
  void read_into (guint8 * host)
  {
    fail_unless (gst_cs_sync_meta_wait (frame, reader, NULL));
    fail_unless_equals_int (
        cudaMemcpyAsync (host, device (frame), kBytes, cudaMemcpyDeviceToHost, reader),
        cudaSuccess);
  }
};

static void
expect_bytes (const guint8 * host, int value, const char * what)
{
  for (gsize i = 0; i < kBytes; i++)
    fail_unless (host[i] == value, "%s: byte %zu is 0x%02x, expected 0x%02x", what, i,
        host[i], value);
}

/* Two consumers of one frame share a stream (more consumers than streams).
 * Consumer A enqueues its read and records its event, then is preempted;
 * consumer B enqueues a later read, records and registers; then A
 * registers. The next writer must wait for B's read, which A's event does
 * not cover. (The interleaving is played in this order on one thread.) */
GST_START_TEST (test_readers_registered_out_of_order)
{
  Bench b;
  b.write (b.frame, 0x11, b.producer);

  GstBuffer * out_a = b.new_device_buffer (); /* the consumers' own outputs */
  GstBuffer * out_b = b.new_device_buffer ();
  b.read_into (b.host_a);
  GstCsSyncMeta * meta_a = gst_cs_sync_meta_record (out_a, 0, b.reader, NULL);
  b.read_into (b.host_b);
  GstCsSyncMeta * meta_b = gst_cs_sync_meta_record (out_b, 0, b.reader, NULL);
  fail_unless (meta_a && meta_b);
  gst_cs_sync_meta_add_reader (meta_b, b.frame);
  gst_cs_sync_meta_add_reader (meta_a, b.frame);

  /* the frame's memory is handed out again and rewritten */
  fail_unless (gst_cs_buffer_wait_writable (b.frame, b.writer, NULL));
  b.write (b.frame, 0x22, b.writer);
  fail_unless (gst_cs_sync_meta_wait_host (b.frame, NULL, NULL));
  fail_unless (gst_cs_sync_meta_wait_host (out_b, NULL, NULL));
  fail_unless (gst_cs_sync_meta_wait_host (out_a, NULL, NULL));
  expect_bytes (b.host_a, 0x11, "consumer A");
  expect_bytes (b.host_b, 0x11, "consumer B");
  gst_buffer_unref (out_a);
  gst_buffer_unref (out_b);
}
GST_END_TEST;

/* A writer waits for the readers, then fails before its write is enqueued
 * (a copy or a launch that fails, an allocation error). The readers must
 * still hold back the next writer. */
GST_START_TEST (test_readers_survive_a_failed_write)
{
  Bench b;
  b.write (b.frame, 0x11, b.producer);
  GstBuffer * out = b.new_device_buffer ();
  b.read_into (b.host_a);
  GstCsSyncMeta * meta = gst_cs_sync_meta_record (out, 0, b.reader, NULL);
  gst_cs_sync_meta_add_reader (meta, b.frame);

  fail_unless (gst_cs_buffer_wait_writable (b.frame, b.writer, NULL));
  /* ... the first writer gives up here, recording nothing ... */
  fail_unless (gst_cs_buffer_wait_writable (b.frame, b.writer2, NULL));
  b.write (b.frame, 0x33, b.writer2);
  fail_unless (gst_cs_sync_meta_wait_host (b.frame, NULL, NULL));
  fail_unless (gst_cs_sync_meta_wait_host (out, NULL, NULL));
  expect_bytes (b.host_a, 0x11, "the reader");
  gst_buffer_unref (out);
}
GST_END_TEST;

/* An application reads a frame on a stream of its own, says so with
 * gst_cs_buffer_add_reader() and releases the frame at once; the pool hands
 * the memory out again and it is rewritten. The application's read must see
 * the old content, with no host wait on its side. */
GST_START_TEST (test_application_reader)
{
  Bench b;
  GstBufferPool * pool = gst_cs_buffer_pool_new (0);
  GstStructure * config = gst_buffer_pool_get_config (pool);
  GstCaps * caps = gst_caps_from_string ("video/x-raw,format=GRAY8,width=64,height=64");
  gst_buffer_pool_config_set_params (config, caps, 4096, 1, 1); /* one frame */
  gst_caps_unref (caps);
  fail_unless (gst_buffer_pool_set_config (pool, config));
  fail_unless (gst_buffer_pool_set_active (pool, TRUE));

  GstBuffer * frame = NULL;
  fail_unless_equals_int (
      gst_buffer_pool_acquire_buffer (pool, &frame, NULL), GST_FLOW_OK);
  b.write (frame, 0x44, b.producer);
  guint8 * memory = b.device (frame);

  /* the application: its own stream, its own read, then it lets go */
  cudaStream_t app = nullptr;
  fail_unless_equals_int (
      cudaStreamCreateWithFlags (&app, cudaStreamNonBlocking), cudaSuccess);
  fail_unless (gst_cs_sync_meta_wait (frame, app, NULL));
  fail_unless_equals_int (
      cudaMemcpyAsync (b.host_a, memory, kBytes, cudaMemcpyDeviceToHost, app),
      cudaSuccess);
  guint64 waits = gst_cs_host_waits_total ();
  GError * err = NULL;
  fail_unless (
      gst_cs_buffer_add_reader (frame, 0, app, &err), "%s", err ? err->message : "");
  fail_unless_equals_uint64 (gst_cs_host_waits_total (), waits);
  gst_buffer_unref (frame);

  /* the producer gets the same memory back and writes the next frame */
  fail_unless_equals_int (
      gst_buffer_pool_acquire_buffer (pool, &frame, NULL), GST_FLOW_OK);
  fail_unless (b.device (frame) == memory);
  fail_unless (gst_cs_buffer_wait_writable (frame, b.producer, NULL));
  b.write (frame, 0x55, b.producer);
  fail_unless (gst_cs_sync_meta_wait_host (frame, NULL, NULL));

  fail_unless_equals_int (cudaStreamSynchronize (app), cudaSuccess);
  expect_bytes (b.host_a, 0x44, "the application's read");
  gst_buffer_unref (frame);
  gst_buffer_pool_set_active (pool, FALSE);
  gst_object_unref (pool);
  cudaStreamDestroy (app);
}
GST_END_TEST;

/* An application's reader on a handle CUDA resolves against the current
 * device (the legacy default stream: DLPack's 1, what torch passes for a
 * tensor on cuda:1) of a frame on device 1, while device 0 is current: the
 * reader's event belongs to device 1, so it must be recorded with device 1
 * current, on device 1's legacy stream, and device 0 stays current after.
 * Issue 38 (suspect 1); Event::record makes its device current (issue 33). */
GST_START_TEST (test_application_reader_legacy_other_device)
{
  int n = 0;
  if (cudaGetDeviceCount (&n) != cudaSuccess || n < 2) {
    (void)cudaGetLastError ();
    return; /* one device: nothing to cross */
  }
  GstAllocator * alloc = gst_cs_allocator_new (1);
  GstBuffer * frame = gst_buffer_new ();
  gst_buffer_append_memory (
      frame, gst_cs_allocator_alloc (GST_CS_ALLOCATOR (alloc), kBytes, NULL));
  fail_unless_equals_int (cudaSetDevice (0), cudaSuccess);
  GError * err = NULL;
  fail_unless (gst_cs_buffer_add_reader (frame, 1, cudaStreamLegacy, &err), "%s",
      err ? err->message : "");
  int current = -1;
  fail_unless_equals_int (cudaGetDevice (&current), cudaSuccess);
  fail_unless_equals_int (current, 0);
  gst_buffer_unref (frame);
  gst_object_unref (alloc);
}
GST_END_TEST;

/* A pool of `n` GRAY8 64x64 device frames (Bench's kBytes), active. */
static GstBufferPool *
new_frame_pool (guint n, guint max)
{
  GstBufferPool * pool = gst_cs_buffer_pool_new (0);
  GstStructure * config = gst_buffer_pool_get_config (pool);
  GstCaps * caps = gst_caps_from_string ("video/x-raw,format=GRAY8,width=64,height=64");
  gst_buffer_pool_config_set_params (config, caps, kBytes, n, max);
  gst_caps_unref (caps);
  fail_unless (gst_buffer_pool_set_config (pool, config));
  return pool;
}

static GstBuffer *
acquire (GstBufferPool * pool)
{
  GstBuffer * frame = NULL;
  fail_unless_equals_int (
      gst_buffer_pool_acquire_buffer (pool, &frame, NULL), GST_FLOW_OK);
  return frame;
}

/* The frame released last goes out again first while only the writer's
 * stream has it in flight (its bytes still in L2); one that another stream
 * still reads waits its turn in the queue, so that the writer does not wait
 * for that reader; without a writer's stream the pool is GStreamer's FIFO. */
GST_START_TEST (test_pool_reuses_the_frame_released_last)
{
  Bench b;
  for (int with_stream = 0; with_stream < 2; with_stream++) {
    GstBufferPool * pool = new_frame_pool (3, 0);
    if (with_stream)
      gst_cs_buffer_pool_set_writer_stream (GST_CS_BUFFER_POOL (pool), b.writer);
    fail_unless (gst_buffer_pool_set_active (pool, TRUE));
    GstBuffer * frame = acquire (pool);
    guint8 * memory = b.device (frame);
    fail_unless (gst_cs_buffer_wait_writable (frame, b.writer, NULL));
    b.write (frame, 0x11, b.writer);
    gst_buffer_unref (frame);
    frame = acquire (pool);
    fail_unless ((b.device (frame) == memory) == (with_stream != 0),
        "with_stream=%d: the frame released last %s out again first", with_stream,
        with_stream ? "did not go" : "went");
    if (with_stream) {
      /* now read on another stream as well, still in flight: not first */
      StreamGate gate;
      gate.close (b.reader);
      fail_unless (gst_cs_buffer_wait_writable (frame, b.writer, NULL));
      b.write (frame, 0x22, b.writer);
      fail_unless (gst_cs_sync_meta_wait (frame, b.reader, NULL));
      fail_unless (gst_cs_buffer_add_reader (frame, 0, b.reader, NULL));
      gst_buffer_unref (frame);
      frame = acquire (pool);
      fail_if (b.device (frame) == memory, "a frame another stream reads went out first");
      gate.open ();
    }
    gst_buffer_unref (frame);
    fail_unless (gst_buffer_pool_set_active (pool, FALSE));
    gst_object_unref (pool);
  }
}
GST_END_TEST;

/* A reader on another stream that has completed by the time the next frame
 * is wanted holds nothing back: the frame released last goes out again
 * first, and finding that out costs no host wait. The reader completes
 * before the frame is released (an application that synchronised its
 * stream) or after (a download lets the frame go once its copy is
 * enqueued, and waits for the copy before the next frame comes). */
GST_START_TEST (test_pool_reuses_a_frame_whose_readers_completed)
{
  Bench b;
  GstBufferPool * pool = new_frame_pool (3, 0);
  gst_cs_buffer_pool_set_writer_stream (GST_CS_BUFFER_POOL (pool), b.writer);
  fail_unless (gst_buffer_pool_set_active (pool, TRUE));
  for (int round = 0; round < 4; round++) {
    const bool done_before_release = round % 2 == 0;
    GstBuffer * frame = acquire (pool);
    guint8 * memory = b.device (frame);
    fail_unless (gst_cs_buffer_wait_writable (frame, b.writer, NULL));
    b.write (frame, 0x30 + round, b.writer);
    /* the consumer: reads on its stream, says so, waits for its own read */
    fail_unless (gst_cs_sync_meta_wait (frame, b.reader, NULL));
    fail_unless_equals_int (
        cudaMemcpyAsync (b.host_a, memory, kBytes, cudaMemcpyDeviceToHost, b.reader),
        cudaSuccess);
    fail_unless (gst_cs_buffer_add_reader (frame, 0, b.reader, NULL));
    if (done_before_release)
      fail_unless_equals_int (cudaStreamSynchronize (b.reader), cudaSuccess);
    guint64 waits = gst_cs_host_waits_total ();
    guint64 blocks = testutil::runtime_host_blocks ();
    gst_buffer_unref (frame);
    fail_unless_equals_uint64 (gst_cs_host_waits_total (), waits);
    fail_unless_equals_uint64 (testutil::runtime_host_blocks (), blocks);
    if (!done_before_release)
      fail_unless_equals_int (cudaStreamSynchronize (b.reader), cudaSuccess);
    expect_bytes (b.host_a, 0x30 + round, "the consumer's read");
    waits = gst_cs_host_waits_total ();
    blocks = testutil::runtime_host_blocks ();
    frame = acquire (pool);
    fail_unless (b.device (frame) == memory,
        "round %d: a frame whose reader completed %s it was released did not go out "
        "again first",
        round, done_before_release ? "before" : "after");
    fail_unless_equals_uint64 (gst_cs_host_waits_total (), waits);
    fail_unless_equals_uint64 (testutil::runtime_host_blocks (), blocks);
    gst_buffer_unref (frame);
  }
  fail_unless (gst_buffer_pool_set_active (pool, FALSE));
  gst_object_unref (pool);
}
GST_END_TEST;

/* Warnings and errors GStreamer's buffer pool logs (a failing stop: a
 * frame freed behind its back), counted while a test watches. */
static gint pool_complaints = 0;

static void
count_pool_complaints (GstDebugCategory * category, GstDebugLevel level, const gchar *,
    const gchar *, gint, GObject *, GstDebugMessage *, gpointer)
{
  if (level <= GST_LEVEL_WARNING &&
      g_str_equal (gst_debug_category_get_name (category), "bufferpool"))
    g_atomic_int_inc (&pool_complaints);
}

/* A pool dropped while active, with a frame kept aside for reuse and one
 * in its queue: every frame goes back through its stop, the base class
 * finds them all and complains of nothing. */
GST_START_TEST (test_pool_dropped_while_active)
{
  Bench b;
  gst_debug_set_threshold_for_name ("bufferpool", GST_LEVEL_WARNING);
  gst_debug_add_log_function (count_pool_complaints, NULL, NULL);
  GstBufferPool * pool = new_frame_pool (2, 0);
  gst_cs_buffer_pool_set_writer_stream (GST_CS_BUFFER_POOL (pool), b.writer);
  fail_unless (gst_buffer_pool_set_active (pool, TRUE));
  GstBuffer * frame = acquire (pool);
  fail_unless (gst_cs_buffer_wait_writable (frame, b.writer, NULL));
  b.write (frame, 0x11, b.writer);
  gst_buffer_unref (frame); /* kept aside: only the writer's stream has it */
  gst_object_unref (pool);  /* still active */
  gst_debug_remove_log_function (count_pool_complaints);
  gst_debug_unset_threshold_for_name ("bufferpool");
  fail_unless_equals_int (g_atomic_int_get (&pool_complaints), 0);
}
GST_END_TEST;

struct Acquirer {
  GstBufferPool * pool;
  GstBuffer * frame = nullptr;
};

static gpointer
acquire_in_thread (gpointer data)
{
  auto * a = static_cast<Acquirer *> (data);
  fail_unless_equals_int (
      gst_buffer_pool_acquire_buffer (a->pool, &a->frame, NULL), GST_FLOW_OK);
  return NULL;
}

/* A bounded pool with every frame out: an acquirer waits in GStreamer's
 * queue, and the frame released then must reach it there (were it kept
 * aside for reuse, the acquirer would wait for ever). */
GST_START_TEST (test_pool_wakes_a_waiting_acquirer)
{
  Bench b;
  GstBufferPool * pool = new_frame_pool (1, 1);
  gst_cs_buffer_pool_set_writer_stream (GST_CS_BUFFER_POOL (pool), b.writer);
  fail_unless (gst_buffer_pool_set_active (pool, TRUE));
  GstBuffer * frame = acquire (pool);
  Acquirer waiting{ pool };
  GThread * thread = g_thread_new ("acquirer", acquire_in_thread, &waiting);
  g_usleep (100 * 1000); /* let it reach the queue and wait there */
  gst_buffer_unref (frame);
  g_thread_join (thread);
  fail_unless (waiting.frame != NULL);
  gst_buffer_unref (waiting.frame);
  fail_unless (gst_buffer_pool_set_active (pool, FALSE));
  gst_object_unref (pool);
}
GST_END_TEST;

/* An application's memory (a tensor) goes into a pipeline with a release
 * stream: when the last buffer of it is freed, the application is notified
 * at once, with no host wait, and work it then enqueues on the release
 * stream (a new tensor in the freed memory) runs after every GPU reader. */
struct Released {
  bool notified = false;
};

static void
on_released (gpointer data)
{
  static_cast<Released *> (data)->notified = true;
}

GST_START_TEST (test_wrapped_release_on_stream)
{
  Bench b;
  guint8 * tensor = nullptr;
  fail_unless_equals_int (cudaMalloc ((void **)&tensor, kBytes), cudaSuccess);
  cudaStream_t app = nullptr;
  fail_unless_equals_int (
      cudaStreamCreateWithFlags (&app, cudaStreamNonBlocking), cudaSuccess);
  fail_unless_equals_int (cudaMemsetAsync (tensor, 0x66, kBytes, app), cudaSuccess);

  Released released;
  GstBuffer * pushed = gst_buffer_new ();
  gst_buffer_append_memory (pushed,
      gst_cs_memory_new_wrapped_full (0, tensor, kBytes, app, &released, on_released));
  fail_unless (gst_cs_sync_meta_record (pushed, 0, app, NULL) != NULL);

  /* an element reads it on its own stream and lets go */
  fail_unless (gst_cs_sync_meta_wait (pushed, b.reader, NULL));
  fail_unless_equals_int (
      cudaMemcpyAsync (b.host_a, tensor, kBytes, cudaMemcpyDeviceToHost, b.reader),
      cudaSuccess);
  fail_unless (gst_cs_buffer_add_reader (pushed, 0, b.reader, NULL));
  guint64 waits = gst_cs_host_waits_total ();
  guint64 blocks = testutil::runtime_host_blocks ();
  gst_buffer_unref (pushed);
  fail_unless (released.notified);
  fail_unless_equals_uint64 (gst_cs_host_waits_total (), waits);
  fail_unless_equals_uint64 (testutil::runtime_host_blocks (), blocks);

  /* the application reuses the memory on its stream */
  fail_unless_equals_int (cudaMemsetAsync (tensor, 0x77, kBytes, app), cudaSuccess);
  fail_unless_equals_int (cudaStreamSynchronize (app), cudaSuccess);
  fail_unless_equals_int (cudaStreamSynchronize (b.reader), cudaSuccess);
  expect_bytes (b.host_a, 0x66, "the element's read");
  cudaStreamDestroy (app);
  cudaFree (tensor);
}
GST_END_TEST;

/* A reader event of another device than the one the application names is
 * an error, not a corrupt record. */
GST_START_TEST (test_application_reader_bad_device)
{
  Bench b;
  GError * err = NULL;
  fail_if (gst_cs_buffer_add_reader (b.frame, 99, b.reader, &err));
  fail_unless (err != NULL);
  g_clear_error (&err);
}
GST_END_TEST;

static Suite *
memorysync_gpu_suite (void)
{
  Suite * s = suite_create ("memorysync_gpu");
  TCase * tc = tcase_create ("gpu");
  tcase_set_timeout (tc, 120);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_readers_registered_out_of_order);
  tcase_add_test (tc, test_readers_survive_a_failed_write);
  tcase_add_test (tc, test_application_reader);
  tcase_add_test (tc, test_application_reader_bad_device);
  tcase_add_test (tc, test_application_reader_legacy_other_device);
  tcase_add_test (tc, test_wrapped_release_on_stream);
  tcase_add_test (tc, test_pool_reuses_the_frame_released_last);
  tcase_add_test (tc, test_pool_wakes_a_waiting_acquirer);
  tcase_add_test (tc, test_pool_reuses_a_frame_whose_readers_completed);
  tcase_add_test (tc, test_pool_dropped_while_active);
  return s;
}

TESTUTIL_GPU_CHECK_MAIN (memorysync_gpu);

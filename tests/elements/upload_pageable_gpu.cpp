/* SPDX-License-Identifier: LGPL-2.1-or-later */
// On a GPU (and on the CUDA stand-in, where a copy nobody waits for runs
// late every time): cudaupload from ordinary memory. Recurring memory is
// page-locked once and unlocked when freed; one-shot memory goes through
// staging, bit-exact at any size and stride; upstream may rewrite a buffer
// as soon as cudaupload lets go; no host wait in steady state.
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>

#include <sys/mman.h>
#include <unistd.h>

#include <vector>

#include <cuda_runtime_api.h>

#include "gstcudastreams.h"
#include "testutil.h"

static guint64
u64_property (GstElement * element, const char * name)
{
  guint64 v = 0;
  g_object_get (element, name, &v, NULL);
  return v;
}

static GstCaps *
system_caps (const GstVideoInfo * info)
{
  GstCaps * caps = gst_video_info_to_caps (info);
  return caps;
}

/* "cudaupload name=up <props> ! cudadownload" fed `info` frames. */
static GstHarness *
updown_harness (const GstVideoInfo * info, const char * props, GstElement ** up)
{
  gchar * line =
      g_strdup_printf ("cudaupload name=up %s ! cudadownload max-in-flight=0", props);
  GstHarness * h = testutil::harness_parse_ours (line);
  g_free (line);
  GstCaps * caps = system_caps (info);
  gst_harness_set_src_caps (h, gst_caps_ref (caps));
  gst_harness_set_sink_caps (h, caps);
  *up = gst_bin_get_by_name (GST_BIN (h->element), "up");
  return h;
}

/* A new buffer around `mem`, as an upstream pool hands its memory out again. */
static GstBuffer *
wrap (GstMemory * mem, int i)
{
  GstBuffer * b = gst_buffer_new ();
  gst_buffer_append_memory (b, gst_memory_ref (mem));
  GST_BUFFER_PTS (b) = i * GST_SECOND / 30;
  return b;
}

static void
push_and_compare (
    GstHarness * h, GstBuffer * in, const GstVideoInfo * info, const char * what)
{
  GstBuffer * expected = gst_buffer_copy_deep (in);
  fail_unless_equals_int (gst_harness_push (h, in), GST_FLOW_OK);
  GstBuffer * out = gst_harness_pull (h);
  fail_unless (out != NULL, "%s: no frame came out", what);
  testutil::assert_frames_equal (expected, info, out, info, what);
  gst_buffer_unref (out);
  gst_buffer_unref (expected);
}

/* System memory of random content starting on a page of its own, as large
 * frames from malloc (mmap) do: small allocations next to each other share
 * pages, and CUDA refuses to register a page twice (they would be staged). */
static GstMemory *
page_aligned_memory (gsize size, guint32 seed)
{
  GstAllocationParams params;
  gst_allocation_params_init (&params);
  params.align = (gsize)sysconf (_SC_PAGESIZE) - 1;
  GstMemory * mem = gst_allocator_alloc (NULL, size, &params);
  GstMapInfo map;
  fail_unless (gst_memory_map (mem, &map, GST_MAP_WRITE));
  testutil::fill_random (map.data, size, seed);
  gst_memory_unmap (mem, &map);
  return mem;
}

/* `n` frames of one memory of random content through `h`; the memory is
 * returned (the caller's reference). */
static GstMemory *
push_recurring (
    GstHarness * h, const GstVideoInfo * info, guint32 seed, int n, const char * what)
{
  GstMemory * mem = page_aligned_memory (info->size, seed);
  for (int i = 0; i < n; i++)
    push_and_compare (h, wrap (mem, i), info, what);
  return mem;
}

/* The same memory pushed again and again is registered once (at its second
 * sighting), and unregistered when it is freed, after the element is done. */
GST_START_TEST (test_registered_until_freed)
{
  GstVideoInfo info;
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_RGBA, 320, 240);
  GstElement * up = NULL;
  GstHarness * h = updown_harness (&info, "", &up);
  GstMemory * mem = push_recurring (h, &info, 7, 6, "recurring");
  fail_unless_equals_uint64 (u64_property (up, "registrations"), 1);
  fail_unless (u64_property (up, "registered-bytes") >= info.size);
  fail_unless_equals_uint64 (u64_property (up, "unregistrations"), 0);
  fail_unless_equals_uint64 (testutil::host_waits (up), 0);
  gst_harness_teardown (h);
  /* The element let go of the buffers; the memory is still ours. */
  fail_unless_equals_uint64 (u64_property (up, "unregistrations"), 0);
  gst_memory_unref (mem);
  fail_unless_equals_uint64 (u64_property (up, "unregistrations"), 1);
  fail_unless_equals_uint64 (u64_property (up, "registered-bytes"), 0);
  gst_object_unref (up);
}
GST_END_TEST;

/* One fresh memory per frame seen by two cudauploads (a tee): each element
 * sees each memory once, which is no sign that it recurs. Counting the other
 * element's sighting registered every frame (cudaHostRegister per frame,
 * and a device-wide cudaHostUnregister when it is freed, which may fall on
 * a copy thread the other element's stream waits for). Issue 38, suspect 3;
 * copy-threads=1 as in the report. */
GST_START_TEST (test_tee_of_fresh_memory)
{
  GstVideoInfo info;
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_RGBA, 320, 240);
  GstElement * up1 = NULL;
  GstElement * up2 = NULL;
  GstHarness * h1 = updown_harness (&info, "copy-threads=1", &up1);
  GstHarness * h2 = updown_harness (&info, "copy-threads=1", &up2);
  const int n = 6;
  for (int i = 0; i < n; i++) {
    GstMemory * mem = page_aligned_memory (info.size, 40 + i);
    push_and_compare (h1, wrap (mem, i), &info, "first branch");
    push_and_compare (h2, wrap (mem, i), &info, "second branch");
    gst_memory_unref (mem);
  }
  fail_unless_equals_uint64 (u64_property (up1, "registrations"), 0);
  fail_unless_equals_uint64 (u64_property (up2, "registrations"), 0);
  gst_harness_teardown (h1);
  gst_harness_teardown (h2);
  gst_object_unref (up1);
  gst_object_unref (up2);
}
GST_END_TEST;

/* Recurring memory seen by two cudauploads is registered once, by the
 * first to see it a second time, and read directly by both. */
GST_START_TEST (test_tee_of_recurring_memory)
{
  GstVideoInfo info;
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_RGBA, 320, 240);
  GstElement * up1 = NULL;
  GstElement * up2 = NULL;
  GstHarness * h1 = updown_harness (&info, "copy-threads=1", &up1);
  GstHarness * h2 = updown_harness (&info, "copy-threads=1", &up2);
  GstMemory * mem = page_aligned_memory (info.size, 50);
  for (int i = 0; i < 4; i++) {
    push_and_compare (h1, wrap (mem, i), &info, "first branch");
    push_and_compare (h2, wrap (mem, i), &info, "second branch");
  }
  fail_unless_equals_uint64 (
      u64_property (up1, "registrations") + u64_property (up2, "registrations"), 1);
  gst_harness_teardown (h1);
  gst_harness_teardown (h2);
  gst_memory_unref (mem);
  fail_unless_equals_uint64 (
      u64_property (up1, "unregistrations") + u64_property (up2, "unregistrations"), 1);
  gst_object_unref (up1);
  gst_object_unref (up2);
}
GST_END_TEST;

/* Over the bound nothing is registered, and frames are still right. */
GST_START_TEST (test_registration_bound)
{
  GstVideoInfo info;
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_NV12, 320, 240);
  GstElement * up = NULL;
  GstHarness * h = updown_harness (&info, "max-registered-bytes=1000", &up);
  GstMemory * mem = push_recurring (h, &info, 9, 4, "over the bound");
  fail_unless_equals_uint64 (u64_property (up, "registrations"), 0);
  gst_harness_teardown (h);
  gst_memory_unref (mem);
  gst_object_unref (up);
}
GST_END_TEST;

/* Pages an application mapped read-only: registered read-only where the
 * device supports it, else staged; either way the frames are right. */
struct Mapping {
  void * data;
  gsize size;
};

static void
unmap_pages (gpointer data)
{
  auto * m = static_cast<Mapping *> (data);
  munmap (m->data, m->size);
  delete m;
}

GST_START_TEST (test_read_only_mapping)
{
  GstVideoInfo info;
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_I420, 322, 242);
  const gsize page = (gsize)sysconf (_SC_PAGESIZE);
  const gsize bytes = (info.size + page - 1) / page * page;
  void * pages =
      mmap (NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  fail_unless (pages != MAP_FAILED);
  testutil::fill_random (static_cast<guint8 *> (pages), info.size, 11);
  fail_unless (mprotect (pages, bytes, PROT_READ) == 0);
  GstMemory * mem = gst_memory_new_wrapped (GST_MEMORY_FLAG_READONLY, pages, bytes, 0,
      info.size, new Mapping{ pages, bytes }, unmap_pages);

  GstElement * up = NULL;
  GstHarness * h = updown_harness (&info, "", &up);
  for (int i = 0; i < 4; i++)
    push_and_compare (h, wrap (mem, i), &info, "read-only pages");
  int device = 0, supported = 0;
  fail_unless (cudaGetDevice (&device) == cudaSuccess);
  if (cudaDeviceGetAttribute (
          &supported, cudaDevAttrHostRegisterReadOnlySupported, device) != cudaSuccess)
    supported = 0;
  /* Pages mapped read-only register only with the read-only flag (CUDA
   * refuses them otherwise; cudaHostGetFlags does not report that flag). */
  if (supported)
    fail_unless_equals_uint64 (u64_property (up, "registrations"), 1);
  gst_harness_teardown (h);
  gst_memory_unref (mem);
  fail_unless_equals_uint64 (
      u64_property (up, "unregistrations"), u64_property (up, "registrations"));
  gst_object_unref (up);
}
GST_END_TEST;

/* A frame of `format` `w`x`h` whose planes are `pad` bytes wider than a
 * row (a GstVideoMeta says where), in a new memory every time. */
static GstBuffer *
padded_frame (GstVideoFormat format, gint w, gint h, guint pad, guint32 seed,
    GstVideoInfo * caps_info)
{
  gst_video_info_set_format (caps_info, format, w, h);
  GstVideoInfo layout = *caps_info;
  gsize offset = 0;
  for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES (&layout); p++) {
    layout.stride[p] = caps_info->stride[p] + pad;
    layout.offset[p] = offset;
    gint comp[GST_VIDEO_MAX_COMPONENTS];
    gst_video_format_info_component (layout.finfo, p, comp);
    offset += (gsize)layout.stride[p] * GST_VIDEO_INFO_COMP_HEIGHT (&layout, comp[0]);
  }
  GstBuffer * b = testutil::random_buffer (offset, seed);
  gst_buffer_add_video_meta_full (b, GST_VIDEO_FRAME_FLAG_NONE, format, w, h,
      GST_VIDEO_INFO_N_PLANES (&layout), layout.offset, layout.stride);
  return b;
}

/* One-shot memory (new every frame) through the staged copy, several
 * threads, odd sizes, padded strides; a large frame splits in many chunks. */
GST_START_TEST (test_oneshot_bit_exact)
{
  struct Case {
    GstVideoFormat format;
    gint w, h;
    guint pad;
  };
  const Case cases[] = {
    { GST_VIDEO_FORMAT_RGBA, 67, 35, 12 },
    { GST_VIDEO_FORMAT_NV12, 67, 35, 5 },
    { GST_VIDEO_FORMAT_I420, 33, 17, 3 },
    { GST_VIDEO_FORMAT_YUY2, 31, 9, 2 },
    { GST_VIDEO_FORMAT_P010_10LE, 19, 7, 4 },
    { GST_VIDEO_FORMAT_RGB, 1001, 601, 7 },
    { GST_VIDEO_FORMAT_NV12, 1921, 1081, 64 },
  };
  for (const Case & c : cases) {
    GstVideoInfo info;
    gst_video_info_set_format (&info, c.format, c.w, c.h);
    GstElement * up = NULL;
    GstHarness * h = updown_harness (&info, "copy-threads=3", &up);
    gchar * what = g_strdup_printf (
        "%s %dx%d stride +%u", gst_video_format_to_string (c.format), c.w, c.h, c.pad);
    for (int i = 0; i < 5; i++) {
      GstBuffer * in = padded_frame (c.format, c.w, c.h, c.pad, 100 + i, &info);
      GST_BUFFER_PTS (in) = i * GST_SECOND / 30;
      push_and_compare (h, in, &info, what);
    }
    fail_unless_equals_uint64 (u64_property (up, "registrations"), 0);
    fail_unless_equals_uint64 (testutil::host_waits (up), 0);
    g_free (what);
    gst_harness_teardown (h);
    gst_object_unref (up);
  }
}
GST_END_TEST;

/* An upstream pool of system memory (recurring, so registered) gets each
 * buffer back when cudaupload lets go, and the producer rewrites it at
 * once. Nothing waits for the copies here (no cudadownload): cudaupload
 * itself must hold each buffer until its copy has read it. */
static void
rewrite_on_release (guint spare)
{
  GstHarness * h = testutil::harness_ours ("cudaupload");
  GstVideoInfo info;
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_RGBA, 64, 48);
  GstCaps * caps = gst_video_info_to_caps (&info);
  GstCaps * device_caps = gst_caps_copy (caps);
  gst_caps_set_features (
      device_caps, 0, gst_caps_features_new ("memory:CUDAStreamsMemory", NULL));
  gst_harness_set_src_caps (h, gst_caps_ref (caps));
  gst_harness_set_sink_caps (h, device_caps);

  /* As many as cudaupload said it holds and `spare` more, or fewer
   * (`spare` 0: a pool that ignored the query; it must not starve). */
  GstQuery * query = gst_query_new_allocation (caps, TRUE);
  fail_unless (gst_pad_peer_query (h->srcpad, query));
  guint held = 0, bound = 0;
  gst_query_parse_nth_allocation_pool (query, 0, NULL, NULL, &held, &bound);
  gst_query_unref (query);
  fail_unless (held >= 3);
  GstBufferPool * pool = gst_buffer_pool_new ();
  GstStructure * config = gst_buffer_pool_get_config (pool);
  const guint n = spare ? held + spare : 2;
  gst_buffer_pool_config_set_params (config, caps, info.size, n, n);
  fail_unless (gst_buffer_pool_set_config (pool, config));
  fail_unless (gst_buffer_pool_set_active (pool, TRUE));

  const int frames = 12;
  for (int i = 0; i < frames; i++) {
    GstBuffer * b = NULL;
    GstBufferPoolAcquireParams nowait = {};
    nowait.flags = GST_BUFFER_POOL_ACQUIRE_FLAG_DONTWAIT;
    fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &b, &nowait),
        GST_FLOW_OK);                          /* never waits */
    gst_buffer_memset (b, 0, 0xee, info.size); /* rewritten as soon as it is back */
    gst_buffer_memset (b, 0, 0x10 + i, info.size);
    GST_BUFFER_PTS (b) = i * GST_SECOND / 30;
    fail_unless_equals_int (gst_harness_push (h, b), GST_FLOW_OK);
  }
  fail_unless (u64_property (h->element, "registrations") >= 1);
  for (int i = 0; i < frames; i++) {
    GstBuffer * out = gst_harness_pull (h);
    GstMapInfo map;
    fail_unless (gst_buffer_map (out, &map, GST_MAP_READ)); /* a host copy */
    for (gsize k = 0; k < info.size; k++)
      fail_unless (
          map.data[k] == 0x10 + i, "frame %d byte %zu: 0x%02x", i, k, map.data[k]);
    gst_buffer_unmap (out, &map);
    gst_buffer_unref (out);
  }
  gst_harness_teardown (h);
  fail_unless (gst_buffer_pool_set_active (pool, FALSE));
  gst_object_unref (pool);
  gst_caps_unref (caps);
}

GST_START_TEST (test_pool_rewrites_on_release)
{
  rewrite_on_release (1);
  rewrite_on_release (0);
}
GST_END_TEST;

/* Steady state downstream of a consumer that waits (cudadownload): no host
 * wait in cudaupload, for recurring and one-shot memory alike. */
GST_START_TEST (test_no_host_waits)
{
  GstVideoInfo info;
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_NV12, 640, 360);
  GstElement * up = NULL;
  GstHarness * h = updown_harness (&info, "", &up);
  std::vector<GstMemory *> ring;
  for (guint32 s = 0; s < 4; s++)
    ring.push_back (page_aligned_memory (info.size, s));
  for (int i = 0; i < 40; i++) {
    GstBuffer * in = i % 2 ? wrap (ring[(i / 2) % ring.size ()], i)
                           : testutil::random_buffer (info.size, 1000 + i);
    push_and_compare (h, in, &info, "steady state");
  }
  fail_unless_equals_uint64 (u64_property (up, "registrations"), ring.size ());
  fail_unless_equals_uint64 (testutil::host_waits (up), 0);
  gst_harness_teardown (h);
  for (GstMemory * m : ring)
    gst_memory_unref (m);
  fail_unless_equals_uint64 (u64_property (up, "unregistrations"), ring.size ());
  gst_object_unref (up);
}
GST_END_TEST;

static Suite *
upload_pageable_gpu_suite (void)
{
  Suite * s = suite_create ("upload_pageable_gpu");
  TCase * tc = tcase_create ("gpu");
  tcase_set_timeout (tc, 300);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_registered_until_freed);
  tcase_add_test (tc, test_registration_bound);
  tcase_add_test (tc, test_tee_of_fresh_memory);
  tcase_add_test (tc, test_tee_of_recurring_memory);
  tcase_add_test (tc, test_read_only_mapping);
  tcase_add_test (tc, test_oneshot_bit_exact);
  tcase_add_test (tc, test_pool_rewrites_on_release);
  tcase_add_test (tc, test_no_host_waits);
  return s;
}

TESTUTIL_GPU_CHECK_MAIN (upload_pageable_gpu);

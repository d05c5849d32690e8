/* SPDX-License-Identifier: LGPL-2.1-or-later */
// nvcodec's memory (GStreamer's CUDA library, memory:CUDAMemory) on the
// stand-in, two devices: GStreamer's library runs on the stand-in's driver
// API (fakecudart_driver.cpp, found as libcuda.so.1), so frames are made as
// nvcodec's decoders make them, and stream work runs only when something
// waits for it: a read that is not ordered after the producer reads junk,
// every time.
//  a. nvcodec frames of device 0 into our crop and download on device 1,
//     written on the memory's own stream and pushed before that work ran
//     (GStreamer >= 1.24, NEED_SYNC; 1.22 writes before it pushes), in a
//     context of their own (nvcodec 1.22's decoders) and in the device's
//     primary one (shared with us): pixel-exact against a CPU crop, and the
//     host waits of each of ours;
//  b. ours on device 0 into nvcodec memory that a consumer reads through
//     GStreamer's CUDA library, as nvcodec's elements do (nvcodec's plugin
//     registers no element without NVDEC or NVENC, so its own download of
//     another device runs in the GPU's interop suite only);
//  c. nvcodec frames of device 0 into cudabatch on device 1, beside a slot
//     of its own device: the tensors those of the same frames uploaded on
//     device 1, byte for byte, and the host waits of cudabatch.
#include <gst/check/gstcheck.h>
#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <gst/cuda/gstcudabufferpool.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudamemory.h>

#include <cuda.h>
#include <cuda_runtime_api.h>
#include <dlfcn.h>

#include <string>
#include <vector>

#include "fakecuda.h"
#include "gstcudastreams.h"
#include "testutil.h"

using testutil::Captured;

namespace {

constexpr gint kWidth = 64, kHeight = 48;
constexpr guint kFrames = 6;
constexpr guint kLeft = 6, kRight = 10, kTop = 4, kBottom = 2;
const char * const kCrop = "left=6 right=10 top=4 bottom=2";

GstVideoInfo
nv12_info (gint w, gint h)
{
  GstVideoInfo info;
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_NV12, w, h);
  return info;
}

/* The device's primary context, as the plugin finds it. */
CUcontext
primary_context (int device)
{
  using Retain = CUresult (*) (CUcontext *, CUdevice);
  void * fn = nullptr;
  cudaDriverEntryPointQueryResult found{};
  fail_unless (cudaGetDriverEntryPointByVersion ("cuDevicePrimaryCtxRetain", &fn, 12000,
                   cudaEnableDefault, &found) == cudaSuccess &&
               fn);
  CUcontext ctx = nullptr;
  fail_unless (reinterpret_cast<Retain> (fn) (&ctx, device) == CUDA_SUCCESS);
  return ctx;
}

/* A pool of nvcodec frames of `ctx`, with a stream of its own where the
 * library has them, as a 1.24 decoder's. */
GstBufferPool *
nvcodec_pool (GstCudaContext * ctx, GstCaps * caps)
{
  GstBufferPool * pool = gst_cuda_buffer_pool_new (ctx);
  GstStructure * config = gst_buffer_pool_get_config (pool);
  const GstVideoInfo info = nv12_info (kWidth, kHeight);
  gst_buffer_pool_config_set_params (config, caps, (guint)info.size, 0, 0);
  gst_buffer_pool_config_add_option (config, GST_BUFFER_POOL_OPTION_VIDEO_META);
#if GST_CHECK_VERSION(1, 24, 0)
  GstCudaStream * stream = gst_cuda_stream_new (ctx);
  fail_unless (stream != NULL);
  gst_buffer_pool_config_set_cuda_stream (config, stream);
  gst_cuda_stream_unref (stream);
#endif
  fail_unless (gst_buffer_pool_set_config (pool, config));
  fail_unless (gst_buffer_pool_set_active (pool, TRUE));
  return pool;
}

/* Writes `pixels` (a packed NV12 frame in pinned memory) into the nvcodec
 * frame `buf` as a decoder does: on the memory's stream, without waiting,
 * marked NEED_SYNC (1.24+); 1.22's decoders wait before they push. */
void
write_as_decoder (GstBuffer * buf, const guint8 * pixels)
{
  GstMemory * mem = gst_buffer_peek_memory (buf, 0);
  fail_unless (gst_is_cuda_memory (mem));
  const GstVideoInfo packed = nv12_info (kWidth, kHeight);
  GstVideoMeta * vm = gst_buffer_get_video_meta (buf);
  fail_unless (vm != NULL);
  GstMapInfo map;
  fail_unless (gst_memory_map (mem, &map, (GstMapFlags)(GST_MAP_WRITE | GST_MAP_CUDA)));
  cudaStream_t stream = nullptr;
#if GST_CHECK_VERSION(1, 24, 0)
  GstCudaStream * s = gst_cuda_memory_get_stream (GST_CUDA_MEMORY_CAST (mem));
  fail_unless (s != NULL);
  stream = (cudaStream_t)gst_cuda_stream_get_handle (s);
#endif
  for (guint p = 0; p < 2; p++) {
    const gsize row = (gsize)GST_VIDEO_INFO_PLANE_STRIDE (&packed, p);
    const gsize rows = p == 0 ? kHeight : kHeight / 2;
    const cudaError_t err =
        stream ? cudaMemcpy2DAsync (map.data + vm->offset[p], vm->stride[p],
                     pixels + GST_VIDEO_INFO_PLANE_OFFSET (&packed, p), row, row, rows,
                     cudaMemcpyHostToDevice, stream)
               : cudaMemcpy2D (map.data + vm->offset[p], vm->stride[p],
                     pixels + GST_VIDEO_INFO_PLANE_OFFSET (&packed, p), row, row, rows,
                     cudaMemcpyHostToDevice);
    fail_unless_equals_int (err, cudaSuccess);
  }
  gst_memory_unmap (mem, &map);
#if GST_CHECK_VERSION(1, 24, 0)
  GST_MINI_OBJECT_FLAG_SET (mem, GST_CUDA_MEMORY_TRANSFER_NEED_SYNC);
#endif
}

/* `n` random NV12 frames, packed, in pinned memory (a decoder's output
 * surfaces stand-in: read when the stream runs the copy). */
std::vector<guint8 *>
pinned_frames (guint n, guint32 seed)
{
  const GstVideoInfo info = nv12_info (kWidth, kHeight);
  std::vector<guint8 *> frames;
  for (guint i = 0; i < n; i++) {
    void * p = nullptr;
    fail_unless_equals_int (cudaMallocHost (&p, info.size), cudaSuccess);
    testutil::fill_random (static_cast<guint8 *> (p), info.size, seed + i);
    frames.push_back (static_cast<guint8 *> (p));
  }
  return frames;
}

/* What videocrop makes of each frame. */
void
expect_crops (const std::vector<guint8 *> & frames, Captured * expected)
{
  const GstVideoInfo in = nv12_info (kWidth, kHeight);
  const GstVideoInfo out = nv12_info (kWidth - kLeft - kRight, kHeight - kTop - kBottom);
  for (guint8 * f : frames) {
    GstBuffer * whole = gst_buffer_new_memdup (f, in.size);
    expected->buffers.push_back (testutil::crop_on_cpu (whole, &in, kLeft, kTop, &out));
    expected->infos.push_back (out);
    gst_buffer_unref (whole);
  }
  expected->info = out;
}

void
free_pinned (std::vector<guint8 *> & frames)
{
  for (guint8 * f : frames)
    cudaFreeHost (f); /* the device's work runs first */
  frames.clear ();
}

std::string
caps_string (const char * feature)
{
  return std::string ("video/x-raw") +
         (feature ? std::string ("(") + feature + ")" : "") +
         ",format=NV12,width=" + std::to_string (kWidth) +
         ",height=" + std::to_string (kHeight) + ",framerate=30/1";
}

} // namespace

/* --- a. nvcodec of device 0 into ours on device 1 --------------------- */

/* Where the frames are still being written on a stream of a context of
 * their own (1.24+), nothing of ours can wait for that stream on the GPU:
 * nvcodec's own sync waits on the host, once a frame, and the element
 * counts it. */
static guint64
synced_on_host (bool own_context)
{
  return GST_CHECK_VERSION (1, 24, 0) && own_context ? kFrames : 0;
}

static void
check_nvcodec_into_other_device (
    GstCudaContext * ctx, bool own_context, const char * what)
{
  GstCaps * caps = gst_caps_from_string (caps_string ("memory:CUDAMemory").c_str ());
  GstBufferPool * pool = nvcodec_pool (ctx, caps);
  const std::string desc = "appsrc name=src format=time caps=\"" +
                           caps_string ("memory:CUDAMemory") +
                           "\" ! cudastreamscrop name=crop device-id=1 " + kCrop +
                           " ! cudastreamsdownload name=down device-id=1 ! "
                           "video/x-raw,format=NV12 ! appsink name=out sync=false";
  GstElement * p = gst_parse_launch (desc.c_str (), NULL);
  fail_unless (p != NULL);
  Captured expected, out;
  testutil::capture_appsink (p, "out", &out);
  std::vector<guint8 *> frames = pinned_frames (kFrames, 33);
  expect_crops (frames, &expected);

  gst_element_set_state (p, GST_STATE_PLAYING);
  GstElement * src = testutil::by_name (p, "src");
  for (guint i = 0; i < kFrames; i++) {
    GstBuffer * buf = NULL;
    fail_unless_equals_int (
        gst_buffer_pool_acquire_buffer (pool, &buf, NULL), GST_FLOW_OK);
    write_as_decoder (buf, frames[i]);
    GST_BUFFER_PTS (buf) = i * GST_SECOND / 30;
    fail_unless_equals_int (
        gst_app_src_push_buffer (GST_APP_SRC (src), buf), GST_FLOW_OK);
  }
  gst_app_src_end_of_stream (GST_APP_SRC (src));
  gst_object_unref (src);
  guint64 waits_crop = 0;
  testutil::Outcome o = testutil::run_to_end (p);
  fail_unless (o.eos, "%s: %s", what, o.error.c_str ());
  waits_crop = testutil::host_waits (p, "crop");
  testutil::assert_all_frames_equal (expected, out, what);
  g_print ("a. %s: %u frames pixel-exact, host waits: crop %" G_GUINT64_FORMAT
           ", download %" G_GUINT64_FORMAT "\n",
      what, kFrames, waits_crop, testutil::host_waits (p, "down"));
  /* At most one host wait per frame: another context's stream is
   * synchronised on the host; the stand-in's lazy streams also leave the
   * crop's kept nvcodec frames unread until something waits, so a full
   * list waits for its oldest (a GPU runs them long before; the interop
   * suite counts 0 there where the contexts are shared). */
  fail_unless (waits_crop <= kFrames,
      "%s: the crop waited %" G_GUINT64_FORMAT " times for %u frames", what, waits_crop,
      kFrames);
  fail_unless (waits_crop >= synced_on_host (own_context),
      "%s: the crop counted %" G_GUINT64_FORMAT " host waits, but nvcodec synchronised "
      "%" G_GUINT64_FORMAT " frames on the host for it",
      what, waits_crop, synced_on_host (own_context));
  gst_object_unref (p);
  gst_buffer_pool_set_active (pool, FALSE);
  gst_object_unref (pool);
  gst_caps_unref (caps);
  free_pinned (frames);
}

GST_START_TEST (test_nvcodec_frames_of_other_device_own_context)
{
  GstCudaContext * ctx = gst_cuda_context_new (0);
  fail_unless (ctx != NULL);
  check_nvcodec_into_other_device (
      ctx, true, "nvcodec memory of device 0 (its own context)");
  gst_object_unref (ctx);
}
GST_END_TEST;

GST_START_TEST (test_nvcodec_frames_of_other_device_primary_context)
{
  GstCudaContext * ctx = gst_cuda_context_new_wrapped (primary_context (0), 0);
  fail_unless (ctx != NULL);
  check_nvcodec_into_other_device (
      ctx, false, "nvcodec memory of device 0 (its primary context)");
  gst_object_unref (ctx);
}
GST_END_TEST;

/* --- b. ours on device 0 into nvcodec memory ---------------------------- */

/* Reads every frame through GStreamer's CUDA library (a CPU map: it
 * synchronises what nvcodec's memory says it must), as nvcodec's download
 * does, into system memory. */
static GstFlowReturn
read_as_nvcodec (GstAppSink * sink, gpointer user)
{
  auto * into = static_cast<Captured *> (user);
  GstSample * s = gst_app_sink_pull_sample (sink);
  GstBuffer * buf = gst_sample_get_buffer (s);
  GstVideoInfo info;
  gst_video_info_from_caps (&info, gst_sample_get_caps (s));
  GstVideoFrame f;
  const bool cuda = gst_is_cuda_memory (gst_buffer_peek_memory (buf, 0));
  GstBuffer * copy = NULL;
  if (gst_video_frame_map (&f, &info, buf, GST_MAP_READ)) {
    copy = gst_buffer_new_allocate (NULL, info.size, NULL);
    GstVideoFrame c;
    gst_video_frame_map (&c, &info, copy, GST_MAP_WRITE);
    gst_video_frame_copy (&c, &f);
    gst_video_frame_unmap (&c);
    gst_video_frame_unmap (&f);
  }
  g_mutex_lock (&into->lock);
  if (copy && cuda) {
    into->buffers.push_back (copy);
    into->infos.push_back (info);
    into->info = info;
  } else if (copy) {
    gst_buffer_unref (copy); /* not nvcodec's memory: the test fails on the count */
  }
  g_mutex_unlock (&into->lock);
  gst_sample_unref (s);
  return GST_FLOW_OK;
}

/* The frames of `frames`, in system memory, through `chain` into an
 * appsink whose frames are read as nvcodec reads them. */
static void
run_from_system_memory (const std::string & chain, const std::vector<guint8 *> & frames,
    Captured * out, const char * what)
{
  const std::string desc = "appsrc name=src format=time caps=\"" + caps_string (NULL) +
                           "\" ! " + chain + " ! appsink name=out sync=false";
  GstElement * p = gst_parse_launch (desc.c_str (), NULL);
  fail_unless (p != NULL, "%s", desc.c_str ());
  GstElement * sink = testutil::by_name (p, "out");
  GstAppSinkCallbacks cb = {};
  cb.new_sample = read_as_nvcodec;
  gst_app_sink_set_callbacks (GST_APP_SINK (sink), &cb, out, NULL);
  gst_object_unref (sink);
  gst_element_set_state (p, GST_STATE_PLAYING);
  GstElement * src = testutil::by_name (p, "src");
  const GstVideoInfo info = nv12_info (kWidth, kHeight);
  for (guint i = 0; i < frames.size (); i++) {
    GstBuffer * buf = gst_buffer_new_memdup (frames[i], info.size);
    GST_BUFFER_PTS (buf) = i * GST_SECOND / 30;
    fail_unless_equals_int (
        gst_app_src_push_buffer (GST_APP_SRC (src), buf), GST_FLOW_OK);
  }
  gst_app_src_end_of_stream (GST_APP_SRC (src));
  gst_object_unref (src);
  testutil::Outcome o = testutil::run_to_end (p);
  fail_unless (o.eos, "%s: %s", what, o.error.c_str ());
  g_print ("b. %s: host waits: upload %" G_GUINT64_FORMAT ", crop %" G_GUINT64_FORMAT
           "\n",
      what, testutil::host_waits (p, "up"), testutil::host_waits (p, "crop"));
  gst_object_unref (p);
}

GST_START_TEST (test_ours_into_nvcodec_memory)
{
  std::vector<guint8 *> frames = pinned_frames (kFrames, 77);
  Captured expected, out;
  expect_crops (frames, &expected);
  const char * what = "cudastreamsupload ! cudastreamscrop (device 0) ! "
                      "memory:CUDAMemory, read through GStreamer's CUDA library";
  run_from_system_memory (std::string ("cudastreamsupload name=up device-id=0 ! "
                                       "cudastreamscrop name=crop device-id=0 ") +
                              kCrop + " ! video/x-raw(memory:CUDAMemory)",
      frames, &out, what);
  testutil::assert_all_frames_equal (expected, out, what);
  free_pinned (frames);
}
GST_END_TEST;

/* --- c. nvcodec of device 0 into cudabatch on device 1 ----------------- */

/* Pushes frame `i` of `frames` into the appsrc `name`: as an nvcodec frame
 * of `pool` written as a decoder writes it, or, without a pool, in system
 * memory. */
static void
push_frame (GstElement * p, const char * name, GstBufferPool * pool,
    const std::vector<guint8 *> & frames, guint i)
{
  GstBuffer * buf = NULL;
  if (pool) {
    fail_unless_equals_int (
        gst_buffer_pool_acquire_buffer (pool, &buf, NULL), GST_FLOW_OK);
    write_as_decoder (buf, frames[i]);
  } else {
    buf = gst_buffer_new_memdup (frames[i], nv12_info (kWidth, kHeight).size);
  }
  GST_BUFFER_PTS (buf) = i * GST_SECOND / 30;
  GST_BUFFER_DURATION (buf) = GST_SECOND / 30;
  GstElement * src = testutil::by_name (p, name);
  fail_unless_equals_int (gst_app_src_push_buffer (GST_APP_SRC (src), buf), GST_FLOW_OK);
  gst_object_unref (src);
}

/* cudabatch on device 1 of two slots: `frames` from `pool` (nvcodec's, of
 * device 0) or, without one, uploaded on device 1; and the same frames in
 * reverse order uploaded on device 1. The tensors, read on the host; the
 * element's host waits in `waits`. */
static std::vector<std::vector<guint8>>
batch_beside_own (GstBufferPool * pool, const std::vector<guint8 *> & frames,
    const char * what, guint64 * waits)
{
  const std::string first = pool ? "appsrc name=s0 format=time caps=\"" +
                                       caps_string ("memory:CUDAMemory") + "\""
                                 : "appsrc name=s0 format=time caps=\"" +
                                       caps_string (NULL) +
                                       "\" ! cudastreamsupload device-id=1";
  const std::string desc = "cudastreamsbatch name=cs device-id=1 width=32 height=24 "
                           "dtype=float32 ! fakesink name=out sync=false async=false " +
                           first + " ! cs.sink_0 appsrc name=s1 format=time caps=\"" +
                           caps_string (NULL) +
                           "\" ! cudastreamsupload device-id=1 ! cs.sink_1";
  GstElement * p = gst_parse_launch (desc.c_str (), NULL);
  fail_unless (p != NULL, "%s", desc.c_str ());
  std::vector<std::vector<guint8>> tensors;
  testutil::capture_bytes (p, "out", "sink", &tensors);
  gst_element_set_state (p, GST_STATE_PLAYING);
  std::vector<guint8 *> reversed (frames.rbegin (), frames.rend ());
  for (guint i = 0; i < frames.size (); i++) {
    push_frame (p, "s0", pool, frames, i);
    push_frame (p, "s1", NULL, reversed, i);
  }
  for (const char * name : { "s0", "s1" }) {
    GstElement * src = testutil::by_name (p, name);
    gst_app_src_end_of_stream (GST_APP_SRC (src));
    gst_object_unref (src);
  }
  testutil::Outcome o = testutil::run_to_end (p);
  fail_unless (o.eos, "%s: %s", what, o.error.c_str ());
  fail_unless_equals_int (tensors.size (), frames.size ());
  *waits = testutil::host_waits (p, "cs");
  gst_object_unref (p);
  return tensors;
}

/* nvcodec frames of a context of their own (nvcodec 1.22's decoders) and
 * of the device's primary one (shared with us), against the tensors of the
 * same frames uploaded on device 1. */
GST_START_TEST (test_nvcodec_frames_of_other_device_into_batch)
{
  std::vector<guint8 *> frames = pinned_frames (kFrames, 55);
  guint64 waits = 0;
  const auto expected = batch_beside_own (NULL, frames, "all on device 1", &waits);
  fail_unless_equals_uint64 (waits, 0);
  GstCaps * caps = gst_caps_from_string (caps_string ("memory:CUDAMemory").c_str ());
  const struct {
    GstCudaContext * ctx;
    bool own_context;
    const char * what;
  } cases[] = {
    { gst_cuda_context_new (0), true, "nvcodec memory of device 0 (its own context)" },
    { gst_cuda_context_new_wrapped (primary_context (0), 0), false,
        "nvcodec memory of device 0 (its primary context)" },
  };
  for (const auto & c : cases) {
    fail_unless (c.ctx != NULL);
    GstBufferPool * pool = nvcodec_pool (c.ctx, caps);
    const auto got = batch_beside_own (pool, frames, c.what, &waits);
    for (guint k = 0; k < kFrames; k++)
      fail_unless (got[k] == expected[k],
          "%s: batch %u differs from the batch of the frames uploaded on device 1",
          c.what, k);
    g_print ("c. %s: %u batches the same as on one device, host waits %" G_GUINT64_FORMAT
             "\n",
        c.what, kFrames, waits);
    /* As the crop's (a. above): the stand-in's lazy streams may leave kept
     * nvcodec frames unread until the stop lets them go. */
    fail_unless (waits <= kFrames, "%s: cudabatch waited %" G_GUINT64_FORMAT " times",
        c.what, waits);
    fail_unless (waits >= synced_on_host (c.own_context),
        "%s: cudabatch counted %" G_GUINT64_FORMAT " host waits, but nvcodec "
        "synchronised %" G_GUINT64_FORMAT " frames on the host for it",
        c.what, waits, synced_on_host (c.own_context));
    gst_buffer_pool_set_active (pool, FALSE);
    gst_object_unref (pool);
    gst_object_unref (c.ctx);
  }
  gst_caps_unref (caps);
  free_pinned (frames);
}
GST_END_TEST;

static Suite *
nvcodec_memory_suite (void)
{
  Suite * s = suite_create ("nvcodec_memory_fake");
  TCase * tc = tcase_create ("stand-in");
  tcase_set_timeout (tc, 300);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_nvcodec_frames_of_other_device_own_context);
  tcase_add_test (tc, test_nvcodec_frames_of_other_device_primary_context);
  tcase_add_test (tc, test_ours_into_nvcodec_memory);
  tcase_add_test (tc, test_nvcodec_frames_of_other_device_into_batch);
  return s;
}

/* The file that holds `symbol` of the library `name` (loaded already). */
static std::string
file_of (void * lib, const char * symbol)
{
  Dl_info info{};
  void * at = lib ? dlsym (lib, symbol) : nullptr;
  return at && dladdr (at, &info) && info.dli_fname ? info.dli_fname : "nothing";
}

static std::string
loaded_driver ()
{
  void * lib = dlopen ("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
  std::string f = file_of (lib, "cuInit");
  if (lib)
    dlclose (lib);
  return f;
}

/* The stand-in's file: the runtime this test is linked with. */
static std::string
stand_in_path ()
{
  Dl_info info{};
  return dladdr (reinterpret_cast<void *> (&cudaGetDeviceCount), &info) && info.dli_fname
             ? info.dli_fname
             : "nothing";
}

int
main (int argc, char ** argv)
{
  gst_check_init (&argc, &argv);
  int n = 0;
  if (!fakecuda_present () || cudaGetDeviceCount (&n) != cudaSuccess || n < 2) {
    g_print ("SKIP nvcodec_memory_fake: runs on the stand-in with FAKECUDA_DEVICES=2\n");
    return 77;
  }
  if (!gst_cuda_load_library ()) {
    g_print ("SKIP nvcodec_memory_fake: GStreamer's CUDA library did not load the "
             "stand-in's libcuda.so.1 (LD_LIBRARY_PATH)\n");
    return 77;
  }
  /* A machine with a GPU may have given GStreamer the real driver. */
  const std::string driver = loaded_driver ();
  if (driver != stand_in_path ()) {
    g_print ("SKIP nvcodec_memory_fake: GStreamer's CUDA library loaded %s as "
             "libcuda.so.1, not the stand-in (%s)\n",
        driver.c_str (), stand_in_path ().c_str ());
    return 77;
  }
  /* The allocator nvcodec's pools find by name (the plugin registers it
   * too, when it first makes nvcodec frames). */
  gst_cuda_memory_init_once ();
  return gst_check_run_suite (nvcodec_memory_suite (), "nvcodec_memory_fake", __FILE__);
}

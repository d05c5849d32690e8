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
//     device 1, byte for byte, and the host waits of cudabatch;
//  d. nvcodec frames cudabatch keeps until its batches have read them, each
//     overwritten with junk the moment cudabatch lets it go (as a decoder
//     reuses its surface): a flush of the other pad neither waits for them
//     nor lets them go, a flush of their own pad or its release lets them go
//     after their reads, many flushes while both pads stream let none go
//     early or twice, and none is kept after the stream ends or while the
//     live sources stall.
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

#include <atomic>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "fakecuda.h"
#include "gstcsbatchmeta.h"
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

/* Frames still being written on nvcodec's stream (1.24+), in a context of
 * nvcodec's own or in the primary one, are ordered on the GPU: our stream
 * waits for an event of their context. The stand-in's lazy streams run
 * nvcodec's writes only when something orders after them, so a frame read
 * without that order is junk; and no host wait is needed for any of it. */
static void
check_nvcodec_into_other_device (GstCudaContext * ctx, const char * what)
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
  fail_unless (waits_crop == 0,
      "%s: the crop waited %" G_GUINT64_FORMAT " times on the host for %u frames", what,
      waits_crop, kFrames);
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
  check_nvcodec_into_other_device (ctx, "nvcodec memory of device 0 (its own context)");
  gst_object_unref (ctx);
}
GST_END_TEST;

GST_START_TEST (test_nvcodec_frames_of_other_device_primary_context)
{
  GstCudaContext * ctx = gst_cuda_context_new_wrapped (primary_context (0), 0);
  fail_unless (ctx != NULL);
  check_nvcodec_into_other_device (
      ctx, "nvcodec memory of device 0 (its primary context)");
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
    const char * what;
  } cases[] = {
    { gst_cuda_context_new (0), "nvcodec memory of device 0 (its own context)" },
    { gst_cuda_context_new_wrapped (primary_context (0), 0),
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
    /* As the crop's (a. above). */
    fail_unless (waits == 0,
        "%s: cudabatch waited %" G_GUINT64_FORMAT " times on the host", c.what, waits);
    gst_buffer_pool_set_active (pool, FALSE);
    gst_object_unref (pool);
    gst_object_unref (c.ctx);
  }
  gst_caps_unref (caps);
  free_pinned (frames);
}
GST_END_TEST;

/* --- d. nvcodec frames cudabatch keeps --------------------------------- */

namespace {

/* Frame `k` of a test: uniform grey, its own level (a slot of it is one
 * value throughout), NV12 in pinned memory. */
guint8
level_of (guint k)
{
  return (guint8)(40 + 7 * (k % 24));
}

std::vector<guint8 *>
grey_frames (guint n)
{
  const GstVideoInfo info = nv12_info (kWidth, kHeight);
  std::vector<guint8 *> frames;
  for (guint k = 0; k < n; k++) {
    void * p = nullptr;
    fail_unless_equals_int (cudaMallocHost (&p, info.size), cudaSuccess);
    auto * f = static_cast<guint8 *> (p);
    const gsize luma = GST_VIDEO_INFO_PLANE_OFFSET (&info, 1);
    memset (f, level_of (k), luma);
    memset (f + luma, 128, info.size - luma);
    frames.push_back (f);
  }
  return frames;
}

/* What a test keeps of the nvcodec frames it pushed: how many cudabatch let
 * go of. Each frame goes in as a buffer of its own over the pool buffer's
 * memory, so its end is seen; at its end the memory is overwritten with
 * junk on the spot (the stand-in's device memory is the host's), as a
 * decoder writes a surface it has back. A batch that had not yet read it
 * then reads junk. */
struct Released {
  std::atomic<guint> count{ 0 };
};

struct Junk {
  Released * released;
  guint8 * data;
  gsize size;
};

void
junk_on_release (gpointer data, GstMiniObject *)
{
  auto * j = static_cast<Junk *> (data);
  testutil::fill_random (j->data, j->size, 99);
  j->released->count++;
  delete j;
}

/* The pool buffer `buf` as a buffer of its own, watched by `released`. */
GstBuffer *
watched (GstBuffer * buf, Released * released)
{
  GstMemory * mem = gst_buffer_peek_memory (buf, 0);
  GstMapInfo map;
  fail_unless (gst_memory_map (mem, &map, (GstMapFlags)(GST_MAP_READ | GST_MAP_CUDA)));
  auto * j = new Junk{ released, map.data, map.size };
  gst_memory_unmap (mem, &map);
  GstBuffer * copy = gst_buffer_copy (buf);
  gst_mini_object_weak_ref (GST_MINI_OBJECT (copy), junk_on_release, j);
  return copy;
}

/* cudabatch on device 0 of an nvcodec pad (s0, frames of `pool`) and one of
 * ours (s1), uint8 NCHW slots of the frames' size; the batches are kept, unread, in
 * `batches` (a GPU would read the frames meanwhile; the stand-in runs the
 * batches' work when something waits for it). */
struct HeldCase {
  GstCudaContext * ctx = nullptr;
  GstCaps * caps = nullptr;
  GstBufferPool * pool = nullptr;
  GstElement * p = nullptr;
  std::vector<guint8 *> frames;
  std::vector<GstBuffer *> pool_buffers; /* kept: their memory stays the test's */
  Released released;
  std::mutex lock;
  std::vector<GstBuffer *> batches;

  HeldCase (guint n_frames, bool live, const char * props)
  {
    ctx = gst_cuda_context_new_wrapped (primary_context (0), 0);
    caps = gst_caps_from_string (caps_string ("memory:CUDAMemory").c_str ());
    pool = nvcodec_pool (ctx, caps);
    frames = grey_frames (n_frames);
    const std::string l = live ? "true do-timestamp=true" : "false";
    const std::string desc =
        std::string ("cudastreamsbatch name=cs device-id=0 dtype=uint8 width=") +
        std::to_string (kWidth) + " height=" + std::to_string (kHeight) + " " + props +
        " ! fakesink name=out sync=false async=false appsrc name=s0 format=time "
        "is-live=" +
        l + " caps=\"" + caps_string ("memory:CUDAMemory") +
        "\" ! cs.sink_0 appsrc name=s1 format=time is-live=" + l + " caps=\"" +
        caps_string (NULL) + "\" ! cudastreamsupload device-id=0 ! cs.sink_1";
    p = gst_parse_launch (desc.c_str (), NULL);
    fail_unless (p != NULL, "%s", desc.c_str ());
    testutil::add_probe (p, "out", "sink", GST_PAD_PROBE_TYPE_BUFFER, keep, this);
    fail_unless (
        gst_element_set_state (p, GST_STATE_PLAYING) != GST_STATE_CHANGE_FAILURE);
  }
  ~HeldCase ()
  {
    gst_element_set_state (p, GST_STATE_NULL);
    for (GstBuffer * b : batches)
      gst_buffer_unref (b);
    gst_object_unref (p);
    for (GstBuffer * b : pool_buffers)
      gst_buffer_unref (b);
    gst_buffer_pool_set_active (pool, FALSE);
    gst_object_unref (pool);
    gst_caps_unref (caps);
    gst_object_unref (ctx);
    free_pinned (frames);
  }

  static GstPadProbeReturn keep (GstPad *, GstPadProbeInfo * info, gpointer data)
  {
    auto * self = static_cast<HeldCase *> (data);
    std::lock_guard<std::mutex> l (self->lock);
    self->batches.push_back (gst_buffer_ref (GST_PAD_PROBE_INFO_BUFFER (info)));
    return GST_PAD_PROBE_OK;
  }
  size_t n_batches ()
  {
    std::lock_guard<std::mutex> l (lock);
    return batches.size ();
  }

  /* Frame `k` into s0 as a decoder's (watched), and into s1 uploaded. */
  void push (guint k, bool ours = true)
  {
    GstBuffer * buf = NULL;
    fail_unless_equals_int (
        gst_buffer_pool_acquire_buffer (pool, &buf, NULL), GST_FLOW_OK);
    write_as_decoder (buf, frames[k]);
    pool_buffers.push_back (buf);
    GstBuffer * frame = watched (buf, &released);
    GST_BUFFER_PTS (frame) = k * GST_SECOND / 30;
    GST_BUFFER_DURATION (frame) = GST_SECOND / 30;
    /* A source flushing refuses frames: that one is dropped. */
    GstElement * s0 = testutil::by_name (p, "s0");
    gst_app_src_push_buffer (GST_APP_SRC (s0), frame);
    gst_object_unref (s0);
    if (!ours)
      return;
    GstBuffer * mine =
        gst_buffer_new_memdup (frames[k], nv12_info (kWidth, kHeight).size);
    GST_BUFFER_PTS (mine) = k * GST_SECOND / 30;
    GST_BUFFER_DURATION (mine) = GST_SECOND / 30;
    GstElement * s1 = testutil::by_name (p, "s1");
    gst_app_src_push_buffer (GST_APP_SRC (s1), mine);
    gst_object_unref (s1);
  }
  guint64 waits () { return testutil::host_waits (p, "cs"); }

  /* Waits for the end of the stream, without stopping. */
  void wait_eos ()
  {
    GstBus * bus = gst_element_get_bus (p);
    GstMessage * m = gst_bus_timed_pop_filtered (
        bus, 60 * GST_SECOND, (GstMessageType)(GST_MESSAGE_EOS | GST_MESSAGE_ERROR));
    fail_unless (m && GST_MESSAGE_TYPE (m) == GST_MESSAGE_EOS, "no EOS");
    gst_message_unref (m);
    gst_object_unref (bus);
  }

  /* Every batch's slot of s0's frame is one value, that of the frame it
   * says (its PTS): it read the frame, not the junk of a frame let go
   * before. Reading a batch waits for its work on the host. */
  void check_slots (const char * what)
  {
    std::lock_guard<std::mutex> l (lock);
    guint checked = 0;
    for (GstBuffer * b : batches) {
      GstCsBatchMeta * meta = gst_buffer_get_cs_batch_meta (b);
      GstMapInfo map;
      fail_unless (gst_buffer_map (b, &map, GST_MAP_READ));
      const gsize slot = map.size / meta->n_slots;
      for (guint i = 0; i < meta->n_slots; i++) {
        const GstCsBatchSlot & s = meta->slots[i];
        if (s.empty || s.pad_index != 0)
          continue;
        const guint k = (guint)gst_util_uint64_scale_round (s.pts, 30, GST_SECOND);
        const guint8 * v = map.data + i * slot;
        guint8 lo = 255, hi = 0;
        for (gsize j = 0; j < slot; j++)
          lo = MIN (lo, v[j]), hi = MAX (hi, v[j]);
        const guint8 want = (guint8)(((int)level_of (k) - 16) * 255 / 219 + 0.5);
        fail_unless (hi - lo <= 1 && std::abs ((int)lo - want) <= 1,
            "%s: the batch of frame %u read %u..%u, not %u: its frame went back "
            "to its pool before the batch read it",
            what, k, lo, hi, want);
        checked++;
      }
      gst_buffer_unmap (b, &map);
    }
    fail_unless (checked > 0, "%s: no slot of an nvcodec frame", what);
  }
};

void
flush_source (GstElement * p, const char * name)
{
  GstElement * src = testutil::by_name (p, name);
  fail_unless (gst_element_send_event (src, gst_event_new_flush_start ()));
  fail_unless (gst_element_send_event (src, gst_event_new_flush_stop (FALSE)));
  gst_object_unref (src);
}

void
end_sources (GstElement * p)
{
  for (const char * name : { "s0", "s1" }) {
    GstElement * src = testutil::by_name (p, name);
    gst_app_src_end_of_stream (GST_APP_SRC (src));
    gst_object_unref (src);
  }
}

} // namespace

/* A flush of our pad (s1) on its own: the nvcodec frames of s0 that the
 * batches still read are neither waited for nor let go. A flush of s0
 * then lets them go, after a host wait for their reads (the junk written
 * as they go is not what the batches read). */
GST_START_TEST (test_flush_of_one_pad)
{
  HeldCase c (2, false, "batch-size=2");
  for (guint k = 0; k < 2; k++)
    c.push (k);
  testutil::wait_until ([&] { return c.n_batches () == 2; }, "2 batches");
  fail_unless_equals_uint64 (c.waits (), 0);
  fail_unless_equals_int (c.released.count.load (), 0);
  flush_source (c.p, "s1");
  fail_unless_equals_uint64 (c.waits (), 0);
  fail_unless_equals_int (c.released.count.load (), 0);
  flush_source (c.p, "s0");
  fail_unless_equals_int (c.released.count.load (), 2);
  fail_unless_equals_uint64 (c.waits (), 1);
  end_sources (c.p);
  c.wait_eos ();
  c.check_slots ("flushes of one pad");
}
GST_END_TEST;

/* The nvcodec pad released while the batches still read its frames: they
 * go once read (junk after), the other pad goes on. */
GST_START_TEST (test_release_pad_with_held_frames)
{
  HeldCase c (3, false, "");
  for (guint k = 0; k < 2; k++)
    c.push (k);
  testutil::wait_until ([&] { return c.n_batches () == 2; }, "2 batches");
  GstElement * cs = testutil::by_name (c.p, "cs");
  GstPad * pad = gst_element_get_static_pad (cs, "sink_0");
  GstPad * peer = gst_pad_get_peer (pad);
  gst_pad_unlink (peer, pad);
  gst_element_release_request_pad (cs, pad);
  gst_object_unref (peer);
  gst_object_unref (pad);
  gst_object_unref (cs);
  fail_unless_equals_int (c.released.count.load (), 2);
  push_frame (c.p, "s1", NULL, c.frames, 2);
  testutil::wait_until ([&] { return c.n_batches () == 3; }, "a batch of s1 alone");
  end_sources (c.p);
  c.wait_eos ();
  c.check_slots ("pad released");
}
GST_END_TEST;

/* Flushes of one pad or the other from a thread of their own, many times,
 * while both stream live (the batches of the other pad going on, partial,
 * meanwhile; large slots, so that the stand-in takes a while to run a
 * batch's work when a flush waits for it): no frame goes back before its
 * batch read it (the slots are their frames', not junk), none goes twice
 * (a crash, or the leaks tracer), all go by the end of the stream. */
GST_START_TEST (test_flushes_while_streaming)
{
  constexpr guint kFramesRace = 64;
  HeldCase c (kFramesRace, true, "width=512 height=384 batched-push-timeout=2000");
  std::atomic<bool> done{ false };
  std::thread flusher ([&] {
    for (guint i = 0; !done.load (); i++) {
      flush_source (c.p, i % 4 ? "s1" : "s0");
      g_usleep (200 + 300 * (i % 5));
    }
  });
  for (guint k = 0; k < kFramesRace; k++) {
    c.push (k);
    g_usleep (1000);
  }
  done = true;
  flusher.join ();
  end_sources (c.p);
  c.wait_eos ();
  c.check_slots ("flushes while streaming");
  g_print ("d. %zu batches, %u of %u nvcodec frames let go by the end of the stream, "
           "host waits %" G_GUINT64_FORMAT "\n",
      c.n_batches (), c.released.count.load (), kFramesRace, c.waits ());
  fail_unless_equals_int (c.released.count.load (), kFramesRace);
}
GST_END_TEST;

/* Frames are not kept longer than their reads: at the end of the stream
 * they go before the pipeline stops; while every live source stalls they
 * go at the next timeout once the GPU has read them. */
GST_START_TEST (test_frames_not_kept)
{
  {
    HeldCase c (2, false, "");
    for (guint k = 0; k < 2; k++)
      c.push (k);
    end_sources (c.p);
    c.wait_eos ();
    fail_unless_equals_int (c.released.count.load (), 2);
    c.check_slots ("end of stream");
  }
  {
    HeldCase c (2, true, "batched-push-timeout=20000");
    c.push (0);
    testutil::wait_until ([&] { return c.n_batches () == 1; }, "a batch");
    fail_unless_equals_int (c.released.count.load (), 0);
    fakecuda_run_all (); /* the GPU reads the frame */
    testutil::wait_until ([&] { return c.released.count.load () == 1; },
        "the frame read to be let go while the sources stall");
    fail_unless_equals_uint64 (c.waits (), 0);
    c.check_slots ("stall");
  }
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
  tcase_add_test (tc, test_flush_of_one_pad);
  tcase_add_test (tc, test_release_pad_with_held_frames);
  tcase_add_test (tc, test_flushes_while_streaming);
  tcase_add_test (tc, test_frames_not_kept);
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

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gcs-convert-time: GPU time per frame of the convert-scale kernel for the
 * benchmark's cudaconvertscale rows (and a few other frames, on the
 * kernel's other paths), beside a device-to-device copy of the
 * same bytes (what the kernel reads plus what it writes), timed with CUDA
 * events in one process. The kernel is described by the element's own
 * function (plugins/gstcsconvertdesc), so it is the element's launch.
 *
 *   gcs-convert-time [TEXT]  -> one line per row (those whose name holds
 *                               TEXT: one kernel to profile), "CONVERT-TIME
 *                               {json}" each
 */
#include <cuda_runtime_api.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <vector>

#include "convert_scale.h"
#include "convert/gstcsconvertdesc.hpp"

namespace {

struct Row {
  const char * name;
  GstVideoFormat in_format;
  int in_w, in_h;
  GstVideoFormat out_format;
  int out_w, out_h;
  gst_cs::gpu::Filter filter;
  gst_cs::gpu::Orientation orientation;
};

bool
check (cudaError_t e, const char * what)
{
  if (e == cudaSuccess)
    return true;
  std::fprintf (stderr, "%s: %s\n", what, cudaGetErrorString (e));
  return false;
}

/* Mean time of `n` runs of `work` on `stream`, after 10 untimed ones, in µs. */
template <class Work>
double
time_us (cudaStream_t stream, int n, Work work)
{
  cudaEvent_t start, stop;
  cudaEventCreate (&start);
  cudaEventCreate (&stop);
  for (int i = 0; i < 10; i++)
    work ();
  cudaEventRecord (start, stream);
  for (int i = 0; i < n; i++)
    work ();
  cudaEventRecord (stop, stream);
  cudaEventSynchronize (stop);
  float ms = 0.0f;
  cudaEventElapsedTime (&ms, start, stop);
  cudaEventDestroy (start);
  cudaEventDestroy (stop);
  return 1000.0 * ms / n;
}

bool
run_row (const Row & r, cudaStream_t stream)
{
  GstVideoInfo in, out;
  gst_video_info_set_format (&in, r.in_format, r.in_w, r.in_h);
  gst_video_info_set_format (&out, r.out_format, r.out_w, r.out_h);
  guint8 *din = nullptr, *dout = nullptr, *copy_a = nullptr, *copy_b = nullptr;
  const size_t copy_bytes = (in.size + out.size) / 2; /* read + written = in + out */
  if (!check (cudaMalloc ((void **)&din, in.size), "cudaMalloc") ||
      !check (cudaMalloc ((void **)&dout, out.size), "cudaMalloc") ||
      !check (cudaMalloc ((void **)&copy_a, copy_bytes), "cudaMalloc") ||
      !check (cudaMalloc ((void **)&copy_b, copy_bytes), "cudaMalloc"))
    return false;
  cudaMemset (din, 0x80, in.size);
  gst_cs::ConvertSettings settings;
  settings.filter = r.filter;
  settings.orientation = r.orientation;
  gst_cs::gpu::ConvertScale op;
  gst_cs::describe_convert (&in, &out, 0, 0, r.in_w, r.in_h, settings, &op);
  op.in = gst_cs::convert_image (&in, &in, din, false);
  op.out = gst_cs::convert_image (&out, &out, dout, true);
  bool ok = check (gst_cs::gpu::convert_scale (op, stream), "convert_scale");
  const double kernel =
      time_us (stream, 200, [&] { gst_cs::gpu::convert_scale (op, stream); });
  /* The CPU's share of a frame: describing it as the element does and
   * launching the kernel (the stream runs behind). */
  const auto t0 = std::chrono::steady_clock::now ();
  for (int i = 0; i < 200; i++) {
    gst_cs::gpu::ConvertScale again;
    gst_cs::describe_convert (&in, &out, 0, 0, r.in_w, r.in_h, settings, &again);
    again.in = gst_cs::convert_image (&in, &in, din, false);
    again.out = gst_cs::convert_image (&out, &out, dout, true);
    gst_cs::gpu::convert_scale (again, stream);
  }
  const double host =
      std::chrono::duration<double, std::micro> (std::chrono::steady_clock::now () - t0)
          .count () /
      200;
  const double copy = time_us (stream, 200, [&] {
    cudaMemcpyAsync (copy_b, copy_a, copy_bytes, cudaMemcpyDeviceToDevice, stream);
  });
  ok = ok && check (cudaStreamSynchronize (stream), "the timed work");
  std::printf ("CONVERT-TIME {\"row\":\"%s\",\"kernel_us\":%.2f,\"copy_us\":%.2f,"
               "\"ratio\":%.3f,\"host_us\":%.2f,\"in_bytes\":%zu,\"out_bytes\":%zu,"
               "\"path\":\"%s\"}\n",
      r.name, kernel, copy, kernel / copy, host, in.size, out.size,
      gst_cs::gpu::convert_scale_path (op));
  cudaFree (din);
  cudaFree (dout);
  cudaFree (copy_a);
  cudaFree (copy_b);
  return ok;
}

} // namespace

int
main (int argc, char ** argv)
{
  using gst_cs::gpu::Filter;
  using gst_cs::gpu::Orientation;
  const std::vector<Row> rows = {
    { "4K NV12 -> 1080p RGBA bilinear", GST_VIDEO_FORMAT_NV12, 3840, 2160,
        GST_VIDEO_FORMAT_RGBA, 1920, 1080, Filter::BILINEAR, Orientation::IDENTITY },
    { "1080p NV12 -> 640x640 RGBP letterbox", GST_VIDEO_FORMAT_NV12, 1920, 1080,
        GST_VIDEO_FORMAT_RGBP, 640, 640, Filter::BILINEAR, Orientation::IDENTITY },
    { "4K P010 -> 4K NV12", GST_VIDEO_FORMAT_P010_10LE, 3840, 2160, GST_VIDEO_FORMAT_NV12,
        3840, 2160, Filter::BILINEAR, Orientation::IDENTITY },
    { "1080p RGBA rotate-90", GST_VIDEO_FORMAT_RGBA, 1920, 1080, GST_VIDEO_FORMAT_RGBA,
        1080, 1920, Filter::BILINEAR, Orientation::ROTATE_90R },
    /* Frames beyond the benchmark's rows, on the kernel's other paths: a
     * change made for one row shows here what it costs the others (the
     * taller tiles of commit 27ea179 sped up the first row and slowed
     * 4K -> 1080p NV12 by half). */
    { "4K NV12 -> 1080p NV12 bilinear", GST_VIDEO_FORMAT_NV12, 3840, 2160,
        GST_VIDEO_FORMAT_NV12, 1920, 1080, Filter::BILINEAR, Orientation::IDENTITY },
    { "1080p RGBA -> 720p RGBA bilinear", GST_VIDEO_FORMAT_RGBA, 1920, 1080,
        GST_VIDEO_FORMAT_RGBA, 1280, 720, Filter::BILINEAR, Orientation::IDENTITY },
    { "1080p NV12 -> 720p I420 bilinear", GST_VIDEO_FORMAT_NV12, 1920, 1080,
        GST_VIDEO_FORMAT_I420, 1280, 720, Filter::BILINEAR, Orientation::IDENTITY },
    { "4K NV12 -> 640x360 RGBA bilinear", GST_VIDEO_FORMAT_NV12, 3840, 2160,
        GST_VIDEO_FORMAT_RGBA, 640, 360, Filter::BILINEAR, Orientation::IDENTITY },
    { "1080p NV12 -> 720x1280 RGBA rotate-90", GST_VIDEO_FORMAT_NV12, 1920, 1080,
        GST_VIDEO_FORMAT_RGBA, 720, 1280, Filter::BILINEAR, Orientation::ROTATE_90R },
    { "4K NV12 -> 4K RGBA nearest", GST_VIDEO_FORMAT_NV12, 3840, 2160,
        GST_VIDEO_FORMAT_RGBA, 3840, 2160, Filter::NEAREST, Orientation::IDENTITY },
  };
  cudaStream_t stream;
  if (!check (cudaStreamCreateWithFlags (&stream, cudaStreamNonBlocking), "stream"))
    return 1;
  bool ok = true;
  for (const Row & r : rows)
    if (argc < 2 || std::strstr (r.name, argv[1]))
      ok = run_row (r, stream) && ok;
  cudaStreamDestroy (stream);
  return ok ? 0 : 1;
}

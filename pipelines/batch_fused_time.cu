/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* cudabatch's fused kernel (gpu/batch_convert.h) timed beside a device copy
 * of the bytes a batch reads and writes, after checking its tensor bit for
 * bit against the two-stage CPU twins (convert_scale_on_host into 8-bit
 * pictures, then batch_normalize_on_host). scripts/gpu-batch.sh builds
 * and runs it:
 *   batch-fused-time [batch]   (default 16: 1080p NV12 -> batch x 3 x 640
 *                               x 640 float16, 640x360 letterboxed, NCHW) */
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include "batch_convert.h"
#include "batch_normalize.h"
#include "convert_scale.h"
#include "cuda_check.h"

using namespace gst_cs::gpu;

namespace {

constexpr int kInW = 1920, kInH = 1080, kOut = 640, kPicH = 360;

/* NV12 at y (luma) and uv, rows packed. */
Image
nv12 (std::uint8_t * y, std::uint8_t * uv)
{
  Image im;
  im.data[0] = y, im.data[1] = uv;
  im.pitch[0] = im.pitch[1] = kInW;
  im.width = kInW, im.height = kInH;
  im.comp[0] = Component{ 0, 0, 1, 0, 0 };
  im.comp[1] = Component{ 1, 0, 2, 1, 1 };
  im.comp[2] = Component{ 1, 1, 2, 1, 1 };
  im.yuv = true, im.h_cosited = true;
  return im;
}

/* The 8-bit planar RGB picture (RGBP) at p, rows packed. */
Image
rgbp (std::uint8_t * p)
{
  Image im;
  for (int c = 0; c < 3; c++) {
    im.data[c] = p + (std::size_t)c * kOut * kOut;
    im.pitch[c] = kOut;
    im.comp[c] = Component{ c, 0, 1, 0, 0 };
  }
  im.width = im.height = kOut;
  im.yuv = false;
  return im;
}

/* BT.709 limited-range YUV to full-range RGB, letterboxed (grey border). */
ConvertScale
describe (const Image & in, const Image & out)
{
  ConvertScale op;
  op.in = in, op.out = out;
  op.src_w = kInW, op.src_h = kInH;
  op.dst_x = 0, op.dst_y = (kOut - kPicH) / 2, op.dst_w = kOut, op.dst_h = kPicH;
  const float k = 255.0f / 219.0f, c = 255.0f / 224.0f;
  const float rows[3][3] = { { k, 0.0f, 1.5748f * c }, { k, -0.1873f * c, -0.4681f * c },
    { k, 1.8556f * c, 0.0f } };
  for (int i = 0; i < 3; i++) {
    for (int j = 0; j < 3; j++)
      op.matrix[i][j] = rows[i][j];
    op.matrix[i][3] = -16.0f * rows[i][0] - 128.0f * (rows[i][1] + rows[i][2]);
    op.border[i] = 114.0f;
  }
  op.border[3] = 255.0f;
  return op;
}

} // namespace

int
main (int argc, char ** argv)
{
  const int batch = argc > 1 ? std::atoi (argv[1]) : 16;
  if (batch < 1 || batch > BatchConvert::kMaxFrames)
    return 2;
  const std::size_t frame = (std::size_t)kInW * kInH * 3 / 2;
  const std::size_t picture = (std::size_t)3 * kOut * kOut;
  const std::size_t in_bytes = batch * frame, out_bytes = batch * picture * 2;
  std::vector<std::uint8_t> host_in (in_bytes);
  unsigned seed = 12345;
  for (auto & b : host_in)
    b = (std::uint8_t) ((seed = seed * 1103515245u + 12345u) >> 23);
  void *src, *dst, *copy;
  CHECK (cudaMalloc (&src, in_bytes));
  CHECK (cudaMalloc (&dst, out_bytes));
  CHECK (cudaMalloc (&copy, in_bytes + out_bytes));
  CHECK (cudaMemcpy (src, host_in.data (), in_bytes, cudaMemcpyHostToDevice));
  auto b = std::make_unique<BatchConvert> ();
  b->count = batch;
  for (int n = 0; n < batch; n++) {
    std::uint8_t * y = (std::uint8_t *)src + n * frame;
    b->op[n] =
        describe (nv12 (y, y + (std::size_t)kInW * kInH), rgbp ((std::uint8_t *)dst));
    b->slot[n] = n;
  }
  b->norm.dst = dst, b->norm.batch = batch, b->norm.width = b->norm.height = kOut;
  b->norm.type = TensorType::FLOAT16;
  const float mean[3] = { 0.485f, 0.456f, 0.406f }, stdev[3] = { 0.229f, 0.224f, 0.225f };
  for (int c = 0; c < 3; c++) {
    b->norm.scale[c] = (float)(1.0 / (255.0 * stdev[c]));
    b->norm.offset[c] = (float)(-mean[c] / stdev[c]);
  }
  if (!batch_convert_fits (*b)) {
    std::fprintf (stderr, "the description does not fit the fused path\n");
    return 1;
  }
  cudaStream_t s;
  cudaEvent_t a, e;
  CHECK (cudaStreamCreateWithFlags (&s, cudaStreamNonBlocking));
  CHECK (cudaEventCreate (&a));
  CHECK (cudaEventCreate (&e));

  /* The check: the GPU's tensor against the two-stage twins on the host. */
  CHECK (batch_convert_normalize (*b, s));
  CHECK (cudaStreamSynchronize (s));
  std::vector<std::uint8_t> got (out_bytes), want (out_bytes), pictures (batch * picture);
  CHECK (cudaMemcpy (got.data (), dst, out_bytes, cudaMemcpyDeviceToHost));
  for (int n = 0; n < batch; n++) {
    std::uint8_t * y = host_in.data () + n * frame;
    if (!convert_scale_on_host (describe (nv12 (y, y + (std::size_t)kInW * kInH),
            rgbp (pictures.data () + n * picture))))
      return 1;
  }
  BatchNormalize norm = b->norm;
  norm.src = pictures.data (), norm.dst = want.data ();
  if (!batch_normalize_on_host (norm))
    return 1;
  const bool same = std::memcmp (got.data (), want.data (), out_bytes) == 0;
  std::printf ("CHECK batch_convert_normalize vs convert_scale_on_host + "
               "batch_normalize_on_host: %s\n",
      same ? "equal bit for bit" : "DIFFERENT");

  const int reps = 200;
  float kernel_ms = 0, copy_ms = 0;
  const std::size_t moved = in_bytes + out_bytes;
  for (int pass = 0; pass < 2; pass++) { /* the first warms up */
    CHECK (cudaEventRecord (a, s));
    for (int i = 0; i < reps; i++)
      CHECK (batch_convert_normalize (*b, s));
    CHECK (cudaEventRecord (e, s));
    CHECK (cudaEventSynchronize (e));
    CHECK (cudaEventElapsedTime (&kernel_ms, a, e));
    CHECK (cudaEventRecord (a, s));
    for (int i = 0; i < reps; i++) /* read and written once each */
      CHECK (cudaMemcpyAsync (
          copy, (char *)copy + moved / 2, moved / 2, cudaMemcpyDeviceToDevice, s));
    CHECK (cudaEventRecord (e, s));
    CHECK (cudaEventSynchronize (e));
    CHECK (cudaEventElapsedTime (&copy_ms, a, e));
  }
  std::printf ("KERNEL batch_convert_normalize %d x 1080p NV12 -> %dx3x%dx%d float16 "
               "(letterboxed %dx%d): %.1f us; device copy of the %zu bytes it "
               "reads+writes: %.1f us; ratio %.2f\n",
      batch, batch, kOut, kOut, kOut, kPicH, 1e3 * kernel_ms / reps, moved,
      1e3 * copy_ms / reps, kernel_ms / copy_ms);
  return same ? 0 : 1;
}

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What the texture unit's linear filtering returns, bit for bit: the facts a
 * CPU twin would have to reproduce before a converter kernel could filter
 * through textures (issue 51 asks for this to be established on the GPU
 * first). CUDA's programming guide says only that the weights are 9-bit
 * fixed point with 8 fractional bits.
 *
 * For each texel type (8 and 16-bit unsigned read as normalized floats, a
 * packed uchar4, 32-bit float) it fills a small 2D array with random texels
 * and writes raw samples to DIR/texture-<type>.bin for
 * texture_filter_report.py, which compares them with a model of the
 * arithmetic:
 *   - a sweep of one coordinate's fraction in steps of 2^-16 between texels
 *     of 0 and the largest code (where the weight's rounding shows),
 *   - random coordinates over the whole texture (2D, clamped at the edges).
 * Unnormalized coordinates, clamp addressing, tex2D.
 *
 * Then how long filtered fetches take: 4K NV12 textures (pitched device
 * memory, as nvcodec's converter binds them) sampled into a 1080p RGBA
 * frame by 1 fetch per plane and pixel (bilinear) and by 3 x 3 (what a
 * bicubic filter costs in bilinear fetches where its outer taps weigh
 * less than 0), beside a device copy that moves as many bytes as the
 * kernel reads and writes (half of them read, half written).
 *
 *   gcs-texture-probe DIR && pipelines/texture_filter_report.py DIR
 * (built with the tree; or nvcc -std=c++17 -O2 -arch=sm_90 alone).
 */
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <type_traits>
#include <vector>

#include "cuda_check.h"

namespace {

constexpr int kW = 64, kH = 64;
constexpr int kSweep = 1 << 16; /* fractions k / 2^16 of one texel step */
constexpr int kRandom = 1 << 18;

template <class R>
__global__ void
sample (cudaTextureObject_t tex, const float2 * at, R * out, int n)
{
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = tex2D<R> (tex, at[i].x, at[i].y);
}

/* A small deterministic generator: the same texels and points each run. */
struct Lcg {
  uint64_t s = 0x9e3779b97f4a7c15ull;
  uint32_t next ()
  {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(s >> 33);
  }
  float unit () { return (float)(next () >> 8) * (1.0f / 16777216.0f); }
};

/* File layout (little endian): int32 kind, texel bytes, components, W, H,
 * n_sweep, n_random; texels (W*H*components*texel bytes); then per point
 * float32 x, y and `components` float32 results: the sweep's, the random
 * ones'. */
template <class T, int C, class R>
int
probe (const char * dir, const char * name, int kind, cudaTextureReadMode mode, T top)
{
  constexpr bool kFloat = std::is_floating_point<T>::value;
  Lcg g;
  std::vector<T> texels (kW * kH * C);
  for (auto & t : texels) {
    if constexpr (kFloat)
      t = (T)(g.unit () * 2.0f - 0.5f);
    else
      t = (T)(g.next () % ((uint64_t)top + 1));
  }
  /* Row 0 columns 0, 1 of the sweep: 0 then the largest code. */
  for (int c = 0; c < C; c++) {
    texels[c] = (T)0;
    texels[C + c] = top;
  }
  std::vector<float2> at;
  for (int k = 0; k < kSweep; k++) /* x from 0.5 (texel 0) to 1.5 (texel 1) */
    at.push_back (make_float2 (0.5f + (float)k / (float)kSweep, 0.5f));
  for (int k = 0; k < kRandom; k++)
    at.push_back (make_float2 (g.unit () * (kW + 2) - 1.0f, g.unit () * (kH + 2) - 1.0f));
  const int n = (int)at.size ();

  const int bits = 8 * (int)sizeof (T);
  const cudaChannelFormatDesc desc =
      cudaCreateChannelDesc (bits, C > 1 ? bits : 0, C > 2 ? bits : 0, C > 3 ? bits : 0,
          kFloat ? cudaChannelFormatKindFloat : cudaChannelFormatKindUnsigned);
  cudaArray_t array;
  CHECK (cudaMallocArray (&array, &desc, kW, kH));
  CHECK (cudaMemcpy2DToArray (array, 0, 0, texels.data (), kW * C * sizeof (T),
      kW * C * sizeof (T), kH, cudaMemcpyHostToDevice));
  cudaResourceDesc res{};
  res.resType = cudaResourceTypeArray;
  res.res.array.array = array;
  cudaTextureDesc td{};
  td.addressMode[0] = td.addressMode[1] = cudaAddressModeClamp;
  td.filterMode = cudaFilterModeLinear;
  td.readMode = mode;
  td.normalizedCoords = 0;
  cudaTextureObject_t tex;
  CHECK (cudaCreateTextureObject (&tex, &res, &td, nullptr));

  float2 * d_at;
  R * d_out;
  CHECK (cudaMalloc (&d_at, n * sizeof (float2)));
  CHECK (cudaMalloc (&d_out, n * sizeof (R)));
  CHECK (cudaMemcpy (d_at, at.data (), n * sizeof (float2), cudaMemcpyHostToDevice));
  sample<R><<<(n + 255) / 256, 256>>> (tex, d_at, d_out, n);
  CHECK (cudaGetLastError ());
  std::vector<R> out (n);
  CHECK (cudaMemcpy (out.data (), d_out, n * sizeof (R), cudaMemcpyDeviceToHost));

  char path[512];
  std::snprintf (path, sizeof path, "%s/texture-%s.bin", dir, name);
  FILE * f = std::fopen (path, "wb");
  if (!f) {
    std::perror (path);
    return 1;
  }
  const int32_t head[7] = { kind, (int32_t)sizeof (T), C, kW, kH, kSweep, kRandom };
  std::fwrite (head, sizeof head, 1, f);
  std::fwrite (texels.data (), sizeof (T), texels.size (), f);
  for (int i = 0; i < n; i++) {
    std::fwrite (&at[i], sizeof (float2), 1, f);
    std::fwrite (&out[i], sizeof (R), 1, f);
  }
  std::fclose (f);
  std::printf ("%s: %d points written to %s\n", name, n, path);
  CHECK (cudaDestroyTextureObject (tex));
  CHECK (cudaFreeArray (array));
  CHECK (cudaFree (d_at));
  CHECK (cudaFree (d_out));
  return 0;
}

/* An RGBA pixel of the 1080p output from Taps x Taps fetches of each
 * plane around its centre (the sums stand in for a filter's). */
template <int Taps>
__global__ void
fetch_frame (
    cudaTextureObject_t luma, cudaTextureObject_t chroma, uchar4 * out, int w, int h)
{
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h)
    return;
  const float lx = 2.0f * x + 1.0f, ly = 2.0f * y + 1.0f; /* 4K luma */
  const float cx = x + 0.5f, cy = y + 0.5f;               /* 1080p chroma */
  float l = 0.0f;
  float2 c = make_float2 (0.0f, 0.0f);
#pragma unroll
  for (int j = 0; j < Taps; j++)
#pragma unroll
    for (int i = 0; i < Taps; i++) {
      const float dx = Taps == 1 ? 0.0f : 1.3f * (i - 1),
                  dy = Taps == 1 ? 0.0f : 1.3f * (j - 1);
      l += tex2D<float> (luma, lx + dx, ly + dy);
      const float2 v = tex2D<float2> (chroma, cx + 0.5f * dx, cy + 0.5f * dy);
      c.x += v.x;
      c.y += v.y;
    }
  out[y * w + x] = make_uchar4 ((unsigned char)(l * 255.0f / (Taps * Taps)),
      (unsigned char)(c.x * 255.0f / (Taps * Taps)),
      (unsigned char)(c.y * 255.0f / (Taps * Taps)), 255);
}

cudaTextureObject_t
pitched_texture (void * p, size_t pitch, int w, int h, int components)
{
  cudaResourceDesc res{};
  res.resType = cudaResourceTypePitch2D;
  res.res.pitch2D.devPtr = p;
  res.res.pitch2D.desc = cudaCreateChannelDesc (
      8, components > 1 ? 8 : 0, 0, 0, cudaChannelFormatKindUnsigned);
  res.res.pitch2D.width = w;
  res.res.pitch2D.height = h;
  res.res.pitch2D.pitchInBytes = pitch;
  cudaTextureDesc td{};
  td.addressMode[0] = td.addressMode[1] = cudaAddressModeClamp;
  td.filterMode = cudaFilterModeLinear;
  td.readMode = cudaReadModeNormalizedFloat;
  cudaTextureObject_t t = 0;
  if (cudaCreateTextureObject (&t, &res, &td, nullptr) != cudaSuccess)
    return 0;
  return t;
}

int
time_fetches ()
{
  const int W = 3840, H = 2160, w = 1920, h = 1080, runs = 200;
  void *y, *uv, *out, *copy;
  size_t py, puv;
  CHECK (cudaMallocPitch (&y, &py, W, H));
  CHECK (cudaMallocPitch (&uv, &puv, W, H / 2));
  CHECK (cudaMemset2D (y, py, 90, W, H));
  CHECK (cudaMemset2D (uv, puv, 140, W, H / 2));
  CHECK (cudaMalloc (&out, (size_t)w * h * 4));
  const size_t bytes = (size_t)W * H * 3 / 2 + (size_t)w * h * 4;
  CHECK (cudaMalloc (&copy, 2 * bytes));
  const cudaTextureObject_t lt = pitched_texture (y, py, W, H, 1);
  const cudaTextureObject_t ct = pitched_texture (uv, puv, W / 2, H / 2, 2);
  if (!lt || !ct) {
    std::fprintf (stderr, "cudaCreateTextureObject failed\n");
    return 1;
  }
  cudaEvent_t a, b;
  CHECK (cudaEventCreate (&a));
  CHECK (cudaEventCreate (&b));
  const dim3 block (32, 8), grid ((w + 31) / 32, (h + 7) / 8);
  auto timed = [&] (auto launch) {
    for (int k = 0; k < 20; k++)
      launch ();
    cudaEventRecord (a);
    for (int k = 0; k < runs; k++)
      launch ();
    cudaEventRecord (b);
    cudaEventSynchronize (b);
    float ms = 0.0f;
    cudaEventElapsedTime (&ms, a, b);
    return 1000.0f * ms / runs;
  };
  const float one =
      timed ([&] { fetch_frame<1><<<grid, block>>> (lt, ct, (uchar4 *)out, w, h); });
  const float nine =
      timed ([&] { fetch_frame<3><<<grid, block>>> (lt, ct, (uchar4 *)out, w, h); });
  const float copied = timed ([&] {
    cudaMemcpyAsync ((char *)copy + bytes, copy, bytes / 2, cudaMemcpyDeviceToDevice);
  });
  CHECK (cudaGetLastError ());
  std::printf (
      "4K NV12 textures -> 1080p RGBA, us a frame (mean of %d): 1 fetch a plane "
      "%.2f, 3x3 fetches a plane %.2f; a device copy moving its %zu bytes %.2f\n",
      runs, one, nine, bytes, copied);
  cudaDestroyTextureObject (lt);
  cudaDestroyTextureObject (ct);
  cudaFree (y);
  cudaFree (uv);
  cudaFree (out);
  cudaFree (copy);
  return 0;
}

} // namespace

int
main (int argc, char ** argv)
{
  const char * dir = argc > 1 ? argv[1] : ".";
  int rc = 0;
  rc |= probe<uint8_t, 1, float> (dir, "u8", 0, cudaReadModeNormalizedFloat, 255);
  rc |= probe<uint16_t, 1, float> (dir, "u16", 1, cudaReadModeNormalizedFloat, 65535);
  rc |= probe<uint8_t, 4, float4> (dir, "rgba8", 2, cudaReadModeNormalizedFloat, 255);
  rc |= probe<float, 1, float> (dir, "f32", 3, cudaReadModeElementType, 1.0f);
  rc |= time_fetches ();
  return rc;
}

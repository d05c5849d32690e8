/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "batch_normalize.h"
#include "driver_launch.h"

#include "batch_normalize_pixels.h"

namespace gst_cs::gpu {
namespace {

constexpr int kPixelsPerThread = 4;
constexpr int kThreads = 256;

/* Four values of one type as one store: 8 bytes of float16, 16 of float. */
template <typename T> struct Four;
template <> struct Four<std::uint16_t> {
  uint2 v;
  __device__ void set (int i, float x)
  {
    const unsigned h = batch::half_bits (x);
    unsigned & word = i < 2 ? v.x : v.y;
    word = (i & 1) ? (word | h << 16) : h;
  }
};
template <> struct Four<float> {
  float4 v;
  __device__ void set (int i, float x) { (&v.x)[i] = x; }
};

/* One thread writes 4 neighbouring pixels of one slot (blockIdx.y): their
 * codes are one 32-bit load per channel where the plane allows it, and
 * their values go out as 8- or 16-byte stores (a warp's stores then cover
 * whole lines, where one value a store left a half of each line's sectors
 * to merge). */
template <typename T>
__global__ void
normalize_kernel (const BatchNormalize op, std::size_t plane, bool vector_loads)
{
  const int n = blockIdx.y;
  const std::size_t first =
      ((std::size_t)blockIdx.x * blockDim.x + threadIdx.x) * kPixelsPerThread;
  if (first >= plane)
    return;
  if (vector_loads) {
    const std::uint8_t * src = op.src + (std::size_t)n * 3 * plane;
    uchar4 code[3];
    for (int k = 0; k < 3; k++)
      code[k] = *reinterpret_cast<const uchar4 *> (src + k * plane + first);
    /* value[c][i]: channel c of pixel first + i */
    float value[3][kPixelsPerThread];
    for (int c = 0; c < 3; c++) {
      const uchar4 q = code[op.bgr ? 2 - c : c];
      const std::uint8_t four[4] = { q.x, q.y, q.z, q.w };
      for (int i = 0; i < kPixelsPerThread; i++)
        value[c][i] = batch::normalize (four[i], op.scale[c], op.offset[c]);
    }
    T * dst = static_cast<T *> (op.dst);
    using Store = decltype (Four<T>::v);
    if (!op.nhwc) { /* each channel's 4 values lie together */
      for (int c = 0; c < 3; c++) {
        Four<T> out;
        for (int i = 0; i < kPixelsPerThread; i++)
          out.set (i, value[c][i]);
        *reinterpret_cast<Store *> (dst + batch::element_index (op, n, first, c, plane)) =
            out.v;
      }
      return;
    }
    /* NHWC: the 4 pixels' 12 values lie together, pixel by pixel */
    Store * out =
        reinterpret_cast<Store *> (dst + batch::element_index (op, n, first, 0, plane));
    for (int k = 0; k < 3; k++) {
      Four<T> four;
      for (int j = 0; j < 4; j++)
        four.set (j, value[(4 * k + j) % 3][(4 * k + j) / 3]);
      out[k] = four.v;
    }
    return;
  }
  for (std::size_t p = first; p < first + kPixelsPerThread && p < plane; p++)
    batch::normalize_pixel<T> (op, n, p, plane);
}

} // namespace

cudaError_t
batch_normalize (const BatchNormalize & op, cudaStream_t stream)
{
  if (!batch_normalize_is_valid (op))
    return cudaErrorInvalidValue;
  const std::size_t plane = (std::size_t)op.width * op.height;
  const std::size_t threads = (plane + kPixelsPerThread - 1) / kPixelsPerThread;
  const dim3 grid ((unsigned)((threads + kThreads - 1) / kThreads), (unsigned)op.batch);
  /* 32-bit loads and 8- or 16-byte stores where every slot's channel
   * planes start aligned. */
  const bool vector_loads = plane % kPixelsPerThread == 0 &&
                            reinterpret_cast<std::uintptr_t> (op.src) % 4 == 0 &&
                            reinterpret_cast<std::uintptr_t> (op.dst) % 16 == 0;
  if (op.type == TensorType::FLOAT16)
    (void)driver::launch_built (normalize_kernel<std::uint16_t>, grid, dim3 (kThreads), 0,
        stream, op, plane, vector_loads);
  else
    (void)driver::launch_built (normalize_kernel<float>, grid, dim3 (kThreads), 0, stream,
        op, plane, vector_loads);
  return cudaGetLastError ();
}

} // namespace gst_cs::gpu

/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "batch_normalize.h"

#include "batch_normalize_pixels.h"

namespace gst_cs::gpu {
namespace {

constexpr int kPixelsPerThread = 4;
constexpr int kThreads = 256;

/* One thread writes 4 neighbouring pixels of one slot (blockIdx.y): their
 * codes are one 32-bit load per channel where the plane allows it. */
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
    T * dst = static_cast<T *> (op.dst);
    for (int c = 0; c < 3; c++) {
      const uchar4 q = code[op.bgr ? 2 - c : c];
      const std::uint8_t four[4] = { q.x, q.y, q.z, q.w };
      for (int i = 0; i < kPixelsPerThread; i++) {
        const float v = batch::normalize (four[i], op.scale[c], op.offset[c]);
        T & out = dst[batch::element_index (op, n, first + i, c, plane)];
        if constexpr (sizeof (T) == 2)
          out = batch::half_bits (v);
        else
          out = v;
      }
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
  /* 32-bit loads where every slot's channel planes start 4-aligned. */
  const bool vector_loads =
      plane % kPixelsPerThread == 0 && reinterpret_cast<std::uintptr_t> (op.src) % 4 == 0;
  if (op.type == TensorType::FLOAT16)
    normalize_kernel<std::uint16_t>
        <<<grid, kThreads, 0, stream>>> (op, plane, vector_loads);
  else
    normalize_kernel<float><<<grid, kThreads, 0, stream>>> (op, plane, vector_loads);
  return cudaGetLastError ();
}

} // namespace gst_cs::gpu

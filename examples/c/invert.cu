/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The example's kernel: one thread per pixel. Pitches are arbitrary (a crop
 * that only moved the plane offsets leaves the source rows at the full
 * frame's pitch), so each thread indexes rows itself. */
#include "invert.h"

#include <cstdint>

namespace {

__global__ void
invert_rgba (const unsigned char * src, size_t src_pitch, unsigned char * dst,
    size_t dst_pitch, unsigned width, unsigned height)
{
  const unsigned x = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height)
    return;
  /* Byte loads: a crop at an odd column leaves the source unaligned for
   * wider ones. */
  const unsigned char * s = src + y * src_pitch + 4 * (size_t)x;
  unsigned char * d = dst + y * dst_pitch + 4 * (size_t)x;
  d[0] = 255 - s[0];
  d[1] = 255 - s[1];
  d[2] = 255 - s[2];
  d[3] = s[3];
}

} // namespace

extern "C" cudaError_t
example_invert_rgba (const unsigned char * src, size_t src_pitch, unsigned char * dst,
    size_t dst_pitch, unsigned width, unsigned height, cudaStream_t stream)
{
  if (width == 0 || height == 0)
    return cudaSuccess;
  const dim3 block (32, 8);
  const dim3 grid ((width + block.x - 1) / block.x, (height + block.y - 1) / block.y);
  invert_rgba<<<grid, block, 0, stream>>> (src, src_pitch, dst, dst_pitch, width, height);
  /* A failed launch is the thread's last error; nothing here waits. */
  return cudaGetLastError ();
}

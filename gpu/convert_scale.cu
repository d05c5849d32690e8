/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "convert_scale.h"

#include "convert_scale_pixels.h"

namespace gst_cs::gpu {
namespace {

__global__ void
convert_scale_kernel (ConvertScale op, int nbx, int nby)
{
  const int bx = blockIdx.x * blockDim.x + threadIdx.x;
  const int by = blockIdx.y * blockDim.y + threadIdx.y;
  if (bx < nbx && by < nby)
    pixels::write_block (op, bx, by);
}

} // namespace

cudaError_t
convert_scale (const ConvertScale & op, cudaStream_t stream)
{
  if (!convert_scale_is_valid (op))
    return cudaErrorInvalidValue;
  ConvertScale resolved = op;
  pixels::resolve_planes (resolved.in);
  pixels::resolve_planes (resolved.out);
  const int nbx = pixels::blocks_x (op.out), nby = pixels::blocks_y (op.out);
  // 32 blocks of a row per warp: neighbouring threads write neighbouring bytes.
  const dim3 threads (32, 8);
  const dim3 grid ((nbx + threads.x - 1) / threads.x, (nby + threads.y - 1) / threads.y);
  convert_scale_kernel<<<grid, threads, 0, stream>>> (resolved, nbx, nby);
  return cudaGetLastError ();
}

} // namespace gst_cs::gpu

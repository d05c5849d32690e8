/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "convert_scale.h"

#include "convert_scale_pixels.h"

namespace gst_cs::gpu {
namespace {

/* One instance per filter and sample size (pixels::dispatch). */
template <Filter F, int IB, int OB>
__global__ void
convert_scale_kernel (ConvertScale op, int nbx, int nby)
{
  const int bx = blockIdx.x * blockDim.x + threadIdx.x;
  const int by = blockIdx.y * blockDim.y + threadIdx.y;
  if (bx < nbx && by < nby)
    pixels::write_block<F, IB, OB> (op, bx, by);
}

} // namespace

cudaError_t
convert_scale (const ConvertScale & op, cudaStream_t stream)
{
  if (!convert_scale_is_valid (op))
    return cudaErrorInvalidValue;
  ConvertScale resolved = op;
  pixels::resolve (resolved);
  const int nbx = pixels::blocks_x (op.out), nby = pixels::blocks_y (op.out);
  // 32 blocks of a row per warp: neighbouring threads write neighbouring bytes.
  const dim3 threads (32, 8);
  const dim3 grid ((nbx + threads.x - 1) / threads.x, (nby + threads.y - 1) / threads.y);
  pixels::dispatch (resolved, [&] (auto f, auto ib, auto ob) {
    convert_scale_kernel<decltype (f)::value, decltype (ib)::value, decltype (ob)::value>
        <<<grid, threads, 0, stream>>> (resolved, nbx, nby);
  });
  return cudaGetLastError ();
}

} // namespace gst_cs::gpu

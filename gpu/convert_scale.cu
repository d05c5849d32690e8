/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "convert_scale.h"

#include "convert_scale_pixels.h"
#include "convert_scale_two_tap.h"

namespace gst_cs::gpu {
namespace {

using two_tap::kTileX;
using two_tap::kTileY;

/* Filters of more than two taps per axis (bicubic, area shrinking): every
 * pixel computes its taps (pixel_at). A thread per output block, 32 of a
 * row per warp: neighbouring threads write neighbouring bytes. */
template <Filter F, int IB, int OB>
__global__ void
__launch_bounds__ (kTileX * kTileY)
    convert_scale_kernel (ConvertScale op, int nbx, int nby)
{
  const int bx = blockIdx.x * blockDim.x + threadIdx.x;
  const int by = blockIdx.y * blockDim.y + threadIdx.y;
  if (bx < nbx && by < nby)
    pixels::write_block<F, IB, OB> (op, bx, by);
}

/* Nearest and bilinear: the CUDA block's tile gets its taps once, in
 * shared memory (two_tap::Tile); each pixel reads them. */
template <Filter F, int IB, int OB>
__global__ void
__launch_bounds__ (kTileX * kTileY)
    convert_scale_two_tap_kernel (ConvertScale op, int nbx, int nby)
{
  __shared__ two_tap::Tile tile;
  const two_tap::TileLines lines = two_tap::tile_lines (op, blockIdx.x, blockIdx.y);
  const int n = two_tap::tile_entries (lines);
  for (int k = threadIdx.y * kTileX + threadIdx.x; k < n; k += kTileX * kTileY)
    two_tap::fill_entry<F> (op, lines, tile, k);
  __syncthreads ();
  const int bx = blockIdx.x * kTileX + threadIdx.x;
  const int by = blockIdx.y * kTileY + threadIdx.y;
  if (bx < nbx && by < nby)
    two_tap::write_block<F, IB, OB> (op, lines, tile, bx, by);
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
  const dim3 threads (kTileX, kTileY);
  const dim3 grid ((nbx + kTileX - 1) / kTileX, (nby + kTileY - 1) / kTileY);
  /* One instance per filter and sample size, so that none of these is a
   * branch per sample; each kernel only for the filters it runs. */
  if (two_tap::applies (resolved)) {
    two_tap::dispatch_filter (resolved, [&] (auto f) {
      pixels::dispatch_bytes (resolved, [&] (auto ib, auto ob) {
        convert_scale_two_tap_kernel<decltype (f)::value, decltype (ib)::value,
            decltype (ob)::value><<<grid, threads, 0, stream>>> (resolved, nbx, nby);
      });
    });
  } else {
    const bool bicubic = resolved.filter == Filter::BICUBIC;
    pixels::dispatch_bytes (resolved, [&] (auto ib, auto ob) {
      constexpr int IB = decltype (ib)::value, OB = decltype (ob)::value;
      if (bicubic)
        convert_scale_kernel<Filter::BICUBIC, IB, OB>
            <<<grid, threads, 0, stream>>> (resolved, nbx, nby);
      else
        convert_scale_kernel<Filter::AREA, IB, OB>
            <<<grid, threads, 0, stream>>> (resolved, nbx, nby);
    });
  }
  return cudaGetLastError ();
}

} // namespace gst_cs::gpu

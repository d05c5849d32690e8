/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "convert_scale.h"

#include "convert_scale_one_sample.h"
#include "convert_scale_pixels.h"
#include "convert_scale_two_tap.h"

namespace gst_cs::gpu {
namespace {

using two_tap::kTileX;
using two_tap::kTileY;

/* A thread per output block, 32 of a row per warp: neighbouring threads
 * write neighbouring bytes. Block::write (op, bx, by) writes one. */
template <class Block>
__global__ void
__launch_bounds__ (kTileX * kTileY)
    convert_scale_block_kernel (ConvertScale op, int nbx, int nby)
{
  const int bx = blockIdx.x * blockDim.x + threadIdx.x;
  const int by = blockIdx.y * blockDim.y + threadIdx.y;
  if (bx < nbx && by < nby)
    Block::write (op, bx, by);
}

/* Filters of more than two taps per axis (bicubic, area shrinking): every
 * pixel computes its taps (pixel_at). */
template <Filter F, int IB, int OB> struct TapsPerPixel {
  static __device__ void write (const ConvertScale & op, int bx, int by)
  {
    pixels::write_block<F, IB, OB> (op, bx, by);
  }
};

/* Frames that are not resampled (one_sample::applies): each pixel one
 * read per input word or component, no taps. */
template <int IB, int OB> struct OneSample {
  static __device__ void write (const ConvertScale & op, int bx, int by)
  {
    one_sample::write_block<IB, OB> (op, bx, by);
  }
};

/* Nearest and bilinear: the CUDA block's tile gets its taps once, in
 * shared memory (two_tap::Tile); each thread then writes `rows / kTileY`
 * blocks of its column, reading them. At least 5 CUDA blocks per SM: 48
 * registers a thread, none spilled; unbounded, the row loop takes 56 to 63
 * and the frames whose tiles have one row (no loop) lose a third of their
 * resident warps. */
template <Filter F, int IB, int OB>
__global__ void
__launch_bounds__ (kTileX * kTileY, 5)
    convert_scale_two_tap_kernel (ConvertScale op, int nbx, int nby, int rows)
{
  __shared__ two_tap::Tile tile;
  const two_tap::TileLines lines = two_tap::tile_lines (op, blockIdx.x, blockIdx.y, rows);
  const int n = two_tap::tile_entries (lines);
  for (int k = threadIdx.y * kTileX + threadIdx.x; k < n; k += kTileX * kTileY)
    two_tap::fill_entry<F> (op, lines, tile, k);
  __syncthreads ();
  const int bx = blockIdx.x * kTileX + threadIdx.x;
  const int last = min (nby, (int)(blockIdx.y + 1) * rows);
  if (bx >= nbx)
    return;
  GCS_NO_UNROLL
  for (int by = blockIdx.y * rows + threadIdx.y; by < last; by += kTileY)
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
  if (one_sample::applies (resolved)) {
    pixels::dispatch_bytes (resolved, [&] (auto ib, auto ob) {
      convert_scale_block_kernel<OneSample<decltype (ib)::value, decltype (ob)::value>>
          <<<grid, threads, 0, stream>>> (resolved, nbx, nby);
    });
  } else if (two_tap::applies (resolved)) {
    const int rows = two_tap::tile_rows (nbx, nby);
    const dim3 tiles ((nbx + kTileX - 1) / kTileX, (nby + rows - 1) / rows);
    two_tap::dispatch_filter (resolved, [&] (auto f) {
      pixels::dispatch_bytes (resolved, [&] (auto ib, auto ob) {
        convert_scale_two_tap_kernel<decltype (f)::value, decltype (ib)::value,
            decltype (ob)::value>
            <<<tiles, threads, 0, stream>>> (resolved, nbx, nby, rows);
      });
    });
  } else {
    const bool bicubic = resolved.filter == Filter::BICUBIC;
    pixels::dispatch_bytes (resolved, [&] (auto ib, auto ob) {
      constexpr int IB = decltype (ib)::value, OB = decltype (ob)::value;
      if (bicubic)
        convert_scale_block_kernel<TapsPerPixel<Filter::BICUBIC, IB, OB>>
            <<<grid, threads, 0, stream>>> (resolved, nbx, nby);
      else
        convert_scale_block_kernel<TapsPerPixel<Filter::AREA, IB, OB>>
            <<<grid, threads, 0, stream>>> (resolved, nbx, nby);
    });
  }
  return cudaGetLastError ();
}

} // namespace gst_cs::gpu

/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "batch_convert.h"
#include "driver_launch.h"

#include "batch_normalize_pixels.h"
#include "convert_scale_kernels.cuh"

namespace gst_cs::gpu {
namespace {

/* Kernel parameters may take 32764 bytes from CUDA 12.1 (Volta and later). */
static_assert (
    sizeof (BatchConvert) <= 32764, "BatchConvert must fit the kernel's parameters");

using two_tap::kTileX;
using two_tap::kTileY;

/* Asks L2 for every source row that the tile `t` (filled for `l`) reads,
 * the CUDA block's threads sharing them out, so that its pixels' loads
 * wait on L2 rather than on DRAM: a thread's pixels are otherwise a chain
 * of memory round trips, the launch bound by their latency (16 x 1080p
 * NV12 -> 16x3x640x640 float16, H200, 2026-11-27: 38.8 -> 33.5 us; 32
 * frames 71.1 -> 60.4; 8 frames 19.6 -> 20.4). The single-frame
 * fixed-point kernel measured slower with it (4K -> 1080p RGBA 11.5 ->
 * 13.8 us), and does without. */
template <int Word>
__device__ void
prefetch_rows (const ConvertScale::FixedPoint & f, const two_tap::TileLines & l,
    const fixed_point::Tile & t)
{
  constexpr int kPlanes = Word == 0 ? 3 : 2; /* Y; the chroma word, or U and V apart */
  for (int k = threadIdx.y * kTileX + threadIdx.x; k < 2 * kPlanes * l.nrows;
       k += kTileX * kTileY) {
    const int i = k / (2 * kPlanes), p = (k % (2 * kPlanes)) >> 1, g = p ? 1 : 0;
    if (!t.row_in[i])
      continue;
    const fixed_point::Taps & r = t.rows[g][i];
    const std::uint8_t * row = (p == 0      ? f.luma
                                   : p == 1 ? f.chroma
                                            : f.chroma + f.v_minus_u) +
                               ((k & 1) ? r.o1 : r.o0);
    /* The 128-byte lines from the first sample's to the last's. */
    for (unsigned b = t.cols[g][0].o0 & ~127u; b <= t.cols[g][l.ncols - 1].o1; b += 128)
      asm volatile("prefetch.global.L2 [%0];" ::"l"(row + b));
  }
}

/* Frame blockIdx.z of `b` (resolved) into its slot: the tiles and columns
 * of convert_scale_fixed_point_kernel (all frames have the tensor's size,
 * so one grid serves them all; their tiles count together in tile_rows),
 * each pixel's codes normalised and stored into the tensor instead of into
 * a picture. __grid_constant__: the frames' descriptions are read where
 * the launch put them, never copied to local memory for the indexing by
 * blockIdx.z. 5 CUDA blocks per SM, 48 registers (16 x 1080p NV12 ->
 * 16x3x640x640 float16, H200, 2026-11-27, before prefetch_rows: 38.9 us;
 * 4 blocks 40.9, 6 blocks 48; 4 pixels at a time instead of 2 39.1, 3
 * 48.6). */
template <Filter F, int Word, typename T>
__global__ void
__launch_bounds__ (kTileX * kTileY, 5)
    batch_convert_kernel (const __grid_constant__ BatchConvert b, int rows)
{
  const ConvertScale & op = b.op[blockIdx.z];
  const int n = b.slot[blockIdx.z];
  const int x = blockIdx.x * kTileX + threadIdx.x;
  const batch::TensorLayout & l = b.layout;
  const unsigned column = (unsigned)n * l.slot + (unsigned)x * l.pixel;
  /* A tile wholly in the letterbox's border (a model's square input from
   * 16:9 frames: 4 tiles in 10 along y) is the border's codes: no taps. */
  const int y0 = blockIdx.y * rows, x0 = blockIdx.x * kTileX;
  if (y0 + rows <= op.dst_y || y0 >= op.dst_y + op.dst_h || x0 + kTileX <= op.dst_x ||
      x0 >= op.dst_x + op.dst_w) {
    const int end = min (y0 + rows, op.out.height);
    if (x < op.out.width)
      for (int y = y0 + threadIdx.y; y < end; y += kTileY)
        batch::store_codes<T> (
            b.norm.dst, l, column + (unsigned)y * l.row, op.fixed.border);
    return;
  }
  __shared__ fixed_point::Tile tile;
  const two_tap::TileLines lines = kernels::fill_tile<F> (op, rows, tile);
  prefetch_rows<Word> (op.fixed, lines, tile);
  if (x >= op.out.width)
    return;
  /* In registers: op's place in the parameters depends on blockIdx.z,
   * and the matrix would be loaded again for every pixel. */
  const ConvertScale::FixedPoint fixed = op.fixed;
  fixed_point::write_line<Word, false> (op, fixed, lines, tile, x,
      blockIdx.y * rows + threadIdx.y, (blockIdx.y + 1) * rows, kTileY,
      [&] (int y, unsigned codes) {
        batch::store_codes<T> (b.norm.dst, l, column + (unsigned)y * l.row, codes);
      });
}

} // namespace

cudaError_t
batch_convert_launch (const BatchConvert & r, cudaStream_t stream)
{
  const ConvertScale & op = r.op[0];
  const int nbx = op.out.width, nby = op.out.height; /* a block is a pixel */
  const int rows = two_tap::tile_rows (nbx, nby, true, r.count);
  const dim3 tiles (
      (nbx + kTileX - 1) / kTileX, (nby + rows - 1) / rows, (unsigned)r.count);
  const dim3 threads (kTileX, kTileY);
  two_tap::dispatch_filter (op, [&] (auto f) {
    fixed_point::dispatch_word<false> (op, [&] (auto word) {
      constexpr Filter F = decltype (f)::value;
      constexpr int Word = decltype (word)::value;
      if (r.norm.type == TensorType::UINT8)
        (void)driver::launch_built (batch_convert_kernel<F, Word, std::uint8_t>, tiles,
            threads, 0, stream, r, rows);
      else if (r.norm.type == TensorType::FLOAT16)
        (void)driver::launch_built (batch_convert_kernel<F, Word, std::uint16_t>, tiles,
            threads, 0, stream, r, rows);
      else
        (void)driver::launch_built (
            batch_convert_kernel<F, Word, float>, tiles, threads, 0, stream, r, rows);
    });
  });
  return cudaGetLastError ();
}

} // namespace gst_cs::gpu

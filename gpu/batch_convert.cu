/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "batch_convert.h"

#include <memory>

#include "batch_normalize_pixels.h"
#include "convert_scale_kernels.cuh"

namespace gst_cs::gpu {
namespace {

/* Kernel parameters may take 32764 bytes from CUDA 12.1 (Volta and later). */
static_assert (
    sizeof (BatchConvert) <= 32764, "BatchConvert must fit the kernel's parameters");

using two_tap::kTileX;
using two_tap::kTileY;

/* Frame blockIdx.z of `b` (resolved) into its slot: the tiles and columns
 * of convert_scale_fixed_point_kernel (all frames have the tensor's size,
 * so one grid serves them all), each pixel's codes normalised and stored
 * into the tensor instead of into a picture. __grid_constant__: the frames'
 * descriptions are read where the launch put them, never copied to local
 * memory for the indexing by blockIdx.z. 6 CUDA blocks per SM as the
 * fixed-point kernel for uint8; 5 (48 registers) for floats, which spilled
 * 64 to 92 bytes in 40 (ptxas, sm_90). */
template <Filter F, int Word, typename T>
__global__ void
__launch_bounds__ (kTileX * kTileY, sizeof (T) == 1 ? 6 : 5)
    batch_convert_kernel (const __grid_constant__ BatchConvert b, int rows)
{
  const ConvertScale & op = b.op[blockIdx.z];
  const int n = b.slot[blockIdx.z];
  __shared__ fixed_point::Tile tile;
  const two_tap::TileLines lines = kernels::fill_tile<F> (op, rows, tile);
  const int x = blockIdx.x * kTileX + threadIdx.x;
  if (x >= op.out.width)
    return;
  const std::size_t plane = (std::size_t)b.norm.width * b.norm.height;
  fixed_point::write_line<Word, false> (op, lines, tile, x,
      blockIdx.y * rows + threadIdx.y, (blockIdx.y + 1) * rows, kTileY,
      [&] (int y, unsigned codes) {
        batch::normalize_codes<T> (
            b.norm, n, (std::size_t)y * b.norm.width + (std::size_t)x, plane, codes);
      });
}

} // namespace

cudaError_t
batch_convert_normalize (const BatchConvert & b, cudaStream_t stream)
{
  /* On the heap: 26 KB. */
  auto r = std::make_unique<BatchConvert> ();
  if (!batch_convert_resolve (b, r.get ()))
    return cudaErrorInvalidValue;
  const ConvertScale & op = r->op[0];
  const int nbx = op.out.width, nby = op.out.height; /* a block is a pixel */
  const int rows = two_tap::tile_rows (nbx, nby, true);
  const dim3 tiles (
      (nbx + kTileX - 1) / kTileX, (nby + rows - 1) / rows, (unsigned)r->count);
  const dim3 threads (kTileX, kTileY);
  two_tap::dispatch_filter (op, [&] (auto f) {
    fixed_point::dispatch_word (op, [&] (auto word) {
      constexpr Filter F = decltype (f)::value;
      constexpr int Word = decltype (word)::value;
      if (r->norm.type == TensorType::UINT8)
        batch_convert_kernel<F, Word, std::uint8_t>
            <<<tiles, threads, 0, stream>>> (*r, rows);
      else if (r->norm.type == TensorType::FLOAT16)
        batch_convert_kernel<F, Word, std::uint16_t>
            <<<tiles, threads, 0, stream>>> (*r, rows);
      else
        batch_convert_kernel<F, Word, float><<<tiles, threads, 0, stream>>> (*r, rows);
    });
  });
  return cudaGetLastError ();
}

} // namespace gst_cs::gpu

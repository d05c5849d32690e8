/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* One converter kernel twice: as the build has it (the description a
 * kernel parameter, read at run time) and specialised (the description a
 * constant of the source, as a kernel compiled at run time for the
 * conversion at hand would have it; only where the frames lie comes per
 * launch). description.h (describe's output) holds the description's
 * bytes and the launch's blocks and tile rows (NBX, NBY, ROWS), constants
 * of the specialised kernel too; BODY picks the kernel family:
 *   1 one sample, 2 taps per pixel (the generic path), 3 two taps (tiles),
 *   4 taps per tile (bicubic, 8-bit, 4 taps a line). */
#ifndef __CUDACC_RTC__
#include <cstring>
#endif
#include "convert_scale_kernels.cuh"
#include "description.h"

using namespace gst_cs::gpu;
using namespace gst_cs::gpu::kernels;

__device__ __forceinline__ void
body (const ConvertScale & op, int nbx, int nby, int rows)
{
#if BODY == 1 || BODY == 2
  const int bx = blockIdx.x * blockDim.x + threadIdx.x;
  const int by = blockIdx.y * blockDim.y + threadIdx.y;
  if (bx < nbx && by < nby) {
#if BODY == 1
    OneSample<1, 1>::write (op, bx, by);
#else
    TapsPerPixel<Filter::BILINEAR, 0, 0>::write (op, bx, by);
#endif
  }
#elif BODY == 3
  __shared__ two_tap::Tile tile;
  const two_tap::TileLines lines = fill_tile<Filter::BILINEAR> (op, rows, tile);
  write_tile_column (nbx, nby, rows, [&] (int bx, int by) {
    two_tap::write_block<Filter::BILINEAR, 2, 2, two_tap::AnyMembers> (
        op, lines, tile, bx, by);
  });
#elif BODY == 4
  __shared__ tap_tile::TileOf<4> tile;
  const two_tap::TileLines lines = fill_tile<Filter::BICUBIC> (op, rows, tile);
  write_tile_column (nbx, nby, rows, [&] (int bx, int by) {
    tap_tile::write_block<Filter::BICUBIC, 1, 1, two_tap::AnyMembers, 4> (
        op, lines, tile, bx, by);
  });
#endif
}

#ifndef __CUDACC_RTC__
extern "C" __global__ void
__launch_bounds__ (kTileX * kTileY)
    k_generic (ConvertScale op, int nbx, int nby, int rows)
{
  body (op, nbx, nby, rows);
}
#endif

__device__ const unsigned char kDescription[sizeof (ConvertScale)] = DESCRIPTION_BYTES;

template <class T>
__device__ __forceinline__ void
move (T *& p, std::ptrdiff_t by)
{
  if (p)
    p = (T *)((const char *)p + by);
}

/* convert_scale_move's moves, on the constant description. */
extern "C" __global__ void
__launch_bounds__ (kTileX * kTileY)
    k_specialized (std::ptrdiff_t in_shift, std::ptrdiff_t out_shift)
{
  ConvertScale op;
  memcpy (&op, kDescription, sizeof op);
  for (int i = 0; i < kConvertPlanes; i++) {
    move (op.in.data[i], in_shift);
    move (op.out.data[i], out_shift);
  }
  for (int k = 0; k < 4; k++) {
    move (op.in.comp[k].base, in_shift);
    move (op.out.comp[k].base, out_shift);
  }
  for (int j = 0; j < 2; j++)
    move (op.in_words[j].base, in_shift);
  move (op.fixed.luma, in_shift);
  move (op.fixed.chroma, in_shift);
  body (op, NBX, NBY, ROWS);
}

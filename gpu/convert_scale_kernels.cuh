/* SPDX-License-Identifier: LGPL-2.1-or-later */
// The convert-scale kernels and, per family, the launch of the instance
// that computes a resolved ConvertScale (convert_scale.cu chooses the
// family). Each family is compiled in its own file (convert_scale_*.cu), the
// largest ones split further by filter and sample size, so that one GPU
// architecture builds in parallel: in one file they took 191 s on 16 cores.
#pragma once

#include "convert_scale.h"
#include "convert_scale_direct.h"
#include "convert_scale_fixed_point.h"
#include "convert_scale_fixed_taps.h"
#include "convert_scale_one_sample.h"
#include "convert_scale_pixels.h"
#include "convert_scale_planes.h"
#include "convert_scale_planes_staged.h"
#include "convert_scale_tap_tile.h"
#include "convert_scale_two_tap.h"
#if !defined(GCS_RTC_DESCRIPTION)
#include <optional>
#endif
#if defined(GCS_DEFINE_LAUNCHES)
#include <tuple>

#include "convert_scale_rtc.h"
#include "driver_launch.h"
#endif

// The description a kernel works from: its parameter as built, or, in a
// kernel compiled at run time for one conversion (convert_scale_rtc.cpp),
// the description it was compiled for (a constant: its loads and the
// branches on it fold away) with the parameter's addresses.
#if defined(GCS_RTC_DESCRIPTION)
#define GCS_DESCRIPTION(given) const ConvertScale op = rtc_description (given)
#else
#define GCS_DESCRIPTION(given) const ConvertScale & op = given
#endif

namespace gst_cs::gpu::kernels {

using two_tap::kTileX;
using two_tap::kTileY;

/* A thread per output block, 32 of a row per warp: neighbouring threads
 * write neighbouring bytes. Block::write (op, bx, by) writes one. */
template <class Block>
__global__ void
__launch_bounds__ (kTileX * kTileY)
    convert_scale_block_kernel (ConvertScale given, int nbx, int nby)
{
  GCS_DESCRIPTION (given);
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

/* YUV -> YUV on one chroma grid (direct::applies): a thread per
 * direct::kGroup blocks of a row (bx counts groups). */
template <int IB, int OB> struct Direct {
  static __device__ void write (const ConvertScale & op, int bx, int by)
  {
    direct::write_group<IB, OB> (op, bx * direct::kGroup, by);
  }
};

/* 4-byte words of a pixel (RGBA and its kin; RGB10A2_LE's bit fields:
 * IB 0) into packed 8-bit outputs (OB 1) or generic words (OB 0), not
 * resampled, turned or not (one_sample::dispatch_staged): the CUDA block
 * first copies the source words its kStage x kStage output pixels read
 * into shared memory, reading along source rows, and its threads then read
 * them from there along output rows. Turned by 90 degrees, a warp reading
 * straight from global memory would read one source column: 32 rows'
 * sectors for 128 bytes. The stand-in runs one_sample::write_block with
 * the same Members: the same words, from global memory. */
constexpr int kStage = kTileX;

template <class Members, int IB, int OB>
__global__ void
__launch_bounds__ (kTileX * kTileY) convert_scale_staged_kernel (ConvertScale given)
{
  GCS_DESCRIPTION (given);
  __shared__ unsigned words[kStage][kStage + 1]; /* + 1: a column spans the banks */
  const one_sample::Mapping m = one_sample::mapping (op);
  const int x0 = blockIdx.x * kStage, y0 = blockIdx.y * kStage;
  const one_sample::SourceRect r =
      one_sample::source_rect (op, m, x0, y0, x0 + kStage, y0 + kStage);
  /* All of a thread's loads first, then its stores: one wait for memory,
   * not one per word. */
  constexpr int kRows = kStage / kTileY;
  const ConvertScale::Words & w = op.in_words[0];
  const bool column = (int)threadIdx.x < r.w;
  unsigned staged[kRows];
  GCS_UNROLL
  for (int k = 0; k < kRows; k++) {
    const int j = threadIdx.y + k * kTileY;
    staged[k] = column && j < r.h
                    ? *(const unsigned *)(w.base + pixels::sample_offset (w.pitch, 4,
                                                       r.x + threadIdx.x, r.y + j))
                    : 0u;
  }
  GCS_UNROLL
  for (int k = 0; k < kRows; k++) {
    const int j = threadIdx.y + k * kTileY;
    if (column && j < r.h)
      words[j][threadIdx.x] = staged[k];
  }
  __syncthreads ();
  auto word = [&] (int sx, int sy) { return words[sy - r.y][sx - r.x]; };
  const int x = x0 + threadIdx.x;
  if (x >= op.out.width)
    return;
  if (IB == 1 && OB == 1 && op.word_copy) {
    /* The output word is the input's with its bytes moved
     * (resolve_word_copy): one byte permutation instead of the matrix and
     * the rounding, the same bits. */
    const unsigned select = op.word_bytes[0] | (op.word_bytes[1] << 4) |
                            (op.word_bytes[2] << 8) | (op.word_bytes[3] << 12);
    GCS_UNROLL
    for (int k = 0; k < kRows; k++) {
      const int y = y0 + threadIdx.y + k * kTileY;
      if (y >= op.out.height)
        continue;
      const int dx = x - op.dst_x, dy = y - op.dst_y;
      if (dx < 0 || dy < 0 || dx >= op.dst_w || dy >= op.dst_h)
        pixels::store_packed (op, x, y, pixels::border_pixel (op));
      else
        pixels::store_word (op.out, x, y,
            __byte_perm (word (m.sx (dx, dy), m.sy (dx, dy)), 0xffu, select));
    }
    return;
  }
  GCS_UNROLL
  for (int k = 0; k < kRows; k++) {
    const int y = y0 + threadIdx.y + k * kTileY;
    if (y < op.out.height)
      pixels::store_pixel<OB> (op, x, y,
          one_sample::pixel<IB, Members> (op, m, x, y, op.inputs_all, word), false);
  }
}

/* The tiled families: the CUDA block's tile gets its taps once, in
 * shared memory (two_tap::Tile, fixed_point::Tile, tap_tile::Tile, each
 * filled by its family's fill_entry); each thread then writes
 * `rows / kTileY` blocks of its column, reading them. */
using fixed_point::fill_entry;
using tap_tile::fill_entry;
using two_tap::fill_entry;

template <Filter F, class Tile>
__device__ two_tap::TileLines
fill_tile_lines (const ConvertScale & op, const two_tap::TileLines & lines, Tile & tile)
{
  const int n = two_tap::tile_entries (lines);
  for (int k = threadIdx.y * kTileX + threadIdx.x; k < n; k += kTileX * kTileY)
    fill_entry<F> (op, lines, tile, k);
  __syncthreads ();
  return lines;
}

/* The tile (blockIdx.x, blockIdx.y) of kTileX columns of blocks and `rows`
 * rows of them. */
template <Filter F, class Tile>
__device__ two_tap::TileLines
fill_tile (const ConvertScale & op, int rows, Tile & tile)
{
  return fill_tile_lines<F> (
      op, two_tap::tile_lines (op, blockIdx.x, blockIdx.y, rows), tile);
}

/* Calls write (bx, by) for the blocks of this thread's column in the
 * CUDA block's tile of `rows` rows of blocks, of an nbx x nby output. */
template <class Write>
__device__ __forceinline__ void
write_tile_column (int nbx, int nby, int rows, Write write)
{
  const int bx = blockIdx.x * kTileX + threadIdx.x;
  const int last = min (nby, (int)(blockIdx.y + 1) * rows);
  if (bx >= nbx)
    return;
  GCS_NO_UNROLL
  for (int by = blockIdx.y * rows + threadIdx.y; by < last; by += kTileY)
    write (bx, by);
}

/* The stores of a turned tile staged in shared memory, `cols` output
 * columns (a power of two: 8, 16 or 32) and kTileX rows from (x0, y0):
 * store (x, y, r, c) for each pixel in the output, staged at [r][c]. A
 * warp stores kTileX / cols rows of `cols` neighbouring pixels, so that
 * its stores run along output rows. */
template <class Store>
__device__ __forceinline__ void
store_turned_tile (const ConvertScale & op, int x0, int y0, int cols, Store store)
{
  const int shift = __ffs (cols) - 1;
  for (int i = threadIdx.y * kTileX + threadIdx.x; i < cols * kTileX;
       i += kTileX * kTileY) {
    const int x = x0 + (i & (cols - 1)), y = y0 + (i >> shift);
    if (x < op.out.width && y < op.out.height)
      store (x, y, i >> shift, i & (cols - 1));
  }
}

/* Any set of input components, any output (two_tap::write_block; Members:
 * AnyMembers or LumaMembers). At least 5 CUDA blocks per SM: 48 registers
 * a thread, none spilled; unbounded, the row loop takes 56 to 63 and the
 * frames whose tiles have one row (no loop) lose a third of their
 * resident warps. */
template <Filter F, int IB, int OB, class Members>
__global__ void
__launch_bounds__ (kTileX * kTileY, 5)
    convert_scale_two_tap_kernel (ConvertScale given, int nbx, int nby, int rows)
{
  GCS_DESCRIPTION (given);
  __shared__ two_tap::Tile tile;
  const two_tap::TileLines lines = fill_tile<F> (op, rows, tile);
  write_tile_column (nbx, nby, rows, [&] (int bx, int by) {
    two_tap::write_block<F, IB, OB, Members> (op, lines, tile, bx, by);
  });
}

/* A fixed set of input components (two_tap::FixedMembers: a block is a
 * pixel), not turned: two_tap::write_column (turned:
 * convert_scale_two_tap_turned_kernel). 8 CUDA
 * blocks per SM, the most that fit: 32 registers a thread, none spilled
 * (4K -> 1080p, H200: 16.2 us; bounded as above, 40 registers and
 * 16.6 us), but for the built instances of 16-bit packed RGB into 8-bit
 * (48 bytes spilled) and of 16-bit planar chroma into 16-bit samples
 * (40 bytes; still 0.83 of the time convert_scale_two_tap_kernel
 * took for I420_10LE -> GBR_10LE, docs/cudaconvertscale.md). */
template <Filter F, int IB, int OB, class Members>
__global__ void
__launch_bounds__ (kTileX * kTileY, 8)
    convert_scale_two_tap_column_kernel (ConvertScale given, int rows)
{
  GCS_DESCRIPTION (given);
  __shared__ two_tap::Tile tile;
  const two_tap::TileLines lines = fill_tile<F> (op, rows, tile);
  two_tap::write_column<IB, OB, Members> (op, lines, tile,
      blockIdx.x * kTileX + threadIdx.x, blockIdx.y * rows + threadIdx.y,
      (blockIdx.y + 1) * rows, kTileY);
}

/* Turned frames of a fixed set of input components
 * (two_tap::write_turned_row), tiled as convert_scale_fixed_point_turned_kernel:
 * `cols` output columns (8, 16 or 32) and kTileX rows, a warp's threads
 * on neighbouring output rows, so that their loads run along source rows;
 * their pixels go through shared memory and are stored along output rows,
 * so that the stores stay coalesced too (I420_10LE 1080p -> GBR_10LE
 * turned 90 degrees, H200: 17.2 us, 51.7 by write_column's output
 * columns; 40 registers, 23.3 KB of shared memory, sm_90). */
template <Filter F, int IB, int OB, class Members>
__global__ void
__launch_bounds__ (kTileX * kTileY, 6)
    convert_scale_two_tap_turned_kernel (ConvertScale given, int cols)
{
  GCS_DESCRIPTION (given);
  __shared__ two_tap::Tile tile;
  /* The pixels, [row][column]; + 1: 16-byte pixels of a column fall in
   * distinct banks within each quarter warp. */
  __shared__ pixels::Pixel staged[kTileX][kTileX + 1];
  const two_tap::TileLines lines = fill_tile_lines<F> (
      op, fixed_point::turned_tile_lines (blockIdx.x, blockIdx.y, cols), tile);
  const int x0 = blockIdx.x * cols, y0 = blockIdx.y * kTileX;
  two_tap::write_turned_row<IB, Members> (op, lines, tile, y0 + threadIdx.x,
      x0 + threadIdx.y, x0 + cols, kTileY,
      [&] (int x, const pixels::Pixel & p) { staged[threadIdx.x][x - x0] = p; });
  __syncthreads ();
  store_turned_tile (op, x0, y0, cols, [&] (int x, int y, int r, int c) {
    pixels::store_pixel<OB> (op, x, y, staged[r][c], false);
  });
}

/* Those frames in fixed point where op.fixed.on, not turned
 * (fixed_point::write_column; Word: op.fixed.word), with the same tiles.
 * 6 CUDA blocks per SM: 40 registers, for its loop's two rows at a time
 * (4K -> 1080p RGBA, H100: 11.3 us; 8 blocks, one row at a time 11.9; 8
 * blocks, two rows 12.6; 6 blocks, one row 11.5; 5 blocks, two rows
 * 11.5). */
template <Filter F, int Word, bool One>
__global__ void
__launch_bounds__ (kTileX * kTileY, 6)
    convert_scale_fixed_point_kernel (ConvertScale given, int rows)
{
  GCS_DESCRIPTION (given);
  __shared__ fixed_point::Tile tile;
  const two_tap::TileLines lines = fill_tile<F> (op, rows, tile);
  fixed_point::write_column<Word, One> (op, lines, tile,
      blockIdx.x * kTileX + threadIdx.x, blockIdx.y * rows + threadIdx.y,
      (blockIdx.y + 1) * rows, kTileY);
}

/* Outputs with subsampled chroma in fixed point (op.fixed.blocks), the
 * body of both kernels below, whichever taps fill the tile (Tile): the
 * CUDA block's threads compute the pixels of the tile's lines once
 * (fixed_point::stage_pixels, each pixel from pixel (lines, tile, x, y)),
 * then each writes the chroma of `rows / kTileY` blocks of its column
 * from them (write_staged_chroma). */
template <class Pixel>
__device__ __forceinline__ void
staged_blocks (const ConvertScale & op, const two_tap::TileLines & lines, int nbx,
    int nby, int rows, Pixel pixel)
{
  __shared__ fixed_point::ChromaTile chroma;
  fixed_point::stage_pixels (
      op, lines, chroma, threadIdx.y * kTileX + threadIdx.x, kTileX * kTileY, pixel);
  __syncthreads ();
  write_tile_column (nbx, nby, rows, [&] (int bx, int by) {
    fixed_point::write_staged_chroma (op, lines, chroma, bx, by);
  });
}

template <Filter F, class Tile, class Pixel>
__device__ __forceinline__ void
fixed_point_blocks (const ConvertScale & op, int nbx, int nby, int rows, Pixel pixel)
{
  __shared__ Tile tile;
  const two_tap::TileLines lines = fill_tile<F> (op, rows, tile);
  staged_blocks (op, lines, nbx, nby, rows,
      [&] (int x, int y) { return pixel (lines, tile, x, y); });
}

/* Two taps (fixed_point::Tile). 4 CUDA blocks per SM: each takes about
 * 40 KB of shared memory (the kept chroma and the taps). */
template <Filter F, int Word, bool One>
__global__ void
__launch_bounds__ (kTileX * kTileY, 4) convert_scale_fixed_point_blocks_kernel (
    ConvertScale given, int nbx, int nby, int rows)
{
  GCS_DESCRIPTION (given);
  fixed_point_blocks<F, fixed_point::Tile> (op, nbx, nby, rows,
      [&] (const two_tap::TileLines & lines, const fixed_point::Tile & tile, int x,
          int y) {
        return fixed_point::tile_luma_chroma<Word, One> (op.fixed, lines, tile, x, y);
      });
}

/* Frames not scaled, turned or flipped into subsampled chroma, from 4:4:4
 * or RGB (fixed_point::direct_blocks): as the kernel above, each pixel's
 * samples addressed from its place, without a tile of taps to fill and
 * read. */
template <int Word>
__global__ void
__launch_bounds__ (kTileX * kTileY, 4) convert_scale_fixed_point_direct_blocks_kernel (
    ConvertScale given, int nbx, int nby, int rows)
{
  GCS_DESCRIPTION (given);
  staged_blocks (op, two_tap::tile_lines (op, blockIdx.x, blockIdx.y, rows), nbx, nby,
      rows,
      [&] (int x, int y) { return fixed_point::direct_luma_chroma<Word> (op, x, y); });
}

/* Four taps per axis in fixed point (convert_scale_fixed_taps.h; op.fixed.taps
 * 4), not turned: the CUDA block's threads sum the tile's source rows
 * along x into its table (fill_quad_sums), then each thread writes
 * `rows / kTileY` pixels of its column from it; where the table does not
 * fit `capacity` ints, each thread walks down consecutive pixels of its
 * column instead, keeping its rows' sums (write_quad_column). */
template <Filter F, int Word>
__global__ void
__launch_bounds__ (kTileX * kTileY, fixed_point::kQuadBlocksPerSm)
    convert_scale_fixed_taps_kernel (ConvertScale given, int rows, int capacity)
{
  GCS_DESCRIPTION (given);
  __shared__ fixed_point::QuadRowsTile tile;
  /* The dynamic shared memory, under a name of its own: arrays of one
   * name must have one type (the tap tiles' `table` is of floats). */
  extern __shared__ __align__ (16) int quad_table[];
  int * table = quad_table;
  const two_tap::TileLines lines = fill_tile<F> (op, rows, tile);
  const fixed_point::QuadSums sums =
      fixed_point::quad_sums (lines, tile, capacity, Word == fixed_point::kPackedRgb);
  const int x = blockIdx.x * kTileX + threadIdx.x;
  if (!sums.fits) {
    const int n = (rows + kTileY - 1) / kTileY, y = blockIdx.y * rows + threadIdx.y * n;
    fixed_point::write_quad_column<Word> (op, lines, tile, x, y, y + n);
    return;
  }
  fixed_point::fill_quad_sums<Word> (
      op.fixed, tile, sums, table, threadIdx.x, threadIdx.y, kTileY);
  __syncthreads ();
  fixed_point::write_quad_sums_column<Word> (op, lines, tile, sums, table, x, threadIdx.x,
      blockIdx.y * rows + threadIdx.y, (blockIdx.y + 1) * rows, kTileY);
}

/* The table of four taps per output line (fixed_point::fill_quad_line),
 * a thread an entry, once per description: the built instance alone (a
 * kernel compiled for the description would cost more than it saves). */
template <Filter F>
__global__ void
__launch_bounds__ (kTileX * kTileY) convert_scale_quad_lines_kernel (
    ConvertScale op, fixed_point::QuadTaps * table, int n)
{
  const int e = blockIdx.x * blockDim.x + threadIdx.x;
  if (e < n)
    fixed_point::fill_quad_line<F> (op, table, e);
}

/* Outputs with subsampled chroma from four taps (fixed_point_blocks). */
template <Filter F, int Word>
__global__ void
__launch_bounds__ (kTileX * kTileY, 4) convert_scale_fixed_taps_blocks_kernel (
    ConvertScale given, int nbx, int nby, int rows)
{
  GCS_DESCRIPTION (given);
  fixed_point_blocks<F, fixed_point::QuadTile> (op, nbx, nby, rows,
      [&] (const two_tap::TileLines & lines, const fixed_point::QuadTile & tile, int x,
          int y) {
        return fixed_point::tile_quad_luma_chroma<Word> (op.fixed, lines, tile, x, y);
      });
}

/* Turned frames in fixed point (fixed_point::write_row): a tile of `cols`
 * output columns (8, 16 or 32) and kTileX rows, a warp's threads on
 * neighbouring output rows, so that their loads run along source rows
 * (on neighbouring output columns, a warp read one sample from each of 32
 * source rows for every load). Their codes go through shared memory and
 * are stored along output rows, so that the stores stay coalesced too. */
template <Filter F, int Word, bool One>
__global__ void
__launch_bounds__ (kTileX * kTileY, 6)
    convert_scale_fixed_point_turned_kernel (ConvertScale given, int cols)
{
  GCS_DESCRIPTION (given);
  __shared__ fixed_point::Tile tile;
  /* The codes, [row][column]; + 1: a column spans the banks. */
  __shared__ unsigned staged[kTileX][kTileX + 1];
  const two_tap::TileLines lines = fill_tile_lines<F> (
      op, fixed_point::turned_tile_lines (blockIdx.x, blockIdx.y, cols), tile);
  const int x0 = blockIdx.x * cols, y0 = blockIdx.y * kTileX;
  fixed_point::write_row<Word, One> (op, lines, tile, y0 + threadIdx.x, x0 + threadIdx.y,
      x0 + cols, kTileY,
      [&] (int x, unsigned codes) { staged[threadIdx.x][x - x0] = codes; });
  __syncthreads ();
  store_turned_tile (op, x0, y0, cols,
      [&] (int x, int y, int r, int c) { fixed_point::store (op, x, y, staged[r][c]); });
}

/* YUV resampled plane by plane (planes::write_column): a thread writes
 * `rows / kTileY` blocks of a column of blocks, its column's taps computed
 * once, and the CUDA block's threads compute the taps of its rows once,
 * together, into shared memory. */
template <Filter F, int IB, int OB, int SubWord>
__global__ void
__launch_bounds__ (kTileX * kTileY)
    convert_scale_planes_kernel (ConvertScale given, int nbx, int nby, int rows)
{
  GCS_DESCRIPTION (given);
  __shared__ planes::LineTaps row_taps[planes::kMaxRows];
  const int by0 = blockIdx.y * rows;
  for (int k = threadIdx.y * kTileX + threadIdx.x; k < rows && by0 + k < nby;
       k += kTileX * kTileY)
    row_taps[k] = planes::line_taps<F> (op, true, by0 + k);
  __syncthreads ();
  const int bx = blockIdx.x * kTileX + threadIdx.x;
  if (bx < nbx)
    planes::write_column<F, IB, OB, SubWord> (
        op, bx, by0 + threadIdx.y, by0 + rows, kTileY, nby,
        [&] (int by) { return row_taps[by - by0]; }, planes::global_sources<IB> (op));
}

/* The same for turned frames (convert_scale_planes_staged.h): the tile's
 * source rectangles are first copied into shared memory, `stage_bytes` of
 * it (dynamic), and read there. The taps of the tile's rows and of each
 * thread's column are computed while the copy is in flight. */
template <Filter F, int IB, int OB, int SubWord>
__global__ void
__launch_bounds__ (kTileX * kTileY) convert_scale_planes_staged_kernel (
    ConvertScale given, int nbx, int nby, int rows, unsigned stage_bytes)
{
  GCS_DESCRIPTION (given);
  extern __shared__ __align__ (16) std::uint8_t stage[];
  __shared__ planes::LineTaps row_taps[planes::kMaxRows];
  __shared__ planes::TileEnds ends;
  const int by0 = blockIdx.y * rows;
  planes::StagedSource<IB> staged;
  const bool fits = planes::stage_begin<F, IB, SubWord> (
      op, nbx, nby, rows, ends, stage, stage_bytes, &staged);
  for (int k = threadIdx.y * kTileX + threadIdx.x; k < rows && by0 + k < nby;
       k += kTileX * kTileY)
    row_taps[k] = planes::line_taps<F> (op, true, by0 + k);
  const int bx = blockIdx.x * kTileX + threadIdx.x;
  const planes::LineTaps col = planes::line_taps<F> (op, false, bx < nbx ? bx : nbx - 1);
  planes::stage_wait ();
  if (bx >= nbx)
    return;
  auto row = [&] (int by) { return row_taps[by - by0]; };
  if (fits)
    planes::write_column<IB, OB, SubWord> (op, col, bx, by0 + threadIdx.y, by0 + rows,
        kTileY, nby, row,
        planes::Sources<planes::StagedSource<IB>, planes::StagedSource<IB>>{
            staged, staged });
  else
    planes::write_column<IB, OB, SubWord> (op, col, bx, by0 + threadIdx.y, by0 + rows,
        kTileY, nby, row, planes::global_sources<IB> (op));
}

/* Bicubic and area shrinking: the CUDA block's tile gets its taps once,
 * in shared memory; each thread then writes `rows / kTileY` blocks of its
 * column. Sums (tap_tile::sums_pay): from the tile's row sums
 * (tap_tile::RowSums, `capacity` floats of dynamic shared memory), or,
 * where a tile's do not fit, from every pixel's taps as without
 * (tap_tile::write_block). Apart, so that the frames without row sums
 * keep a kernel without their registers and barriers (area 4K -> 1080p
 * in one kernel for both: 1.16 times as long). */
template <Filter F, int IB, int OB, class Members, int N, bool Sums>
__global__ void
__launch_bounds__ (kTileX * kTileY) convert_scale_tap_tile_kernel (
    ConvertScale given, int nbx, int nby, int rows, int capacity)
{
  GCS_DESCRIPTION (given);
  __shared__ tap_tile::TileOf<N> tile;
  if constexpr (!Sums) {
    const two_tap::TileLines lines = fill_tile<F> (op, rows, tile);
    write_tile_column (nbx, nby, rows, [&] (int bx, int by) {
      tap_tile::write_block<F, IB, OB, Members, N> (op, lines, tile, bx, by);
    });
    (void)capacity;
  } else {
    __shared__ int span[2][2];
    extern __shared__ float table[];
    const int thread = threadIdx.y * kTileX + threadIdx.x;
    if (thread < 2) {
      span[thread][0] = INT_MAX;
      span[thread][1] = INT_MIN;
    }
    const two_tap::TileLines lines = fill_tile<F> (op, rows, tile);
    /* The source rows the along lines read (tap_tile::row_sums): a
     * thread per line and resolution. */
    static_assert (2 * tap_tile::TileOf<N>::kRows <= kTileX * kTileY &&
                       2 * tap_tile::TileOf<N>::kCols <= kTileX * kTileY,
        "a thread for each line of each resolution");
    const bool swap = pixels::rotates (op.orientation);
    const int along = swap ? lines.ncols : lines.nrows;
    if (thread < 2 * along) {
      const int g = thread & 1, e = thread >> 1;
      int lo = INT_MAX, hi = INT_MIN;
      tap_tile::extend_span (swap ? tile.cols[g][e] : tile.rows[g][e], &lo, &hi);
      atomicMin (&span[g][0], lo);
      atomicMax (&span[g][1], hi);
    }
    __syncthreads ();
    const tap_tile::RowSums sums =
        tap_tile::row_sums<Members> (op, lines, swap, span, capacity);
    if (!sums.fits) {
      write_tile_column (nbx, nby, rows, [&] (int bx, int by) {
        tap_tile::write_block<F, IB, OB, Members, N> (op, lines, tile, bx, by);
      });
      return;
    }
    tap_tile::fill_row_sums<IB, Members, N> (
        op, tile, swap, sums, table, thread, kTileX * kTileY);
    __syncthreads ();
    write_tile_column (nbx, nby, rows, [&] (int bx, int by) {
      tap_tile::write_block_from_sums<F, IB, OB, Members, N> (
          op, lines, tile, sums, table, bx, by);
    });
  }
}

#if !defined(GCS_RTC_DESCRIPTION)
/* A launch of a description's kernel: its stream, the caller's ticket for
 * the kernel compiled for the description (null: none kept), the current
 * context (driver::current_context (), asked by the launch's maker: a
 * compiled kernel needs it before it launches, and where none is ready the
 * built kernel launches in it, so that either way a launch asks the driver
 * once), and what the launch returned (cudaSuccess where it was made). */
struct Launch {
  cudaStream_t stream = nullptr;
  ConvertTicket * ticket = nullptr;
  std::optional<unsigned long long> context;
  cudaError_t status = cudaSuccess;
};

/* The families' launches, defined below and instantiated in the files
 * named beside them. */
void launch_direct (const ConvertScale & op, Launch & at);      /* _one_sample.cu */
void launch_staged (const ConvertScale & op, Launch & at);      /* _one_sample.cu */
void launch_one_sample (const ConvertScale & op, Launch & at);  /* _one_sample.cu */
void launch_fixed_point (const ConvertScale & op, Launch & at); /* _fixed_point.cu */
void launch_fixed_point_blocks (
    const ConvertScale & op, Launch & at); /* _fixed_point_blocks.cu */
void launch_fixed_taps (const ConvertScale & op, Launch & at); /* _fixed_taps.cu */
void launch_quad_lines (
    const ConvertScale & op, cudaStream_t stream);         /* _fixed_taps.cu */
void launch_planes (const ConvertScale & op, Launch & at); /* _planes.cu */
template <Filter F, int IB>
void launch_two_tap (const ConvertScale & op, Launch & at); /* _two_tap_*.cu */
/* One instance a build unit, by input and output sample bytes (OB 0: the
 * generic path's words), and bicubic's also by whether its tiles sum
 * their rows first (Sums): the largest kernels build in parallel.
 * launch_tap_tile picks Sums for the description (in the unit of Sums
 * false). */
template <Filter F, int IB, int OB>
void launch_tap_tile (const ConvertScale & op, Launch & at); /* _variant.cu */
template <Filter F, int IB, int OB, bool Sums>
bool launch_tap_tile_sums (const ConvertScale & op, Launch & at); /* _variant.cu */
/* launch_tap_tile_sums's kernel for one Members type (tap_tile::
 * dispatch_members): the generic members' (two_tap::AnyMembers), the
 * largest, may be instantiated in a unit of its own (GCS_TAP_TILE_ANY). */
template <Filter F, int IB, int OB, bool Sums, class Members>
bool launch_tap_tile_of (const ConvertScale & op, Launch & at); /* _variant.cu */
template <Filter F, int IB, int OB>
void launch_taps_per_pixel (const ConvertScale & op, Launch & at); /* _variant.cu */
#endif

#if defined(GCS_DEFINE_LAUNCHES)
/* Launches `kernel`, an instance of the kernels above, for description
 * `op` with the rest of its arguments: the same instance compiled at run
 * time for `op` where one is ready (convert_scale_rtc.h), else the built
 * one. */
template <class... P, class... A>
void
start (void (*kernel) (ConvertScale, P...), dim3 grid, dim3 block,
    std::size_t shared_bytes, Launch & at, const ConvertScale & op, A... rest)
{
  static_assert (sizeof...(P) == sizeof...(A), "an argument a parameter");
  std::tuple<P...> params{ static_cast<P> (rest)... };
  /* The launch only reads them. */
  void * args[1 + sizeof...(P)] = { const_cast<ConvertScale *> (&op) };
  std::apply (
      [&] (auto &... p) {
        int i = 1;
        ((args[i++] = &p), ...);
        (void)i;
      },
      params);
  const void * built = reinterpret_cast<const void *> (kernel);
  if (rtc::launch (
          built, op, grid, block, shared_bytes, at.stream, at.context, args, at.ticket))
    return;
  at.status = driver::launch_in (at.context, built, driver::Kernel::BUILT, grid, block,
      shared_bytes, at.stream, args);
  /* A launch the driver did not make the runtime made, which also left its
   * error as the thread's last: taken here, as a wrapper that reads it
   * (cudaGetLastError) would, so that no later call meets it. */
  if (at.status != cudaSuccess)
    (void)cudaGetLastError ();
}

/* The grid of tiles of kTileX columns of nbx and `rows` rows of nby. */
inline dim3
tile_grid (int nbx, int nby, int rows)
{
  return dim3 ((nbx + kTileX - 1) / kTileX, (nby + rows - 1) / rows);
}

inline dim3
block_grid (const ConvertScale & op)
{
  return tile_grid (pixels::blocks_x (op.out), pixels::blocks_y (op.out), kTileY);
}

template <Filter F, int IB>
void
launch_two_tap (const ConvertScale & op, Launch & at)
{
  const int nbx = pixels::blocks_x (op.out), nby = pixels::blocks_y (op.out);
  const dim3 threads (kTileX, kTileY);
  auto launch = [&] (auto ob) {
    constexpr int OB = decltype (ob)::value;
    two_tap::dispatch_members<IB, OB> (op, [&] (auto members) {
      using Members = decltype (members);
      const int rows = two_tap::tile_rows (nbx, nby, two_tap::tall_tiles<Members> (op));
      const dim3 tiles = tile_grid (nbx, nby, rows);
      if constexpr (!Members::kFixed)
        start (convert_scale_two_tap_kernel<F, IB, OB, Members>, tiles, threads, 0, at,
            op, nbx, nby, rows);
      else if (pixels::rotates (op.orientation))
        /* Tiles of `rows` columns and kTileX rows. */
        start (convert_scale_two_tap_turned_kernel<F, IB, OB, Members>,
            dim3 ((nbx + rows - 1) / rows, (nby + kTileX - 1) / kTileX), threads, 0, at,
            op, rows);
      else
        start (convert_scale_two_tap_column_kernel<F, IB, OB, Members>, tiles, threads, 0,
            at, op, rows);
    });
  };
  if (op.out.generic) /* words of bit fields (two_tap::dispatch_bytes) */
    launch (std::integral_constant<int, 0>{});
  else if (op.out.bytes == 2)
    launch (std::integral_constant<int, 2>{});
  else
    launch (std::integral_constant<int, 1>{});
}

/* The tap tiles of `op` with (Sums) or without a table of row sums, by
 * the kernel of Members; with, only where a table fits (else false:
 * nothing launched). */
template <Filter F, int IB, int OB, bool Sums, class Members>
bool
launch_tap_tile_of (const ConvertScale & op, Launch & at)
{
  const int nbx = pixels::blocks_x (op.out), nby = pixels::blocks_y (op.out);
  constexpr int N = tap_tile::kLineTaps<F>;
  int rows, capacity;
  tap_tile::table_rows<Members, N> (op, nbx, nby, &rows, &capacity);
  if (Sums && capacity <= 0)
    return false;
  start (convert_scale_tap_tile_kernel<F, IB, OB, Members, N, Sums>,
      tile_grid (nbx, nby, rows), dim3 (kTileX, kTileY),
      Sums ? (std::size_t)capacity * sizeof (float) : 0, at, op, nbx, nby, rows,
      Sums ? capacity : 0);
  return true;
}

template <Filter F, int IB, int OB, bool Sums>
bool
launch_tap_tile_sums (const ConvertScale & op, Launch & at)
{
  bool launched = false;
  tap_tile::dispatch_members<OB> (op, [&] (auto members) {
    launched = launch_tap_tile_of<F, IB, OB, Sums, decltype (members)> (op, at);
  });
  return launched;
}

template <Filter F, int IB, int OB>
void
launch_tap_tile (const ConvertScale & op, Launch & at)
{
  /* Bicubic's tiles sum their rows first where a table of them fits
   * (tap_tile::sums_pay). */
  if constexpr (F == Filter::BICUBIC)
    if (launch_tap_tile_sums<F, IB, OB, true> (op, at))
      return;
  launch_tap_tile_sums<F, IB, OB, false> (op, at);
}

template <Filter F, int IB, int OB>
void
launch_taps_per_pixel (const ConvertScale & op, Launch & at)
{
  start (convert_scale_block_kernel<TapsPerPixel<F, IB, OB>>, block_grid (op),
      dim3 (kTileX, kTileY), 0, at, op, pixels::blocks_x (op.out),
      pixels::blocks_y (op.out));
}
#endif

} // namespace gst_cs::gpu::kernels

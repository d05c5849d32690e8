/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The CPU twin of the kernels, split by family so that its units build in
 * parallel (under the sanitizers one unit of all of them took seven
 * minutes of a core): what the family units share. Internal to
 * convert_scale_host*.cpp; nothing else includes it. */
#pragma once

#include "convert_scale.h"

#include "convert_scale_fixed_point.h"
#include "convert_scale_fixed_taps.h"
#include "convert_scale_pixels.h"
#include "convert_scale_tap_tile.h"
#include "convert_scale_two_tap.h"

namespace gst_cs::gpu::twin {

/* Each runs a resolved, valid `op` as its kernels do, over an output of
 * nbx x nby blocks: the per-pixel kernels (convert_scale_host_plain.cpp),
 * the fixed-point ones with tiles (convert_scale_host_fixed_point.cpp),
 * the two-tap ones (convert_scale_host_two_tap.cpp), the tap-tile one
 * (convert_scale_host_tap_tile.cpp). */
void plain (const ConvertScale & op);
void fixed_taps_as_gpu (const ConvertScale & op, int nbx, int nby);
void fixed_point_as_gpu (const ConvertScale & op, int nbx, int nby);
void two_tap_as_gpu (const ConvertScale & op, int nbx, int nby);
void tap_tile_as_gpu (const ConvertScale & op, int nbx, int nby);

/* Calls write (bx, by) for every output block of `op`, row by row. */
template <class Write>
void
each_block (const ConvertScale & op, Write write)
{
  const int nbx = pixels::blocks_x (op.out), nby = pixels::blocks_y (op.out);
  for (int by = 0; by < nby; by++)
    for (int bx = 0; bx < nbx; bx++)
      write (bx, by);
}

/* Calls fn (lines, tx, ty) for each tile (tx, ty) of ntx x nty, whose
 * lines are lines_at (tx, ty), with `tile` filled for it (by its family's
 * fill_entry, as fill_tile_lines fills it). */
template <Filter F, class Tile, class LinesAt, class Fn>
void
each_tile_of (
    const ConvertScale & op, int ntx, int nty, LinesAt lines_at, Tile & tile, Fn fn)
{
  using fixed_point::fill_entry;
  using tap_tile::fill_entry;
  using two_tap::fill_entry;
  for (int ty = 0; ty < nty; ty++)
    for (int tx = 0; tx < ntx; tx++) {
      const two_tap::TileLines lines = lines_at (tx, ty);
      for (int k = 0; k < two_tap::tile_entries (lines); k++)
        fill_entry<F> (op, lines, tile, k);
      fn (lines, tx, ty);
    }
}

/* Calls fn (lines, tx, ty) for each tile (tx, ty) of `rows` rows of
 * blocks that the tiled kernels give an nbx x nby output, with `tile`
 * filled for it (by its family's fill_entry, as fill_tile fills it). */
template <Filter F, class Tile, class Fn>
void
each_tile (const ConvertScale & op, int nbx, int nby, int rows, Tile & tile, Fn fn)
{
  each_tile_of<F> (
      op, (nbx + two_tap::kTileX - 1) / two_tap::kTileX, (nby + rows - 1) / rows,
      [&] (int tx, int ty) { return two_tap::tile_lines (op, tx, ty, rows); }, tile, fn);
}

} // namespace gst_cs::gpu::twin

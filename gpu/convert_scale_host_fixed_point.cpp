/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The CPU twin of the fixed-point kernels' tiles (convert_scale_host_twin.h). */
#include "convert_scale_host_twin.h"

#include <memory>
#include <vector>

namespace gst_cs::gpu::twin {

namespace {

/* The blocks kernels' tiles (fixed_point_blocks, whichever taps fill
 * `tile`): each tile's pixels staged, pixel (lines, x, y) each, then the
 * chroma of its blocks written from them. */
template <Filter F, class Tile, class Pixel>
void
staged_blocks_as_gpu (
    const ConvertScale & op, int nbx, int nby, int rows, Tile & tile, Pixel pixel)
{
  auto chroma = std::make_unique<fixed_point::ChromaTile> ();
  each_tile<F> (
      op, nbx, nby, rows, tile, [&] (const two_tap::TileLines & lines, int tx, int ty) {
        fixed_point::stage_pixels (
            op, lines, *chroma, 0, 1, [&] (int x, int y) { return pixel (lines, x, y); });
        for (int bx = tx * two_tap::kTileX; bx < nbx && bx < (tx + 1) * two_tap::kTileX;
             bx++)
          for (int by = ty * rows; by < nby && by < (ty + 1) * rows; by++)
            fixed_point::write_staged_chroma (op, lines, *chroma, bx, by);
      });
}

} // namespace

/* The fixed-point kernels of four taps (convert_scale_fixed_taps_kernel,
 * convert_scale_fixed_taps_blocks_kernel). */
void
fixed_taps_as_gpu (const ConvertScale & op, int nbx, int nby)
{
  int rows, capacity;
  fixed_point::quad_table_rows (op, nbx, nby, &rows, &capacity);
  auto tile = std::make_unique<fixed_point::QuadTile> ();
  std::vector<int> table ((std::size_t)capacity);
  fixed_point::dispatch_quad_filter (op, [&] (auto f) {
    fixed_point::dispatch_word (op, [&] (auto word) {
      constexpr int Word = decltype (word)::value;
      if constexpr (Word == fixed_point::kPackedRgb) {
        /* resolve: packed RGB by four taps has no blocks. */
      } else if (op.fixed.blocks) {
        staged_blocks_as_gpu<decltype (f)::value> (op, nbx, nby, rows, *tile,
            [&] (const two_tap::TileLines & lines, int x, int y) {
              return fixed_point::tile_quad_luma_chroma<Word> (
                  op.fixed, lines, *tile, x, y);
            });
        return;
      }
      each_tile<decltype (f)::value> (op, nbx, nby, rows, *tile,
          [&] (const two_tap::TileLines & lines, int tx, int ty) {
            const int y_end = (ty + 1) * rows < nby ? (ty + 1) * rows : nby;
            const fixed_point::QuadSums sums = fixed_point::quad_sums (
                lines, *tile, capacity, Word == fixed_point::kPackedRgb);
            if (!sums.fits) {
              for (int x = tx * two_tap::kTileX;
                   x < nbx && x < (tx + 1) * two_tap::kTileX; x++)
                fixed_point::write_quad_column<Word> (
                    op, lines, *tile, x, ty * rows, y_end);
              return;
            }
            for (int c = 0; c < two_tap::kTileX; c++)
              fixed_point::fill_quad_sums<Word> (
                  op.fixed, *tile, sums, table.data (), c, 0, 1);
            for (int c = 0; c < two_tap::kTileX; c++)
              fixed_point::write_quad_sums_column<Word> (op, lines, *tile, sums,
                  table.data (), tx * two_tap::kTileX + c, c, ty * rows, y_end, 1);
          });
    });
  });
}

/* The fixed-point kernels' columns (convert_scale_fixed_point_kernel) and,
 * turned, rows (convert_scale_fixed_point_turned_kernel). */
void
fixed_point_as_gpu (const ConvertScale & op, int nbx, int nby)
{
  const bool turned = pixels::rotates (op.orientation);
  const int rows = op.fixed.blocks ? fixed_point::block_tile_rows (nbx, nby)
                                   : two_tap::tile_rows (nbx, nby, !turned);
  fixed_point::Tile tile;
  two_tap::dispatch_filter (op, [&] (auto f) {
    fixed_point::dispatch_word<true, true> (op, [&] (auto word) {
      fixed_point::dispatch_one (op, [&] (auto one) {
        constexpr int Word = decltype (word)::value;
        constexpr bool One = decltype (one)::value;
        if (fixed_point::direct_blocks (op)) {
          /* convert_scale_fixed_point_direct_blocks_kernel: the tiles' taps,
           * filled here, are not read. */
          staged_blocks_as_gpu<decltype (f)::value> (
              op, nbx, nby, rows, tile, [&] (const two_tap::TileLines &, int x, int y) {
                return fixed_point::direct_luma_chroma<Word> (op, x, y);
              });
          return;
        }
        if (op.fixed.blocks) { /* convert_scale_fixed_point_blocks_kernel */
          staged_blocks_as_gpu<decltype (f)::value> (op, nbx, nby, rows, tile,
              [&] (const two_tap::TileLines & lines, int x, int y) {
                return fixed_point::tile_luma_chroma<Word, One> (
                    op.fixed, lines, tile, x, y);
              });
          return;
        }
        if (turned) {
          each_tile_of<decltype (f)::value> (
              op, (nbx + rows - 1) / rows, (nby + two_tap::kTileX - 1) / two_tap::kTileX,
              [&] (int tx, int ty) {
                return fixed_point::turned_tile_lines (tx, ty, rows);
              },
              tile,
              [&] (const two_tap::TileLines & lines, int tx, int ty) {
                for (int y = ty * two_tap::kTileX; y < (ty + 1) * two_tap::kTileX; y++)
                  fixed_point::write_row<Word, One> (op, lines, tile, y, tx * rows,
                      (tx + 1) * rows, 1, [&] (int x, unsigned codes) {
                        fixed_point::store (op, x, y, codes);
                      });
              });
          return;
        }
        each_tile<decltype (f)::value> (op, nbx, nby, rows, tile,
            [&] (const two_tap::TileLines & lines, int tx, int ty) {
              const int y_end = (ty + 1) * rows < nby ? (ty + 1) * rows : nby;
              for (int x = tx * two_tap::kTileX;
                   x < nbx && x < (tx + 1) * two_tap::kTileX; x++)
                fixed_point::write_column<Word, One> (
                    op, lines, tile, x, ty * rows, y_end, 1);
            });
      });
    });
  });
}

} // namespace gst_cs::gpu::twin

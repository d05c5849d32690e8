/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The CPU twin of the two-tap kernels (convert_scale_host_twin.h). */
#include "convert_scale_host_twin.h"

namespace gst_cs::gpu::twin {

/* The two-tap kernels' tiles and columns (convert_scale_two_tap_kernel
 * and convert_scale_two_tap_column_kernel) and, turned, rows
 * (convert_scale_two_tap_turned_kernel). */
void
two_tap_as_gpu (const ConvertScale & resolved, int nbx, int nby)
{
  two_tap::Tile tile;
  two_tap::dispatch_filter (resolved, [&] (auto f) {
    constexpr Filter F = decltype (f)::value;
    two_tap::dispatch_bytes (resolved, [&] (auto ib, auto ob) {
      constexpr int IB = decltype (ib)::value, OB = decltype (ob)::value;
      two_tap::dispatch_members<IB, OB> (resolved, [&] (auto members) {
        using Members = decltype (members);
        const int rows =
            two_tap::tile_rows (nbx, nby, two_tap::tall_tiles<Members> (resolved));
        if constexpr (Members::kFixed) {
          if (pixels::rotates (resolved.orientation)) {
            /* Tiles of `rows` columns and kTileX rows, a row at a time. */
            each_tile_of<F> (
                resolved, (nbx + rows - 1) / rows,
                (nby + two_tap::kTileX - 1) / two_tap::kTileX,
                [&] (int tx, int ty) {
                  return fixed_point::turned_tile_lines (tx, ty, rows);
                },
                tile,
                [&] (const two_tap::TileLines & lines, int tx, int ty) {
                  for (int y = ty * two_tap::kTileX; y < (ty + 1) * two_tap::kTileX; y++)
                    two_tap::write_turned_row<IB, Members> (resolved, lines, tile, y,
                        tx * rows, (tx + 1) * rows, 1,
                        [&] (int x, const pixels::Pixel & p) {
                          pixels::store_pixel<OB> (resolved, x, y, p, false);
                        });
                });
            return;
          }
        }
        each_tile<F> (resolved, nbx, nby, rows, tile,
            [&] (const two_tap::TileLines & lines, int tx, int ty) {
              const int y_end = (ty + 1) * rows < nby ? (ty + 1) * rows : nby;
              for (int bx = tx * two_tap::kTileX;
                   bx < nbx && bx < (tx + 1) * two_tap::kTileX; bx++) {
                if constexpr (Members::kFixed) {
                  two_tap::write_column<IB, OB, Members> (
                      resolved, lines, tile, bx, ty * rows, y_end, 1);
                } else {
                  for (int by = ty * rows; by < y_end; by++)
                    two_tap::write_block<F, IB, OB, Members> (
                        resolved, lines, tile, bx, by);
                }
              }
            });
      });
    });
  });
}

} // namespace gst_cs::gpu::twin

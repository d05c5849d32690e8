/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The CPU twin of the two-tap kernels (convert_scale_host_twin.h). */
#include "convert_scale_host_twin.h"

namespace gst_cs::gpu::twin {

/* The two-tap kernels' tiles and columns (convert_scale_two_tap_kernel
 * and convert_scale_two_tap_column_kernel). */
void
two_tap_as_gpu (const ConvertScale & resolved, int nbx, int nby)
{
  two_tap::Tile tile;
  two_tap::dispatch_filter (resolved, [&] (auto f) {
    constexpr Filter F = decltype (f)::value;
    pixels::dispatch_bytes (resolved, [&] (auto ib, auto ob) {
      constexpr int IB = decltype (ib)::value, OB = decltype (ob)::value;
      two_tap::dispatch_members<IB, OB> (resolved, [&] (auto members) {
        using Members = decltype (members);
        const int rows =
            two_tap::tile_rows (nbx, nby, two_tap::tall_tiles<Members> (resolved));
        each_tile<F> (resolved, nbx, nby, rows, tile,
            [&] (const two_tap::TileLines & lines, int tx, int ty) {
              const int y_end = (ty + 1) * rows < nby ? (ty + 1) * rows : nby;
              for (int bx = tx * two_tap::kTileX;
                   bx < nbx && bx < (tx + 1) * two_tap::kTileX; bx++) {
                if constexpr (Members::kFixed) {
                  /* The column kernel's pixels; turned, the same pixels
                   * as the turned kernel's rows (write_turned_row) compute
                   * them, here by columns with Swap: the tests compare
                   * the two orders. */
                  two_tap::dispatch_swap (resolved, [&] (auto swap) {
                    two_tap::write_column<IB, OB, Members, decltype (swap)::value> (
                        resolved, lines, tile, bx, ty * rows, y_end, 1);
                  });
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

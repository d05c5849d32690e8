/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The CPU twin of the tap-tile kernel (convert_scale_host_twin.h). */
#include "convert_scale_host_twin.h"

#include <climits>
#include <memory>
#include <vector>

namespace gst_cs::gpu::twin {

/* The tap-tile kernel's tiles (convert_scale_tap_tile_kernel): each from
 * its row sums where they fit in the launch's capacity, else from every
 * pixel's taps. */
void
tap_tile_as_gpu (const ConvertScale & op, int nbx, int nby)
{
  const bool swap = pixels::rotates (op.orientation);
  pixels::dispatch (op, [&] (auto f, auto ib, auto ob) {
    constexpr Filter F = decltype (f)::value;
    constexpr int IB = decltype (ib)::value, OB = decltype (ob)::value;
    if constexpr (F == Filter::BICUBIC || F == Filter::AREA) {
      tap_tile::dispatch_members<OB> (op, [&] (auto members) {
        using Members = decltype (members);
        constexpr int N = tap_tile::kLineTaps<F>;
        int rows, capacity;
        tap_tile::table_rows<Members, N> (op, nbx, nby, &rows, &capacity);
        std::vector<float> table ((std::size_t)capacity);
        auto tile = std::make_unique<tap_tile::TileOf<N>> ();
        each_tile<F> (op, nbx, nby, rows, *tile,
            [&] (const two_tap::TileLines & lines, int tx, int ty) {
              int span[2][2] = { { INT_MAX, INT_MIN }, { INT_MAX, INT_MIN } };
              const int along = swap ? lines.ncols : lines.nrows;
              for (int e = 0; e < along; e++)
                for (int g = 0; g < 2; g++)
                  tap_tile::extend_span (swap ? tile->cols[g][e] : tile->rows[g][e],
                      &span[g][0], &span[g][1]);
              const tap_tile::RowSums sums =
                  tap_tile::row_sums<Members> (op, lines, swap, span, capacity);
              if (sums.fits)
                tap_tile::fill_row_sums<IB, Members, N> (
                    op, *tile, swap, sums, table.data (), 0, 1);
              for (int bx = tx * two_tap::kTileX;
                   bx < nbx && bx < (tx + 1) * two_tap::kTileX; bx++)
                for (int by = ty * rows; by < nby && by < (ty + 1) * rows; by++) {
                  if (sums.fits)
                    tap_tile::write_block_from_sums<F, IB, OB, Members, N> (
                        op, lines, *tile, sums, table.data (), bx, by);
                  else
                    tap_tile::write_block<F, IB, OB, Members, N> (
                        op, lines, *tile, bx, by);
                }
            });
      });
    }
  });
}

} // namespace gst_cs::gpu::twin

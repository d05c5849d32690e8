/* SPDX-License-Identifier: LGPL-2.1-or-later */
// The fixed-point family (convert_scale_fixed_point.h): 8-bit YUV with
// subsampled chroma, packed 8-bit RGB and 10 to 16-bit YUV resampled by
// two taps into 8-bit RGB or 4:4:4, a pixel at a time (outputs with
// subsampled chroma: convert_scale_fixed_point_blocks.cu, compiled beside
// it).
#define GCS_DEFINE_LAUNCHES
#include "convert_scale_kernels.cuh"

namespace gst_cs::gpu::kernels {

void
launch_fixed_point (const ConvertScale & op, Launch & at)
{
  if (op.fixed.blocks)
    return launch_fixed_point_blocks (op, at);
  const int nbx = pixels::blocks_x (op.out), nby = pixels::blocks_y (op.out);
  const bool turned = pixels::rotates (op.orientation);
  const int rows = two_tap::tile_rows (nbx, nby, !turned);
  /* Turned: tiles of `rows` columns and kTileX rows. */
  const dim3 tiles = turned ? dim3 ((nbx + rows - 1) / rows, (nby + kTileX - 1) / kTileX)
                            : tile_grid (nbx, nby, rows);
  two_tap::dispatch_filter (op, [&] (auto f) {
    fixed_point::dispatch_word<true, true> (op, [&] (auto word) {
      fixed_point::dispatch_one (op, [&] (auto one) {
        constexpr Filter F = decltype (f)::value;
        constexpr int Word = decltype (word)::value;
        constexpr bool One = decltype (one)::value;
        if constexpr (fixed_point::wide (Word)) {
          /* 16-bit samples: not turned (resolve); nearest reads one
           * sample (One) alone. Fewer kernels to build. */
          if constexpr (F != Filter::NEAREST || One)
            start (convert_scale_fixed_point_kernel<F, Word, One>, tiles,
                dim3 (kTileX, kTileY), 0, at, op, rows);
          return;
        }
        if (turned)
          start (convert_scale_fixed_point_turned_kernel<F, Word, One>, tiles,
              dim3 (kTileX, kTileY), 0, at, op, rows);
        else
          start (convert_scale_fixed_point_kernel<F, Word, One>, tiles,
              dim3 (kTileX, kTileY), 0, at, op, rows);
      });
    });
  });
}

} // namespace gst_cs::gpu::kernels

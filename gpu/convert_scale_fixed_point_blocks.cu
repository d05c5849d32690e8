/* SPDX-License-Identifier: LGPL-2.1-or-later */
// The fixed-point family into outputs with subsampled chroma (NV12, I420,
// YUY2 ...: op.fixed.blocks), in a file of its own so that it compiles
// beside the family's other kernels (convert_scale_fixed_point.cu).
#define GCS_DEFINE_LAUNCHES
#include "convert_scale_kernels.cuh"

namespace gst_cs::gpu::kernels {

void
launch_fixed_point_blocks (const ConvertScale & op, Launch & at)
{
  const int nbx = pixels::blocks_x (op.out), nby = pixels::blocks_y (op.out);
  const int rows = fixed_point::block_tile_rows (nbx, nby);
  const dim3 tiles = tile_grid (nbx, nby, rows);
  if (fixed_point::direct_blocks (op)) {
    fixed_point::dispatch_word (op, [&] (auto word) {
      start (convert_scale_fixed_point_direct_blocks_kernel<decltype (word)::value>,
          tiles, dim3 (kTileX, kTileY), 0, at, op, nbx, nby, rows);
    });
    return;
  }
  two_tap::dispatch_filter (op, [&] (auto f) {
    fixed_point::dispatch_word (op, [&] (auto word) {
      fixed_point::dispatch_one (op, [&] (auto one) {
        start (convert_scale_fixed_point_blocks_kernel<decltype (f)::value,
                   decltype (word)::value, decltype (one)::value>,
            tiles, dim3 (kTileX, kTileY), 0, at, op, nbx, nby, rows);
      });
    });
  });
}

} // namespace gst_cs::gpu::kernels

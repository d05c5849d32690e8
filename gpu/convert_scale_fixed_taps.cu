/* SPDX-License-Identifier: LGPL-2.1-or-later */
// The fixed-point family with four taps per axis
// (convert_scale_fixed_taps.h), in a file of its own so that it compiles
// beside the family's other kernels.
#define GCS_DEFINE_LAUNCHES
#include "convert_scale_kernels.cuh"

namespace gst_cs::gpu::kernels {

void
launch_fixed_taps (const ConvertScale & op, Launch & at)
{
  const int nbx = pixels::blocks_x (op.out), nby = pixels::blocks_y (op.out);
  int rows, capacity;
  fixed_point::quad_table_rows (op, nbx, nby, &rows, &capacity);
  const dim3 tiles = tile_grid (nbx, nby, rows);
  fixed_point::dispatch_quad_filter (op, [&] (auto f) {
    fixed_point::dispatch_word (op, [&] (auto word) {
      constexpr Filter F = decltype (f)::value;
      constexpr int Word = decltype (word)::value;
      /* resolve: packed RGB by four taps has no blocks. */
      if constexpr (Word != fixed_point::kPackedRgb) {
        if (op.fixed.blocks) {
          start (convert_scale_fixed_taps_blocks_kernel<F, Word>, tiles,
              dim3 (kTileX, kTileY), 0, at, op, nbx, nby, rows);
          return;
        }
      }
      start (convert_scale_fixed_taps_kernel<F, Word>, tiles, dim3 (kTileX, kTileY),
          (std::size_t)capacity * sizeof (int), at, op, rows, capacity);
    });
  });
}

void
launch_quad_lines (const ConvertScale & op, cudaStream_t stream)
{
  const int n = (int)(convert_scale_lines_bytes (op) / sizeof (fixed_point::QuadTaps));
  auto * table =
      static_cast<fixed_point::QuadTaps *> (const_cast<void *> (op.fixed.lines));
  const unsigned threads = kTileX * kTileY;
  fixed_point::dispatch_quad_filter (op, [&] (auto f) {
    /* Its error, if any, the caller reads (cudaGetLastError). */
    (void)driver::launch_built (convert_scale_quad_lines_kernel<decltype (f)::value>,
        dim3 (((unsigned)n + threads - 1) / threads), dim3 (threads), 0, stream, op,
        table, n);
  });
}

} // namespace gst_cs::gpu::kernels

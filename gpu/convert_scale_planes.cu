/* SPDX-License-Identifier: LGPL-2.1-or-later */
// The plane-by-plane family (convert_scale_planes.h): YUV resampled into
// YUV, chroma from the input's chroma plane.
#define GCS_DEFINE_LAUNCHES
#include "convert_scale_kernels.cuh"

namespace gst_cs::gpu::kernels {

void
launch_planes (const ConvertScale & op, Launch & at)
{
  const int nbx = pixels::blocks_x (op.out), nby = pixels::blocks_y (op.out);
  int rows = planes::column_rows (nbx, nby);
  const int sub_word = op.in_words[1].word;
  unsigned stage = 0;
  if (planes::staged (op)) {
    /* The tallest tile whose stage fits (convert_scale_planes_staged.h). */
    while ((stage = planes::stage_bytes (op, rows, sub_word)) == 0 && rows > kTileY)
      rows /= 2;
  }
  const dim3 tiles = tile_grid (nbx, nby, rows);
  planes::dispatch (op, [&] (auto f, auto ib, auto ob, auto word) {
    constexpr Filter F = decltype (f)::value;
    constexpr int IB = decltype (ib)::value, OB = decltype (ob)::value;
    if (stage)
      start (convert_scale_planes_staged_kernel<F, IB, OB, decltype (word)::value>, tiles,
          dim3 (kTileX, kTileY), stage, at, op, nbx, nby, rows, stage);
    else
      start (convert_scale_planes_kernel<F, IB, OB, decltype (word)::value>, tiles,
          dim3 (kTileX, kTileY), 0, at, op, nbx, nby, rows);
  });
}

} // namespace gst_cs::gpu::kernels

/* SPDX-License-Identifier: LGPL-2.1-or-later */
// The plane-by-plane family (convert_scale_planes.h): YUV resampled into
// YUV of the same subsampling.
#define GCS_DEFINE_LAUNCHES
#include "convert_scale_kernels.cuh"

namespace gst_cs::gpu::kernels {

void
launch_planes (const ConvertScale & op, cudaStream_t stream)
{
  const int nbx = pixels::blocks_x (op.out), nby = pixels::blocks_y (op.out);
  const int rows = planes::column_rows (nbx, nby);
  const dim3 tiles = tile_grid (nbx, nby, rows);
  planes::dispatch (op, [&] (auto f, auto ib, auto ob, auto word) {
    convert_scale_planes_kernel<decltype (f)::value, decltype (ib)::value,
        decltype (ob)::value, decltype (word)::value>
        <<<tiles, dim3 (kTileX, kTileY), 0, stream>>> (op, nbx, nby, rows);
  });
}

} // namespace gst_cs::gpu::kernels

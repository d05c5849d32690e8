/* SPDX-License-Identifier: LGPL-2.1-or-later */
// The fixed-point family (convert_scale_fixed_point.h): 8-bit YUV with
// subsampled chroma resampled by two taps into 8-bit RGB or 4:4:4.
#define GCS_DEFINE_LAUNCHES
#include "convert_scale_kernels.cuh"

namespace gst_cs::gpu::kernels {

void
launch_fixed_point (const ConvertScale & op, cudaStream_t stream)
{
  const int nbx = pixels::blocks_x (op.out), nby = pixels::blocks_y (op.out);
  const int rows = two_tap::tile_rows (nbx, nby, !pixels::rotates (op.orientation));
  const dim3 tiles ((nbx + kTileX - 1) / kTileX, (nby + rows - 1) / rows);
  two_tap::dispatch_filter (op, [&] (auto f) {
    fixed_point::dispatch_word (op, [&] (auto word) {
      convert_scale_fixed_point_kernel<decltype (f)::value, decltype (word)::value>
          <<<tiles, dim3 (kTileX, kTileY), 0, stream>>> (op, rows);
    });
  });
}

} // namespace gst_cs::gpu::kernels

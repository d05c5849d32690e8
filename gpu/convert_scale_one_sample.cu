/* SPDX-License-Identifier: LGPL-2.1-or-later */
// The families of frames that are not resampled, or whose chroma is not:
// direct (YUV to YUV on one chroma grid), staged (4-byte words a pixel,
// turned or not) and one sample per pixel.
#define GCS_DEFINE_LAUNCHES
#include "convert_scale_kernels.cuh"

namespace gst_cs::gpu::kernels {

void
launch_direct (const ConvertScale & op, Launch & at)
{
  const int nbx = pixels::blocks_x (op.out), nby = pixels::blocks_y (op.out);
  const int ngx = (nbx + direct::kGroup - 1) / direct::kGroup;
  const dim3 groups = tile_grid (ngx, nby, kTileY);
  pixels::dispatch_bytes (op, [&] (auto ib, auto ob) {
    start (convert_scale_block_kernel<Direct<decltype (ib)::value, decltype (ob)::value>>,
        groups, dim3 (kTileX, kTileY), 0, at, op, ngx, nby);
  });
}

void
launch_staged (const ConvertScale & op, Launch & at)
{
  const dim3 stages (
      (op.out.width + kStage - 1) / kStage, (op.out.height + kStage - 1) / kStage);
  one_sample::dispatch_staged (op, [&] (auto members, auto ib, auto ob) {
    start (convert_scale_staged_kernel<decltype (members), decltype (ib)::value,
               decltype (ob)::value>,
        stages, dim3 (kTileX, kTileY), 0, at, op);
  });
}

void
launch_one_sample (const ConvertScale & op, Launch & at)
{
  const int nbx = pixels::blocks_x (op.out), nby = pixels::blocks_y (op.out);
  one_sample::dispatch_bytes (op, [&] (auto ib, auto ob) {
    start (
        convert_scale_block_kernel<OneSample<decltype (ib)::value, decltype (ob)::value>>,
        block_grid (op), dim3 (kTileX, kTileY), 0, at, op, nbx, nby);
  });
}

} // namespace gst_cs::gpu::kernels

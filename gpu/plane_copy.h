/* SPDX-License-Identifier: LGPL-2.1-or-later */
// Copy up to four 2D planes device-to-device in one kernel launch.
//
// A crop that must produce packed output copies every plane of a frame; one
// launch for all planes costs one launch latency instead of one per plane, and
// lets small chroma planes share the GPU with the luma plane.
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime_api.h>

namespace gst_cs::gpu {

struct PlaneCopy {
  const std::uint8_t * src = nullptr;
  std::size_t src_pitch = 0;
  std::uint8_t * dst = nullptr;
  std::size_t dst_pitch = 0;
  std::size_t row_bytes = 0;
  unsigned rows = 0;
  // Packed 4:2:2 (YUY2, UYVY) cropped at an odd column, as videocrop does it:
  // the row is copied from the macro-pixel boundary, then the output bytes
  // shift_first, shift_first + 2, ... below shift_end (the luma samples) take
  // the source byte one luma sample (2 bytes) further on; chroma stays put.
  // shift_end == 0: a plain copy.
  unsigned shift_first = 0;
  unsigned shift_end = 0;
};

constexpr int kMaxPlanes = 4;

// Enqueues the copy on `stream`; returns the launch status (never blocks).
cudaError_t copy_planes (const PlaneCopy * planes, int n_planes, cudaStream_t stream);

} // namespace gst_cs::gpu

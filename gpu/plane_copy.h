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
  // Packed 4:2:2 (YUY2, UYVY; v216, Y210 with 2-byte samples) cropped at an
  // odd column, as videocrop does it: the row is copied from the
  // macro-pixel boundary, then the luma samples (shift_step / 2 bytes each,
  // from output byte shift_first on, shift_step apart, below shift_end)
  // take the source bytes one luma sample (shift_step bytes) further on;
  // chroma stays put. shift_end == 0: a plain copy.
  unsigned shift_first = 0;
  unsigned shift_end = 0;
  unsigned shift_step = 2;
};

constexpr int kMaxPlanes = 4;

// Enqueues the copy on `stream`; returns the launch status (never blocks).
cudaError_t copy_planes (const PlaneCopy * planes, int n_planes, cudaStream_t stream);

} // namespace gst_cs::gpu

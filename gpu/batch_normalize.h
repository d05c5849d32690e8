/* SPDX-License-Identifier: LGPL-2.1-or-later */
// A batch of 8-bit planar RGB pictures into one float tensor, in one launch:
// each code x of channel c becomes x * scale[c] + offset[c] (a model's
// mean and std), written as float16 or float32, channels first (NCHW) or
// last (NHWC), in RGB or BGR order.
//
// The arithmetic lives in batch_normalize_pixels.h and is the same code on
// the GPU and in batch_normalize_on_host (the CPU twin the CUDA stand-in
// runs): neither fuses a*b+c, and both round to float16 to nearest even, so
// the two agree bit for bit.
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime_api.h>

namespace gst_cs::gpu {

enum class TensorType : int { UINT8 = 0, FLOAT16 = 1, FLOAT32 = 2 };

struct BatchNormalize {
  // The pictures: slot n's channel k (R, G, B) is the width x height plane
  // at src + (n * 3 + k) * width * height, rows packed.
  const std::uint8_t * src = nullptr;
  // The tensor: batch x 3 x height x width (nchw) or batch x height x
  // width x 3 (nhwc) elements of `type`, packed.
  void * dst = nullptr;
  int batch = 0, width = 0, height = 0;
  TensorType type = TensorType::FLOAT32; // FLOAT16 or FLOAT32
  bool nhwc = false;
  bool bgr = false; // the tensor's channel 0 is blue
  // Per channel of the tensor (in its order): value = code * scale + offset.
  float scale[3] = { 1.0f, 1.0f, 1.0f };
  float offset[3] = {};
};

// Whether `op` is a description both accept: pointers set, sizes > 0, a
// float type, at most 2^31 elements.
bool batch_normalize_is_valid (const BatchNormalize & op);

// Checks `op` and enqueues the kernel on `stream`; returns the launch
// status, never blocks. cudaErrorInvalidValue for a description it cannot run.
cudaError_t batch_normalize (const BatchNormalize & op, cudaStream_t stream);

// The same tensor computed on the CPU with the same arithmetic, at once.
// False where batch_normalize refuses.
bool batch_normalize_on_host (const BatchNormalize & op);

} // namespace gst_cs::gpu

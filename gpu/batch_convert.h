/* SPDX-License-Identifier: LGPL-2.1-or-later */
// A batch of frames into one normalised tensor in one launch: each slot's
// frame converted, letterboxed and normalised where it lands, without the
// 8-bit staging pictures that convert_scale (a launch per slot) and
// batch_normalize (one more) pass through.
//
// Only frames that convert_scale computes in fixed point qualify
// (batch_convert_fits, beside choose_path in convert_scale_path.h): 8-bit
// YUV with subsampled chroma, resampled by two taps, not turned, into the
// planar RGB picture of the staging. A slot's three codes are those of
// fixed_point::codes on the tiles of convert_scale_fixed_point_kernel (the
// same functions), and its values those of batch::normalize and
// batch::half_bits: the tensor is the two-stage one, bit for bit.
#pragma once

#include "batch_normalize.h"
#include "batch_normalize_pixels.h"
#include "convert_scale.h"

namespace gst_cs::gpu {

struct BatchConvert {
  // At most this many frames: the description travels as the kernel's
  // parameter (up to 32 KB from CUDA 12.1), no device memory per batch.
  static constexpr int kMaxFrames = 32;
  int count = 0; // frames in op[0..count)
  // Frame k's description, as for convert_scale into its slot's 8-bit
  // planar RGB picture (RGBP, rows packed, width x height of the tensor):
  // op[k].out's memory is never written, only its layout read.
  ConvertScale op[kMaxFrames];
  int slot[kMaxFrames] = {}; // the tensor slot frame k fills
  // The tensor (src unused): dst, batch, width, height, type (UINT8 writes
  // the codes), layout, channel order, scale and offset.
  BatchNormalize norm;
  // Set by batch_convert_resolve: where the codes go in norm's tensor.
  batch::TensorLayout layout;
};

// Whether one launch computes `b`: valid descriptions (convert_scale's
// checks, slots inside the batch, the tensor's sizes), every frame on the
// fixed-point path into an RGBP picture of the tensor's size, and all of
// them with one filter and one chroma word.
bool batch_convert_fits (const BatchConvert & b);

// Enqueues the launch on `stream`; never blocks. cudaErrorInvalidValue
// where batch_convert_fits refuses `b` (use convert_scale and
// batch_normalize then). Slots without a frame are left as they are.
cudaError_t batch_convert_normalize (const BatchConvert & b, cudaStream_t stream);

// `b` with every description resolved as convert_scale resolves it, for
// the launch and the twin; false where batch_convert_fits refuses `b`.
bool batch_convert_resolve (const BatchConvert & b, BatchConvert * resolved);

// batch_convert_normalize of a description batch_convert_resolve gave:
// for a caller that keeps both descriptions (26 KB each) from batch to
// batch and resolves once, where batch_convert_normalize allocates one and
// resolves twice (batch_convert_fits, then the launch).
cudaError_t batch_convert_launch (const BatchConvert & resolved, cudaStream_t stream);

// The same tensor computed on the CPU by the kernel's tiles, at once (the
// stand-in's twin). False where batch_convert_fits refuses `b`.
bool batch_convert_on_host (const BatchConvert & b);

// batch_convert_on_host of a description batch_convert_resolve gave.
void batch_convert_resolved_on_host (const BatchConvert & resolved);

} // namespace gst_cs::gpu

/* SPDX-License-Identifier: LGPL-2.1-or-later */
// The arithmetic of batch_normalize, for the kernel and its CPU twin alike.
#pragma once

#include <cstdint>
#include <cstring>

#include "batch_normalize.h"

#ifdef __CUDACC__
#include <cuda_fp16.h>
#define GCS_BN_FN __host__ __device__ inline
#else
#define GCS_BN_FN inline
#endif

namespace gst_cs::gpu::batch {

// `f` as IEEE binary16 bits, rounded to nearest even (as __float2half_rn).
GCS_BN_FN std::uint16_t
half_bits (float f)
{
#ifdef __CUDA_ARCH__
  return __half_as_ushort (__float2half_rn (f));
#else
  std::uint32_t x;
  std::memcpy (&x, &f, 4);
  const std::uint32_t sign = (x >> 16) & 0x8000u;
  const std::uint32_t abs = x & 0x7fffffffu;
  if (abs >= 0x7f800000u) /* inf, nan */
    return (std::uint16_t) (sign | 0x7c00u | (abs > 0x7f800000u ? 0x200u : 0u));
  if (abs >= 0x477ff000u) /* rounds to >= 65520: inf */
    return (std::uint16_t) (sign | 0x7c00u);
  if (abs < 0x38800000u) { /* below 2^-14: a subnormal half, or 0 */
    if (abs < 0x33000000u) /* below 2^-25: 0 */
      return (std::uint16_t)sign;
    const std::uint32_t mant = (abs & 0x7fffffu) | 0x800000u;
    const int shift = 126 - (int)(abs >> 23); /* 14..24 */
    std::uint32_t h = mant >> shift;
    const std::uint32_t rest = mant & ((1u << shift) - 1), half = 1u << (shift - 1);
    if (rest > half || (rest == half && (h & 1u)))
      h++;
    return (std::uint16_t) (sign | h);
  }
  /* normal: rebias the exponent, round the mantissa's 13 dropped bits */
  std::uint32_t h = ((abs - 0x38000000u) >> 13);
  const std::uint32_t rest = abs & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (h & 1u)))
    h++;
  return (std::uint16_t) (sign | h);
#endif
}

// One value of the tensor from one code (not fused: the twin rounds alike).
GCS_BN_FN float
normalize (float code, float scale, float offset)
{
  const float product = code * scale;
  return product + offset;
}

GCS_BN_FN float
normalize (std::uint8_t code, float scale, float offset)
{
  return normalize ((float)code, scale, offset);
}

// Element `index` of the tensor (nchw or nhwc) for slot `n`, pixel `p` of
// a plane of `plane` pixels, tensor channel `c`.
GCS_BN_FN std::size_t
element_index (const BatchNormalize & op, int n, std::size_t p, int c, std::size_t plane)
{
  return op.nhwc ? ((std::size_t)n * plane + p) * 3 + (std::size_t)c
                 : ((std::size_t)n * 3 + (std::size_t)c) * plane + p;
}

// Writes the three tensor values of pixel `p` of slot `n`.
template <typename T>
GCS_BN_FN void
normalize_pixel (const BatchNormalize & op, int n, std::size_t p, std::size_t plane)
{
  const std::uint8_t * src = op.src + (std::size_t)n * 3 * plane;
  T * dst = static_cast<T *> (op.dst);
  for (int c = 0; c < 3; c++) {
    const int k = op.bgr ? 2 - c : c;
    const float v =
        normalize (src[(std::size_t)k * plane + p], op.scale[c], op.offset[c]);
    if constexpr (sizeof (T) == 2)
      dst[element_index (op, n, p, c, plane)] = half_bits (v);
    else
      dst[element_index (op, n, p, c, plane)] = v;
  }
}

// Where the fused batch_convert puts a pixel's three codes (channel k of
// its picture: R, G, B) in the tensor, resolved once per launch: element
// offsets in 32 bits (a tensor has at most 2^31 elements), the layout and
// the channel order folded into strides and per-code offsets, so that the
// kernel's stores cost an add and a multiply each, without a branch.
struct TensorLayout {
  unsigned slot = 0, row = 0, pixel = 0; // elements between slots, rows, pixels
  unsigned code[3] = {};                 // code k's channel, from the pixel's first
  float scale[3] = {}, offset[3] = {};   // code k's normalisation
};

GCS_BN_FN TensorLayout
tensor_layout (const BatchNormalize & op)
{
  const unsigned plane = (unsigned)op.width * (unsigned)op.height;
  TensorLayout l;
  l.slot = 3u * plane;
  l.pixel = op.nhwc ? 3u : 1u;
  l.row = (unsigned)op.width * l.pixel;
  for (int k = 0; k < 3; k++) {
    const int c = op.bgr ? 2 - k : k; /* the tensor channel code k goes to */
    l.code[k] = (unsigned)c * (op.nhwc ? 1u : plane);
    l.scale[k] = op.scale[c];
    l.offset[k] = op.offset[c];
  }
  return l;
}

// Byte k of `codes` as a float, exactly. On the GPU one byte permutation
// and one add: the byte becomes the low mantissa bits of 2^23, which the
// add takes away (no extraction, no integer conversion).
GCS_BN_FN float
code_float (unsigned codes, int k)
{
#ifdef __CUDA_ARCH__
  const unsigned magic = __byte_perm (codes, 0x4b000000u, (unsigned)k | 0x7540u);
  return __fsub_rn (__uint_as_float (magic), 8388608.0f);
#else
  return (float)(std::uint8_t) (codes >> (8 * k));
#endif
}

// Writes a pixel's three tensor values from its picture's codes (byte k of
// `codes` is channel k, R G B) at element `first` (slot * l.slot + y *
// l.row + x * l.pixel) of `dst`. uint8_t: the codes.
template <typename T>
GCS_BN_FN void
store_codes (void * dst, const TensorLayout & l, unsigned first, unsigned codes)
{
  T * d = static_cast<T *> (dst);
  for (int k = 0; k < 3; k++) {
    if constexpr (sizeof (T) == 1) {
      d[first + l.code[k]] = (std::uint8_t) (codes >> (8 * k));
    } else {
      const float v = normalize (code_float (codes, k), l.scale[k], l.offset[k]);
      if constexpr (sizeof (T) == 2)
        d[first + l.code[k]] = half_bits (v);
      else
        d[first + l.code[k]] = v;
    }
  }
}

} // namespace gst_cs::gpu::batch

/* SPDX-License-Identifier: LGPL-2.1-or-later */
// The one decision of convert_scale: which kernel family computes a
// resolved ConvertScale. The launch (convert_scale.cu), the stand-in's twin
// of the GPU (convert_scale_as_gpu_on_host) and convert_scale_path all ask
// it, so that they cannot disagree.
#pragma once

#include "convert_scale_direct.h"
#include "convert_scale_one_sample.h"
#include "convert_scale_planes.h"
#include "convert_scale_tap_tile.h"
#include "convert_scale_two_tap.h"

namespace gst_cs::gpu {

enum class Path {
  DIRECT,      // YUV to YUV on one chroma grid (convert_scale_direct.h)
  STAGED,      // 4-byte words a pixel, not resampled, through shared memory
  ONE_SAMPLE,  // not resampled: one read per word or component
  FIXED_POINT, // two taps in integers, into 8-bit samples (convert_scale_fixed_point.h)
  FIXED_TAPS,  // four taps in integers, 8-bit YUV (convert_scale_fixed_taps.h)
  PLANES,      // YUV to YUV resampled plane by plane (convert_scale_planes.h)
  TWO_TAP,     // at most two taps per axis, taps per tile
  TAP_TILE,    // bicubic, area shrinking: more taps, per tile (convert_scale_tap_tile.h)
  TAPS_PER_PIXEL, // area shrinking by more than tap_tile::kMaxTaps - 2 times, and
                  // the generic path (pixels::generic): any layout, any filter
                  // (dispatch_taps_per_pixel)
};

inline Path
choose_path (const ConvertScale & resolved)
{
  /* The other families read and write the image's sample size alone;
   * one_sample reads each component by its own word too. */
  /* Asked where its turn comes, not up front: the launch asks every frame. */
  auto staged = [&] {
    return one_sample::dispatch_staged (resolved, [] (auto, auto, auto) {});
  };
  if (pixels::generic (resolved)) {
    if (staged ()) /* 4-byte words of bit fields, in or out */
      return Path::STAGED;
    if (one_sample::applies (resolved))
      return Path::ONE_SAMPLE;
    /* Resampled from samples of the image's size into one word of bit
     * fields a pixel (RGB16, RGB10A2_LE, Y410 ...): the two-tap tiles,
     * each pixel's word stored whole (two_tap::dispatch_bytes). */
    if (pixels::samples_into_fields (resolved) && two_tap::applies (resolved))
      return Path::TWO_TAP;
    return Path::TAPS_PER_PIXEL;
  }
  if (direct::applies (resolved))
    return Path::DIRECT;
  if (staged ())
    return Path::STAGED;
  /* Before one_sample: fixed_point::resolve leaves it the frames it reads
   * one sample a pixel for, but those whose chroma is filtered down. */
  if (resolved.fixed.on)
    return resolved.fixed.taps == 4 ? Path::FIXED_TAPS : Path::FIXED_POINT;
  if (one_sample::applies (resolved))
    return Path::ONE_SAMPLE;
  if (planes::applies (resolved))
    return Path::PLANES;
  if (two_tap::applies (resolved))
    return Path::TWO_TAP;
  return tap_tile::applies (resolved) ? Path::TAP_TILE : Path::TAPS_PER_PIXEL;
}

// Calls fn (filter, input bytes, output bytes) with the instance of the
// taps-per-pixel kernels (convert_scale_variant.cu, as gpu/meson.build
// builds them) that computes resolved `op` where choose_path gives
// TAPS_PER_PIXEL, as compile-time constants: the launch and the twin
// ask it. Generic frames: bytes 0 on both sides, any filter. Bicubic and
// area from samples of the image's size into one word of bit fields a
// pixel (out_fields): the input's bytes, output bytes 0. Area shrinking
// further than tap tiles go: both sides' bytes.
template <class Fn>
inline void
dispatch_taps_per_pixel (const ConvertScale & op, Fn fn)
{
  using B0 = std::integral_constant<int, 0>;
  auto with = [&] (auto f) {
    constexpr Filter F = decltype (f)::value;
    if constexpr (F == Filter::BICUBIC || F == Filter::AREA) {
      /* The input's bytes by a branch whose each side is built
       * (two_tap::dispatch_bytes would name 8 and 16-bit outputs too). */
      if (pixels::samples_into_fields (op)) {
        if (op.in.bytes == 2)
          return fn (f, std::integral_constant<int, 2>{}, B0{});
        return fn (f, std::integral_constant<int, 1>{}, B0{});
      }
    }
    if constexpr (F == Filter::AREA) {
      if (!pixels::generic (op))
        return pixels::dispatch_bytes (op, [&] (auto ib, auto ob) { fn (f, ib, ob); });
    }
    fn (f, B0{}, B0{});
  };
  switch (op.filter) {
    case Filter::NEAREST:
      return with (std::integral_constant<Filter, Filter::NEAREST>{});
    case Filter::BILINEAR:
      return with (std::integral_constant<Filter, Filter::BILINEAR>{});
    case Filter::BICUBIC:
      return with (std::integral_constant<Filter, Filter::BICUBIC>{});
    default:
      return with (std::integral_constant<Filter, Filter::AREA>{});
  }
}

// Whether resolved `op` may be one frame of batch_convert_normalize
// (batch_convert.h): computed in fixed point from YUV (batch_convert's
// kernels are built for its words only), not turned, into 8-bit planar
// RGB (components 0..2 on planes 0..2, one byte a sample), which is the
// picture of cudabatch's staging.
inline bool
batch_convert_applies (const ConvertScale & resolved)
{
  if (choose_path (resolved) != Path::FIXED_POINT ||
      resolved.fixed.word == ConvertScale::FixedPoint::kPackedRgb ||
      resolved.fixed.word < 0 /* 16-bit samples */ ||
      pixels::rotates (resolved.orientation) || resolved.out_packed || resolved.out.yuv)
    return false;
  for (int c = 0; c < 3; c++) {
    const Component & k = resolved.out.comp[c];
    if (k.plane != c || k.step != 1 || k.offset != 0 || k.log2_x != 0 || k.log2_y != 0)
      return false;
  }
  return true;
}

inline const char *
path_name (Path p)
{
  static const char * const names[] = { "direct", "staged", "one sample", "fixed point",
    "fixed-point taps", "planes", "two taps", "taps per tile", "taps per pixel" };
  return names[static_cast<int> (p)];
}

} // namespace gst_cs::gpu

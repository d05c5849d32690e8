/* SPDX-License-Identifier: LGPL-2.1-or-later */
// The GPU's path for frames that are not resampled: the picture keeps its
// size (cropped, turned, flipped or bordered maybe) and every component a
// pixel reads is at full resolution, or its chroma comes straight from
// the input's (op.chroma_direct). Then every filter reads one sample per
// component, where the orientation puts it: no taps to compute or share,
// no tile. Format conversions (P010 -> NV12, NV12 -> I420, RGBA -> BGRx)
// and rotations take it.
//
// It computes what pixel_at computes, to the bit: at one source pixel per
// output pixel the plane position is an integer (exact in float), the
// filter's one tap weighs 1, and 0 + 1*v is v.
#pragma once

#include "convert_scale_two_tap.h"

namespace gst_cs::gpu::one_sample {

// The input components the pixels of `op` (resolved) read; chroma_sample
// reads the rest where chroma is direct.
inline unsigned
pixel_inputs (const ConvertScale & op)
{
  const Component & c = op.out.comp[1];
  const bool subsampled = op.out.yuv && (c.log2_x | c.log2_y);
  return (subsampled && op.chroma_direct) ? op.inputs_luma : op.inputs_all;
}

// Whether `op` (resolved) can take this path.
inline bool
applies (const ConvertScale & op)
{
  return op.scale_x == 1.0f && op.scale_y == 1.0f &&
         (pixel_inputs (op) & op.in_sub) == 0 &&
         (!op.chroma_direct || (op.inputs_chroma & ~op.in_sub) == 0);
}

// Writes output block (bx, by) as pixels::write_block does.
template <int IB, int OB>
GCS_HD void
write_block (const ConvertScale & op, int bx, int by)
{
  /* Where output offset (dx, dy) comes from in the picture before
   * orientation (pixel_at): u = (swap ? dy : dx), mirrored where flip_u;
   * likewise v. Once per block, not per pixel. */
  const Orientation r = op.orientation;
  const bool swap = pixels::rotates (r);
  const bool flip_u = r == Orientation::ROTATE_180 || r == Orientation::ROTATE_90L ||
                      r == Orientation::FLIP_H || r == Orientation::ANTI_TRANSPOSE;
  const bool flip_v = r == Orientation::ROTATE_90R || r == Orientation::ROTATE_180 ||
                      r == Orientation::FLIP_V || r == Orientation::ANTI_TRANSPOSE;
  const int sw = swap ? op.dst_h : op.dst_w, sh = swap ? op.dst_w : op.dst_h;
  /* sx = u_base + u_sign * u0, and so for sy. */
  const int u_base = op.src_x + (flip_u ? sw - 1 : 0), u_sign = flip_u ? -1 : 1;
  const int v_base = op.src_y + (flip_v ? sh - 1 : 0), v_sign = flip_v ? -1 : 1;
  auto pixel = [&] (int x, int y, unsigned need) {
    const int dx = x - op.dst_x, dy = y - op.dst_y;
    if (dx < 0 || dy < 0 || dx >= op.dst_w || dy >= op.dst_h)
      return pixels::border_pixel (op);
    const int sx = u_base + u_sign * (swap ? dy : dx);
    const int sy = v_base + v_sign * (swap ? dx : dy);
    float in[4] = { 0.0f, 0.0f, 0.0f, (float)op.in.max_code };
    const unsigned members = need & op.in_full;
    if (members)
      two_tap::sample<IB> (op, 0, members, two_tap::TwoTaps{ sx, sx, 1.0f, 0.0f },
          two_tap::TwoTaps{ sy, sy, 1.0f, 0.0f }, in);
    return pixels::to_output (op, in);
  };
  auto direct = [&] (int x0, int y0) { return two_tap::chroma_sample<IB> (op, x0, y0); };
  /* The filter is never used: every one reads one sample here. */
  pixels::write_block_with<Filter::NEAREST, IB, OB> (op, bx, by, pixel, direct);
}

} // namespace gst_cs::gpu::one_sample

/* SPDX-License-Identifier: LGPL-2.1-or-later */
// The GPU's path for frames that are not resampled: the picture keeps its
// size (cropped, turned, flipped or bordered maybe) and every component a
// pixel reads is at full resolution, or its chroma comes straight from
// the input's (op.chroma_direct). Then every filter reads one sample per
// component, where the orientation puts it: no taps to compute or share,
// no tile. Rotations and flips take it; YUV -> YUV on one chroma grid
// takes its narrower case (convert_scale_direct.h), and packed RGBA-like
// words its staged kernel (convert_scale.cu, dispatch_staged).
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

// Whether `op` (resolved) can take this path. Direct chroma is read per
// block from the input's chroma samples only where the output subsamples
// chroma; a 4:4:4 output's pixels read their chroma themselves, as the
// other pixels of a 4:4:4 input (Y410 -> AYUV, Y444_10LE -> Y444_16LE
// took taps per pixel or two taps for want of this).
inline bool
applies (const ConvertScale & op)
{
  const Component & c = op.out.comp[1];
  const bool chroma_per_block = op.chroma_direct && op.out.yuv && (c.log2_x | c.log2_y);
  return op.scale_x == 1.0f && op.scale_y == 1.0f &&
         (pixel_inputs (op) & op.in_sub) == 0 &&
         (!chroma_per_block || (op.inputs_chroma & ~op.in_sub) == 0);
}

// Where output offset (dx, dy) from the picture's corner comes from in the
// source (pixel_at at scale 1): sx = u_base + u_sign * (swap ? dy : dx),
// sy = v_base + v_sign * (swap ? dx : dy).
struct Mapping {
  bool swap;
  int u_base, u_sign, v_base, v_sign;
  GCS_HD int sx (int dx, int dy) const { return u_base + u_sign * (swap ? dy : dx); }
  GCS_HD int sy (int dx, int dy) const { return v_base + v_sign * (swap ? dx : dy); }
};

GCS_HD Mapping
mapping (const ConvertScale & op)
{
  const Orientation r = op.orientation;
  const bool swap = pixels::rotates (r);
  const bool flip_u = r == Orientation::ROTATE_180 || r == Orientation::ROTATE_90L ||
                      r == Orientation::FLIP_H || r == Orientation::ANTI_TRANSPOSE;
  const bool flip_v = r == Orientation::ROTATE_90R || r == Orientation::ROTATE_180 ||
                      r == Orientation::FLIP_V || r == Orientation::ANTI_TRANSPOSE;
  const int sw = swap ? op.dst_h : op.dst_w, sh = swap ? op.dst_w : op.dst_h;
  return Mapping{ swap, op.src_x + (flip_u ? sw - 1 : 0), flip_u ? -1 : 1,
    op.src_y + (flip_v ? sh - 1 : 0), flip_v ? -1 : 1 };
}

// Output pixel (x, y)'s codes from the input components `need`, as
// pixel_at computes them; word (sx, sy) gives the full-resolution word at
// a source pixel where the input has one (in_words[0]), else a kernel's
// faster equivalent. IB 0 with a fixed set of members is the staged
// kernel's generic input (dispatch_staged): bit fields of that word.
template <int IB, class Members, class Word>
GCS_HD pixels::Pixel
pixel (const ConvertScale & op, const Mapping & m, int x, int y, unsigned need, Word word)
{
  const int dx = x - op.dst_x, dy = y - op.dst_y;
  if (dx < 0 || dy < 0 || dx >= op.dst_w || dy >= op.dst_h)
    return pixels::border_pixel (op);
  const int sx = m.sx (dx, dy), sy = m.sy (dx, dy);
  /* IB 0 (the generic path): each component by its own word, an absent
   * alpha opaque at its own depth, as pixels::sample_inputs reads them. */
  float in[4] = { 0.0f, 0.0f, 0.0f,
    (float)(IB == 0 ? op.in.comp[3].max_code : op.in.max_code) };
  const unsigned members = Members::of (op, 0, need);
  if ((IB != 0 || Members::kFixed) && members && op.in_words[0].word) {
    two_tap::unpack<IB> (op.in, word (sx, sy), members, in);
  } else if (members) {
    GCS_UNROLL
    for (int k = 0; k < 4; k++)
      if ((members >> k) & 1u)
        in[k] = pixels::load<IB, true> (op.in, op.in.comp[k], sx, sy);
  }
  return pixels::to_output (op, in);
}

// Writes output block (bx, by) as pixels::write_block does.
template <int IB, int OB, class Members = two_tap::AnyMembers>
GCS_HD void
write_block (const ConvertScale & op, int bx, int by)
{
  const Mapping m = mapping (op); /* once per block, not per pixel */
  auto word = [&] (int sx, int sy) {
    return two_tap::load_word<IB> (op.in_words[0], sx, sy);
  };
  auto at = [&] (int x, int y, unsigned need) {
    return pixel<IB, Members> (op, m, x, y, need, word);
  };
  if constexpr (Members::kFixed) {
    if (bx < op.out.width && by < op.out.height)
      pixels::store_pixel<OB> (op, bx, by, at (bx, by, op.inputs_all), false);
  } else if constexpr (IB == 0 || OB == 0) {
    /* The generic path's blocks (4:1:1, palettes) as pixels::write_block
     * writes them. Direct chroma reads only the input's chroma here
     * (applies), on its samples: one tap of weight 1 for any filter. */
    auto direct = [&] (int x0, int y0) {
      return pixels::direct_chroma<Filter::NEAREST, 0> (op, x0, y0);
    };
    pixels::write_generic_block<Filter::NEAREST, 0> (op, bx, by, at, direct);
  } else {
    auto direct = [&] (
                      int x0, int y0) { return two_tap::chroma_sample<IB> (op, x0, y0); };
    /* The filter is never used: every one reads one sample here. */
    pixels::write_block_with<Filter::NEAREST, IB, OB> (op, bx, by, at, direct);
  }
}

// Calls fn (input bytes, output bytes) with op's (resolved) sample
// bytes as compile-time constants, 0 on both sides for the generic path
// (every component by its own word).
template <class Fn>
inline void
dispatch_bytes (const ConvertScale & op, Fn fn)
{
  if (pixels::generic (op))
    fn (std::integral_constant<int, 0>{}, std::integral_constant<int, 0>{});
  else
    pixels::dispatch_bytes (op, fn);
}

// Whether op's input (generic) is a pixel's one little-endian 4-byte
// word, its components bit fields of it (RGB10A2_LE, BGR10A2_LE, Y410):
// read as that word once, not once per component (two_tap::from_word<0>).
inline bool
word_fields (const ConvertScale & op)
{
  const Image & i = op.in;
  if (!i.generic || i.palette || op.in_words[0].word != 4 || op.in_sub)
    return false;
  for (int c = 0; c < 4; c++) {
    const Component & k = i.comp[c];
    if (((op.in_full >> c) & 1u) &&
        (k.word != 4 || k.offset != 0 || k.big_endian || k.pair_step != 0))
      return false;
  }
  return true;
}

// Whether op's output is generic words of one pixel each, no palette, no
// subsampled chroma (RGB10A2_LE, r210, RGB16 ...): pixels::store_pixel<0>
// (store_fields where the word holds every component, else store_words).
inline bool
words_out (const ConvertScale & op)
{
  const Image & o = op.out;
  if (!o.generic || o.palette)
    return false;
  for (const Component & k : o.comp)
    if (k.plane >= 0 && (k.log2_x | k.log2_y))
      return false;
  return true;
}

// Where the staged kernel applies, calls fn (members, input bytes, output
// bytes) with its Members type and the sample bytes as compile-time
// constants, and returns true: 4-byte words of a pixel, packed 8-bit
// (RGBA and its kin, IB 1) or bit fields (word_fields, IB 0), into packed
// 8-bit outputs (OB 1) or generic words (words_out, OB 0). One pixel a
// thread read each of these straight from global memory, one word in
// flight: BGR10A2_LE -> RGBA 1080p took 2.5 times the copy of its bytes.
template <class Fn>
inline bool
dispatch_staged (const ConvertScale & op, Fn fn)
{
  using All = two_tap::FixedMembers<15u, 0u>;
  using Opaque = two_tap::FixedMembers<7u, 0u>; /* RGBx and its kin */
  if (!applies (op) || op.in_words[0].word != 4)
    return false;
  const bool fields = word_fields (op);
  const bool packed_out = op.out_packed && !op.out.generic;
  if ((!fields && (op.in.generic || op.in.bytes != 1)) ||
      (!packed_out && !words_out (op)))
    return false;
  auto with_bytes = [&] (auto members) {
    using I0 = std::integral_constant<int, 0>;
    using I1 = std::integral_constant<int, 1>;
    if (fields && packed_out)
      fn (members, I0{}, I1{});
    else if (fields)
      fn (members, I0{}, I0{});
    else if (packed_out)
      fn (members, I1{}, I1{});
    else
      fn (members, I1{}, I0{});
  };
  if (All::matches (op))
    with_bytes (All{});
  else if (Opaque::matches (op))
    with_bytes (Opaque{});
  else
    return false;
  return true;
}

// The source rectangle (x, y, w, h) that the output pixels [x0, x1) x
// [y0, y1) read, clipped to the picture; w = 0 where they are all border.
struct SourceRect {
  int x, y, w, h;
};

GCS_HD SourceRect
source_rect (const ConvertScale & op, const Mapping & m, int x0, int y0, int x1, int y1)
{
  const int dxa = (x0 > op.dst_x ? x0 : op.dst_x) - op.dst_x;
  const int dya = (y0 > op.dst_y ? y0 : op.dst_y) - op.dst_y;
  const int dxb = (x1 < op.dst_x + op.dst_w ? x1 : op.dst_x + op.dst_w) - 1 - op.dst_x;
  const int dyb = (y1 < op.dst_y + op.dst_h ? y1 : op.dst_y + op.dst_h) - 1 - op.dst_y;
  if (dxa > dxb || dya > dyb)
    return SourceRect{ 0, 0, 0, 0 };
  const int ax = m.sx (dxa, dya), bx = m.sx (dxb, dyb);
  const int ay = m.sy (dxa, dya), by = m.sy (dxb, dyb);
  return SourceRect{ ax < bx ? ax : bx, ay < by ? ay : by,
    (ax < bx ? bx - ax : ax - bx) + 1, (ay < by ? by - ay : ay - by) + 1 };
}

} // namespace gst_cs::gpu::one_sample

/* SPDX-License-Identifier: LGPL-2.1-or-later */
// The GPU's path for YUV resampled into YUV whose chroma is the input's
// chroma plane resampled (op.chroma_resampled: the same subsampling, or
// 4:2:2 into 4:2:0 and back) and whose matrix keeps luma and chroma apart
// (the same colours, or another range): each output plane is then its
// input plane resampled and mapped by one affine function per component,
// as videoconvertscale scales the planes of a frame whose format it keeps.
// A thread writes a column of output blocks; the taps of the block's
// columns are computed once for the column, those of its rows once per
// row: luma reads its own plane only (four samples a pixel; one where
// the frame is not scaled, write_block), chroma its own plane only (four
// words a block).
//
// It computes what pixels::write_block computes, to the bit: there the
// luma pixels sample Y alone (in[1] = in[2] = 0, whose products add 0)
// and the chroma sample, resampled where it sits, U and V alone (in[0] =
// 0), with the same taps (two_tap::sample's sums are taps()'s).
#pragma once

#include "convert_scale_pixels.h"
#include "convert_scale_two_tap.h"

namespace gst_cs::gpu::planes {

using two_tap::TwoTaps;

// Whether `op` (resolved) takes this path.
inline bool
applies (const ConvertScale & op)
{
  const Image &i = op.in, &o = op.out;
  return two_tap::applies (op) && op.chroma_resampled && op.in_full == 1u &&
         op.in_sub == 6u && o.comp[3].plane < 0 && (op.inputs_luma & 6u) == 0 &&
         (op.inputs_chroma & 1u) == 0 && i.comp[1].plane >= 0 && o.comp[2].plane >= 0 &&
         (op.in_words[1].word == 0 || op.in_words[1].word == 2 * i.bytes);
}

// The taps in the input plane of resolution g (0: full, 1: chroma) of
// output position d of the picture along one output axis (vertical: its
// y), d relative to the picture's corner (a chroma sample's between two
// pixels: d + 0.5).
template <Filter F>
GCS_HD TwoTaps
axis_taps (const ConvertScale & op, int g, bool vertical, float d)
{
  const two_tap::LineSource l = two_tap::line_source (op, vertical, d);
  const pixels::PlanePosition p = pixels::plane_position (op, g, l.source_y, l.s);
  return two_tap::two_taps<F> (p.p, p.lo, p.hi);
}

// The taps of a pixel line (g = 0) and of a chroma line (g = 1) of the
// output blocks' line `b` along one output axis.
struct LineTaps {
  TwoTaps luma[2], chroma;
  bool luma_in[2], chroma_in;
};

template <Filter F>
GCS_HD LineTaps
line_taps (const ConvertScale & op, bool vertical, int b)
{
  const Image & o = op.out;
  const int l = vertical ? o.comp[1].log2_y : o.comp[1].log2_x;
  const bool cosited = vertical ? o.v_cosited : o.h_cosited;
  const int first = (b << l) - (vertical ? op.dst_y : op.dst_x);
  const int extent = vertical ? op.dst_h : op.dst_w;
  LineTaps t;
  GCS_UNROLL
  for (int k = 0; k < 2; k++) {
    const int d = first + (k < (1 << l) ? k : 0);
    t.luma[k] = axis_taps<F> (op, 0, vertical, (float)d);
    t.luma_in[k] = d >= 0 && d < extent;
  }
  /* The chroma sample of a block sits on its first pixel (cosited) or
   * between its two (resampled_chroma). */
  const float dc = (float)first + ((l && !cosited) ? 0.5f : 0.0f);
  t.chroma = axis_taps<F> (op, 1, vertical, dc);
  t.chroma_in = dc >= -0.5f && dc <= (float)extent - 0.5f;
  return t;
}

// a where `first`, else b, field by field: a choice of one struct or the
// other by reference would keep both in (slow) local memory on the GPU.
GCS_HD TwoTaps
pick (bool first, const TwoTaps & a, const TwoTaps & b)
{
  return TwoTaps{ first ? a.i0 : b.i0, first ? a.i1 : b.i1, first ? a.w0 : b.w0,
    first ? a.w1 : b.w1 };
}

// Where a block reads its input: luma (resolution 0) and chroma
// (resolution 1) sources as two_tap::GlobalSource, which reads global
// memory; the turned frames' kernel reads a copy in shared memory
// (convert_scale_planes_staged.h).
template <class Luma, class Chroma> struct Sources {
  Luma luma;
  Chroma chroma;
};

template <int IB>
GCS_HD Sources<two_tap::GlobalSource<IB>, two_tap::GlobalSource<IB>>
global_sources (const ConvertScale & op)
{
  return { { op.in, op.in_words[0] }, { op.in, op.in_words[1] } };
}

// Writes the output block (bx, by) from its column's taps `col` and its
// row's `row`, reading `src` (Sources). SubWord: the input chroma's word
// (op.in_words[1].word). Uniform: two_tap::sample_from's (every pixel
// reads all four samples of its taps).
template <int IB, int OB, int SubWord, bool Uniform, class Src>
GCS_HD void
write_block_as (const ConvertScale & op, const LineTaps & col, const LineTaps & row,
    int bx, int by, const Src & src)
{
  const Image & o = op.out;
  const int lx = o.comp[1].log2_x, ly = o.comp[1].log2_y;
  const bool swap = pixels::rotates (op.orientation);
  const float m0 = op.matrix[0][0], m3 = op.matrix[0][3];
  GCS_UNROLL
  for (int j = 0; j < 2; j++) {
    const int y = (by << ly) + j;
    GCS_UNROLL
    for (int i = 0; i < 2; i++) {
      const int x = (bx << lx) + i;
      if (i >= (1 << lx) || j >= (1 << ly) || x >= o.width || y >= o.height)
        continue;
      float code = op.border[0];
      if (col.luma_in[i] && row.luma_in[j]) {
        float in[4];
        two_tap::sample_from<IB, Uniform> (op.in, src.luma, 0, 1u,
            pick (swap, row.luma[j], col.luma[i]), pick (swap, col.luma[i], row.luma[j]),
            in);
        /* to_output's first row with in[1] = in[2] = 0: m0*y + 0 + 0 + m3. */
        code = m0 * in[0] + m3;
      }
      pixels::store<OB> (o, o.comp[0], x, y, code);
    }
  }
  pixels::Pixel p = pixels::border_pixel (op);
  if (col.chroma_in && row.chroma_in) {
    float in[4] = { 0.0f, 0.0f, 0.0f, (float)op.in.max_code };
    two_tap::sample_from<IB, Uniform> (op.in, src.chroma, SubWord, 6u,
        pick (swap, row.chroma, col.chroma), pick (swap, col.chroma, row.chroma), in);
    p = pixels::to_output (op, in);
  }
  pixels::store<OB> (o, o.comp[1], bx, by, p.c[1]);
  pixels::store<OB> (o, o.comp[2], bx, by, p.c[2]);
}

// write_block_as for op's frames. Scaled, every pixel reads the four
// samples of its taps, without branches. Not scaled (turned, flipped, a
// format's chroma placed elsewhere), a luma pixel lies on its sample and
// a chroma sample's taps have the same weights all over the frame, so
// every warp takes the same branch of sample_from that skips the reads of
// weight 0 (a pixel's luma: 1 sample, not 4), with the same sums to the
// bit (1*a + 0*b is a). Only in the kernels compiled for the conversion
// at hand (convert_scale_rtc.h), where the scale is a constant and one
// form is left: in a built kernel both forms made the turned frames 1.26
// times as slow (more registers, fewer threads an SM), where the compiled
// ones took 0.84 to 0.93 of the time (H200, 2026-12-04,
// docs/cudaconvertscale.md).
template <int IB, int OB, int SubWord, class Src>
GCS_HD void
write_block (const ConvertScale & op, const LineTaps & col, const LineTaps & row, int bx,
    int by, const Src & src)
{
#if defined(__CUDACC_RTC__)
  if (op.scale_x == 1.0f && op.scale_y == 1.0f)
    return write_block_as<IB, OB, SubWord, false> (op, col, row, bx, by, src);
#endif
  write_block_as<IB, OB, SubWord, true> (op, col, row, bx, by, src);
}

// Writes the blocks (bx, by), by = by_first, by_first + by_step ... <
// by_end, of one column of the output's nby rows of blocks, whose taps
// are col (line_taps<F> (op, false, bx)); row (by) gives the taps of row
// by (line_taps<F> (op, true, by), or the same computed once for the CUDA
// block's threads); src: where they read (global_sources, or a staged
// copy).
template <int IB, int OB, int SubWord, class RowTaps, class Src>
GCS_HD void
write_column (const ConvertScale & op, const LineTaps & col, int bx, int by_first,
    int by_end, int by_step, int nby, RowTaps row, const Src & src)
{
  if (by_end > nby)
    by_end = nby;
  GCS_NO_UNROLL
  for (int by = by_first; by < by_end; by += by_step)
    write_block<IB, OB, SubWord> (op, col, row (by), bx, by, src);
}

template <Filter F, int IB, int OB, int SubWord, class RowTaps, class Src>
GCS_HD void
write_column (const ConvertScale & op, int bx, int by_first, int by_end, int by_step,
    int nby, RowTaps row, const Src & src)
{
  write_column<IB, OB, SubWord> (
      op, line_taps<F> (op, false, bx), bx, by_first, by_end, by_step, nby, row, src);
}

// How many rows of blocks a CUDA block's threads write down their columns
// (a multiple of two_tap::kTileY, its threads per column; at most
// kMaxRows): more rows compute a column's taps fewer times, while the
// output still gives the GPU enough threads. Measured on an H200
// (2026-11-27): 4K -> 1080p NV12 (518,400 blocks) 13.2 us with 16 rows,
// 11.9 with 32, 14.5 with 64; 1080p NV12 -> 720p I420 (230,400) 7.8 with
// 16, 8.7 with 32.
constexpr int kMaxRows = 8 * two_tap::kTileY;

inline int
column_rows (int nbx, int nby)
{
  constexpr long long kEnoughThreads = 100000;
  const long long blocks = (long long)nbx * nby;
  int rows = two_tap::kTileY;
  while (rows < kMaxRows && blocks / (2 * rows / two_tap::kTileY) >= kEnoughThreads)
    rows *= 2;
  return rows;
}

// Calls fn (filter, input bytes, output bytes, chroma word) with op's
// values as compile-time constants.
template <class Fn>
inline void
dispatch (const ConvertScale & op, Fn fn)
{
  two_tap::dispatch_filter (op, [&] (auto f) {
    pixels::dispatch_bytes (op, [&] (auto ib, auto ob) {
      constexpr int IB = decltype (ib)::value;
      if (op.in_words[1].word)
        fn (f, ib, ob, std::integral_constant<int, 2 * IB>{});
      else
        fn (f, ib, ob, std::integral_constant<int, 0>{});
    });
  });
}

} // namespace gst_cs::gpu::planes

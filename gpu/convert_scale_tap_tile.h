/* SPDX-License-Identifier: LGPL-2.1-or-later */
// The GPU's path for the filters of more than two taps per axis (bicubic,
// area shrinking by up to kMaxTaps - 2 times): the taps of an output
// column depend on the column only, those of a row on the row only, so a
// kernel computes them once per column and row of its tile, into shared
// memory, instead of once per pixel (a bicubic pixel of NV12 computed 16
// weights and clamped 16 indices per plane), and each pixel then only
// reads and sums.
//
// It computes what pixel_at computes, to the bit: the taps are taps()'s,
// collected in its order, and a pixel sums them in that order from 0 as
// sample_inputs does. The chroma of a block that is resampled where it
// sits (resampled_chroma, once per block, over the block's footprint) is
// computed as pixels::write_block computes it.
#pragma once

#include "convert_scale_pixels.h"
#include "convert_scale_two_tap.h"

namespace gst_cs::gpu::tap_tile {

constexpr int kMaxTaps = 8;

// The taps of one line: n samples and their weights, in taps()'s order.
// N > 0: every line of the frame has at most N taps (kLineTaps), and
// lines of fewer are padded to N with taps of weight 0 on their first
// sample, so that a pixel's sums have a length known at compile time (the
// loads of a row issue together) and end as they would without: x + 0 * y
// is x for the finite sums here. N = 0: up to kMaxTaps, n of them.
template <int N> struct TapsOf {
  static constexpr int kMax = N > 0 ? N : kMaxTaps;
  int n;
  int i[kMax];
  float w[kMax];
};

// Whether `op` (resolved) takes this path: the filters two_tap does not
// take, with at most kMaxTaps taps per line (area shrinking by s reads at
// most floor (s) + 2 samples per axis).
inline bool
applies (const ConvertScale & op)
{
  if (two_tap::applies (op))
    return false;
  if (op.filter == Filter::BICUBIC)
    return true;
  return op.filter == Filter::AREA && op.scale_x <= (float)(kMaxTaps - 2) &&
         op.scale_y <= (float)(kMaxTaps - 2);
}

// The taps, in the input plane of resolution g (0: full, 1: chroma), of
// output column (vertical = false) or row `o`, and whether it lies in the
// picture: two_tap::output_line_taps with every tap of F.
template <Filter F, int N>
GCS_HD TapsOf<N>
output_line_taps (const ConvertScale & op, int g, bool vertical, int o, bool * inside)
{
  const int d = vertical ? o - op.dst_y : o - op.dst_x;
  *inside = d >= 0 && d < (vertical ? op.dst_h : op.dst_w);
  const two_tap::LineSource l = two_tap::line_source (op, vertical, (float)d);
  const pixels::PlanePosition p = pixels::plane_position (op, g, l.source_y, l.s);
  TapsOf<N> t;
  t.n = 0;
  /* As sample_inputs asks: the footprint of one output pixel. */
  pixels::taps<F> (p.p, l.scale * p.k, p.lo, p.hi, [&] (int i, float w) {
    if (t.n < TapsOf<N>::kMax) {
      t.i[t.n] = i;
      t.w[t.n] = w;
      t.n++;
    }
  });
  for (int k = t.n; N > 0 && k < N; k++) {
    t.i[k] = t.i[0];
    t.w[k] = 0.0f;
  }
  return t;
}

// A tile of two_tap::kTileX columns of output blocks and at most
// kMaxTileRows rows of them, with one line more to the left and above (the
// chroma filter of subsampled outputs reads the pixels around a block):
// fewer rows than two_tap's, for the larger taps in shared memory.
constexpr int kMaxTileRows = 4 * two_tap::kTileY;

template <int N> using TileOf = two_tap::TileOf<TapsOf<N>, kMaxTileRows>;

// How many rows of blocks a tile gets (two_tap::tile_rows, at most
// kMaxTileRows).
inline int
tile_rows (int nbx, int nby)
{
  return two_tap::tile_rows (nbx, nby, false, 1, kMaxTileRows);
}

// Fills entry k (0 <= k < two_tap::tile_entries) of the tile: the threads
// of a CUDA block share them out.
template <Filter F, int N>
GCS_HD void
fill_entry (const ConvertScale & op, const two_tap::TileLines & l, TileOf<N> & t, int k)
{
  two_tap::fill_entry_with (l, t, k, [&] (int g, bool vertical, int o, bool * inside) {
    return output_line_taps<F, N> (op, g, vertical, o, inside);
  });
}

// in[c] for the input components `members` of resolution g, summed over
// the taps tx (columns) and ty (rows) of their plane as sample_inputs sums
// them: per row from 0 in tx's order, the rows from 0 in ty's order. A
// word holding several components is read once per tap (the same bytes
// as one read per component). Word: w.word where known at compile time
// (-1: not); with `members` a constant too, a tap is its loads and sums.
// N > 0: N taps per line (TapsOf), unrolled.
template <int IB, int Word, int N>
GCS_HD void
sample (const ConvertScale & op, int g, unsigned members, const TapsOf<N> & tx,
    const TapsOf<N> & ty, float in[4])
{
  const Image & im = op.in;
  const ConvertScale::Words & w = op.in_words[g];
  const int word = Word >= 0 ? Word : w.word;
  float sum[4] = { 0.0f, 0.0f, 0.0f, 0.0f };
  const int ny = N > 0 ? N : ty.n, nx = N > 0 ? N : tx.n;
  GCS_UNROLL_BY (N > 0 ? N : 1)
  for (int a = 0; a < ny; a++) {
    float row[4] = { 0.0f, 0.0f, 0.0f, 0.0f };
    const int y = ty.i[a];
    GCS_UNROLL_BY (N > 0 ? N : 1)
    for (int b = 0; b < nx; b++) {
      const float wx = tx.w[b];
      if (word) {
        const unsigned v = two_tap::load_word<IB> (w, word, tx.i[b], y);
        GCS_UNROLL
        for (int c = 0; c < 4; c++)
          if ((members >> c) & 1u)
            row[c] += wx * two_tap::from_word<IB> (im, v, c);
      } else {
        GCS_UNROLL
        for (int c = 0; c < 4; c++)
          if ((members >> c) & 1u)
            row[c] += wx * pixels::load<IB> (im, im.comp[c], tx.i[b], y);
      }
    }
    const float wy = ty.w[a];
    GCS_UNROLL
    for (int c = 0; c < 4; c++)
      if ((members >> c) & 1u)
        sum[c] += wy * row[c];
  }
  GCS_UNROLL
  for (int c = 0; c < 4; c++)
    if ((members >> c) & 1u)
      in[c] = sum[c];
}

// Writes output block (bx, by) of the tile `t` (filled) as
// pixels::write_block does; Members: the input components its pixels read
// (dispatch_members).
template <Filter F, int IB, int OB, class Members, int N>
GCS_HD void
write_block (const ConvertScale & op, const two_tap::TileLines & l, const TileOf<N> & t,
    int bx, int by)
{
  const bool swap = pixels::rotates (op.orientation);
  auto pixel = [&] (int x, int y, unsigned need) {
    return two_tap::tile_pixel<Members> (op, l, t, swap, x, y, need,
        [&] (auto gc, unsigned members, const TapsOf<N> & tx, const TapsOf<N> & ty,
            float in[4]) {
          constexpr int g = decltype (gc)::value;
          sample<IB, Members::word (g), N> (op, g, members, tx, ty, in);
        });
  };
  auto direct = [&] (
                    int x0, int y0) { return pixels::direct_chroma<F, IB> (op, x0, y0); };
  pixels::write_block_with<F, IB, OB> (op, bx, by, pixel, direct);
}

// Calls fn (members) with the Members type (two_tap's) of op's kernel
// instance: fixed for a decoder's 8-bit NV12 into RGB or 4:4:4, the luma
// alone for YUV into YUV whose chroma is resampled from the input's
// chroma plane, else any. Fewer than two_tap's, for the build's time:
// each is a large kernel.
template <int OB, class Fn>
inline void
dispatch_members (const ConvertScale & op, Fn fn)
{
  if constexpr (OB == 1) {
    if (two_tap::FixedMembers<1u, 6u, 2>::matches (op))
      return fn (two_tap::FixedMembers<1u, 6u, 2>{});
  }
  if (two_tap::LumaMembers::matches (op))
    return fn (two_tap::LumaMembers{});
  fn (two_tap::AnyMembers{});
}

// The taps per line (TapsOf) of F's tiles from IB-byte samples:
// bicubic's lines have 4 taps or 1, and from 8-bit samples they are padded
// to 4 and unrolled (1.2 to 1.7 times faster); else any number. Unrolled,
// P010's bicubic ran 1.3 times slower, and area padded to 4 taps read more
// than it sums where it shrinks by 2 or 3 (2 or 3 taps a line; up to
// twice as slow).
template <Filter F, int IB>
constexpr int kLineTaps = F == Filter::BICUBIC && IB == 1 ? 4 : 0;

} // namespace gst_cs::gpu::tap_tile

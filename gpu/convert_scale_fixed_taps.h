/* SPDX-License-Identifier: LGPL-2.1-or-later */
// The fixed-point family (convert_scale_fixed_point.h) with four taps per
// axis: bicubic, and area shrinking by up to 3 times, of the same 8-bit
// frames of YUV, not turned. In floating point such a pixel of 4K NV12
// shrunk into 1080p RGBA issued about 400 instructions (48 loads of a
// sample, each converted, multiplied and added, every one rounded so that
// the twin rounds alike): the GPU's issue rate bounded it, at 3 to 5
// times the copy of its bytes. In integers a tap is a load and one
// multiply-add, or for U and V interleaved in words (NV12, YUY2) two taps
// of two components are one byte permutation and two dp2a (two 16-bit
// weights times two bytes, added to a sum); packed RGB's four components
// likewise, two of two words a byte permutation (rgb_row). Packed RGB
// into subsampled chroma stays in float (resolve).
//
// A line's taps are four neighbouring samples of its plane (a window,
// moved inside the plane at its edges, where the filter's indices
// repeat) and four weights in 1/256 that sum to 256 (QuadTaps::at).
// Every product and sum is an exact integer, so any order gives the same
// bits: the twin computes each pixel from the taps of its column and row
// (QuadTaps::at), the kernels from their tiles'. The sums
// along an axis are within 32 bits: each row's at most 255 * 256 * 1.25,
// then the rows' at most 1.25 * 256 times that. Bicubic's sums may leave
// 0..255: each filtered code is clamped to it before the matrix, as
// videoconvertscale scales codes (8-bit, clamped) before converting.
#pragma once

#include "convert_scale_fixed_point.h"
#include "convert_scale_tap_tile.h"

namespace gst_cs::gpu::fixed_point {

constexpr int kQuad = 4;

// One axis's four taps in one input plane: the byte offset of the
// window's first sample along the axis and its index, the weights (1/256,
// summing to 256) as ints, and as pairs for dp2a: q0 and q1, q2 and q3,
// each pair the 16-bit halves of a word (two's complement: bicubic's
// outer taps weigh less than 0).
struct alignas (16) QuadTaps { /* two shared-memory loads */
  unsigned o0;
  int q[kQuad];
  unsigned pair[2];
  int i0;

  /* What a tile keeps of the taps of F at `pos` (in taps()'s order) of
   * resolution g along the source's y axis (or x). The window starts at
   * the first tap, moved into the plane; a tap beyond it (area shrinking
   * by 3 can reach a fifth sample, by float rounding: a weight of about
   * 1e-7 at one end) is dropped from that end and its weight joins its
   * neighbour's. Bicubic's one tap on a sample starts its window a
   * sample before, as its neighbours' windows start: a line's windows
   * then move one way along the lines (quad_sums relies on it). Weights
   * are summed per sample in taps()'s order, rounded half up to 1/256,
   * and what their sum misses of 256 goes to the largest.
   * The taps are walked twice (the ends, then the window's weights), not
   * kept: an array of them, indexed by a count known at run time, lived
   * in local memory on the GPU (4K NV12 -> 1080p bicubic: 186 local
   * loads in the kernel, whose time fell by 30 % without them). */
  template <Filter F>
  static GCS_HD QuadTaps at (
      const ConvertScale & op, int g, bool along_y, const tap_tile::LinePosition & pos)
  {
    /* Selected, not indexed (Taps::of says why). */
    const unsigned (&s)[2][2] = op.fixed.stride;
    const unsigned stride =
        g == 0 ? (along_y ? s[0][1] : s[0][0]) : (along_y ? s[1][1] : s[1][0]);
    const int log2 = g == 0 ? 0 : (along_y ? op.sub_log2_y : op.sub_log2_x);
    const int n = ((along_y ? op.in.height : op.in.width) + (1 << log2) - 1) >> log2;
    /* The lowest and highest samples, and the sums of their weights in
     * taps()'s order (from 0: a new end restarts its sum). */
    int lo = 0, hi = 0;
    float w_lo = 0.0f, w_hi = 0.0f;
    bool first_tap = true;
    tap_tile::line_taps<F> (pos, [&] (int i, float w) {
      if (first_tap || i < lo)
        lo = i, w_lo = 0.0f + w;
      else if (i == lo)
        w_lo += w;
      if (first_tap || i > hi)
        hi = i, w_hi = 0.0f + w;
      else if (i == hi)
        w_hi += w;
      first_tap = false;
    });
    int first = hi - lo >= kQuad && w_lo < w_hi ? lo + 1 : lo;
    if (F == Filter::BICUBIC && hi == lo)
      first = lo - 1;
    first = pixels::clampi (first, 0, n - kQuad);
    /* Each tap's weight joins its slot's (the window's ends take the
     * taps beyond them) by a chain of ifs. Written as w[j] += slot == j ?
     * tw : 0 over j, with the taps unrolled (bicubic's four calls), nvcc
     * 13.0 put weights in the wrong slots on an H200 (sm_90, -fmad=false;
     * 43 % of bicubic's lines, 31 % of area's, against the host); kept as
     * a loop over the taps, it did not. */
    float w0 = 0.0f, w1 = 0.0f, w2 = 0.0f, w3 = 0.0f;
    tap_tile::line_taps<F> (pos, [&] (int i, float tw) {
      const int slot = i - first;
      if (slot <= 0)
        w0 += tw;
      else if (slot == 1)
        w1 += tw;
      else if (slot == 2)
        w2 += tw;
      else
        w3 += tw;
    });
    static_assert (kQuad == 4, "one weight per slot above");
    const float w[kQuad] = { w0, w1, w2, w3 };
    QuadTaps r{};
    r.o0 = (unsigned)first * stride;
    r.i0 = first;
    int sum = 0, largest = 0;
    float most = w[0];
    GCS_UNROLL
    for (int j = 0; j < kQuad; j++) {
      r.q[j] = (int)floorf (w[j] * (float)kWeightOne + 0.5f);
      sum += r.q[j];
      largest = w[j] > most ? j : largest;
      most = w[j] > most ? w[j] : most;
    }
    GCS_UNROLL
    for (int j = 0; j < kQuad; j++)
      r.q[j] += j == largest ? kWeightOne - sum : 0;
    r.pair[0] = ((unsigned)r.q[0] & 0xffffu) | ((unsigned)r.q[1] << 16);
    r.pair[1] = ((unsigned)r.q[2] & 0xffffu) | ((unsigned)r.q[3] << 16);
    return r;
  }
};

using QuadTile = two_tap::TileOf<QuadTaps>;

// The tile of convert_scale_fixed_taps_kernel, whose outputs have no
// subsampled chroma: a tile of `rows` rows of blocks has rows + 1 lines
// (tile_lines), at most kMaxTileRows + 1, where QuadTile keeps room for
// twice as many (the blocks kernel's subsampled outputs). 8.5 KB instead
// of 12.6, so that five CUDA blocks and their tables fit an SM's shared
// memory (kQuadBlocksPerSm). A type of its own, so that its fill_entry is
// the family's.
struct QuadRowsTile : two_tap::TileOf<QuadTaps, two_tap::kMaxTileRows / 2> {};

// Taps t from a tile, as two 16-byte loads on the GPU.
GCS_HD QuadTaps
tile_quad (const QuadTaps & t)
{
#if defined(__CUDA_ARCH__)
  const uint4 a = reinterpret_cast<const uint4 *> (&t)[0],
              b = reinterpret_cast<const uint4 *> (&t)[1];
  return QuadTaps{ a.x, { (int)a.y, (int)a.z, (int)a.w, (int)b.x }, { b.y, b.z },
    (int)b.w };
#else
  return t;
#endif
}

// ---- The table of every line's taps (convert_scale_point_lines) ----
// A line's taps depend on the description, the resolution g, the axis and
// the output line only: the tiles of a row of tiles computed the same rows'
// taps each, those of a column the same columns'. The table holds each
// once, computed by the GPU (convert_scale_fill_lines) with the call the
// tiles made (fill_quad_line), so the tiles read the values they computed.

// How many lines of columns (n[0]) and rows (n[1]) the table holds per
// resolution: every line a tile touches, from -1 (tile_lines' extra line)
// to the tiles' overhang past the frame's edge. Every tile height in use
// (quad_table_rows: powers of 2 up to two_tap::kMaxTileRows, the blocks'
// up to kBlockTileRows) divides kMaxTileRows, so the extent holds for any.
GCS_HD void
quad_lines_extent (const ConvertScale & op, int n[2])
{
  constexpr int kX = two_tap::kTileX, kY = two_tap::kMaxTileRows;
  static_assert (kY % kBlockTileRows == 0, "the blocks' tiles within the rows' extent");
  const Image & o = op.out;
  const int lx = o.yuv ? o.comp[1].log2_x : 0, ly = o.yuv ? o.comp[1].log2_y : 0;
  const int nbx = pixels::blocks_x (o), nby = pixels::blocks_y (o);
  n[0] = (((nbx + kX - 1) / kX * kX) << lx) + 1;
  n[1] = (((nby + kY - 1) / kY * kY) << ly) + 1;
}

// Where resolution g's line -1 along x (along_y false) or y lies in the
// table: selected, not indexed (an indexed field of the description would
// be copied to local memory where a compiled kernel holds it).
GCS_HD int
quad_lines_at (const ConvertScale::FixedPoint & f, int g, bool along_y)
{
  return g == 0 ? (along_y ? f.lines_at[0][1] : f.lines_at[0][0])
                : (along_y ? f.lines_at[1][1] : f.lines_at[1][0]);
}

// Entry e of the table (of 2 * (n[0] + n[1])): the taps of F that
// fill_entry computes without a table, by the same call.
template <Filter F>
GCS_HD void
fill_quad_line (const ConvertScale & op, QuadTaps * table, int e)
{
  const ConvertScale::FixedPoint & f = op.fixed;
  const int g = e >= f.lines_at[1][0] ? 1 : 0;
  const bool along_y = e >= quad_lines_at (f, g, true);
  const int o = e - quad_lines_at (f, g, along_y) - 1;
  bool inside;
  table[e] = QuadTaps::at<F> (
      op, g, along_y, tap_tile::output_line_position (op, g, along_y, o, &inside));
}

// Line o's taps of resolution g from the table: two 16-byte loads through
// the read-only cache on the GPU.
GCS_HD QuadTaps
line_quad (const ConvertScale & op, int g, bool along_y, int o)
{
  const QuadTaps * t = static_cast<const QuadTaps *> (op.fixed.lines) +
                       quad_lines_at (op.fixed, g, along_y) + (o + 1);
#if defined(__CUDA_ARCH__)
  const uint4 a = __ldg (reinterpret_cast<const uint4 *> (t)),
              b = __ldg (reinterpret_cast<const uint4 *> (t) + 1);
  return QuadTaps{ a.x, { (int)a.y, (int)a.z, (int)a.w, (int)b.x }, { b.y, b.z },
    (int)b.w };
#else
  return *t;
#endif
}

// Fills entry k of a tile of four taps (two_tap::fill_entry_with): the
// taps of F (bicubic or area) of output column or row o, copied from the
// description's table where it has one (about 20 instructions instead of
// some 500). Not turned (resolve): columns run along the source's x.
template <Filter F, class Tile>
GCS_HD void
fill_quad_entry (const ConvertScale & op, const two_tap::TileLines & l, Tile & t, int k)
{
  two_tap::fill_entry_with (l, t, k, [&] (int g, bool vertical, int o, bool * inside) {
    if (op.fixed.lines_on) {
      *inside = tap_tile::line_inside (op, vertical, o);
      return line_quad (op, g, vertical, o);
    }
    return QuadTaps::at<F> (
        op, g, vertical, tap_tile::output_line_position (op, g, vertical, o, inside));
  });
}

template <Filter F>
GCS_HD void
fill_entry (const ConvertScale & op, const two_tap::TileLines & l, QuadTile & t, int k)
{
  fill_quad_entry<F> (op, l, t, k);
}

template <Filter F>
GCS_HD void
fill_entry (
    const ConvertScale & op, const two_tap::TileLines & l, QuadRowsTile & t, int k)
{
  fill_quad_entry<F> (op, l, t, k);
}

// c + q0 * b0 + q1 * b1: q0, q1 the signed 16-bit halves of `pair`, b0
// and b1 bytes 0 and 1 of `bytes` (High: bytes 2 and 3).
template <bool High>
GCS_HD int
dot_pair (unsigned pair, unsigned bytes, int c)
{
#if defined(__CUDA_ARCH__)
  int r;
  if (High)
    asm("dp2a.hi.s32.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(pair), "r"(bytes), "r"(c));
  else
    asm("dp2a.lo.s32.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(pair), "r"(bytes), "r"(c));
  return r;
#else
  const int shift = High ? 16 : 0;
  return c + (int)(short)(pair & 0xffffu) * (int)((bytes >> shift) & 0xffu) +
         (int)(short)(pair >> 16) * (int)((bytes >> (shift + 8)) & 0xffu);
#endif
}

// A sum over the taps of both axes (code times 2^16) as a code times 256,
// clamped to 0..255 codes.
GCS_HD int
code_of (int sum)
{
  return pixels::clampi (sum >> kCodeBits, 0, 255 << kCodeBits);
}

// Two components of two neighbouring words filtered along x by the pair
// of weights `pair`: the words' bytes picked by `select` as
// [X of w0, X of w1, Y of w0, Y of w1], added to x and y.
GCS_HD void
dot_words (unsigned pair, unsigned w0, unsigned w1, unsigned select, int & x, int & y)
{
  const unsigned b = byte_perm (w0, w1, select);
  x = dot_pair<false> (pair, b, x);
  y = dot_pair<true> (pair, b, y);
}

// The sum along x, over the taps lx, of source row `row`'s luma.
template <int Word>
GCS_HD int
luma_row (const ConvertScale::FixedPoint & f, const QuadTaps & lx, int row)
{
  static_assert (Word != kPackedRgb, "YUV inputs (quad_filter)");
  constexpr unsigned line = luma_step (Word);
  const std::uint8_t * p = f.luma + lx.o0 + (std::size_t)row * f.stride[0][1];
#if defined(__CUDA_ARCH__)
  if constexpr (line == 1) {
    /* The window's four bytes from the aligned words that hold its first
     * and its last (one word where it is aligned): two loads, a funnel
     * shift and two dp2a instead of four loads and four multiply-adds.
     * The words never reach past the one that holds the window's last
     * byte, inside the plane's rows. */
    const auto a = reinterpret_cast<std::uintptr_t> (p);
    const unsigned lo = input (
                       reinterpret_cast<const unsigned *> (a & ~std::uintptr_t{ 3 })),
                   hi = input (reinterpret_cast<const unsigned *> (
                       (a + 3) & ~std::uintptr_t{ 3 }));
    const unsigned bytes = __funnelshift_r (lo, hi, (unsigned)(a & 3u) * 8u);
    return dot_pair<true> (lx.pair[1], bytes, dot_pair<false> (lx.pair[0], bytes, 0));
  }
#endif
  int sum = 0;
  GCS_UNROLL
  for (int j = 0; j < kQuad; j++)
    sum += (int)input (p + j * line) * lx.q[j];
  return sum;
}

// The sums along x, over the taps cx, of source row `row`'s U (s[0]) and
// V (s[1]) of the chroma plane.
template <int Word>
GCS_HD void
chroma_row (const ConvertScale::FixedPoint & f, const QuadTaps & cx, int row, int (&s)[2])
{
  constexpr unsigned line = chroma_step (Word);
  const std::uint8_t * p = f.chroma + cx.o0 + (std::size_t)row * f.stride[1][1];
  s[0] = s[1] = 0;
  if constexpr (Word == 0) {
    GCS_UNROLL
    for (int j = 0; j < kQuad; j++) {
      s[0] += (int)input (p + j * line) * cx.q[j];
      s[1] += (int)input (p + f.v_minus_u + j * line) * cx.q[j];
    }
  } else {
    unsigned w[kQuad];
    GCS_UNROLL
    for (int j = 0; j < kQuad; j++) {
#if defined(__CUDA_ARCH__)
      w[j] = Word == 4 ? input (reinterpret_cast<const unsigned *> (p + j * line))
                       : input (reinterpret_cast<const unsigned short *> (p + j * line));
#else
      w[j] = 0;
      for (int b = 0; b < Word; b++)
        w[j] |= (unsigned)p[j * line + b] << (8 * b);
#endif
    }
    dot_words (cx.pair[0], w[0], w[1], f.chroma_pairs, s[0], s[1]);
    dot_words (cx.pair[1], w[2], w[3], f.chroma_pairs, s[0], s[1]);
  }
}

// The byte_perm selector of two neighbouring words of packed RGB giving
// [X of w0, X of w1, Y of w0, Y of w1] for the components X and Y that
// rgb_select h puts in its 16-bit lanes (h 0: components 0 and 2; 1:
// component 1 and alpha, where the input has none its byte 4, here byte
// 0, whose sum is never read). Derived from rgb_select, not kept beside
// it: the description fills a batch's kernel parameters to their limit.
GCS_HD unsigned
rgb_pair (const ConvertScale::FixedPoint & f, int h)
{
  const unsigned s = h == 0 ? f.rgb_select[0] : f.rgb_select[1];
  return pair_select (s & 3u, (s >> 8) & 3u);
}

// The sums along x, over the taps lx, of source row `row`'s four
// components of packed RGB: s[0..2] components 0..2, s[3] alpha.
GCS_HD void
rgb_row (const ConvertScale::FixedPoint & f, const QuadTaps & lx, int row, int (&s)[4])
{
  const std::uint8_t * p = f.luma + lx.o0 + (std::size_t)row * f.stride[0][1];
  unsigned w[kQuad];
  GCS_UNROLL
  for (int j = 0; j < kQuad; j++) {
#if defined(__CUDA_ARCH__)
    w[j] = input (reinterpret_cast<const unsigned *> (p + 4 * j));
#else
    w[j] = 0;
    for (int b = 0; b < 4; b++)
      w[j] |= (unsigned)p[4 * j + b] << (8 * b);
#endif
  }
  s[0] = s[1] = s[2] = s[3] = 0;
  GCS_UNROLL
  for (int h = 0; h < 2; h++) {
    const unsigned pairs = rgb_pair (f, h);
    /* rgb_select h's lanes: components h and h + 2 */
    dot_words (lx.pair[0], w[0], w[1], pairs, s[h], s[h + 2]);
    dot_words (lx.pair[1], w[2], w[3], pairs, s[h], s[h + 2]);
  }
}

// The input codes of packed RGB from its components' sums over both
// axes' taps (code (c), a code times 256): alpha, where the input has it,
// rounded to a code as packed_codes rounds it (half up).
template <class Code>
GCS_HD InputCodes
rgb_codes (const ConvertScale::FixedPoint & f, Code code)
{
  const int alpha =
      f.alpha_in ? (code (3) + (1 << (kCodeBits - 1))) >> kCodeBits : f.alpha;
  return InputCodes{ { code (0), code (1), code (2) }, alpha };
}

// The sums along x of C components of the four source rows first ..
// first + 3 that a pixel's taps along y read. A thread that walks down
// its column keeps them for the next pixel, whose rows are mostly the
// same (shrinking by 2, two of four; growing, three): each source row is
// read and summed once per column, not four times.
template <int C> struct RowWindow {
  int first = -(1 << 30); /* none yet */
  int h[kQuad][C];

  /* Moves the window to rows `to` .. to + 3: keeps the sums of those it
   * holds, asks sum (row, s) for the others, one row a step of a loop
   * (not unrolled: a row's loads are issued only where it is needed).
   * `to` is the same for the threads of a warp (one output row): the loop
   * is uniform, but where a border's columns skip it (pillarboxes). */
  template <class Sum> GCS_HD void slide (int to, Sum sum)
  {
    const int d = to - first;
    const int todo = d >= 0 && d < kQuad ? d : kQuad;
    const int start = to + kQuad - todo;
    GCS_NO_UNROLL
    for (int m = 0; m < todo; m++) {
      GCS_UNROLL
      for (int k = 0; k + 1 < kQuad; k++) {
        GCS_UNROLL
        for (int c = 0; c < C; c++)
          h[k][c] = h[k + 1][c];
      }
      sum (start + m, h[kQuad - 1]);
    }
    first = to;
  }

  /* Component c summed over the rows' taps ty, as a code times 256. */
  GCS_HD int code (const QuadTaps & ty, int c) const
  {
    int v = 0;
    GCS_UNROLL
    for (int k = 0; k < kQuad; k++)
      v += ty.q[k] * h[k][c];
    return code_of (v);
  }
};

// A thread's windows of source rows: the luma's and the chroma's, over
// its column's taps lx and cx (packed RGB: its four components', in the
// luma's).
template <int Word> struct Windows {
  RowWindow<Word == kPackedRgb ? 4 : 1> luma;
  RowWindow<2> chroma;

  /* The input codes of the pixel whose taps along y are ly and cy. */
  GCS_HD InputCodes codes (const ConvertScale::FixedPoint & f, const QuadTaps & lx,
      const QuadTaps & ly, const QuadTaps & cx, const QuadTaps & cy)
  {
    if constexpr (Word == kPackedRgb) {
      luma.slide (ly.i0, [&] (int row, int (&s)[4]) { rgb_row (f, lx, row, s); });
      return rgb_codes (f, [&] (int c) { return luma.code (ly, c); });
    } else {
      luma.slide (
          ly.i0, [&] (int row, int (&s)[1]) { s[0] = luma_row<Word> (f, lx, row); });
      chroma.slide (
          cy.i0, [&] (int row, int (&s)[2]) { chroma_row<Word> (f, cx, row, s); });
      return InputCodes{ { luma.code (ly, 0), chroma.code (cy, 0), chroma.code (cy, 1) },
        f.alpha };
    }
  }
};

// The input codes of the pixel whose taps are lx, cx (along x) and ly, cy
// (along y) of the luma and the chroma, on their own.
template <int Word>
GCS_HD InputCodes
quad_codes (const ConvertScale::FixedPoint & f, const QuadTaps & lx, const QuadTaps & ly,
    const QuadTaps & cx, const QuadTaps & cy)
{
  Windows<Word> w;
  return w.codes (f, lx, ly, cx, cy);
}

// ---- Rows' sums in shared memory: all the tile's threads first ----
// A tile's pixels of one column read the same source rows through the
// same taps along x, and shrinking by s each source row is read by about
// 4 / s of them: the CUDA block first sums every (source row, column)
// once, its threads on independent rows (their loads in flight
// together), into a table; then each pixel sums four entries down its
// column. Not for outputs with subsampled chroma (their tiles keep the
// chroma of their pixels in shared memory already).

constexpr int kSumColumns = two_tap::kTileX; // a tile's own columns

// Components a table entry holds, of resolution g: Y; U and V. Packed
// RGB: its four at the luma's, none at the chroma's.
GCS_HD constexpr int
sum_comps (int g, bool packed)
{
  return packed ? (g == 0 ? kQuad : 0) : (g == 0 ? 1 : 2);
}

// Where the table's sums lie: resolution g's row y_lo[g] + r, column a
// (0..kSumColumns - 1, the tile's own columns 1..), component c at
// base[g] + (r * kSumColumns + a) * sum_comps (g, packed) + c. fits: the
// table holds them (else each pixel sums its own taps).
struct QuadSums {
  int y_lo[2], n_y[2], base[2];
  bool fits;
};

template <class Tile>
GCS_HD QuadSums
quad_sums (const two_tap::TileLines & l, const Tile & t, int capacity, bool packed)
{
  QuadSums r{};
  int used = 0;
  GCS_UNROLL
  for (int g = 0; g < 2; g++) {
    /* The rows' windows move one way along the tile (up where flipped):
     * its own first and last rows' span them all. */
    const int a = t.rows[g][1].i0, b = t.rows[g][l.nrows - 1].i0;
    r.y_lo[g] = a < b ? a : b;
    r.n_y[g] = (a < b ? b : a) + kQuad - r.y_lo[g];
    r.base[g] = used;
    used += r.n_y[g] * kSumColumns * sum_comps (g, packed);
  }
  r.fits = used <= capacity;
  return r;
}

// A packed RGB entry's four sums, as one 16-byte store on the GPU (the
// table's entries of four lie at multiples of 16 bytes).
GCS_HD void
store_sums (int * e, const int (&s)[kQuad])
{
#if defined(__CUDA_ARCH__)
  *reinterpret_cast<int4 *> (e) = make_int4 (s[0], s[1], s[2], s[3]);
#else
  for (int c = 0; c < kQuad; c++)
    e[c] = s[c];
#endif
}

// Fills the table: thread (tx, ty) of a CUDA block of kSumColumns x
// `threads_y` sums the rows ty, ty + threads_y ... of its column tx, four
// rows' loads in flight at once (against two: 4K NV12 -> 1080p RGBA
// bicubic 17.09 -> 16.12 us, NV12 1080p -> RGBA 720p bicubic 9.32 ->
// 9.00, on an H100, 2026-12-05; eight spilled registers at 5 blocks an
// SM and were slower).
template <int Word, class Tile>
GCS_HD void
fill_quad_sums (const ConvertScale::FixedPoint & f, const Tile & t, const QuadSums & r,
    int * table, int tx, int ty, int threads_y)
{
  const QuadTaps lx = tile_quad (t.cols[0][tx + 1]);
  if constexpr (Word == kPackedRgb) {
    GCS_UNROLL_4
    for (int row = ty; row < r.n_y[0]; row += threads_y) {
      int s[kQuad];
      rgb_row (f, lx, r.y_lo[0] + row, s);
      store_sums (table + r.base[0] + (row * kSumColumns + tx) * kQuad, s);
    }
  } else {
    GCS_UNROLL_4
    for (int row = ty; row < r.n_y[0]; row += threads_y)
      table[r.base[0] + row * kSumColumns + tx] = luma_row<Word> (f, lx, r.y_lo[0] + row);
    const QuadTaps cx = tile_quad (t.cols[1][tx + 1]);
    GCS_UNROLL_4
    for (int row = ty; row < r.n_y[1]; row += threads_y) {
      int s[2];
      chroma_row<Word> (f, cx, r.y_lo[1] + row, s);
      int * e = table + r.base[1] + (row * kSumColumns + tx) * 2;
      e[0] = s[0];
      e[1] = s[1];
    }
  }
}

// Component c of resolution g summed down the table's column tx over the
// rows' taps ty, as a code times 256 (of YUV).
GCS_HD int
table_code (
    const QuadSums & r, const int * table, int g, int tx, const QuadTaps & ty, int c)
{
  const int pitch = kSumColumns * sum_comps (g, false);
  const int * e =
      table + r.base[g] + (ty.i0 - r.y_lo[g]) * pitch + tx * sum_comps (g, false) + c;
  int v = 0;
  GCS_UNROLL
  for (int k = 0; k < kQuad; k++)
    v += ty.q[k] * e[k * pitch];
  return code_of (v);
}

// Packed RGB's input codes summed down the table's column tx over the
// rows' taps ty: each row's four sums one 16-byte load on the GPU.
GCS_HD InputCodes
table_rgb_codes (const ConvertScale::FixedPoint & f, const QuadSums & r,
    const int * table, int tx, const QuadTaps & ty)
{
  constexpr int pitch = kSumColumns * kQuad;
  const int * e = table + r.base[0] + (ty.i0 - r.y_lo[0]) * pitch + tx * kQuad;
  int v[kQuad] = {};
  GCS_UNROLL
  for (int k = 0; k < kQuad; k++) {
#if defined(__CUDA_ARCH__)
    const int4 s = *reinterpret_cast<const int4 *> (e + k * pitch);
    v[0] += ty.q[k] * s.x;
    v[1] += ty.q[k] * s.y;
    v[2] += ty.q[k] * s.z;
    v[3] += ty.q[k] * s.w;
#else
    for (int c = 0; c < kQuad; c++)
      v[c] += ty.q[k] * e[k * pitch + c];
#endif
  }
  return rgb_codes (f, [&] (int c) { return code_of (v[c]); });
}

// Writes the pixels (x, y), y = y_first, y_first + y_step ... < y_end, of
// the tile `t` (filled) from its table (filled): x is the tile's own
// column tx.
template <int Word, class Tile>
GCS_HD void
write_quad_sums_column (const ConvertScale & op, const two_tap::TileLines & l,
    const Tile & t, const QuadSums & r, const int * table, int x, int tx, int y_first,
    int y_end, int y_step)
{
  if (x >= op.out.width)
    return;
  const ConvertScale::FixedPoint & f = op.fixed;
  const bool col_in = t.col_in[tx + 1];
  if (y_end > op.out.height)
    y_end = op.out.height;
  for (int y = y_first; y < y_end; y += y_step) {
    const int ri = y - l.y_first;
    if (!col_in || !t.row_in[ri]) {
      store (op, x, y, f.border);
      continue;
    }
    const QuadTaps ly = tile_quad (t.rows[0][ri]), cy = tile_quad (t.rows[1][ri]);
    if constexpr (Word == kPackedRgb) {
      store (op, x, y, matrix_codes (f, table_rgb_codes (f, r, table, tx, ly)));
      continue;
    }
    InputCodes k;
    k.c[0] = table_code (r, table, 0, tx, ly, 0);
    k.c[1] = table_code (r, table, 1, tx, cy, 0);
    k.c[2] = table_code (r, table, 1, tx, cy, 1);
    k.alpha = f.alpha;
    store (op, x, y, matrix_codes (f, k));
  }
}

// How many rows of blocks the tiles of four taps into an output of nbx x
// nby blocks get, and the ints of their tables (capacity; 0: no table,
// outputs with subsampled chroma): the most rows (two_tap's tall rule)
// whose table fits beside the taps, at least kTileY. kQuadBlocksPerSm
// CUDA blocks of convert_scale_fixed_taps_kernel share an SM's 228 KiB
// (each of them 1 KiB more, the CUDA runtime's own); at 4 (48 KiB each)
// the kernel's registers were 56 and the SM held 32 warps. 5 measured
// within 1 % of 4 on YUV (H200, 2026-12-05: 4K NV12 -> 1080p RGBA
// bicubic's 1,020 tiles are 2 waves either way) and on packed RGB (H100,
// the same day); at 4 the table would not fit the 48 KiB a block is
// launched with (below).
constexpr int kQuadBlocksPerSm = 5;
constexpr int kMostTableInts =
    (228 * 1024 / kQuadBlocksPerSm - 1024 - (int)sizeof (QuadRowsTile) - 64) /
    (int)sizeof (int);
// Launched without raising the kernel's limit of 48 KiB of shared memory
// a block: at 4 blocks an SM the table alone would take 46 KiB, and the
// largest tables' launches did not run (RGBA 1080p -> 1440x810 bicubic
// timed 1.09 us against 11.0, H100, 2026-12-05).
static_assert (
    kMostTableInts * (int)sizeof (int) + (int)sizeof (QuadRowsTile) <= 48 * 1024,
    "the four-tap kernel's shared memory over the default limit");

inline void
quad_table_rows (const ConvertScale & op, int nbx, int nby, int * rows, int * capacity)
{
  if (op.fixed.blocks) {
    *rows = block_tile_rows (nbx, nby);
    *capacity = 0;
    return;
  }
  int r = two_tap::tile_rows (nbx, nby, true);
  auto estimate = [&] (int rows_) {
    int ints = 0;
    for (int g = 0; g < 2; g++) {
      const int sub = g == 0 ? 0 : op.sub_log2_y;
      /* Above the windows' span: their first rows move by at most
       * rows_ * scale + 2, and a window holds kQuad rows. */
      const int n_y =
          (int)((float)rows_ * op.scale_y / (float)(1 << sub)) + 1 + kQuad + 4;
      ints += sum_comps (g, op.fixed.word == kPackedRgb) * n_y * kSumColumns;
    }
    return ints;
  };
  while (r > two_tap::kTileY && estimate (r) > kMostTableInts)
    r /= 2;
  *rows = r;
  *capacity = estimate (r) < kMostTableInts ? estimate (r) : kMostTableInts;
}

// Output pixel (x, y)'s input codes from the tile `t` (filled for `l`),
// its column's taps given (the thread's), or false where it lies outside
// the picture (the border).
template <int Word>
GCS_HD bool
tile_quad_codes (const ConvertScale::FixedPoint & f, const two_tap::TileLines & l,
    const QuadTile & t, const QuadTaps & lx, const QuadTaps & cx, int x, int y,
    InputCodes * k)
{
  const int ci = x - l.x_first, ri = y - l.y_first;
  if (!t.col_in[ci] || !t.row_in[ri])
    return false;
  *k = quad_codes<Word> (f, lx, tile_quad (t.rows[0][ri]), cx, tile_quad (t.rows[1][ri]));
  return true;
}

// Writes the pixels (x, y), y = y_first ... y_end - 1, of the tile `t`
// (filled): fixed_point::write_column with four taps, down consecutive
// rows, so that the thread's windows keep their source rows' sums.
template <int Word, class Tile>
GCS_HD void
write_quad_column (const ConvertScale & op, const two_tap::TileLines & l, const Tile & t,
    int x, int y_first, int y_end)
{
  if (x >= op.out.width)
    return;
  const ConvertScale::FixedPoint & f = op.fixed;
  const int ci = x - l.x_first;
  const QuadTaps lx = tile_quad (t.cols[0][ci]), cx = tile_quad (t.cols[1][ci]);
  if (y_end > op.out.height)
    y_end = op.out.height;
  Windows<Word> w;
  for (int y = y_first; y < y_end; y++) {
    const int ri = y - l.y_first;
    if (!t.col_in[ci] || !t.row_in[ri]) {
      store (op, x, y, f.border);
      continue;
    }
    store (op, x, y,
        matrix_codes (f,
            w.codes (f, lx, tile_quad (t.rows[0][ri]), cx, tile_quad (t.rows[1][ri]))));
  }
}

// Output pixel (x, y)'s LumaChroma from the tile `t` (the blocks' kernel:
// stage_pixels).
template <int Word>
GCS_HD LumaChroma
tile_quad_luma_chroma (const ConvertScale::FixedPoint & f, const two_tap::TileLines & l,
    const QuadTile & t, int x, int y)
{
  const int ci = x - l.x_first;
  InputCodes k;
  return tile_quad_codes<Word> (
             f, l, t, tile_quad (t.cols[0][ci]), tile_quad (t.cols[1][ci]), x, y, &k)
             ? luma_chroma (f, k)
             : border_luma_chroma (f);
}

// The twin's pixels: the input codes of output pixel (x, y) into *k from
// the taps of its column and row, without tiles; false where it lies
// outside the picture.
template <Filter F, int Word>
inline bool
quad_input_codes (const ConvertScale & op, int x, int y, InputCodes * k)
{
  QuadTaps t[2][2]; /* [resolution][along y] */
  bool inside = true;
  for (int g = 0; g < 2; g++)
    for (int along_y = 0; along_y < 2; along_y++) {
      bool in;
      t[g][along_y] = QuadTaps::at<F> (op, g, along_y != 0,
          tap_tile::output_line_position (op, g, along_y != 0, along_y ? y : x, &in));
      inside = inside && in;
    }
  if (!inside)
    return false;
  *k = quad_codes<Word> (op.fixed, t[0][0], t[0][1], t[1][0], t[1][1]);
  return true;
}

// The twin of output pixel (x, y) (of a block, where op.fixed.blocks).
template <Filter F, int Word>
inline void
write_quad_twin (const ConvertScale & op, int bx, int by)
{
  auto codes_at = [&] (int x, int y, InputCodes * k) {
    return quad_input_codes<F, Word> (op, x, y, k);
  };
  if (op.fixed.blocks) {
    write_block_twin_with (op, bx, by, codes_at);
    return;
  }
  InputCodes k;
  store (
      op, bx, by, codes_at (bx, by, &k) ? matrix_codes (op.fixed, k) : op.fixed.border);
}

// Calls fn (filter) with op's filter (bicubic or area) as a compile-time
// constant.
template <class Fn>
inline void
dispatch_quad_filter (const ConvertScale & op, Fn fn)
{
  if (op.filter == Filter::BICUBIC)
    fn (std::integral_constant<Filter, Filter::BICUBIC>{});
  else
    fn (std::integral_constant<Filter, Filter::AREA>{});
}

} // namespace gst_cs::gpu::fixed_point

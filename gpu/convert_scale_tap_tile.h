/* SPDX-License-Identifier: LGPL-2.1-or-later */
// The GPU's path for the filters of more than two taps per axis (bicubic,
// area shrinking by up to kMaxTaps - 2 times): the taps of an output
// column depend on the column only, those of a row on the row only, so a
// kernel computes them once per column and row of its tile, into shared
// memory, instead of once per pixel (a bicubic pixel of NV12 computed 16
// weights and clamped 16 indices per plane), and each pixel then only
// reads and sums.
//
// Bicubic frames that shrink little or grow sum further apart: each
// source row once per column of a tile (row sums, below), then each pixel
// down its column's sums.
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
// With N > 0 the indices and the weights each begin on 16 bytes: a
// pixel reads its line's taps in two 16-byte shared-memory loads, not 2N
// 4-byte ones.
template <int N> struct alignas (N > 0 ? 16 : 4) TapsOf {
  static constexpr int kMax = N > 0 ? N : kMaxTaps;
  int i[kMax];
  float w[kMax];
  int n;
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

// Where output column (vertical = false) or row `o` samples the input
// plane of resolution g: the plane position, the footprint of one output
// pixel in plane samples (as sample_inputs asks), the plane's samples of
// the source rectangle; and whether it lies in the picture.
struct LinePosition {
  float p, scale;
  int lo, hi;
};

// Whether output column (vertical = false) or row `o` lies in the
// picture: apart from its position, as a table of taps (whose entries
// leave it out) asks.
GCS_HD bool
line_inside (const ConvertScale & op, bool vertical, int o)
{
  const int d = vertical ? o - op.dst_y : o - op.dst_x;
  return d >= 0 && d < (vertical ? op.dst_h : op.dst_w);
}

GCS_HD LinePosition
output_line_position (const ConvertScale & op, int g, bool vertical, int o, bool * inside)
{
  const int d = vertical ? o - op.dst_y : o - op.dst_x;
  *inside = line_inside (op, vertical, o);
  const two_tap::LineSource l = two_tap::line_source (op, vertical, (float)d);
  const pixels::PlanePosition p = pixels::plane_position (op, g, l.source_y, l.s);
  return LinePosition{ p.p, l.scale * p.k, p.lo, p.hi };
}

// The taps of F at `at`: tap (index, weight) for each, in taps()'s order.
template <Filter F, class Tap>
GCS_HD void
line_taps (const LinePosition & at, Tap tap)
{
  pixels::taps<F> (at.p, at.scale, at.lo, at.hi, tap);
}

// The taps, in the input plane of resolution g (0: full, 1: chroma), of
// output column (vertical = false) or row `o`, and whether it lies in the
// picture: two_tap::output_line_taps with every tap of F.
template <Filter F, int N>
GCS_HD TapsOf<N>
output_line_taps (const ConvertScale & op, int g, bool vertical, int o, bool * inside)
{
  constexpr int kMax = TapsOf<N>::kMax;
  TapsOf<N> t{};
  /* Each tap goes to its slot by comparison, not by an index known at
   * run time: indexed, the taps lived in local memory on the GPU (stores
   * and loads of it in every tile's taps). */
  line_taps<F> (output_line_position (op, g, vertical, o, inside), [&] (int i, float w) {
    GCS_UNROLL
    for (int k = 0; k < kMax; k++)
      if (k == t.n) {
        t.i[k] = i;
        t.w[k] = w;
      }
    t.n += t.n < kMax ? 1 : 0;
  });
  GCS_UNROLL
  for (int k = 0; k < kMax; k++)
    if (N > 0 && k >= t.n) {
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

// row[c] for the input components `members` of resolution g: their
// samples of source row y summed over the taps tx (columns) from 0 in
// tx's order, as sample_inputs sums a row. A word holding several
// components is read once per tap (the same bytes as one read per
// component). Word: w.word where known at compile time (-1: not); with
// `members` a constant too, a tap is its loads and sums. N > 0: N taps
// per line (TapsOf), unrolled.
template <int IB, int Word, int N>
GCS_HD void
row_sum (const ConvertScale & op, int g, unsigned members, const TapsOf<N> & tx, int y,
    float row[4])
{
  const Image & im = op.in;
  const ConvertScale::Words & w = op.in_words[g];
  const int word = Word >= 0 ? Word : w.word;
  const int nx = N > 0 ? N : tx.n;
  GCS_UNROLL
  for (int c = 0; c < 4; c++)
    row[c] = 0.0f;
  GCS_UNROLL_BY (N > 0 ? N : 1)
  for (int b = 0; b < nx; b++) {
    const float wx = tx.w[b];
    if (word) {
      const unsigned v = two_tap::load_word<IB> (w, word, tx.i[b], y);
      GCS_UNROLL
      for (int c = 0; c < 4; c++)
        if ((members >> c) & 1u)
          row[c] = pixels::mad (wx, two_tap::from_word<IB> (im, v, c), row[c]);
    } else {
      GCS_UNROLL
      for (int c = 0; c < 4; c++)
        if ((members >> c) & 1u)
          row[c] =
              pixels::mad (wx, pixels::load<IB> (im, im.comp[c], tx.i[b], y), row[c]);
    }
  }
}

// in[c] for the input components `members` of resolution g, summed over
// the taps tx (columns) and ty (rows) of their plane as sample_inputs sums
// them: each row as row_sum sums it, the rows from 0 in ty's order.
template <int IB, int Word, int N>
GCS_HD void
sample (const ConvertScale & op, int g, unsigned members, const TapsOf<N> & tx,
    const TapsOf<N> & ty, float in[4])
{
  float sum[4] = { 0.0f, 0.0f, 0.0f, 0.0f };
  const int ny = N > 0 ? N : ty.n;
  GCS_UNROLL_BY (N > 0 ? N : 1)
  for (int a = 0; a < ny; a++) {
    float row[4];
    row_sum<IB, Word, N> (op, g, members, tx, ty.i[a], row);
    const float wy = ty.w[a];
    GCS_UNROLL
    for (int c = 0; c < 4; c++)
      if ((members >> c) & 1u)
        sum[c] = pixels::mad (wy, row[c], sum[c]);
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

// The taps per line (TapsOf) of F's tiles, whatever the sample size:
// bicubic's lines have 4 taps or 1, padded to 4 and unrolled (8-bit
// samples 1.2 to 1.7 times faster; 16-bit ones 1.1 to 1.7 times on an
// H200, 2026-12-04: P010 4K -> 1080p RGBA 43.9 -> 36.1 us, P016 1080p ->
// 720p 20.9 -> 12.5); else any number: area padded to 4 taps reads more
// than it sums where it shrinks by 2 or 3 (2 or 3 taps a line; up to
// twice as slow).
template <Filter F> constexpr int kLineTaps = F == Filter::BICUBIC ? 4 : 0;

// ---- Row sums: the tile's sums along the source's x, once each ----
// A pixel's sample sums, for each source row of its taps, that row's
// samples over the taps of its column (row_sum), then those sums over the
// taps of its row. The pixels of one output column read the same source
// rows through the same column taps, so a tile computes each (source row,
// column) sum once, into shared memory, and its pixels then only sum
// them down: the same products and sums in the same order, the same bits.
// Where the axes swap, the lines whose taps run along the source's x are
// the tile's rows: "across" lines below are columns, or rows where turned;
// "along" lines the others, whose taps pick the source rows.

// Where a tile's row sums lie in its table of `capacity` floats:
// resolution g's entry for source row y_lo[g] + r and across line a,
// component c of members[g], at base[g] + (r * n_across + a) * slots[g]
// + (the members below c). fits: the table holds them (else the tile
// sums every pixel's taps, sample).
struct RowSums {
  int y_lo[2], n_y[2], slots[2], base[2];
  unsigned members[2];
  int n_across;
  bool fits;
};

// The source rows `t`'s taps read: *lo and *hi extended to them.
template <int N>
GCS_HD void
extend_span (const TapsOf<N> & t, int * lo, int * hi)
{
  const int n = N > 0 ? N : t.n;
  for (int k = 0; k < n; k++) {
    *lo = t.i[k] < *lo ? t.i[k] : *lo;
    *hi = t.i[k] > *hi ? t.i[k] : *hi;
  }
}

GCS_HD int
popcount4 (unsigned m)
{
  return (int)(m & 1u) + (int)((m >> 1) & 1u) + (int)((m >> 2) & 1u) +
         (int)((m >> 3) & 1u);
}

// The table of a tile whose along lines read source rows span[g][0] to
// span[g][1] at resolution g (Members: the kernel's, dispatch_members).
template <class Members>
GCS_HD RowSums
row_sums (const ConvertScale & op, const two_tap::TileLines & l, bool swap,
    const int (&span)[2][2], int capacity)
{
  RowSums r{};
  r.n_across = swap ? l.nrows : l.ncols;
  int used = 0;
  for (int g = 0; g < 2; g++) {
    r.members[g] = Members::of (op, g, op.inputs_all);
    r.slots[g] = popcount4 (r.members[g]);
    r.y_lo[g] = span[g][0];
    r.n_y[g] = r.slots[g] ? span[g][1] - span[g][0] + 1 : 0;
    r.base[g] = used;
    used += r.n_y[g] * r.n_across * r.slots[g];
  }
  r.fits = used <= capacity;
  return r;
}

// How many floats the table of a tile of `rows` rows of blocks may need
// (the launch's capacity): its along lines read about scale source rows
// each, plus a footprint at the ends. An estimate: a tile whose table is
// larger (row_sums's fits) sums every pixel's taps instead.
template <class Members>
inline int
table_estimate (const ConvertScale & op, int rows)
{
  const bool swap = pixels::rotates (op.orientation);
  const two_tap::TileLines l = two_tap::tile_lines (op, 0, 0, rows);
  const int n_across = swap ? l.nrows : l.ncols, n_along = swap ? l.ncols : l.nrows;
  const float scale = op.scale_x > op.scale_y ? op.scale_x : op.scale_y;
  int floats = 0;
  for (int g = 0; g < 2; g++) {
    const int slots = popcount4 (Members::of (op, g, op.inputs_all));
    const int sub =
        g == 0 ? 0 : (op.sub_log2_x < op.sub_log2_y ? op.sub_log2_x : op.sub_log2_y);
    const int n_y =
        (int)std::ceil ((float)n_along * scale / (float)(1 << sub)) + kMaxTaps + 2;
    floats += slots * n_y * n_across;
  }
  return floats;
}

// The most bytes of row sums a CUDA block of TileOf<N> keeps: the rest of
// the 48 KiB a block may have without asking for more.
template <int N> constexpr int kMostTableBytes = 48 * 1024 - (int)sizeof (TileOf<N>) - 64;

// Whether row sums pay: bicubic where a tile's along lines read at most
// about 1.5 source rows each. A (row, line) sum costs more than one tap
// of a pixel's own: on an H200 (2026-11-30, best of 3 alternating rounds,
// kernels compiled for the conversion) bicubic RGBA 1080p up 1.5 times
// took 40.1 us from row sums against 75.4 from every pixel's taps, but 4K
// NV12 down 2 times to RGBA 37.9 against 34.4, and area down 2 and 3
// times 1.3 to 1.5 times as long.
inline bool
sums_pay (const ConvertScale & op)
{
  const float scale = op.scale_x > op.scale_y ? op.scale_x : op.scale_y;
  return op.filter == Filter::BICUBIC && scale <= 1.5f;
}

// The rows of blocks of op's tiles (at most tile_rows's) and the floats of
// their tables: the most rows whose estimate fits, at least kTileY; no
// table (capacity 0) where sums do not pay.
template <class Members, int N>
inline void
table_rows (const ConvertScale & op, int nbx, int nby, int * rows, int * capacity)
{
  int r = tile_rows (nbx, nby);
  if (!sums_pay (op)) {
    *rows = r;
    *capacity = 0;
    return;
  }
  constexpr int most = kMostTableBytes<N> / (int)sizeof (float);
  while (r > two_tap::kTileY && table_estimate<Members> (op, r) > most)
    r /= 2;
  const int e = table_estimate<Members> (op, r);
  *rows = r;
  *capacity = e < most ? e : most;
}

// Fills the table: entries (source row y_lo[g] + row, across line a),
// each the sum of that row over a's taps for each of members[g]. Thread
// `thread` of `threads` fills its share (the CUDA block's threads share
// them out; the twin: one thread, every entry). A thread keeps one across
// line and walks down its rows where the block has a thread for each line
// (on the GPU): the line's taps and their offsets are loaded once, not
// once an entry, which was a fifth of an entry's instructions. Each entry
// is row_sum's whoever computes it: the same bits in any share.
template <int IB, class Members, int N>
GCS_HD void
fill_row_sums (const ConvertScale & op, const TileOf<N> & t, bool swap, const RowSums & r,
    float * table, int thread, int threads)
{
  const int n = r.n_across;
  /* groups threads a line (the rest of the block idle), or, with fewer
   * threads than lines, every threads-th line from thread's own. */
  const int groups = threads >= n ? threads / n : 1;
  const int first_row = thread / n;
  const int line_step = threads >= n ? n : threads;
  if (first_row >= groups)
    return;
  auto fill = [&] (auto gc) {
    constexpr int g = decltype (gc)::value;
    if (!r.slots[g])
      return;
    for (int a = thread % n; a < n; a += line_step) {
      const TapsOf<N> & shared_taps = swap ? t.rows[g][a] : t.cols[g][a];
      auto rows = [&] (const TapsOf<N> & tx) {
        for (int row = first_row; row < r.n_y[g]; row += groups) {
          float sum[4];
          row_sum<IB, Members::word (g), N> (
              op, g, r.members[g], tx, r.y_lo[g] + row, sum);
          float * out = table + r.base[g] + (row * n + a) * r.slots[g];
          int s = 0;
          GCS_UNROLL
          for (int c = 0; c < 4; c++)
            if ((r.members[g] >> c) & 1u)
              out[s++] = sum[c];
        }
      };
      /* A copy in registers where the taps' count is known at compile
       * time (their loops unrolled); else in place (indexed by a count
       * known at run time, a copy would live in local memory). */
      if constexpr (N > 0) {
        const TapsOf<N> tx = shared_taps;
        rows (tx);
      } else {
        rows (shared_taps);
      }
    }
  };
  fill (std::integral_constant<int, 0>{});
  fill (std::integral_constant<int, 1>{});
}

// Writes output block (bx, by) of the tile `t` (filled) from its table of
// row sums (filled) as write_block writes it.
template <Filter F, int IB, int OB, class Members, int N>
GCS_HD void
write_block_from_sums (const ConvertScale & op, const two_tap::TileLines & l,
    const TileOf<N> & t, const RowSums & r, const float * table, int bx, int by)
{
  const bool swap = pixels::rotates (op.orientation);
  auto pixel = [&] (int x, int y, unsigned need) {
    const int ci = x - l.x_first, ri = y - l.y_first;
    if (!t.col_in[ci] || !t.row_in[ri])
      return pixels::border_pixel (op);
    float in[4] = { 0.0f, 0.0f, 0.0f, (float)op.in.max_code };
    const int a = swap ? ri : ci;
    auto resolution = [&] (auto gc) {
      constexpr int g = decltype (gc)::value;
      const unsigned members = Members::of (op, g, need);
      if (!members)
        return;
      const TapsOf<N> & ty = swap ? t.cols[g][ci] : t.rows[g][ri];
      const float * column = table + r.base[g] + a * r.slots[g];
      const int pitch = r.n_across * r.slots[g];
      float sum[4] = { 0.0f, 0.0f, 0.0f, 0.0f };
      const int ny = N > 0 ? N : ty.n;
      GCS_UNROLL_BY (N > 0 ? N : 1)
      for (int k = 0; k < ny; k++) {
        const float wy = ty.w[k];
        const float * e = column + (ty.i[k] - r.y_lo[g]) * pitch;
        int s = 0;
        GCS_UNROLL
        for (int c = 0; c < 4; c++)
          if ((r.members[g] >> c) & 1u) {
            if ((members >> c) & 1u)
              sum[c] = pixels::mad (wy, e[s], sum[c]);
            s++;
          }
      }
      GCS_UNROLL
      for (int c = 0; c < 4; c++)
        if ((members >> c) & 1u)
          in[c] = sum[c];
    };
    resolution (std::integral_constant<int, 0>{});
    resolution (std::integral_constant<int, 1>{});
    return pixels::to_output (op, in);
  };
  auto direct = [&] (
                    int x0, int y0) { return pixels::direct_chroma<F, IB> (op, x0, y0); };
  pixels::write_block_with<F, IB, OB> (op, bx, by, pixel, direct);
}

} // namespace gst_cs::gpu::tap_tile

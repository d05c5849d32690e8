/* SPDX-License-Identifier: LGPL-2.1-or-later */
// The GPU's fast path for the filters that read at most two samples per
// axis (nearest, bilinear, and area where it does not shrink): the taps of
// an output column depend on the column only, those of a row on the row
// only, so a kernel computes them once per column and row of its tile
// instead of once per pixel, and reads each resolution's components with
// one load per sample where they share a word (RGBA, NV12's UV).
//
// It computes what pixel_at computes, to the bit: mad (w1, b, w0*a) is
// what sample_inputs accumulates from 0 over one or two taps (mad (w, a,
// 0) is w*a, and mad (0, b, x) is x, for the non-negative codes and
// weights here). The GPU tests compare
// its frames with the CPU twin (convert_scale_pixels.h), which does not use
// it.
#pragma once

#include "convert_scale_pixels.h"

namespace gst_cs::gpu::two_tap {

// Samples i0 and i1 of one axis with their weights (w1 = 0, i1 = i0 where
// one sample is read).
struct TwoTaps {
  int i0, i1;
  float w0, w1;
  /* What a tile keeps of taps t (TileOf): t itself. */
  static GCS_HD TwoTaps of (const ConvertScale &, int, bool, const TwoTaps & t)
  {
    return t;
  }
};

// Whether `op` (resolved) can take this path.
inline bool
applies (const ConvertScale & op)
{
  return op.filter == Filter::NEAREST || op.filter == Filter::BILINEAR ||
         (op.filter == Filter::AREA && op.scale_x <= 1.0f && op.scale_y <= 1.0f);
}

// taps<F> at plane position p, as two taps (F: NEAREST or BILINEAR; AREA
// that does not shrink is BILINEAR there).
template <Filter F>
GCS_HD TwoTaps
two_taps (float p, int lo, int hi)
{
  if (F == Filter::NEAREST) {
    const int i = pixels::clampi ((int)floorf (p + 0.5f), lo, hi);
    return TwoTaps{ i, i, 1.0f, 0.0f };
  }
  const float f = floorf (p);
  const int i = (int)f;
  const float t = p - f;
  if (t == 0.0f) {
    const int c = pixels::clampi (i, lo, hi);
    return TwoTaps{ c, c, 1.0f, 0.0f };
  }
  return TwoTaps{ pixels::clampi (i, lo, hi), pixels::clampi (i + 1, lo, hi), 1.0f - t,
    t };
}

// Where position d of the output's picture along one output axis
// (vertical: its y; d from the picture's corner, whole or half: a chroma
// sample between two pixels) comes from: the source axis it runs along
// (source_y; the orientation may swap the axes), the luma position s on
// it and the source pixels per output pixel there, as source_position
// computes them (the same float operations).
struct LineSource {
  bool source_y;
  float s, scale;
};

GCS_HD LineSource
line_source (const ConvertScale & op, bool vertical, float d)
{
  const bool swap = pixels::rotates (op.orientation);
  const int extent = vertical ? op.dst_h : op.dst_w;
  const Orientation r = op.orientation;
  const bool reversed =
      vertical
          ? (swap ? (r == Orientation::ROTATE_90L || r == Orientation::ANTI_TRANSPOSE)
                  : (r == Orientation::ROTATE_180 || r == Orientation::FLIP_V))
          : (swap ? (r == Orientation::ROTATE_90R || r == Orientation::ANTI_TRANSPOSE)
                  : (r == Orientation::ROTATE_180 || r == Orientation::FLIP_H));
  const bool source_y = vertical != swap;
  /* The picture coordinate (before orientation): whole and half numbers,
   * exact in any order. */
  const float c = reversed ? (float)extent - 1 - d : d;
  const int src = source_y ? op.src_y : op.src_x;
  const float scale = source_y ? op.scale_y : op.scale_x;
  return LineSource{ source_y, (float)src + (c + 0.5f) * scale - 0.5f, scale };
}

// The taps, in the input plane of resolution g (0: full, 1: chroma), of
// output column (vertical = false) or row `o`, and whether it lies in the
// picture (else border). An output column maps to a source column, or to
// a source row where the orientation swaps the axes (pixel_at).
template <Filter F>
GCS_HD TwoTaps
output_line_taps (const ConvertScale & op, int g, bool vertical, int o, bool * inside)
{
  const int d = vertical ? o - op.dst_y : o - op.dst_x;
  *inside = d >= 0 && d < (vertical ? op.dst_h : op.dst_w);
  const LineSource l = line_source (op, vertical, (float)d);
  /* As sample_inputs places it. */
  const pixels::PlanePosition p = pixels::plane_position (op, g, l.source_y, l.s);
  return two_taps<F> (p.p, p.lo, p.hi);
}

// Component c of a word of `bytes`-byte samples, at its offset; IB 0:
// of a pixel's one little-endian word whose bit fields its components are
// (RGB10A2_LE, Y410 ...: one_sample::word_fields), at its shift. (Building
// a middle byte's float by a byte permute, 2^23 + v less 2^23, two
// instructions where these are three, measured within 2 % on an H200:
// docs/cudaconvertscale.md, "Tried, not kept".)
template <int IB>
GCS_HD float
from_word (const Image & im, unsigned word, int c)
{
  const Component & k = im.comp[c];
  if constexpr (IB == 0)
    return (float)((word >> k.shift) & (unsigned)k.max_code);
  const unsigned v = (word >> (8 * k.offset)) & (IB == 1 ? 0xffu : 0xffffu);
  return (float)(IB == 1 ? v : v >> im.shift); /* 1-byte samples have no shift */
}

// The word of sample (x, y) of `w`, of `word` bytes (w.word, or the same
// known at compile time).
template <int IB>
GCS_HD unsigned
load_word (const ConvertScale::Words & w, int word, int x, int y)
{
  return pixels::load_aligned_word (
      w.base + pixels::sample_offset (w.pitch, word, x, y), word);
}

template <int IB>
GCS_HD unsigned
load_word (const ConvertScale::Words & w, int x, int y)
{
  return load_word<IB> (w, w.word, x, y);
}

// in[c] for the input components `members` that word `a` holds.
template <int IB>
GCS_HD void
unpack (const Image & im, unsigned a, unsigned members, float in[4])
{
  /* Selects rather than branches: extracting a component is cheap. */
  GCS_UNROLL
  for (int k = 0; k < 4; k++) {
    const float v = from_word<IB> (im, a, k);
    in[k] = ((members >> k) & 1u) ? v : in[k];
  }
}

// The input components that the pixels of a kernel instance read at
// resolution g (0: full, 1: chroma) out of those they `need`, and the
// size of the word they are read as (word (g); -1: op.in_words[g].word):
// looked up at run time ...
struct AnyMembers {
  static constexpr bool kFixed = false;
  static GCS_HD unsigned of (const ConvertScale & op, int g, unsigned need)
  {
    return need & (g == 0 ? op.in_full : op.in_sub);
  }
  static constexpr GCS_HD int word (int) { return -1; }
};

// ... or fixed, Full and Sub and chroma words of SubWord bytes (-1: any),
// for the frames whose output has no subsampled chroma, so that every
// pixel needs op.inputs_all. Constants let the compiler drop the
// components a frame lacks, their branches and the loads of the other
// word size.
template <unsigned Full, unsigned Sub, int SubWord = -1> struct FixedMembers {
  static constexpr bool kFixed = true;
  static GCS_HD unsigned of (const ConvertScale &, int g, unsigned)
  {
    return g == 0 ? Full : Sub;
  }
  /* One full-resolution component is never read as a word (words_of). */
  static constexpr GCS_HD int word (int g)
  {
    return g == 0 ? ((Full & (Full - 1)) ? -1 : 0) : SubWord;
  }
  static bool matches (const ConvertScale & op)
  {
    const Image & o = op.out;
    return !(o.yuv && (o.comp[1].log2_x | o.comp[1].log2_y)) &&
           (op.inputs_all & op.in_full) == Full && (op.inputs_all & op.in_sub) == Sub &&
           (SubWord < 0 || op.in_words[1].word == SubWord);
  }
};

// ... or, for write_block, the luma alone: frames whose output chroma
// comes from the input's chroma alone, once per block (op.chroma_direct,
// op.chroma_resampled), and whose luma reads the input's luma alone, its
// only full-resolution component (NV12, I420, P010 ... to NV12, I420 ...
// of the same colours). write_block asks its pixels for op.inputs_luma
// only, which then holds Y (and alpha, which such inputs lack): Y is
// AnyMembers' need & op.in_full, known to be one component read alone.
struct LumaMembers {
  static constexpr bool kFixed = false;
  static GCS_HD unsigned of (const ConvertScale &, int g, unsigned)
  {
    return g == 0 ? 1u : 0u;
  }
  static constexpr GCS_HD int word (int) { return 0; }
  static bool matches (const ConvertScale & op)
  {
    const Component & c = op.out.comp[1];
    return (op.chroma_direct || op.chroma_resampled) && op.out.yuv &&
           (c.log2_x | c.log2_y) != 0 && op.in_full == 1u &&
           (op.inputs_luma & op.in_full) == 1u && (op.inputs_luma & op.in_sub) == 0;
  }
};

// ... or, for write_block, packed RGB in 4-byte words (RGBA, BGRx ...)
// into an output whose chroma is subsampled (NV12, I420 ...): every pixel
// then needs op.inputs_all, which is Full, all at full resolution, and its
// chroma is filtered down from full-resolution pixels (downsample_chroma).
template <unsigned Full> struct PackedRgbMembers {
  static constexpr bool kFixed = false;
  static GCS_HD unsigned of (const ConvertScale &, int g, unsigned)
  {
    return g == 0 ? Full : 0u;
  }
  static constexpr GCS_HD int word (int g) { return g == 0 ? 4 : 0; }
  static bool matches (const ConvertScale & op)
  {
    const Component & c = op.out.comp[1];
    return op.out.yuv && (c.log2_x | c.log2_y) != 0 && !op.chroma_direct &&
           !op.chroma_resampled && op.in_sub == 0 && op.in_full == Full &&
           (op.inputs_all & Full) == Full && op.in_words[0].word == 4;
  }
};

// Where sample reads the input: the samples of resolution g of op's input
// in global memory, by component (load) or by word (word). Another source
// (planes::StagedSource: a copy in shared memory) gives the same values.
template <int IB> struct GlobalSource {
  const Image & im;
  const ConvertScale::Words & w;
  GCS_HD float load (int k, int x, int y) const
  {
    return pixels::load<IB> (im, im.comp[k], x, y);
  }
  GCS_HD unsigned word (int bytes, int x, int y) const
  {
    return load_word<IB> (w, bytes, x, y);
  }
};

// in[c] for the input components `members`, read from `src` (a source as
// GlobalSource), bilinearly weighted between the taps tx (columns) and ty
// (rows) of their plane; `word`: the bytes of the words that hold them
// (0: each component read alone). Where a weight is 0 it reads less;
// Uniform: the same four reads for every pixel (the sums are the same:
// w0*a + 0*b is w0*a), no branches.
template <int IB, bool Uniform, class Source>
GCS_HD void
sample_from (const Image & im, const Source & src, int word, unsigned members,
    const TwoTaps & tx, const TwoTaps & ty, float in[4])
{
  if (!Uniform && tx.w1 == 0.0f && ty.w1 == 0.0f) {
    /* One sample (no scaling, nearest, or on a sample): 1*a + 0*b is a.
     * Whole warps take this branch where it applies at all. */
    if (word) {
      unpack<IB> (im, src.word (word, tx.i0, ty.i0), members, in);
    } else {
      GCS_UNROLL
      for (int k = 0; k < 4; k++)
        if ((members >> k) & 1u)
          in[k] = src.load (k, tx.i0, ty.i0);
    }
    return;
  }
  if (!Uniform && ty.w1 == 0.0f) {
    /* One row: the other, of weight 0, would add 0 * r, and r + 0 is r. */
    if (word) {
      const unsigned a = src.word (word, tx.i0, ty.i0), b = src.word (word, tx.i1, ty.i0);
      GCS_UNROLL
      for (int k = 0; k < 4; k++)
        if ((members >> k) & 1u)
          in[k] = pixels::mad (
              tx.w1, from_word<IB> (im, b, k), tx.w0 * from_word<IB> (im, a, k));
    } else {
      GCS_UNROLL
      for (int k = 0; k < 4; k++)
        if ((members >> k) & 1u)
          in[k] = pixels::mad (
              tx.w1, src.load (k, tx.i1, ty.i0), tx.w0 * src.load (k, tx.i0, ty.i0));
    }
    return;
  }
  if (word) {
    const unsigned a = src.word (word, tx.i0, ty.i0), b = src.word (word, tx.i1, ty.i0);
    const unsigned c = src.word (word, tx.i0, ty.i1), d = src.word (word, tx.i1, ty.i1);
    GCS_UNROLL
    for (int k = 0; k < 4; k++)
      if ((members >> k) & 1u) {
        const float r0 = pixels::mad (
            tx.w1, from_word<IB> (im, b, k), tx.w0 * from_word<IB> (im, a, k));
        const float r1 = pixels::mad (
            tx.w1, from_word<IB> (im, d, k), tx.w0 * from_word<IB> (im, c, k));
        in[k] = pixels::mad (ty.w1, r1, ty.w0 * r0);
      }
  } else {
    GCS_UNROLL
    for (int k = 0; k < 4; k++)
      if ((members >> k) & 1u) {
        const float r0 = pixels::mad (
            tx.w1, src.load (k, tx.i1, ty.i0), tx.w0 * src.load (k, tx.i0, ty.i0));
        const float r1 = pixels::mad (
            tx.w1, src.load (k, tx.i1, ty.i1), tx.w0 * src.load (k, tx.i0, ty.i1));
        in[k] = pixels::mad (ty.w1, r1, ty.w0 * r0);
      }
  }
}

// sample_from the input of op in global memory, resolution g (0: full,
// 1: chroma). Word: w.word where known at compile time (-1: not).
template <int IB, bool Uniform = false, int Word = -1>
GCS_HD void
sample (const ConvertScale & op, int g, unsigned members, const TwoTaps & tx,
    const TwoTaps & ty, float in[4])
{
  const ConvertScale::Words & w = op.in_words[g];
  sample_from<IB, Uniform> (op.in, GlobalSource<IB>{ op.in, w },
      Word >= 0 ? Word : w.word, members, tx, ty, in);
}

// direct_chroma of the output block at (x0, y0) where the output's chroma
// reads only the input's chroma: one chroma sample, on it (t = 0 on both
// axes: the block's corner is on the chroma grid), is the sample itself.
template <int IB>
GCS_HD pixels::Pixel
chroma_sample (const ConvertScale & op, int x0, int y0)
{
  const int x = (op.src_x + x0) >> op.sub_log2_x, y = (op.src_y + y0) >> op.sub_log2_y;
  float in[4] = { 0.0f, 0.0f, 0.0f, (float)op.in.max_code };
  sample<IB> (op, 1, op.inputs_chroma, TwoTaps{ x, x, 1.0f, 0.0f },
      TwoTaps{ y, y, 1.0f, 0.0f }, in);
  return pixels::to_output (op, in);
}

// A tile of kTileX columns of output blocks and `rows` rows of them: the
// taps of its columns and rows, with one line more to the left and above
// for the chroma filter of subsampled outputs (downsample_chroma reads the
// pixels around a block). A CUDA block of kTileX x kTileY threads writes
// it, each thread rows / kTileY blocks of a column: the more rows a tile
// has, the fewer taps per pixel its threads compute, and the fewer times
// a thread's setup is paid (with 32 rows a quarter of the 4K -> 1080p
// kernel's instructions went to the tiles' taps and the threads' setup).
constexpr int kTileX = 32, kTileY = 8, kMaxTileRows = 8 * kTileY;

// Taps: TwoTaps, or what another arithmetic keeps of them (Taps::of (op,
// resolution, along the source's y axis, two_taps)), or tap_tile's taps;
// MaxRows: the most rows of blocks a tile has.
template <class Taps, int MaxRows = kMaxTileRows> struct TileOf {
  static constexpr int kCols = 2 * kTileX + 1, kRows = 2 * MaxRows + 1;
  Taps cols[2][kCols], rows[2][kRows]; // [resolution][line]
  bool col_in[kCols], row_in[kRows];   // in the picture (else border)
};

using Tile = TileOf<TwoTaps>;

// How many rows of blocks a tile gets for an output of nbx x nby blocks.
// write_block (AnyMembers, LumaMembers) and write_column across swapped
// axes: as many as keep every SM's threads busy (about 270,000 threads on
// an H100) with one block each, at most 32. write_column along the axes
// (`tall`): twice as many while that leaves at least kMinTiles tiles, at
// most kMaxTileRows. Measured on an H200 (2026-11-26), the tall rule: 4K ->
// 1080p RGBA takes 64 rows (1,020 tiles), 15.6 us a frame against 16.2
// with 32 (128 rows: 16.7); the letterbox row's 640x640 takes 32 (400
// tiles), 5.4 us against 6.5 with 8. Applied to every two-tap frame it
// made 4K -> 1080p NV12 (write_block, its chroma then filtered down from
// full-resolution pixels) 39.5 -> 59.5 us and a turned
// 1080p NV12 -> 720x1280 RGBA 33.5 -> 34.6 us, hence two rules. `frames`:
// how many frames of that size one grid writes (batch_convert's), whose
// tiles count together: the more rows, the fewer times a tile's taps and a
// thread's setup are paid. `most`: the most rows the caller's tile holds
// (a power of two, at least kTileY).
inline int
tile_rows (int nbx, int nby, bool tall, int frames = 1, int most = kMaxTileRows)
{
  int rows = kTileY;
  if (!tall) {
    const long long blocks = (long long)nbx * nby;
    constexpr long long kBusyThreads = 300000;
    while (rows < 4 * kTileY && rows < most && blocks >= 2 * rows / kTileY * kBusyThreads)
      rows *= 2;
    return rows;
  }
  constexpr long long kMinTiles = 256;
  const long long columns = (long long)frames * ((nbx + kTileX - 1) / kTileX);
  while (rows < most && columns * ((nby + 2 * rows - 1) / (2 * rows)) >= kMinTiles)
    rows *= 2;
  return rows;
}

// Whether a two-tap frame of Members takes tall tiles (tile_rows): those
// that write_column writes along the axes.
template <class Members>
inline bool
tall_tiles (const ConvertScale & op)
{
  return Members::kFixed && !pixels::rotates (op.orientation);
}

// The tile (tx, ty)'s first output column and row (the extra line) and
// how many it has.
struct TileLines {
  int x_first, y_first, ncols, nrows;
};

GCS_HD TileLines
tile_lines (const ConvertScale & op, int tx, int ty, int rows)
{
  const Image & o = op.out;
  const int lx = o.yuv ? o.comp[1].log2_x : 0, ly = o.yuv ? o.comp[1].log2_y : 0;
  return TileLines{ ((tx * kTileX) << lx) - 1, ((ty * rows) << ly) - 1,
    (kTileX << lx) + 1, (rows << ly) + 1 };
}

// How many entries fill_entry fills.
GCS_HD int
tile_entries (const TileLines & l)
{
  return 2 * (l.ncols + l.nrows);
}

// Fills entry k (0 <= k < tile_entries) of the tile `t` with what
// line_taps (g, vertical, o, &inside) gives for output column (vertical =
// false) or row o at resolution g: the threads of a CUDA block share the
// entries out. Both tiled families fill their tiles so.
template <class Tile, class LineTaps>
GCS_HD void
fill_entry_with (const TileLines & l, Tile & t, int k, LineTaps line_taps)
{
  const int g = k & 1, e = k >> 1;
  bool inside;
  if (e < l.ncols) {
    t.cols[g][e] = line_taps (g, false, l.x_first + e, &inside);
    if (g == 0)
      t.col_in[e] = inside;
  } else {
    const int r = e - l.ncols;
    t.rows[g][r] = line_taps (g, true, l.y_first + r, &inside);
    if (g == 0)
      t.row_in[r] = inside;
  }
}

// fill_entry_with the two taps of F, as Taps keeps them.
template <Filter F, class Taps>
GCS_HD void
fill_entry (const ConvertScale & op, const TileLines & l, TileOf<Taps> & t, int k)
{
  /* A column runs along the source's y axis where the axes swap. */
  const bool swap = pixels::rotates (op.orientation);
  fill_entry_with (l, t, k, [&] (int g, bool vertical, int o, bool * inside) {
    return Taps::of (
        op, g, vertical != swap, output_line_taps<F> (op, g, vertical, o, inside));
  });
}

// Output pixel (x, y) of the tile `t` (filled), as pixel_at computes it
// where it reads the input components `need`: Members picks those of each
// resolution, and sample (gc, members, tx, ty, in) sums them over the
// taps of resolution gc (a std::integral_constant) into in[]. Swap:
// pixels::rotates (op.orientation), by reference as the lambdas that this
// replaced captured it (by value, nvcc scheduled two of two_tap's kernels
// otherwise: their PTX was no longer the same). Both tiled families'
// write_block.
template <class Members, class Tile, class Sample>
GCS_HD pixels::Pixel
tile_pixel (const ConvertScale & op, const TileLines & l, const Tile & t,
    const bool & swap, int x, int y, unsigned need, Sample sample)
{
  const int ci = x - l.x_first, ri = y - l.y_first;
  if (!t.col_in[ci] || !t.row_in[ri])
    return pixels::border_pixel (op);
  float in[4] = { 0.0f, 0.0f, 0.0f, (float)op.in.max_code };
  auto resolution = [&] (auto gc) {
    constexpr int g = decltype (gc)::value;
    const unsigned members = Members::of (op, g, need);
    if (members) {
      /* Shared memory on the GPU: choosing a reference costs nothing. */
      const auto &c = t.cols[g][ci], &r = t.rows[g][ri];
      sample (gc, members, swap ? r : c, swap ? c : r, in);
    }
  };
  resolution (std::integral_constant<int, 0>{});
  resolution (std::integral_constant<int, 1>{});
  return pixels::to_output (op, in);
}

// Writes output block (bx, by) of the tile `t` (filled) as
// pixels::write_block does (AnyMembers or LumaMembers; FixedMembers:
// write_column).
template <Filter F, int IB, int OB, class Members = AnyMembers>
GCS_HD void
write_block (const ConvertScale & op, const TileLines & l, const Tile & t, int bx, int by)
{
  const bool swap = pixels::rotates (op.orientation);
  auto pixel = [&] (int x, int y, unsigned need) {
    return tile_pixel<Members> (op, l, t, swap, x, y, need,
        [&] (auto gc, unsigned members, const TwoTaps & tx, const TwoTaps & ty,
            float in[4]) {
          constexpr int g = decltype (gc)::value;
          sample<IB, false, Members::word (g)> (op, g, members, tx, ty, in);
        });
  };
  auto direct = [&] (int x0, int y0) {
    if (op.inputs_chroma & ~op.in_sub)
      return pixels::direct_chroma<F, IB> (op, x0, y0);
    return chroma_sample<IB> (op, x0, y0);
  };
  pixels::write_block_with<F, IB, OB> (op, bx, by, pixel, direct);
}

// Writes the pixels (x, y), y = y_first, y_first + y_step ... < y_end, of
// the tile `t` (filled), as pixels::write_block does, for a FixedMembers
// instance (a block is a pixel), not turned (turned: write_turned_row).
// The column's taps are read once for all its rows.
template <int IB, int OB, class Members>
GCS_HD void
write_column (const ConvertScale & op, const TileLines & l, const Tile & t, int x,
    int y_first, int y_end, int y_step)
{
  static_assert (Members::kFixed, "a fixed set of input components");
  if (x >= op.out.width)
    return;
  const int ci = x - l.x_first;
  const bool column_in = t.col_in[ci];
  const TwoTaps column[2] = { t.cols[0][ci], t.cols[1][ci] };
  if (y_end > op.out.height)
    y_end = op.out.height;
  /* Full resolution at scale 1 (a format conversion that resamples
   * chroma alone): every position is on a sample (w1 = 0), whose one read
   * is what the four give (w0 = 1), so the branches of a frame that never
   * takes another are taken. Decided once, not per pixel. */
  const bool unscaled = op.scale_x == 1.0f && op.scale_y == 1.0f;
  /* Nearest: every tap is one sample (w1 = 0) at both resolutions. */
  const bool nearest = op.filter == Filter::NEAREST;
  GCS_NO_UNROLL
  for (int y = y_first; y < y_end; y += y_step) {
    const int ri = y - l.y_first;
    if (!column_in || !t.row_in[ri]) {
      pixels::store_pixel<OB> (op, x, y, pixels::border_pixel (op), false);
      continue;
    }
    float in[4] = { 0.0f, 0.0f, 0.0f, (float)op.in.max_code };
    auto resolution = [&] (auto gc) {
      constexpr int g = decltype (gc)::value;
      const unsigned members = Members::of (op, g, op.inputs_all);
      if (members) {
        const TwoTaps &c = column[g], &r = t.rows[g][ri];
        if ((g == 0 && unscaled) || nearest)
          sample<IB, false, Members::word (g)> (op, g, members, c, r, in);
        else
          sample<IB, true, Members::word (g)> (op, g, members, c, r, in);
      }
    };
    resolution (std::integral_constant<int, 0>{});
    resolution (std::integral_constant<int, 1>{});
    pixels::store_pixel<OB> (op, x, y, pixels::to_output (op, in), false);
  }
}

// Computes the pixels (x, y), x = x_first, x_first + x_step ... < x_end,
// of the turned tile `t` (filled for fixed_point::turned_tile_lines) for
// a FixedMembers instance, turned (pixels::rotates), and gives each to
// out (x, pixel). An output row runs along a source row:
// the row's taps are the thread's, and the threads of a warp, on
// neighbouring output rows, read neighbouring samples of the same source
// rows (on an output column, write_column's, they read one sample of 32
// source rows a load). The pixel is write_column's with the taps' axes
// swapped, written out again: through a shared helper nvcc compiled the
// column kernels differently (up to 16 instructions longer each, sm_90,
// CUDA 13.0), and their times are the measured ones.
template <int IB, class Members, class Out>
GCS_HD void
write_turned_row (const ConvertScale & op, const TileLines & l, const Tile & t, int y,
    int x_first, int x_end, int x_step, Out out)
{
  static_assert (Members::kFixed, "a fixed set of input components");
  if (y >= op.out.height)
    return;
  const int ri = y - l.y_first;
  const bool row_in = t.row_in[ri];
  const TwoTaps row[2] = { t.rows[0][ri], t.rows[1][ri] };
  if (x_end > op.out.width)
    x_end = op.out.width;
  /* As write_column: one read a tap where every tap is one sample. */
  const bool unscaled = op.scale_x == 1.0f && op.scale_y == 1.0f;
  const bool nearest = op.filter == Filter::NEAREST;
  GCS_NO_UNROLL
  for (int x = x_first; x < x_end; x += x_step) {
    const int ci = x - l.x_first;
    if (!row_in || !t.col_in[ci]) {
      out (x, pixels::border_pixel (op));
      continue;
    }
    float in[4] = { 0.0f, 0.0f, 0.0f, (float)op.in.max_code };
    auto resolution = [&] (auto gc) {
      constexpr int g = decltype (gc)::value;
      const unsigned members = Members::of (op, g, op.inputs_all);
      if (members) {
        /* Turned: the row's taps run along the source's x axis. */
        const TwoTaps &tx = row[g], &ty = t.cols[g][ci];
        if ((g == 0 && unscaled) || nearest)
          sample<IB, false, Members::word (g)> (op, g, members, tx, ty, in);
        else
          sample<IB, true, Members::word (g)> (op, g, members, tx, ty, in);
      }
    };
    resolution (std::integral_constant<int, 0>{});
    resolution (std::integral_constant<int, 1>{});
    out (x, pixels::to_output (op, in));
  }
}

// Calls fn (members) with the Members type of op's kernel instance (IB,
// OB: its sample sizes): fixed for packed RGB with alpha or without, and
// for YUV with subsampled chroma (a decoder's frames: NV12's UV in 2-byte
// words, P010's in 4-byte ones, I420's apart), into 8-bit RGB or 4:4:4
// (OB = 1: RGBA, RGBP ...), and for 10 to 16-bit YUV with subsampled
// chroma into 16-bit ones too (GBR_10LE, Y444_16LE ...), LumaMembers
// where it matches, PackedRgbMembers for 4-byte words of 8-bit RGB
// (IB = 1) into subsampled chroma, else AnyMembers. Of 8-bit inputs,
// fixed_point's kernels take all those frames
// (convert_scale_fixed_point.h) but the ones whose alpha the `alpha`
// property scales, turned ones into subsampled chroma, and the rare ones
// it cannot (under two samples wide or high, a matrix its integers cannot
// hold): of the fixed Members only FixedMembers<15u, 0u, 0> is built for
// them, the rest take AnyMembers (each instance is a kernel to build).
template <int IB, int OB, class Fn>
inline void
dispatch_members (const ConvertScale & op, Fn fn)
{
  /* Words of bit fields (OB 0, dispatch_bytes): the generic members
   * alone, one kernel an instance more to build; a kernel compiled for
   * the conversion (convert_scale_rtc.h) folds their choices. */
  if constexpr (OB == 0)
    return fn (AnyMembers{});
  if constexpr (OB == 1) {
    /* Packed RGB (RGBA, BGRx ...) into 8-bit RGB or 4:4:4, with alpha
     * or without. */
    if (FixedMembers<15u, 0u, 0>::matches (op))
      return fn (FixedMembers<15u, 0u, 0>{});
    if constexpr (IB == 2) {
      if (FixedMembers<7u, 0u, 0>::matches (op))
        return fn (FixedMembers<7u, 0u, 0>{});
      if (FixedMembers<1u, 6u, 2>::matches (op))
        return fn (FixedMembers<1u, 6u, 2>{});
    }
  }
  if constexpr (IB == 2) {
    /* 10 to 16-bit YUV with subsampled chroma, in words (P010, P016 ...)
     * or planes (I420_10LE, I422_12LE ...), into RGB or 4:4:4 of either
     * sample size (RGBA, GBR_10LE, Y444_16LE ...). */
    if (FixedMembers<1u, 6u, 4>::matches (op))
      return fn (FixedMembers<1u, 6u, 4>{});
    if (FixedMembers<1u, 6u, 0>::matches (op))
      return fn (FixedMembers<1u, 6u, 0>{});
  }
  if (LumaMembers::matches (op))
    return fn (LumaMembers{});
  if constexpr (IB == 1) { /* words of four 8-bit samples */
    if (PackedRgbMembers<15u>::matches (op))
      return fn (PackedRgbMembers<15u>{});
    if (PackedRgbMembers<7u>::matches (op))
      return fn (PackedRgbMembers<7u>{});
  }
  fn (AnyMembers{});
}

// Calls fn (input bytes, output bytes) with op's sample sizes as
// compile-time constants, output bytes 0 where the output is generic
// (this family gets only those of one word of bit fields a pixel,
// pixels::samples_into_fields: pixels::store_pixel<0> stores it whole,
// store_fields).
template <class Fn>
inline void
dispatch_bytes (const ConvertScale & op, Fn fn)
{
  if (!op.out.generic)
    return pixels::dispatch_bytes (op, fn);
  if (op.in.bytes == 2)
    fn (std::integral_constant<int, 2>{}, std::integral_constant<int, 0>{});
  else
    fn (std::integral_constant<int, 1>{}, std::integral_constant<int, 0>{});
}

// Calls fn (filter) with the two-tap filter that computes op's (NEAREST,
// or BILINEAR for bilinear and area), as a compile-time constant.
template <class Fn>
inline void
dispatch_filter (const ConvertScale & op, Fn fn)
{
  if (op.filter == Filter::NEAREST)
    fn (std::integral_constant<Filter, Filter::NEAREST>{});
  else
    fn (std::integral_constant<Filter, Filter::BILINEAR>{});
}

} // namespace gst_cs::gpu::two_tap

/* SPDX-License-Identifier: LGPL-2.1-or-later */
// Fixed-point arithmetic for the frames decoders give and models and
// displays take: 8-bit YUV with subsampled chroma (NV12, I420, YUY2 ...)
// and 8-bit RGB packed in 4-byte words (RGBA, BGRx ...), resampled by two
// taps (nearest, bilinear, area that does not shrink) into 8-bit RGB or
// 4:4:4 (RGBA, RGBP, Y444 ...), a pixel at a time, or into 8-bit YUV with
// subsampled chroma (NV12, I420 ...), a block at a time: its chroma
// filtered down from its pixels' and their neighbours'. 10 to 16-bit YUV
// (P010, P016, I420_10LE, Y444_16LE ...: "wide" words, kWidePlanes and
// kWideWords) by two taps into 8-bit RGB or 4:4:4, not turned, a pixel at a
// time, each sample filtered on its own in 32 bits.
//
// The float arithmetic of convert_scale_pixels.h spends most of such a
// pixel's instructions on converting twelve samples to float and on 51
// multiplies and adds, rounded one by one so that the twin rounds alike:
// the kernel is bound by how many instructions it issues (Nsight Compute,
// docs/cudaconvertscale.md). Here the weights are integers (1/256 per
// axis), U and V are filtered together in the two 16-bit halves of one
// word, the matrix is an integer one (1/2^13) on the filtered codes times
// 256, and four codes are saturated and packed in two instructions.
//
// Every product and sum is an exact integer: any order of the sums gives
// the same bits. The twin (convert_scale_on_host) computes each pixel on
// its own from its source position (pixels::source_position); the kernels
// from their tiles' taps, as write_column (write_row where turned,
// stage_pixels for subsampled outputs) does.
#pragma once

#include <cmath>

#include "convert_scale_one_sample.h"

namespace gst_cs::gpu::fixed_point {

constexpr int kWeightOne = 256; // weight 1 along one axis
constexpr int kCodeBits = 8;    // fraction bits of a filtered code
constexpr int kCoefBits = 13;   // fraction bits of the matrix's coefficients
constexpr int kShift = kCodeBits + kCoefBits;

constexpr int kPackedRgb = ConvertScale::FixedPoint::kPackedRgb;
constexpr int kWidePlanes = ConvertScale::FixedPoint::kWidePlanes;
constexpr int kWideWords = ConvertScale::FixedPoint::kWideWords;

// Whether a Word's samples are 16-bit (kWidePlanes, kWideWords).
GCS_HD constexpr bool
wide (int word)
{
  return word < 0;
}

// The bytes between neighbouring samples along x of the luma and of the
// chroma (its word's, or U's) in the frames of each chroma Word (resolve
// checks them): YUY2 and its kin (4), NV12 and its kin (2), planes (0);
// packed RGB's words (kPackedRgb: 4, and no chroma); 16-bit samples in
// planes (kWidePlanes: 2 and 2) and with U and V in 4-byte words (P010
// and its kin, kWideWords: 2 and 4).
GCS_HD constexpr unsigned
luma_step (int word)
{
  return word == kPackedRgb ? 4u : (word == 4 || wide (word) ? 2u : 1u);
}

GCS_HD constexpr unsigned
chroma_step (int word)
{
  if (word == kPackedRgb)
    return 0u;
  if (word == kWidePlanes)
    return 2u;
  if (word == kWideWords)
    return 4u;
  return word == 0 ? 1u : (unsigned)word;
}

// One axis's two taps in one input plane: the byte offsets of samples i0
// and i1 along the axis and their weights (q0 + q1 = kWeightOne). i1 is
// always i0 + 1 (a pair of neighbours), so that a pixel's loads are one
// address and offsets known in advance: where the filter's taps are one
// sample (at an edge, on a sample, nearest), the pair is it and a
// neighbour of weight 0, the same sum (resolve: every plane has two
// samples or more along each axis).
struct alignas (16) Taps { /* one shared-memory load */
  unsigned o0, o1, q0, q1;
  /* What a tile keeps of taps t of resolution g along the source's y axis
   * (or x): the weight of i1 rounded half up to 1/256, the rest i0's. */
  static GCS_HD Taps of (
      const ConvertScale & op, int g, bool along_y, const two_tap::TwoTaps & t)
  {
    /* Selected, not indexed: an index known only at run time would put a
     * description compiled as a constant (convert_scale_rtc.h) in local
     * memory, all of it. */
    const unsigned (&s)[2][2] = op.fixed.stride;
    const unsigned stride =
        g == 0 ? (along_y ? s[0][1] : s[0][0]) : (along_y ? s[1][1] : s[1][0]);
    const unsigned q1 = (unsigned)(int)floorf (t.w1 * (float)kWeightOne + 0.5f);
    if (t.i1 != t.i0)
      return Taps{ (unsigned)t.i0 * stride, (unsigned)t.i1 * stride, kWeightOne - q1,
        q1 };
    const int log2 = g == 0 ? 0 : (along_y ? op.sub_log2_y : op.sub_log2_x);
    const int n = ((along_y ? op.in.height : op.in.width) + (1 << log2) - 1) >> log2;
    const unsigned i = (unsigned)(t.i0 + 1 < n ? t.i0 : t.i0 - 1);
    const bool first = t.i0 + 1 < n; /* the sample is the pair's first */
    return Taps{ i * stride, (i + 1) * stride, first ? (unsigned)kWeightOne : 0u,
      first ? 0u : (unsigned)kWeightOne };
  }
};

using Tile = two_tap::TileOf<Taps>;

// Taps t from a tile, as one 16-byte load on the GPU.
GCS_HD Taps
tile_taps (const Taps & t)
{
#if defined(__CUDA_ARCH__)
  const uint4 v = *reinterpret_cast<const uint4 *> (&t);
  return Taps{ v.x, v.y, v.z, v.w };
#else
  return t;
#endif
}

// __byte_perm (x, y, s) for the selectors here (bytes 0..7 of y:x).
GCS_HD unsigned
byte_perm (unsigned x, unsigned y, unsigned s)
{
#if defined(__CUDA_ARCH__)
  unsigned r; /* without __byte_perm's masking of s: these selectors need none */
  asm("prmt.b32 %0, %1, %2, %3;" : "=r"(r) : "r"(x), "r"(y), "r"(s));
  return r;
#else
  const unsigned long long b = ((unsigned long long)y << 32) | x;
  unsigned r = 0;
  for (int k = 0; k < 4; k++)
    r |= (unsigned)((b >> (8 * ((s >> (4 * k)) & 7u))) & 0xffu) << (8 * k);
  return r;
#endif
}

// Codes c0..c3 saturated to 0..255, the bytes of one word (c0 lowest).
GCS_HD unsigned
pack_saturated (int c0, int c1, int c2, int c3)
{
#if defined(__CUDA_ARCH__)
  unsigned high, word;
  asm("cvt.pack.sat.u8.s32.b32 %0, %1, %2, 0;" : "=r"(high) : "r"(c3), "r"(c2));
  asm("cvt.pack.sat.u8.s32.b32 %0, %1, %2, %3;"
      : "=r"(word)
      : "r"(c1), "r"(c0), "r"(high));
  return word;
#else
  return (unsigned)pixels::clampi (c0, 0, 255) |
         ((unsigned)pixels::clampi (c1, 0, 255) << 8) |
         ((unsigned)pixels::clampi (c2, 0, 255) << 16) |
         ((unsigned)pixels::clampi (c3, 0, 255) << 24);
#endif
}

// An input sample: read through the read-only cache on the GPU (the
// kernel never writes its input).
template <class T>
GCS_HD unsigned
input (const T * p)
{
#if defined(__CUDA_ARCH__)
  /* A load into a 32-bit register zero-extends (unlike __ldg's, which the
   * compiler then masks). */
  unsigned v;
  if (sizeof (T) == 1)
    asm("ld.global.nc.u8 %0, [%1];" : "=r"(v) : "l"(p));
  else if (sizeof (T) == 2)
    asm("ld.global.nc.u16 %0, [%1];" : "=r"(v) : "l"(p));
  else
    asm("ld.global.nc.u32 %0, [%1];" : "=r"(v) : "l"(p));
  return v;
#else
  return *p;
#endif
}

// A pixel's two lines of samples along one axis of one plane (a thread's
// column, the same for all its pixels): a pointer to sample i0's (i1's is
// the next) and their weights. The other axis's offsets are added per
// pixel: one 64-bit add per pair of loads.
struct Lines {
  const std::uint8_t * p0;
  unsigned q0, q1;
};

GCS_HD Lines
lines_of (const std::uint8_t * base, const Taps & a)
{
  Lines l{ base + a.o0, a.q0, a.q1 };
#if defined(__CUDA_ARCH__)
  /* Opaque to the compiler, which would otherwise fold each load's
   * address back into base + (a + b): two 64-bit adds. */
  asm("" : "+l"(l.p0));
#endif
  return l;
}

// The chroma sample at p (its U; V's where U and V are apart): U in the
// low 16 bits, V in the high ones, each a code (0..255), or of wide words
// a 16-bit sample.
template <int Word>
GCS_HD unsigned
chroma_lanes (const ConvertScale::FixedPoint & f, const std::uint8_t * p)
{
  if (Word == 0)
    return input (p) | (input (p + f.v_minus_u) << 16);
  if (Word == kWidePlanes)
    return input ((const std::uint16_t *)p) |
           (input ((const std::uint16_t *)(p + f.v_minus_u)) << 16);
  constexpr int bytes = Word == kWideWords ? 4 : Word;
#if defined(__CUDA_ARCH__)
  const unsigned w =
      bytes == 4 ? input ((const unsigned *)p) : input ((const unsigned short *)p);
#else
  unsigned w = 0;
  for (int b = 0; b < bytes; b++)
    w |= (unsigned)p[b] << (8 * b);
#endif
  return byte_perm (w, 0u, f.chroma_select);
}

// A pixel's input components 0..2 (Y U V, or R G B), each a code times
// 256 (wide words: the sample as it lies, its code times 2^shift), and
// its alpha code (the input's, or op.fixed.alpha).
struct InputCodes {
  int c[3];
  int alpha;
};

// Row i of the matrix applied to input codes k: the output code times
// 2^kShift, plus a half for the rounding of the shift.
GCS_HD int
matrix_row (const ConvertScale::FixedPoint & f, int i, const InputCodes & k)
{
  return f.matrix[i][3] + f.matrix[i][0] * k.c[0] + f.matrix[i][1] * k.c[1] +
         f.matrix[i][2] * k.c[2];
}

// The matrix's output codes of input codes k, saturated: bytes c0 c1 c2
// alpha of a word.
GCS_HD unsigned
matrix_codes (const ConvertScale::FixedPoint & f, const InputCodes & k)
{
  return pack_saturated (matrix_row (f, 0, k) >> kShift, matrix_row (f, 1, k) >> kShift,
      matrix_row (f, 2, k) >> kShift, k.alpha);
}

// The input codes of a packed RGB pixel whose words are the lines `words`
// (a pair of neighbouring columns) at the pair of rows `rows`: four
// components filtered as input_codes filters Y, the rows first. A word's
// components 0 and 2, and 1 and 3, are filtered together in the 16-bit
// lanes of one register (each lane at most 255 * 256 after the rows: no
// carry), then each apart across the columns (at most 255 * 256 * 256).
template <bool One>
GCS_HD InputCodes
packed_codes (const ConvertScale::FixedPoint & f, const Lines & words, const Taps & rows)
{
  const std::uint8_t *a = words.p0 + rows.o0, *b = a + f.stride[0][1];
  if constexpr (One) {
    /* The one word of weight 256 along each axis: k = 256 * its code, as
     * the four-word sums make it (the others weigh 0). */
    const unsigned w = input ((const unsigned *)((rows.q0 ? a : b) + (words.q0 ? 0 : 4)));
    const unsigned lanes[2] = { byte_perm (w, 0u, f.rgb_select[0]),
      byte_perm (w, 0u, f.rgb_select[1]) };
    int k[4];
    GCS_UNROLL
    for (int i = 0; i < 4; i++)
      k[i] = (int)(((lanes[i & 1] >> ((i >> 1) * 16)) & 0xffffu) << kCodeBits);
    const int alpha = f.alpha_in ? (k[3] + (1 << (kCodeBits - 1))) >> kCodeBits : f.alpha;
    return InputCodes{ { k[0], k[1], k[2] }, alpha };
  }
  const unsigned w[4] = { input ((const unsigned *)a), input ((const unsigned *)b),
    input ((const unsigned *)(a + 4)), input ((const unsigned *)(b + 4)) };
  unsigned lanes[2][2]; /* [column][components 0, 2 | 1, 3] */
  GCS_UNROLL
  for (int c = 0; c < 2; c++) {
    GCS_UNROLL
    for (int h = 0; h < 2; h++)
      lanes[c][h] = byte_perm (w[2 * c], 0u, f.rgb_select[h]) * rows.q0 +
                    byte_perm (w[2 * c + 1], 0u, f.rgb_select[h]) * rows.q1;
  }
  int k[4];
  GCS_UNROLL
  for (int i = 0; i < 4; i++) {
    const int h = i & 1, shift = (i >> 1) * 16;
    k[i] = (int)((((lanes[0][h] >> shift) & 0xffffu) * words.q0 +
                     ((lanes[1][h] >> shift) & 0xffffu) * words.q1) >>
                 kCodeBits);
  }
  /* Alpha rounded to a code, as quantize rounds (half up). */
  const int alpha = f.alpha_in ? (k[3] + (1 << (kCodeBits - 1))) >> kCodeBits : f.alpha;
  return InputCodes{ { k[0], k[1], k[2] }, alpha };
}

// input_codes of 16-bit samples (wide words): each component filtered
// on its own in 32 bits, the rows first, as input_codes filters Y: at most
// 65535 * 256 * 256 before the shift of both weights, which leaves the
// filtered sample (resolve scales the matrix for it). Each sample keeps its
// code's bits alone (FixedPoint::wide_mask): the bits below a code at a
// shift (P010's six) are dropped, as the float paths drop them, and bits
// above the largest code (not a code: I420_10LE's six) could overflow the
// matrix's sums.
template <int Word, bool One>
GCS_HD InputCodes
wide_codes (const ConvertScale::FixedPoint & f, const Lines & luma, const Taps & lb,
    const Lines & chroma, const Taps & cb)
{
  constexpr unsigned luma_line = luma_step (Word), chroma_line = chroma_step (Word);
  constexpr int kBoth = 2 * kCodeBits;
  const unsigned mask = f.wide_mask;
  auto sample = [mask] (const std::uint8_t * p) {
    return input ((const std::uint16_t *)p) & mask;
  };
  const std::uint8_t *a = luma.p0 + lb.o0, *b = a + f.stride[0][1];
  const int y =
      One ? (int)sample ((lb.q0 ? a : b) + (luma.q0 ? 0u : luma_line))
          : (int)(((sample (a) * lb.q0 + sample (b) * lb.q1) * luma.q0 +
                      (sample (a + luma_line) * lb.q0 + sample (b + luma_line) * lb.q1) *
                          luma.q1) >>
                  kBoth);
  const std::uint8_t *c = chroma.p0 + cb.o0, *d = c + f.stride[1][1];
  if (One && f.chroma_one) {
    const unsigned w =
        chroma_lanes<Word> (f, (cb.q0 ? c : d) + (chroma.q0 ? 0u : chroma_line)) & mask;
    return InputCodes{ { y, (int)(w & 0xffffu), (int)(w >> 16) }, f.alpha };
  }
  const unsigned c0 = chroma_lanes<Word> (f, c) & mask,
                 d0 = chroma_lanes<Word> (f, d) & mask,
                 c1 = chroma_lanes<Word> (f, c + chroma_line) & mask,
                 d1 = chroma_lanes<Word> (f, d + chroma_line) & mask;
  const unsigned u = (((c0 & 0xffffu) * cb.q0 + (d0 & 0xffffu) * cb.q1) * chroma.q0 +
                         ((c1 & 0xffffu) * cb.q0 + (d1 & 0xffffu) * cb.q1) * chroma.q1) >>
                     kBoth;
  const unsigned v = (((c0 >> 16) * cb.q0 + (d0 >> 16) * cb.q1) * chroma.q0 +
                         ((c1 >> 16) * cb.q0 + (d1 >> 16) * cb.q1) * chroma.q1) >>
                     kBoth;
  return InputCodes{ { y, (int)u, (int)v }, f.alpha };
}

// The input codes of the pixel whose luma samples are the lines `luma`
// at offsets (b) along the other axis, and whose chroma samples are
// `chroma` at cb (kPackedRgb: packed_codes of the words `luma`). The lines
// (a thread's) are a pair of source columns, turned or not (fill_entry:
// an output row of a turned frame runs along a source column), the
// pixel's taps a pair of source rows.
template <int Word, bool One = false>
GCS_HD InputCodes
input_codes (const ConvertScale::FixedPoint & f, const Lines & luma, const Taps & lb,
    const Lines & chroma, const Taps & cb)
{
  if constexpr (Word == kPackedRgb)
    return packed_codes<One> (f, luma, lb);
  if constexpr (wide (Word))
    return wide_codes<Word, One> (f, luma, lb, chroma, cb);
  /* From a pair's first sample to its second: along x a step known here
   * (an offset in the load), along y the row pitch. */
  constexpr unsigned luma_line = luma_step (Word), chroma_line = chroma_step (Word);
  const unsigned luma_pixel = f.stride[0][1], chroma_pixel = f.stride[1][1];
  const std::uint8_t *a = luma.p0 + lb.o0, *b = a + luma_pixel;
  /* At most 255 * 256 * 256 before the shift: the code times 256. One:
   * the sample of weight 256 along each axis, times 256 (the sum's value). */
  const int y =
      One ? (int)(input ((lb.q0 ? a : b) + (luma.q0 ? 0u : luma_line)) << kCodeBits)
          : (int)(((input (a) * lb.q0 + input (b) * lb.q1) * luma.q0 +
                      (input (a + luma_line) * lb.q0 + input (b + luma_line) * lb.q1) *
                          luma.q1) >>
                  kCodeBits);
  const std::uint8_t *c = chroma.p0 + cb.o0, *d = c + chroma_pixel;
  if (One && f.chroma_one) {
    /* The chroma sample of weight 256 along each axis, its codes times
     * 256, as the pairs' sums below make them: 2 loads where those take 8
     * (planes) or 4 (words). */
    const unsigned w =
        chroma_lanes<Word> (f, (cb.q0 ? c : d) + (chroma.q0 ? 0u : chroma_line));
    return InputCodes{
      { y, (int)((w & 0xffffu) << kCodeBits), (int)((w >> 16) << kCodeBits) }, f.alpha
    };
  }
  /* Each 16-bit lane at most 255 * 256: U never carries into V. */
  const unsigned c0 =
      chroma_lanes<Word> (f, c) * cb.q0 + chroma_lanes<Word> (f, d) * cb.q1;
  const unsigned c1 = chroma_lanes<Word> (f, c + chroma_line) * cb.q0 +
                      chroma_lanes<Word> (f, d + chroma_line) * cb.q1;
  const int u =
      (int)(((c0 & 0xffffu) * chroma.q0 + (c1 & 0xffffu) * chroma.q1) >> kCodeBits);
  const int v = (int)(((c0 >> 16) * chroma.q0 + (c1 >> 16) * chroma.q1) >> kCodeBits);
  return InputCodes{ { y, u, v }, f.alpha };
}

// The output codes, saturated, of input_codes: bytes c0 c1 c2 alpha of a
// word.
template <int Word, bool One = false>
GCS_HD unsigned
codes (const ConvertScale::FixedPoint & f, const Lines & luma, const Taps & lb,
    const Lines & chroma, const Taps & cb)
{
  return matrix_codes (f, input_codes<Word, One> (f, luma, lb, chroma, cb));
}

// Stores output pixel (x, y) of `codes` (bytes c0 c1 c2 alpha).
GCS_HD void
store (const ConvertScale & op, int x, int y, unsigned codes)
{
  const Image & o = op.out;
  if (op.out_packed) {
    pixels::store_word (o, x, y, byte_perm (codes, 0u, op.fixed.out_select));
    return;
  }
  GCS_UNROLL
  for (int c = 0; c < 4; c++) {
    const Component & k = o.comp[c];
    if (k.plane >= 0)
      k.base[pixels::sample_offset ((unsigned)k.pitch, k.step, x, y)] =
          (std::uint8_t) (codes >> (8 * c));
  }
}

// The pixels of the tile `t` (filled) on output column `own` (Turned:
// output row), at k = first, first + step ... < end along it, each given
// to out (k, codes). The line's taps are the thread's lines, its pixels'
// taps those of the rows (Turned: columns) they cross. `f` is op.fixed, or
// a copy of it in registers where op is not at a fixed place in the
// kernel's parameters (batch_convert indexes its frames by block): the
// matrix is then loaded once, not once per pixel.
template <int Word, bool Turned, bool One = false, class Out>
GCS_HD void
write_line (const ConvertScale & op, const ConvertScale::FixedPoint & f,
    const two_tap::TileLines & l, const Tile & t, int own, int first, int end, int step,
    Out out)
{
  const int oi = own - (Turned ? l.y_first : l.x_first);
  const bool own_in = Turned ? t.row_in[oi] : t.col_in[oi];
  const Lines luma =
                  lines_of (f.luma, tile_taps (Turned ? t.rows[0][oi] : t.cols[0][oi])),
              chroma =
                  lines_of (f.chroma, tile_taps (Turned ? t.rows[1][oi] : t.cols[1][oi]));
  const int limit = Turned ? op.out.width : op.out.height;
  if (end > limit)
    end = limit;
  /* Two pixels at a time (with 40 registers, 6 CUDA blocks per SM): more
   * loads in flight. 4K -> 1080p RGBA 11.9 -> 11.3 us, the letterbox
   * 5.4 -> 4.9 us (H100, 2026-11-26). */
  GCS_UNROLL_TWICE
  for (int k = first, i = first - (Turned ? l.x_first : l.y_first); k < end;
       k += step, i += step) {
    if (!own_in || !(Turned ? t.col_in[i] : t.row_in[i])) {
      out (k, f.border);
      continue;
    }
    out (k, codes<Word, One> (f, luma, tile_taps (Turned ? t.cols[0][i] : t.rows[0][i]),
                chroma, tile_taps (Turned ? t.cols[1][i] : t.rows[1][i])));
  }
}

// Writes the pixels (x, y), y = y_first, y_first + y_step ... < y_end, of
// the tile `t` (filled), as two_tap::write_column does in float, for
// frames that are not turned (turned ones: write_row). The column's taps
// run along the source's x axis: they are the thread's lines.
template <int Word, bool One = false>
GCS_HD void
write_column (const ConvertScale & op, const two_tap::TileLines & l, const Tile & t,
    int x, int y_first, int y_end, int y_step)
{
  if (x >= op.out.width)
    return;
  write_line<Word, false, One> (op, op.fixed, l, t, x, y_first, y_end, y_step,
      [&] (int y, unsigned codes) { store (op, x, y, codes); });
}

// The tiles of turned frames (pixels::rotates): `cols` output columns
// (tile_rows' count: 8, 16 or 32) and two_tap::kTileX output rows, with
// one line more to the left and above, as two_tap::tile_lines has them
// (a block is a pixel: the output's chroma is not subsampled).
GCS_HD two_tap::TileLines
turned_tile_lines (int tx, int ty, int cols)
{
  return two_tap::TileLines{ tx * cols - 1, ty * two_tap::kTileX - 1, cols + 1,
    two_tap::kTileX + 1 };
}

// Computes the pixels (x, y), x = x_first, x_first + x_step ... < x_end,
// of the turned tile `t` (filled for turned_tile_lines) and gives each to
// out (x, codes). Where the axes swap, an output row runs along a source
// row: the row's taps are the thread's lines, and the threads of a warp,
// on neighbouring output rows, read neighbouring samples of the same
// source rows (on an output column they read one sample of 32 source
// rows). The sums are write_column's, exact integers in another order.
template <int Word, bool One = false, class Out>
GCS_HD void
write_row (const ConvertScale & op, const two_tap::TileLines & l, const Tile & t, int y,
    int x_first, int x_end, int x_step, Out out)
{
  if (y >= op.out.height)
    return;
  write_line<Word, true, One> (op, op.fixed, l, t, y, x_first, x_end, x_step, out);
}

// The twin's pixels: the input codes of output pixel (x, y) into *k from
// its source position, without tiles; false where it lies outside the
// picture (the border).
template <Filter F, int Word>
inline bool
pixel_input_codes (const ConvertScale & op, int x, int y, InputCodes * k)
{
  const int dx = x - op.dst_x, dy = y - op.dst_y;
  if (dx < 0 || dy < 0 || dx >= op.dst_w || dy >= op.dst_h)
    return false;
  float sx, sy;
  pixels::source_position (op, (float)dx, (float)dy, &sx, &sy);
  Taps t[2][2]; /* [resolution][along y] */
  for (int g = 0; g < 2; g++)
    for (int along_y = 0; along_y < 2; along_y++) {
      const pixels::PlanePosition p =
          pixels::plane_position (op, g, along_y != 0, along_y ? sy : sx);
      t[g][along_y] =
          Taps::of (op, g, along_y != 0, two_tap::two_taps<F> (p.p, p.lo, p.hi));
    }
  *k = input_codes<Word> (op.fixed, lines_of (op.fixed.luma, t[0][0]), t[0][1],
      lines_of (op.fixed.chroma, t[1][0]), t[1][1]);
  return true;
}

// The twin: output pixel (x, y) from its source position, without tiles.
template <Filter F, int Word>
inline void
write_pixel (const ConvertScale & op, int x, int y)
{
  InputCodes k;
  store (op, x, y,
      pixel_input_codes<F, Word> (op, x, y, &k) ? matrix_codes (op.fixed, k)
                                                : op.fixed.border);
}

/* --- outputs with subsampled chroma (NV12, I420, YUY2 ...) ------------- */

// A pixel of an output whose chroma is subsampled: its luma code, and its
// chroma in 1/2^kCoefBits of a code, not yet rounded (downsample_chroma
// filters the chroma of full-resolution pixels before it rounds).
struct LumaChroma {
  int y, u, v;
};

GCS_HD LumaChroma
luma_chroma (const ConvertScale::FixedPoint & f, const InputCodes & k)
{
  constexpr int kHalf = 1 << (kShift - 1); /* the rounding in matrix[i][3] */
  return LumaChroma{ pixels::clampi (matrix_row (f, 0, k) >> kShift, 0, 255),
    (matrix_row (f, 1, k) - kHalf) >> (kShift - kCoefBits),
    (matrix_row (f, 2, k) - kHalf) >> (kShift - kCoefBits) };
}

GCS_HD LumaChroma
border_luma_chroma (const ConvertScale::FixedPoint & f)
{
  return LumaChroma{ (int)(f.border & 0xffu), f.border_chroma[0], f.border_chroma[1] };
}

// Output pixel (x, y)'s LumaChroma from the tile `t` (filled for `l`).
template <int Word, bool One = false>
GCS_HD LumaChroma
tile_luma_chroma (const ConvertScale::FixedPoint & f, const two_tap::TileLines & l,
    const Tile & t, int x, int y)
{
  const int ci = x - l.x_first, ri = y - l.y_first;
  if (!t.col_in[ci] || !t.row_in[ri])
    return border_luma_chroma (f);
  return luma_chroma (
      f, input_codes<Word, One> (f, lines_of (f.luma, tile_taps (t.cols[0][ci])),
             tile_taps (t.rows[0][ri]), lines_of (f.chroma, tile_taps (t.cols[1][ci])),
             tile_taps (t.rows[1][ri])));
}

// Whether the blocks kernel (op.fixed.blocks, two taps) may address each
// pixel's samples directly (direct_luma_chroma), without a tile of taps:
// frames not scaled and not turned or flipped, whose input has its chroma
// at full resolution (4:4:4, planar RGB) or none apart (packed RGB). Each
// output pixel then reads one sample of each plane, at the source pixel
// its place maps to; the tile's taps say the same (one tap of weight 256
// each, luma_one_tap and FixedPoint::chroma_one), at the cost of a tile
// to fill, two shared-memory loads of taps a pixel and their addresses.
inline bool
direct_blocks (const ConvertScale & op)
{
  return op.fixed.on && op.fixed.blocks && op.fixed.taps == 2 && op.scale_x == 1.0f &&
         op.scale_y == 1.0f && op.orientation == Orientation::IDENTITY &&
         op.sub_log2_x == 0 && op.sub_log2_y == 0 && op.fixed.chroma_one;
}

// Output pixel (x, y)'s luma and chroma where direct_blocks (op): its
// source pixel's samples, read as input_codes reads a tile's taps of one
// sample (weight 256 on the pair's first), the border's outside the
// picture.
template <int Word>
GCS_HD LumaChroma
direct_luma_chroma (const ConvertScale & op, int x, int y)
{
  const ConvertScale::FixedPoint & f = op.fixed;
  const int dx = x - op.dst_x, dy = y - op.dst_y;
  if (dx < 0 || dy < 0 || dx >= op.dst_w || dy >= op.dst_h)
    return border_luma_chroma (f);
  const unsigned sx = (unsigned)(op.src_x + dx), sy = (unsigned)(op.src_y + dy);
  constexpr unsigned kOne = kWeightOne;
  const Taps lx{ sx * f.stride[0][0], 0u, kOne, 0u },
      ly{ sy * f.stride[0][1], 0u, kOne, 0u };
  const Taps cx{ sx * f.stride[1][0], 0u, kOne, 0u },
      cy{ sy * f.stride[1][1], 0u, kOne, 0u };
  return luma_chroma (f, input_codes<Word, true> (
                             f, lines_of (f.luma, lx), ly, lines_of (f.chroma, cx), cy));
}

// Stores block (bx, by)'s chroma of the filtered sums su, sv (chroma in
// 1/2^kCoefBits of a code times weights of 16 in all), rounded half up
// as quantize rounds.
GCS_HD void
store_chroma (const ConvertScale & op, int bx, int by, int su, int sv)
{
  constexpr int kBits = 4 + kCoefBits;
  const Component &u = op.out.comp[1], &v = op.out.comp[2];
  u.base[pixels::sample_offset ((unsigned)u.pitch, u.step, bx, by)] =
      (std::uint8_t)pixels::clampi ((su + (1 << (kBits - 1))) >> kBits, 0, 255);
  v.base[pixels::sample_offset ((unsigned)v.pitch, v.step, bx, by)] =
      (std::uint8_t)pixels::clampi ((sv + (1 << (kBits - 1))) >> kBits, 0, 255);
}

// The chroma filter's weights, pixels::downsample_chroma's in quarters,
// of the columns x0 - 1, x0, x0 + 1 (c) and the rows y0 - 1, y0, y0 + 1
// (r) around a block's first pixel (x0, y0): a cosited sample weighs its
// line 2 and its neighbours 1, one between two lines weighs each 2; a
// line not subsampled weighs 4 alone. A code's chroma times 16 is at most
// 16 * 255 * 2^13: no overflow.
struct ChromaWeights {
  int c[3], r[3];
};

GCS_HD ChromaWeights
chroma_weights (const Image & o)
{
  const int lx = o.comp[1].log2_x, ly = o.comp[1].log2_y;
  return ChromaWeights{ { lx && o.h_cosited ? 1 : 0, lx ? 2 : 4,
                            lx ? (o.h_cosited ? 1 : 2) : 0 },
    { ly && o.v_cosited ? 1 : 0, ly ? 2 : 4, ly ? (o.v_cosited ? 1 : 2) : 0 } };
}

// The kernel's blocks (convert_scale_fixed_point_blocks_kernel) share
// their pixels through the tile: each pixel of the tile's lines (its own
// and the extra line to the left and above that the chroma filter reads)
// is computed once, its luma stored, its chroma kept here; a block then
// filters its chroma from the kept values. Without the staging a block
// computed six pixels for its four: 1080p BGRx -> NV12 took 24.1 us with
// the neighbours after the block's own pixels, 18.0 with all at once, and
// takes 15.9 staged (H200; float: 20.7).
constexpr int kBlockTileRows = 4 * two_tap::kTileY; // rows of blocks at most
struct ChromaTile {
  static constexpr int kCols = 2 * two_tap::kTileX + 1, kRows = 2 * kBlockTileRows + 1;
  int u[kRows][kCols], v[kRows][kCols];
};

// How many rows of blocks a tile gets: two_tap's tall rule (each thread's
// blocks share the tile's taps and its extra lines), at most
// kBlockTileRows.
inline int
block_tile_rows (int nbx, int nby)
{
  return two_tap::tile_rows (nbx, nby, true, 1, kBlockTileRows);
}

// Computes the pixels k = first, first + step ... of the tile's lines `l`
// (row-major), clamped to the frame as downsample_chroma clamps the
// columns and rows it reads: stores the luma of the tile's own pixels in
// the frame and keeps every pixel's chroma in `s`. at (x, y) gives output
// pixel (x, y)'s LumaChroma.
template <class At>
GCS_HD void
stage_pixels (const ConvertScale & op, const two_tap::TileLines & l, ChromaTile & s,
    int first, int step, At at)
{
  const Image & o = op.out;
  const Component & luma = o.comp[0];
  const int n = l.ncols * l.nrows, dr = step / l.ncols, dc = step % l.ncols;
  int r = first / l.ncols, c = first % l.ncols;
  /* Four pixels' loads in flight (H200: 1080p BGRx -> NV12 16.7 -> 15.9
   * us against two). */
  GCS_UNROLL_4
  for (int k = first; k < n; k += step) {
    const int x = l.x_first + c, y = l.y_first + r;
    const LumaChroma p =
        at (pixels::clampi (x, 0, o.width - 1), pixels::clampi (y, 0, o.height - 1));
    s.u[r][c] = p.u;
    s.v[r][c] = p.v;
    if (r > 0 && c > 0 && x < o.width && y < o.height)
      luma.base[pixels::sample_offset ((unsigned)luma.pitch, luma.step, x, y)] =
          (std::uint8_t)p.y;
    c += dc, r += dr;
    if (c >= l.ncols)
      c -= l.ncols, r++;
  }
}

// Writes the chroma of output block (bx, by) of the tile `s` (staged for
// `l`), filtered as write_block_twin filters it (the same sums).
GCS_HD void
write_staged_chroma (const ConvertScale & op, const two_tap::TileLines & l,
    const ChromaTile & s, int bx, int by)
{
  const Image & o = op.out;
  const Component & k = o.comp[1];
  const int lx = k.log2_x, ly = k.log2_y;
  /* The tile's line of the column (row) before the block's: its
   * neighbour x0 - 1 (y0 - 1), clamped where staged. */
  const int c0 = (bx << lx) - 1 - l.x_first, r0 = (by << ly) - 1 - l.y_first;
  const ChromaWeights w = chroma_weights (o);
  int su = 0, sv = 0;
  GCS_UNROLL
  for (int j = 0; j < 3; j++) {
    int ru = 0, rv = 0;
    GCS_UNROLL
    for (int i = 0; i < 3; i++)
      if (w.c[i] && w.r[j]) {
        ru += w.c[i] * s.u[r0 + j][c0 + i];
        rv += w.c[i] * s.v[r0 + j][c0 + i];
      }
    su += w.r[j] * ru;
    sv += w.r[j] * rv;
  }
  store_chroma (op, bx, by, su, sv);
}

// The twin of output block (bx, by) of an output whose chroma is
// subsampled (op.fixed.blocks): its pixels' luma, and its chroma filtered
// down from theirs and their neighbours' (clamped to the frame) as
// pixels::downsample_chroma filters it, each pixel's input codes from
// codes_at (x, y, &k) (false: the border).
template <class CodesAt>
inline void
write_block_twin_with (const ConvertScale & op, int bx, int by, CodesAt codes_at)
{
  const Image & o = op.out;
  const int lx = o.comp[1].log2_x, ly = o.comp[1].log2_y;
  const int x0 = bx << lx, y0 = by << ly;
  auto at = [&] (int x, int y) {
    x = pixels::clampi (x, 0, o.width - 1), y = pixels::clampi (y, 0, o.height - 1);
    InputCodes k;
    return codes_at (x, y, &k) ? luma_chroma (op.fixed, k)
                               : border_luma_chroma (op.fixed);
  };
  const Component & luma = o.comp[0];
  for (int y = y0; y < y0 + (1 << ly) && y < o.height; y++)
    for (int x = x0; x < x0 + (1 << lx) && x < o.width; x++)
      luma.base[pixels::sample_offset ((unsigned)luma.pitch, luma.step, x, y)] =
          (std::uint8_t)at (x, y).y;
  const ChromaWeights w = chroma_weights (o);
  int su = 0, sv = 0;
  for (int j = 0; j < 3; j++) {
    int ru = 0, rv = 0;
    for (int i = 0; i < 3; i++)
      if (w.c[i] && w.r[j]) {
        const LumaChroma p = at (x0 - 1 + i, y0 - 1 + j);
        ru += w.c[i] * p.u;
        rv += w.c[i] * p.v;
      }
    su += w.r[j] * ru;
    sv += w.r[j] * rv;
  }
  store_chroma (op, bx, by, su, sv);
}

// write_block_twin_with each pixel from its source position.
template <Filter F, int Word>
inline void
write_block_twin (const ConvertScale & op, int bx, int by)
{
  write_block_twin_with (op, bx, by, [&] (int x, int y, InputCodes * k) {
    return pixel_input_codes<F, Word> (op, x, y, k);
  });
}

// Calls fn (word) with op.fixed.word as a compile-time constant; Packed:
// kPackedRgb among them (batch_convert takes YUV only: fewer kernels);
// Wide: kWidePlanes and kWideWords too (the pixel kernels' frames alone:
// resolve gives them to no other).
template <bool Packed = true, bool Wide = false, class Fn>
inline void
dispatch_word (const ConvertScale & op, Fn fn)
{
  if (op.fixed.word == 2)
    fn (std::integral_constant<int, 2>{});
  else if (op.fixed.word == 4)
    fn (std::integral_constant<int, 4>{});
  else if (Wide && op.fixed.word == kWidePlanes) {
    if constexpr (Wide)
      fn (std::integral_constant<int, kWidePlanes>{});
  } else if (Wide && op.fixed.word == kWideWords) {
    if constexpr (Wide)
      fn (std::integral_constant<int, kWideWords>{});
  } else if constexpr (Packed) {
    if (op.fixed.word == kPackedRgb)
      fn (std::integral_constant<int, kPackedRgb>{});
    else
      fn (std::integral_constant<int, 0>{});
  } else
    fn (std::integral_constant<int, 0>{});
}

// Whether every tap of the luma (of packed RGB: of the pixel) along
// either axis is one sample, its pair's other of weight 0: nearest, and
// frames not scaled (each output pixel's source position is a sample's).
// Those pixels read their one luma sample, or word of packed RGB
// (input_codes' One): a quarter of those loads; chroma keeps its pairs
// unless its taps are one sample too (FixedPoint::chroma_one).
inline bool
luma_one_tap (const ConvertScale & op)
{
  return op.filter == Filter::NEAREST || (op.scale_x == 1.0f && op.scale_y == 1.0f);
}

// Calls fn (one) with luma_one_tap (op) as a compile-time constant.
template <class Fn>
inline void
dispatch_one (const ConvertScale & op, Fn fn)
{
  if (luma_one_tap (op))
    fn (std::true_type{});
  else
    fn (std::false_type{});
}

// Whether op's area filter reads what bilinear reads, so that the
// two-tap kernels compute it: along each axis and in each plane, the
// filter does not shrink (a plane sample per output pixel or fewer: area
// is bilinear there, pixels::taps), or it shrinks by exactly 2 with every
// line's footprint centred between two samples: then it covers those two
// halves each (weights 1/2 and 1/2, in taps()'s order), and bilinear at
// that midpoint reads the same two with the same weights. A shrink by
// exactly 2 keeps the first line's offset for every line (its positions
// step by 2, exactly), so the first line decides. 4K into 1080p is such a
// frame: its luma shrinks by 2 centred, the chroma of 4:2:0 not at all.
// With whole-sample crops, a full-resolution plane shrunk by 2 is always
// centred, and a subsampled one shrinks by 2 only where the luma shrinks
// by 4, which the test of s refuses: the centre test guards the rule; it
// refuses no frame today.
inline bool
area_as_bilinear (const ConvertScale & op)
{
  if (op.filter != Filter::AREA)
    return false;
  for (int vertical = 0; vertical < 2; vertical++)
    for (int g = 0; g < 2; g++) {
      const two_tap::LineSource l = two_tap::line_source (op, vertical != 0, 0.0f);
      const pixels::PlanePosition p = pixels::plane_position (op, g, l.source_y, l.s);
      const float s = l.scale * p.k;
      if (s <= 1.0f)
        continue;
      if (s != 2.0f || p.p + 0.5f != floorf (p.p + 0.5f))
        return false;
    }
  return true;
}

// The byte_perm selector of two words w0, w1 (bytes 0..3, 4..7) giving
// [byte x of w0, x of w1, byte y of w0, y of w1].
GCS_HD constexpr unsigned
pair_select (unsigned x, unsigned y)
{
  return x | ((x + 4u) << 4) | (y << 8) | ((y + 4u) << 12);
}

// Whether op's filter reads four neighbouring samples or fewer along each
// axis where two_tap's does not (bicubic; area shrinking by up to 3
// times), of frames not turned: convert_scale_fixed_taps.h's, for inputs
// of YUV, and of packed RGB into RGB or 4:4:4 (resolve: into subsampled
// chroma, packed RGB stays in float).
// pairs: two_tap::applies (op) || area_as_bilinear (op), which resolve
// has asked already.
inline bool
quad_filter (const ConvertScale & op, bool pairs)
{
  if (pairs || pixels::rotates (op.orientation))
    return false;
  return op.filter == Filter::BICUBIC ||
         (op.filter == Filter::AREA && op.scale_x <= 3.0f && op.scale_y <= 3.0f);
}

// Sets op.fixed (resolved by pixels::resolve): on for frames of 8-bit
// samples in and out, resampled by two taps or four (quad_filter), from the inputs above into
// RGB or 4:4:4 (not where one sample is read: one_sample's path) or into
// YUV whose chroma is filtered down from full-resolution pixels (blocks),
// and for YUV of 16-bit samples (wide words: aligned, op.in.even) by two
// taps into 8-bit RGB or 4:4:4, not turned, where the integer matrix
// cannot overflow; otherwise off, and the frame is computed in float.
inline void
resolve (ConvertScale & op)
{
  ConvertScale::FixedPoint f;
  op.fixed = f;
  const Image &in = op.in, &o = op.out;
  const bool pairs = two_tap::applies (op) || area_as_bilinear (op);
  const bool quad = quad_filter (op, pairs);
  const bool wide_in = in.bytes == 2;
  if ((!pairs && !quad) || o.bytes != 1 || o.max_code != 255 ||
      (wide_in ? !in.even || in.generic || quad || pixels::rotates (op.orientation)
               : in.bytes != 1 || in.max_code != 255))
    return;
  f.taps = quad ? 4 : 2;
  const Component &y = in.comp[0], &u = in.comp[1], &v = in.comp[2], &oc = o.comp[1];
  f.blocks = o.yuv && (oc.log2_x | oc.log2_y) != 0;
  if (f.blocks && wide_in)
    return;
  if (f.blocks) {
    /* Chroma filtered down from full-resolution pixels, without alpha, not
     * turned; where the output's chroma is the input's (converted or
     * resampled where it sits), the other paths compute less. */
    if (op.chroma_direct || op.chroma_resampled || pixels::rotates (op.orientation) ||
        oc.plane < 0 || o.comp[2].plane < 0 || o.comp[3].plane >= 0)
      return;
  } else if (one_sample::applies (op)) {
    return;
  }
  /* The input: Y alone at full resolution and U, V subsampled; or three
   * planes of samples at full resolution (4:4:4, planar RGB), read as Y
   * and U, V at the luma's positions (plane_position at l = 0); or packed
   * RGB in aligned 4-byte words (words_of), with alpha where the output
   * takes it unscaled. */
  const unsigned full = op.inputs_all & op.in_full, sub = op.inputs_all & op.in_sub;
  const int n = in.bytes; /* a sample's bytes: the planes' step */
  const bool planes_of_three = full == 7u && sub == 0u && y.step == n && u.step == n &&
                               v.step == n && u.pitch == v.pitch;
  const bool planes =
      (full == 1u && sub == 6u && u.pitch == v.pitch && u.step == v.step) ||
      planes_of_three;
  if (full == 1u && sub == 6u && op.in_words[1].word != 0) {
    if (wide_in && op.in_words[1].word != 4) /* U and V: 16 bits each */
      return;
    f.word = wide_in ? kWideWords : op.in_words[1].word;
  } else if (planes)
    f.word = wide_in ? kWidePlanes : 0;
  else if (sub == 0u && op.in_words[0].word == 4 &&
           (full == 7u || (full == 15u && op.alpha_scale == 1.0f)) && !wide_in &&
           !(quad && f.blocks))
    f.word = kPackedRgb;
  else
    return;
  /* An input code times 2^e: 8-bit codes times 256 (input_codes), 16-bit
   * samples as they lie (wide_codes), their code at `shift`. The matrix's
   * coefficients are in 1/2^(kShift - e), so that each product is the
   * output code times 2^kShift. Its sums stay within 32 bits: each input
   * is at most 255 * 256, or the largest code at its shift, and every
   * partial sum (the offset first, as codes adds) lies between the offset
   * plus the negative terms and the offset plus the positive ones. */
  const int e = wide_in ? in.shift : kCodeBits;
  const unsigned top = (unsigned)in.max_code << in.shift; /* wide: every code's bits */
  f.wide_mask = wide_in ? top | (top << 16) : 0u;
  const double largest = wide_in ? (double)top : 255.0 * 256.0;
  for (int i = 0; i < 3; i++) {
    const double off =
        std::round ((double)op.matrix[i][3] * (1 << kShift)) + (1 << (kShift - 1));
    double lo = off, hi = off;
    for (int c = 0; c < 3; c++) {
      const double m = std::round ((double)op.matrix[i][c] * (double)(1 << (kShift - e)));
      if (m > 2147483647.0 || m < -2147483648.0)
        return;
      f.matrix[i][c] = (int)m;
      (m < 0 ? lo : hi) += m * largest;
    }
    if (lo < -2147483648.0 || hi > 2147483647.0)
      return;
    f.matrix[i][3] = (int)off; /* floor (x + 1/2), as quantize rounds */
  }
  f.luma = y.base;
  f.stride[0][0] = (unsigned)y.step;
  f.stride[0][1] = (unsigned)y.pitch;
  if (f.word == kPackedRgb) {
    const ConvertScale::Words & w = op.in_words[0];
    f.luma = f.chroma = w.base; /* no chroma: its taps are never read */
    f.stride[0][0] = (unsigned)w.word;
    f.stride[0][1] = w.pitch;
    f.alpha_in = (op.in_full & 8u) != 0;
    /* Components 0 and 2, and 1 and 3, each into a 16-bit lane: byte 4 is
     * the second operand's, 0 (for alpha where the input has none). */
    const unsigned alpha = f.alpha_in ? (unsigned)in.comp[3].offset : 4u;
    f.rgb_select[0] = (unsigned)in.comp[0].offset | (4u << 4) |
                      ((unsigned)in.comp[2].offset << 8) | (4u << 12);
    f.rgb_select[1] = (unsigned)in.comp[1].offset | (4u << 4) | (alpha << 8) | (4u << 12);
  } else if (f.word > 0 || f.word == kWideWords) {
    const ConvertScale::Words & w = op.in_words[1];
    f.chroma = w.base;
    f.stride[1][0] = (unsigned)w.word;
    f.stride[1][1] = w.pitch;
    /* Byte 4 is the second operand's, 0; a 16-bit sample's two bytes. */
    const unsigned uo = (unsigned)u.offset, vo = (unsigned)v.offset;
    f.chroma_select = wide_in ? uo | ((uo + 1u) << 4) | (vo << 8) | ((vo + 1u) << 12)
                              : uo | (4u << 4) | (vo << 8) | (4u << 12);
    f.chroma_pairs = pair_select (uo, vo);
  } else {
    f.chroma = u.base;
    f.v_minus_u = v.base - u.base;
    f.stride[1][0] = (unsigned)u.step;
    f.stride[1][1] = (unsigned)u.pitch;
  }
  /* Taps::of pairs a sample with its neighbour along each axis, and codes
   * knows the steps along x. */
  const int chroma_w = (in.width + (1 << op.sub_log2_x) - 1) >> op.sub_log2_x,
            chroma_h = (in.height + (1 << op.sub_log2_y) - 1) >> op.sub_log2_y;
  const int least = f.taps; /* samples along each axis of each plane */
  if (in.width < least || in.height < least || chroma_w < least || chroma_h < least ||
      f.stride[0][0] != luma_step (f.word) || f.stride[1][0] != chroma_step (f.word))
    return;
  for (int c = 0; c < 4; c++)
    if (o.comp[c].plane >= 0 && op.out_packed)
      f.out_select |= (unsigned)c << (4 * o.comp[c].offset);
  /* Where the input has no alpha (FixedMembers' Full is Y alone, or RGB):
   * its max_code,
   * as sample_inputs reads it, times alpha_scale. */
  f.alpha = (int)pixels::quantize<1> (o, (float)in.max_code * op.alpha_scale);
  /* The border's codes, as store_pixel quantizes them. */
  for (int c = 0; c < 4; c++)
    f.border |= pixels::quantize<1> (o, op.border[c]) << (8 * c);
  for (int c = 0; c < 2; c++)
    f.border_chroma[c] =
        (int)std::floor ((double)op.border[c + 1] * (1 << kCoefBits) + 0.5);
  /* Chroma at full resolution sits where the luma does (plane_position
   * at l = 0): its taps are the luma's. Nearest takes one sample of
   * every plane. */
  f.chroma_one = luma_one_tap (op) && (op.filter == Filter::NEAREST ||
                                          (op.sub_log2_x == 0 && op.sub_log2_y == 0));
  f.on = true;
  op.fixed = f;
}

} // namespace gst_cs::gpu::fixed_point

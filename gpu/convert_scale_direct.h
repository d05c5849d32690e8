/* SPDX-License-Identifier: LGPL-2.1-or-later */
// The GPU's path for YUV -> YUV conversions on one chroma grid (P010 ->
// NV12, NV12 -> I420, I420 -> NV21 ...): nothing is scaled, turned,
// bordered or resampled (op.chroma_direct), the output's luma reads the
// input's luma alone and its chroma the input's chroma alone. Then a luma
// code is one affine map of one input code, a chroma pair one 2x2 map of
// one input pair, and a thread does only that, for four blocks of a row:
// each plane's run of them is one aligned load and one store where the
// planes allow (write_group), else it goes sample by sample.
//
// It computes what pixels::write_block computes, to the bit. Where the
// output's luma reads no chroma, matrix[0][1] and [0][2] are 0 (inputs_of)
// and write_block adds 0 * 0 twice, which changes no sum but a zero's sign;
// likewise matrix[1][0] and [2][0] for chroma. A zero's sign changes no
// later sum that is not zero, and quantize maps +0 and -0 to code 0.
#pragma once

#include "convert_scale_one_sample.h"

namespace gst_cs::gpu::direct {

// Whether `op` (resolved) can take this path.
inline bool
applies (const ConvertScale & op)
{
  const Image & o = op.out;
  return one_sample::applies (op) && op.chroma_direct && o.comp[1].plane >= 0 &&
         o.comp[3].plane < 0 && (o.comp[1].log2_x | o.comp[1].log2_y) != 0 &&
         (op.inputs_luma & op.in_full) == 1u && (op.inputs_luma & 6u) == 0 &&
         (op.inputs_chroma & ~op.in_sub) == 0;
}

// N bytes (4, 8 or 16) from an address aligned to N, as 32-bit little
// endian words: one load on the GPU.
template <int N>
GCS_HD void
load_words (const std::uint8_t * p, unsigned w[N / 4])
{
#if defined(__CUDA_ARCH__)
  if (N == 16) {
    const uint4 v = *(const uint4 *)p;
    w[0] = v.x, w[1] = v.y, w[2] = v.z, w[3] = v.w;
  } else if (N == 8) {
    const uint2 v = *(const uint2 *)p;
    w[0] = v.x, w[1] = v.y;
  } else {
    w[0] = *(const unsigned *)p;
  }
#else
  for (int i = 0; i < N / 4; i++)
    w[i] = (unsigned)p[4 * i] | ((unsigned)p[4 * i + 1] << 8) |
           ((unsigned)p[4 * i + 2] << 16) | ((unsigned)p[4 * i + 3] << 24);
#endif
}

template <int N>
GCS_HD void
store_words (std::uint8_t * p, const unsigned w[N / 4])
{
#if defined(__CUDA_ARCH__)
  if (N == 16)
    *(uint4 *)p = make_uint4 (w[0], w[1], w[2], w[3]);
  else if (N == 8)
    *(uint2 *)p = make_uint2 (w[0], w[1]);
  else
    *(unsigned *)p = w[0];
#else
  for (int i = 0; i < N; i++)
    p[i] = (std::uint8_t) (w[i / 4] >> (8 * (i % 4)));
#endif
}

// The B-byte sample at byte `at` of words w (at: a constant once unrolled).
template <int B>
GCS_HD unsigned
field (const unsigned * w, int at)
{
  return (w[at / 4] >> (8 * (at % 4))) & (B == 1 ? 0xffu : 0xffffu);
}

GCS_HD bool
aligned (const std::uint8_t * p, unsigned n)
{
  return ((std::uintptr_t)p & (n - 1)) == 0;
}

// Sample (x, y) of component c.
GCS_HD std::uint8_t *
at (const Component & c, int x, int y)
{
  return c.base + pixels::sample_offset ((unsigned)c.pitch, c.step, x, y);
}

// Whether samples x .. x + 3 of component c (B-byte samples, alone in
// their plane or interleaved with one other) are one aligned load of
// 4 * step bytes.
template <int B>
GCS_HD bool
quad (const Component & c, int x, int y)
{
  return (c.step == B || (c.step == 2 * B && (c.offset == 0 || c.offset == B))) &&
         aligned (at (c, x, y) - (c.step == B ? 0 : c.offset), 4u * c.step);
}

// The codes (shift not removed) of samples x .. x + 3 of c (quad).
template <int B>
GCS_HD void
load_quad (const Component & c, int x, int y, unsigned code[4])
{
  const std::uint8_t * p = at (c, x, y);
  if (c.step == B) {
    unsigned w[B];
    load_words<4 * B> (p, w);
    GCS_UNROLL
    for (int i = 0; i < 4; i++)
      code[i] = field<B> (w, i * B);
    return;
  }
  unsigned w[2 * B];
  load_words<8 * B> (p - c.offset, w);
  const bool second = c.offset != 0;
  GCS_UNROLL
  for (int i = 0; i < 4; i++)
    code[i] = second ? field<B> (w, i * 2 * B + B) : field<B> (w, i * 2 * B);
}

// The output luma code (quantized, shifted into place) of input code y.
template <int OB>
GCS_HD unsigned
luma (const ConvertScale & op, float y)
{
  return pixels::quantize<OB> (op.out, op.matrix[0][0] * y + op.matrix[0][3]);
}

// The output chroma codes (quantized, shifted into place) of input codes
// u and v.
template <int OB>
GCS_HD void
chroma (const ConvertScale & op, float u, float v, unsigned * cu, unsigned * cv)
{
  /* matrix[1][0] and [2][0] are 0: the luma's 0 leaves no term. */
  const float in[3] = { 0.0f, u, v };
  *cu = pixels::quantize<OB> (op.out, pixels::matrix_row (op.matrix[1], in));
  *cv = pixels::quantize<OB> (op.out, pixels::matrix_row (op.matrix[2], in));
}

GCS_HD float
code_value (const Image & im, unsigned code)
{
  return (float)(code >> im.shift);
}

// Writes output block (bx, by) as pixels::write_block does, sample by
// sample.
template <int IB, int OB>
GCS_HD void
write_block (const ConvertScale & op, int bx, int by)
{
  const Image & o = op.out;
  const Component &u = o.comp[1], &v = o.comp[2];
  const int x0 = bx << u.log2_x, y0 = by << u.log2_y;
  const int n = o.width - x0 < (1 << u.log2_x) ? o.width - x0 : 1 << u.log2_x;
  const int rows = o.height - y0 < (1 << u.log2_y) ? o.height - y0 : 1 << u.log2_y;
  for (int j = 0; j < rows; j++)
    for (int i = 0; i < n; i++) {
      const float y =
          pixels::load<IB> (op.in, op.in.comp[0], op.src_x + x0 + i, op.src_y + y0 + j);
      pixels::store<OB> (
          o, o.comp[0], x0 + i, y0 + j, op.matrix[0][0] * y + op.matrix[0][3]);
    }
  /* The input's chroma sample under the block (chroma_sample). */
  const int cx = (op.src_x + x0) >> op.sub_log2_x, cy = (op.src_y + y0) >> op.sub_log2_y;
  const float in_u = pixels::load<IB> (op.in, op.in.comp[1], cx, cy);
  const float in_v = pixels::load<IB> (op.in, op.in.comp[2], cx, cy);
  const float in[3] = { 0.0f, in_u, in_v };
  pixels::store<OB> (o, u, bx, by, pixels::matrix_row (op.matrix[1], in));
  pixels::store<OB> (o, v, bx, by, pixels::matrix_row (op.matrix[2], in));
}

// A thread's share: kGroup blocks of a row of blocks.
constexpr int kGroup = 4;

// Writes output blocks (bx .. bx + kGroup - 1, by): where they are whole,
// two luma columns each, and every plane's run of them is one aligned
// load and store (NV12, P010, I420 at even crops), eight luma and four
// chroma samples at a time; else block by block.
template <int IB, int OB>
GCS_HD void
write_group (const ConvertScale & op, int bx, int by)
{
  const Image &im = op.in, &o = op.out;
  const Component &iu = im.comp[1], &iv = im.comp[2], &ou = o.comp[1], &ov = o.comp[2];
  const int x0 = bx << ou.log2_x, y0 = by << ou.log2_y;
  const int rows = o.height - y0 < (1 << ou.log2_y) ? o.height - y0 : 1 << ou.log2_y;
  const int sx = op.src_x + x0, sy = op.src_y + y0;
  const int cx = (op.src_x + x0) >> op.sub_log2_x, cy = (op.src_y + y0) >> op.sub_log2_y;
  /* Output chroma interleaved (NV12's UV) is stored as one run of pairs;
   * apart (I420), as a run per component. */
  const bool out_pairs = ou.plane == ov.plane && ou.step == 2 * OB &&
                         (ou.offset ^ ov.offset) == OB && (ou.offset | ov.offset) == OB;
  std::uint8_t * out_pair0 = at (ou, bx, by) - ou.offset;
  bool wide = ou.log2_x == 1 && x0 + 2 * kGroup <= o.width && im.comp[0].step == IB &&
              o.comp[0].step == OB && quad<IB> (iu, cx, cy) && quad<IB> (iv, cx, cy) &&
              (out_pairs ? aligned (out_pair0, 8u * OB)
                         : quad<OB> (ou, bx, by) && quad<OB> (ov, bx, by));
  for (int j = 0; j < rows; j++)
    wide = wide && aligned (at (im.comp[0], sx, sy + j), 8u * IB) &&
           aligned (at (o.comp[0], x0, y0 + j), 8u * OB);
  if (!wide) {
    for (int k = 0; k < kGroup; k++)
      if (bx + k < pixels::blocks_x (o))
        write_block<IB, OB> (op, bx + k, by);
    return;
  }
  for (int j = 0; j < rows; j++) {
    unsigned w[2 * IB], q[2 * OB] = {};
    load_words<8 * IB> (at (im.comp[0], sx, sy + j), w);
    GCS_UNROLL
    for (int i = 0; i < 2 * kGroup; i++) {
      const unsigned c = luma<OB> (op, code_value (im, field<IB> (w, i * IB)));
      q[i * OB / 4] |= c << (8 * (i * OB % 4));
    }
    store_words<8 * OB> (at (o.comp[0], x0, y0 + j), q);
  }
  unsigned cu[kGroup], cv[kGroup];
  load_quad<IB> (iu, cx, cy, cu);
  load_quad<IB> (iv, cx, cy, cv);
  GCS_UNROLL
  for (int k = 0; k < kGroup; k++)
    chroma<OB> (op, code_value (im, cu[k]), code_value (im, cv[k]), &cu[k], &cv[k]);
  if (out_pairs) {
    unsigned q[2 * OB] = {};
    const bool v_first = ou.offset != 0; /* NV21 */
    GCS_UNROLL
    for (int k = 0; k < kGroup; k++) {
      const int b0 = k * 2 * OB, b1 = b0 + OB;
      q[b0 / 4] |= (v_first ? cv[k] : cu[k]) << (8 * (b0 % 4));
      q[b1 / 4] |= (v_first ? cu[k] : cv[k]) << (8 * (b1 % 4));
    }
    store_words<8 * OB> (out_pair0, q);
    return;
  }
  unsigned qu[OB] = {}, qv[OB] = {};
  GCS_UNROLL
  for (int k = 0; k < kGroup; k++) {
    qu[k * OB / 4] |= cu[k] << (8 * (k * OB % 4));
    qv[k * OB / 4] |= cv[k] << (8 * (k * OB % 4));
  }
  store_words<4 * OB> (at (ou, bx, by), qu);
  store_words<4 * OB> (at (ov, bx, by), qv);
}

} // namespace gst_cs::gpu::direct

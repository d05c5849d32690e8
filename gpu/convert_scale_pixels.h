/* SPDX-License-Identifier: LGPL-2.1-or-later */
// The per-block arithmetic of convert_scale, compiled twice: into the CUDA
// kernel (convert_scale.cu) and into its CPU twin (convert_scale_host.cpp).
// Both are built without contracting a*b+c into fused multiply-adds (nvcc
// -fmad=false, g++ -ffp-contract=off), so every float operation rounds the
// same way on both and the twin's output is the kernel's, bit for bit;
// where the code fuses one (mad), it does so on both.
#pragma once

#include <climits>
#include <cmath>
#include <type_traits>

#include "convert_scale.h"

#if defined(__CUDACC__)
#define GCS_HD __host__ __device__ __forceinline__
/* The generic path's sample access, called rather than inlined at each of
 * its many taps: it compiled for minutes per filter inlined. `inline`
 * still, for the linker: several objects define it. */
#define GCS_HD_CALLED inline __host__ __device__ __noinline__
#else
#define GCS_HD inline
#define GCS_HD_CALLED inline
#endif
/* Unrolled on the GPU (fixed-size loops whose arrays then stay in
 * registers); the host compiler decides for itself. */
#if defined(__CUDA_ARCH__)
#define GCS_UNROLL _Pragma ("unroll")
#define GCS_NO_UNROLL _Pragma ("unroll 1")
#define GCS_UNROLL_TWICE _Pragma ("unroll 2")
#define GCS_UNROLL_4 _Pragma ("unroll 4")
/* By a constant expression, template arguments included (1: not). */
#define GCS_PRAGMA(x) _Pragma (#x)
#define GCS_UNROLL_BY(n) GCS_PRAGMA (unroll (n))
#else
#define GCS_UNROLL
#define GCS_NO_UNROLL
#define GCS_UNROLL_TWICE
#define GCS_UNROLL_4
#define GCS_UNROLL_BY(n)
#endif

namespace gst_cs::gpu::pixels {

GCS_HD int
clampi (int v, int lo, int hi)
{
  return v < lo ? lo : (v > hi ? hi : v);
}

// a * b + c rounded once: a fused multiply-add on the GPU (__fmaf_rn) and
// std::fmaf on the CPU, the same value on both. One instruction where a
// multiply and an add are two, and half the rounding: the sums of taps
// and of the matrix's terms are made of these.
GCS_HD float
mad (float a, float b, float c)
{
#if defined(__CUDA_ARCH__)
  return __fmaf_rn (a, b, c);
#else
  return std::fmaf (a, b, c);
#endif
}

GCS_HD bool
rotates (Orientation o)
{
  return o == Orientation::ROTATE_90R || o == Orientation::ROTATE_90L ||
         o == Orientation::TRANSPOSE || o == Orientation::ANTI_TRANSPOSE;
}

// Sets each component's base and pitch from its plane (see Component),
// its word where the image's sample size stands for it, and whether the
// image needs the generic path (Image::generic).
inline void
resolve_planes (Image & im)
{
  im.generic = false;
  im.even = im.bytes == 2;
  for (Component & c : im.comp) {
    if (c.word == 0) {
      c.word = im.bytes, c.shift = im.shift, c.max_code = im.max_code;
      c.big_endian = false, c.clear = true;
    }
    if (c.plane < 0)
      continue;
    c.base = im.data[c.plane] + c.offset;
    c.pitch = im.pitch[c.plane];
    if (((std::uintptr_t)c.base | c.pitch | (unsigned)c.step) & 1u)
      im.even = false;
    if (c.word != im.bytes || c.shift != im.shift || c.max_code != im.max_code ||
        (c.big_endian && c.word > 1) || !c.clear || c.log2_x > 1 || c.log2_y > 1 ||
        c.pair_step != 0 || im.palette)
      im.generic = true;
  }
}

// Whether `op` (resolved) takes the generic path: read and written sample
// by sample through each component's word (sample bytes 0 below).
GCS_HD bool
generic (const ConvertScale & op)
{
  return op.in.generic || op.out.generic;
}

// On the GPU, *w = the word of 2 or 4 bytes at p where p is aligned to
// its size: one load, its bytes swapped where big endian, the same value
// as its bytes one by one. False elsewhere (and always on the CPU).
GCS_HD bool
aligned_word (const std::uint8_t * p, int bytes, bool big_endian, unsigned * w)
{
#if defined(__CUDA_ARCH__)
  if (bytes == 4 && ((std::uintptr_t)p & 3u) == 0) {
    const unsigned v = *(const unsigned *)p;
    *w = big_endian ? __byte_perm (v, 0u, 0x0123u) : v;
    return true;
  }
  if (bytes == 2 && ((std::uintptr_t)p & 1u) == 0) {
    const unsigned v = *(const unsigned short *)p;
    *w = big_endian ? __byte_perm (v, 0u, 0x4401u) : v;
    return true;
  }
#else
  (void)p, (void)bytes, (void)big_endian, (void)w;
#endif
  return false;
}

// A word of `bytes` bytes (1, 2 or 4) at p, little or big endian
// (aligned_word where it can).
GCS_HD_CALLED unsigned
read_word (const std::uint8_t * p, int bytes, bool big_endian)
{
  unsigned w = 0;
  if (aligned_word (p, bytes, big_endian, &w))
    return w;
  for (int i = 0; i < bytes; i++)
    w |= (unsigned)p[i] << (8 * (big_endian ? bytes - 1 - i : i));
  return w;
}

GCS_HD_CALLED void
write_word (std::uint8_t * p, int bytes, bool big_endian, unsigned w)
{
  for (int i = 0; i < bytes; i++)
    p[i] = (std::uint8_t) (w >> (8 * (big_endian ? bytes - 1 - i : i)));
}

// read_word and write_word, where on the GPU a word aligned to its size
// is one load or store in place (its bytes swapped where big endian), not
// a call that goes byte by byte: the same value and the same bytes. For
// the generic path's one-sample frames and its stores (r210, Y410, RGB10A2
// in or out: 4 byte loads a component, in a call); its taps keep the call
// (inlined at each of bicubic's taps, one variant built in 62 s, not 16).
GCS_HD unsigned
fetch_word (const std::uint8_t * p, int bytes, bool big_endian)
{
#if defined(__CUDA_ARCH__)
  if (bytes == 1)
    return p[0];
#endif
  unsigned w;
  if (aligned_word (p, bytes, big_endian, &w))
    return w;
  return read_word (p, bytes, big_endian);
}

GCS_HD void
put_word (std::uint8_t * p, int bytes, bool big_endian, unsigned w)
{
#if defined(__CUDA_ARCH__)
  if (bytes == 1) {
    p[0] = (std::uint8_t)w;
    return;
  }
  if (bytes == 4 && ((std::uintptr_t)p & 3u) == 0) {
    *(unsigned *)p = big_endian ? __byte_perm (w, 0u, 0x0123u) : w;
    return;
  }
  if (bytes == 2 && ((std::uintptr_t)p & 1u) == 0) {
    *(unsigned short *)p =
        (unsigned short)(big_endian ? __byte_perm (w, 0u, 0x4401u) : w);
    return;
  }
#endif
  write_word (p, bytes, big_endian, w);
}

// The little-endian word of 2 or 4 bytes at p (aligned): one load on the
// GPU, byte by byte on the CPU (where p's alignment is not the GPU's).
GCS_HD unsigned
load_aligned_word (const std::uint8_t * p, int bytes)
{
#if defined(__CUDA_ARCH__)
  return bytes == 4 ? *(const unsigned *)p : (unsigned)*(const unsigned short *)p;
#else
  unsigned v = 0;
  for (int b = 0; b < bytes; b++)
    v |= (unsigned)p[b] << (8 * b);
  return v;
#endif
}

// Bytes from a plane's start to sample (x, y) of a component: 32-bit
// arithmetic (convert_scale_is_valid keeps every frame's offsets below
// 4 GiB), cheaper on the GPU than 64-bit.
GCS_HD unsigned
sample_offset (unsigned pitch, int step, int x, int y)
{
  return (unsigned)y * pitch + (unsigned)x * (unsigned)step;
}

// sample_offset of the generic path, where samples may come in pairs
// (Component::pair_step).
GCS_HD unsigned
generic_offset (const Component & c, int x, int y)
{
  if (c.pair_step == 0)
    return sample_offset ((unsigned)c.pitch, c.step, x, y);
  return (unsigned)y * (unsigned)c.pitch + (unsigned)(x >> 1) * (unsigned)c.step +
         (unsigned)(x & 1) * (unsigned)c.pair_step;
}

// A palette image's entry `index` (Image::palette): 0xAARRGGBB, an entry
// a row of plane 1 (4 bytes apart in GStreamer's own layout, a pool's
// aligned rows apart on the device).
GCS_HD unsigned
palette_entry (const Image & im, unsigned index)
{
  return read_word (im.data[1] + (std::size_t)index * im.pitch[1], 4, false);
}

// The code of the IB-byte sample at p (IB 1 or 2), as a float.
template <int IB>
GCS_HD float
load_at (const Image & im, const std::uint8_t * p)
{
  if (IB == 1)
    return (float)p[0];
#if defined(__CUDA_ARCH__)
  if (im.even || ((std::uintptr_t)p & 1u) == 0) /* one 16-bit load: the same value */
    return (float)((unsigned)*(const unsigned short *)p >> im.shift);
#endif
  return (float)((unsigned)(p[0] | (p[1] << 8)) >> im.shift);
}

// A sample's code, made a float by a conversion instruction. Building
// the same float from the code's bits instead (0x4b000000 | v, less
// 2^23: two full-rate instructions) made the float paths' kernels 2 to
// 18 % slower on an H200, bicubic the most; so did rounding codes by a
// round-down add instead of __float2uint_rd. IB: the image's sample
// bytes, or 0 for each component's own word (the generic path; Inline:
// its word read in place, fetch_word, else by read_word's call).
template <int IB, bool Inline = false>
GCS_HD float
load (const Image & im, const Component & c, int x, int y)
{
  if (IB == 0) {
    const std::uint8_t * at = c.base + generic_offset (c, x, y);
    unsigned w = Inline ? fetch_word (at, c.word, c.big_endian)
                        : read_word (at, c.word, c.big_endian);
    if (im.palette)
      w = palette_entry (im, w);
    return (float)((w >> c.shift) & (unsigned)c.max_code);
  }
  return load_at<IB> (im, c.base + sample_offset ((unsigned)c.pitch, c.step, x, y));
}

// `code` rounded half up and clamped to 0..max_code.
GCS_HD unsigned
round_code (float code, int max_code)
{
  /* floorf is exact and so is its conversion, which saturates far beyond
   * any code: clamping the integer is clamping the float, in fewer
   * instructions. */
#if defined(__CUDA_ARCH__)
  /* The unsigned conversion saturates below at 0: one clamp is left. */
  return min (__float2uint_rd (code + 0.5f), (unsigned)max_code);
#else
  const float f = floorf (code + 0.5f);
  const int r = f < -2147483648.0f ? INT_MIN : (f >= 2147483648.0f ? INT_MAX : (int)f);
  return (unsigned)clampi (r, 0, max_code);
#endif
}

// The code a component of `im`, of B-byte samples, stores for `code`:
// rounded half up, clamped to the format's range, shifted into place.
template <int B>
GCS_HD unsigned
quantize (const Image & im, float code)
{
  const unsigned v = round_code (code, im.max_code);
  return B == 1 ? v : v << im.shift; /* 1-byte samples have no shift */
}

// OB: the image's sample bytes, or 0 for each component's own word (its
// other bits kept, or cleared by the word's first component).
template <int OB>
GCS_HD void
store (const Image & im, const Component & c, int x, int y, float code)
{
  if (OB == 0) {
    std::uint8_t * p = c.base + generic_offset (c, x, y);
    const unsigned mask = (unsigned)c.max_code << c.shift;
    const unsigned keep = c.clear ? 0u : fetch_word (p, c.word, c.big_endian) & ~mask;
    put_word (p, c.word, c.big_endian, keep | (round_code (code, c.max_code) << c.shift));
    return;
  }
  std::uint8_t * p = c.base + sample_offset ((unsigned)c.pitch, c.step, x, y);
  const unsigned v = quantize<OB> (im, code);
#if defined(__CUDA_ARCH__)
  if (OB == 2 && im.even) { /* one 16-bit store: the same bytes */
    *(unsigned short *)p = (unsigned short)v;
    return;
  }
#endif
  p[0] = (std::uint8_t) (v & 0xffu);
  if (OB == 2)
    p[1] = (std::uint8_t) (v >> 8);
}

// Calls tap(index, weight) for each source sample that `filter` reads at
// plane position `p` (sample centres on integers), `scale` source samples
// per output pixel, indices clamped to [lo, hi] (the edge repeats).
template <Filter F, class Tap>
GCS_HD void
taps (float p, float scale, int lo, int hi, Tap tap)
{
  if (F == Filter::NEAREST) {
    tap (clampi ((int)floorf (p + 0.5f), lo, hi), 1.0f);
    return;
  }
  if (F == Filter::AREA && scale > 1.0f) {
    /* Sample i covers [i - 0.5, i + 0.5); the output pixel covers `scale`
     * samples around p. Each sample weighs what it covers of that. */
    const float a = p - 0.5f * scale, b = p + 0.5f * scale;
    const int first = (int)floorf (a + 0.5f), last = (int)ceilf (b + 0.5f) - 1;
    for (int i = first; i <= last; i++) {
      const float lo_edge = (float)i - 0.5f, hi_edge = (float)i + 0.5f;
      const float w = ((b < hi_edge ? b : hi_edge) - (a > lo_edge ? a : lo_edge)) / scale;
      if (w > 0.0f)
        tap (clampi (i, lo, hi), w);
    }
    return;
  }
  const float f = floorf (p);
  const int i = (int)f;
  const float t = p - f;
  if (t == 0.0f) { /* on a sample: every filter here reads it alone */
    tap (clampi (i, lo, hi), 1.0f);
    return;
  }
  if (F == Filter::BICUBIC) { /* Catmull-Rom */
    const float t2 = t * t, t3 = t2 * t;
    tap (clampi (i - 1, lo, hi), -0.5f * t3 + t2 - 0.5f * t);
    tap (clampi (i, lo, hi), 1.5f * t3 - 2.5f * t2 + 1.0f);
    tap (clampi (i + 1, lo, hi), -1.5f * t3 + 2.0f * t2 + 0.5f * t);
    tap (clampi (i + 2, lo, hi), 0.5f * t3 - 0.5f * t2);
    return;
  }
  tap (clampi (i, lo, hi), 1.0f - t);
  tap (clampi (i + 1, lo, hi), t);
}

struct Pixel {
  float c[4];
};

// Where luma position s (of the x axis, or the y axis where `vertical`)
// lies in the input plane of resolution g (0: full, 1: chroma): plane
// position p (sample centres on integers), k plane samples per luma sample,
// and the samples of the source rectangle, lo..hi.
struct PlanePosition {
  float p, k;
  int lo, hi;
};

GCS_HD PlanePosition
plane_position (const ConvertScale & op, int g, bool vertical, float s)
{
  const int l = g == 0 ? 0 : (vertical ? op.sub_log2_y : op.sub_log2_x);
  const bool cosited = vertical ? op.in.v_cosited : op.in.h_cosited;
  const int src = vertical ? op.src_y : op.src_x, len = vertical ? op.src_h : op.src_w;
  /* Chroma sample k sits on luma position k*n (cosited) or k*n+(n-1)/2,
   * n = 2^l. The
   * factors are powers of 2: the products are exact, as divisions. */
  const float k = l == 2 ? 0.25f : (l ? 0.5f : 1.0f);
  return PlanePosition{ (l && cosited) ? s * k : (s + 0.5f) * k - 0.5f, k, src >> l,
    (src + len - 1) >> l };
}

// The input components of `need` (bits 0..3) at luma position (sx, sy),
// each read from its plane within the source rectangle, over a footprint
// of op.scale_x * fx x op.scale_y * fy luma samples (an output pixel's
// where fx = fy = 1; the area filter averages over it). Components of one
// resolution (luma, RGB and alpha; the two chroma ones) share one pass
// over the taps. A component the input lacks reads 0 (alpha: opaque).
template <Filter F, int IB>
GCS_HD void
sample_inputs (const ConvertScale & op, float sx, float sy, unsigned need, float in[4],
    float fx = 1.0f, float fy = 1.0f)
{
  const Image & im = op.in;
  GCS_UNROLL
  for (int c = 0; c < 4; c++)
    in[c] = c == 3 ? (float)(IB == 0 ? im.comp[3].max_code : im.max_code) : 0.0f;
  GCS_UNROLL
  for (int g = 0; g < 2; g++) {
    const unsigned members = need & (g == 0 ? op.in_full : op.in_sub);
    if (!members)
      continue;
    const PlanePosition x = plane_position (op, g, false, sx),
                        y = plane_position (op, g, true, sy);
    float sum[4] = { 0.0f, 0.0f, 0.0f, 0.0f };
    /* x * 1.0f is x: fx = fy = 1 changes no bit. */
    taps<F> (y.p, op.scale_y * fy * y.k, y.lo, y.hi, [&] (int yi, float wy) {
      float row[4] = { 0.0f, 0.0f, 0.0f, 0.0f };
      taps<F> (x.p, op.scale_x * fx * x.k, x.lo, x.hi, [&] (int xi, float wx) {
        GCS_UNROLL
        for (int c = 0; c < 4; c++)
          if ((members >> c) & 1u)
            row[c] = mad (wx, load<IB> (im, im.comp[c], xi, yi), row[c]);
      });
      GCS_UNROLL
      for (int c = 0; c < 4; c++)
        if ((members >> c) & 1u)
          sum[c] = mad (wy, row[c], sum[c]);
    });
    GCS_UNROLL
    for (int c = 0; c < 4; c++)
      if ((members >> c) & 1u)
        in[c] = sum[c];
  }
}

// One output code (unrounded) of input codes in[0..2]: the matrix row
// m's terms summed in that order, then its offset. Terms whose coefficient
// is 0 are left out and coefficients of 1 not multiplied: the same value
// (x + 0 and x * 1 are x; only a zero's sign may differ, which no code
// shows), and where the description is compiled as a constant
// (convert_scale_rtc.h) their instructions go (RGB into RGB, YUV into YUV
// of the same matrix). Every path that computes a code from its inputs
// computes it here.
GCS_HD float
matrix_row (const float (&m)[4], const float in[3])
{
  float sum = 0.0f;
  bool any = false;
  GCS_UNROLL
  for (int j = 0; j < 3; j++) {
    if (m[j] == 0.0f)
      continue;
    if (!any)
      sum = m[j] == 1.0f ? in[j] : m[j] * in[j];
    else
      sum = m[j] == 1.0f ? sum + in[j] : mad (m[j], in[j], sum);
    any = true;
  }
  return m[3] == 0.0f ? sum : (any ? sum + m[3] : m[3]);
}

// Output codes (unrounded) of input codes `in`, through the matrix.
GCS_HD Pixel
through_matrix (const ConvertScale & op, const float in[4])
{
  Pixel px;
  GCS_UNROLL
  for (int i = 0; i < 3; i++)
    px.c[i] = matrix_row (op.matrix[i], in);
  px.c[3] = in[3] * op.alpha_scale;
  return px;
}

// Output codes (unrounded) of input codes `given`. Bicubic's negative
// lobes may carry a filtered code past the input's range (a sharp edge):
// each is clamped to its component's 0..max_code before the matrix, as
// videoconvertscale does (its scaler keeps lines of the input's codes) and
// as the fixed-point path does (fixed_point::code_of). The other filters'
// codes are weighted means, within the range already, so they skip the
// clamp: one branch on the filter, the same for every thread of a launch.
GCS_HD Pixel
to_output (const ConvertScale & op, const float given[4])
{
  if (op.filter != Filter::BICUBIC)
    return through_matrix (op, given);
  float in[4];
  GCS_UNROLL
  for (int c = 0; c < 4; c++) {
    /* Each component's own range (RGB16's are 31, 63, 31); one the input
     * lacks is a constant (alpha: opaque), not filtered. */
    const Component & k = op.in.comp[c];
    const float top = (float)k.max_code;
    /* One min and one max instruction on the GPU, where the comparisons
     * took two and two; the twin does the same (fminf, fmaxf: the same
     * codes for any finite sum). */
    const float v = fminf (fmaxf (given[c], 0.0f), top);
    in[c] = k.plane >= 0 ? v : given[c];
  }
  return through_matrix (op, in);
}

// Output codes (unrounded) of the input at luma position (sx, sy), of the
// input components `need` (the others are 0 or opaque, and so are the
// outputs that read them: callers ask for what they write).
template <Filter F, int IB>
GCS_HD Pixel
convert (const ConvertScale & op, float sx, float sy, unsigned need, float fx = 1.0f,
    float fy = 1.0f)
{
  float in[4];
  sample_inputs<F, IB> (op, sx, sy, need, in, fx, fy);
  return to_output (op, in);
}

// The border's output codes.
GCS_HD Pixel
border_pixel (const ConvertScale & op)
{
  return Pixel{ { op.border[0], op.border[1], op.border[2], op.border[3] } };
}

// The luma position (sx, sy) in the input of position (dx, dy) of the
// output's picture (pixel centres on integers; not only pixels: chroma
// samples sit between them too).
GCS_HD void
source_position (const ConvertScale & op, float dx, float dy, float * sx, float * sy)
{
  /* The picture before orientation is sw x sh; (u, v) is where (dx, dy)
   * comes from in it. Whole pixels give whole u and v, exactly. */
  const bool swap = rotates (op.orientation);
  const float sw = (float)(swap ? op.dst_h : op.dst_w),
              sh = (float)(swap ? op.dst_w : op.dst_h);
  float u = dx, v = dy;
  switch (op.orientation) {
    case Orientation::ROTATE_90R:
      u = dy, v = sh - 1 - dx;
      break;
    case Orientation::ROTATE_180:
      u = sw - 1 - dx, v = sh - 1 - dy;
      break;
    case Orientation::ROTATE_90L:
      u = sw - 1 - dy, v = dx;
      break;
    case Orientation::FLIP_H:
      u = sw - 1 - dx;
      break;
    case Orientation::FLIP_V:
      v = sh - 1 - dy;
      break;
    case Orientation::TRANSPOSE:
      u = dy, v = dx;
      break;
    case Orientation::ANTI_TRANSPOSE:
      u = sw - 1 - dy, v = sh - 1 - dx;
      break;
    default:
      break;
  }
  *sx = (float)op.src_x + (u + 0.5f) * op.scale_x - 0.5f;
  *sy = (float)op.src_y + (v + 0.5f) * op.scale_y - 0.5f;
}

// Output pixel (ox, oy): the border, or the input where the picture goes.
template <Filter F, int IB>
GCS_HD Pixel
pixel_at (const ConvertScale & op, int ox, int oy, unsigned need)
{
  const int dx = ox - op.dst_x, dy = oy - op.dst_y;
  if (dx < 0 || dy < 0 || dx >= op.dst_w || dy >= op.dst_h)
    return border_pixel (op);
  float sx, sy;
  source_position (op, (float)dx, (float)dy, &sx, &sy);
  return convert<F, IB> (op, sx, sy, need);
}

// Whether output chroma sample k reads input chroma sample k: both
// subsampled alike and sited alike, and the picture neither scaled,
// turned nor moved off the block grid. Then chroma is converted where it
// is, as videoconvert does for such pairs, instead of being resampled.
inline bool
chroma_on_same_grid (const ConvertScale & op)
{
  const Component &a = op.in.comp[1], &b = op.out.comp[1];
  const int mx = (1 << b.log2_x) - 1, my = (1 << b.log2_y) - 1;
  return op.in.yuv && op.out.yuv && a.plane >= 0 && a.log2_x == b.log2_x &&
         a.log2_y == b.log2_y && op.in.h_cosited == op.out.h_cosited &&
         op.in.v_cosited == op.out.v_cosited && op.orientation == Orientation::IDENTITY &&
         op.src_w == op.dst_w && op.src_h == op.dst_h && op.dst_x == 0 && op.dst_y == 0 &&
         op.dst_w == op.out.width && op.dst_h == op.out.height && (op.src_x & mx) == 0 &&
         (op.src_y & my) == 0;
}

// Whether a chroma sample of the output, along one axis, is the input's
// chroma plane resampled where the sample sits: subsampled alike (n = m),
// or more finely (n < m: interpolated between the input's samples), or
// twice as coarsely between two input samples, not on one (the block's
// mean of two: what downsample_chroma takes too, where those two are the
// pixels' own chroma), with a filter whose taps there are that mean.
// log2 n, log2 m: the output's and the input's subsampling along it.
GCS_HD bool
chroma_axis_resampled (int n, int m, bool out_cosited, Filter f)
{
  return n <= m ||
         (n == m + 1 && !out_cosited && (f == Filter::BILINEAR || f == Filter::AREA));
}

// Whether output chroma is the input's chroma resampled where each output
// chroma sample sits (resampled_chroma): YUV to YUV, the output's chroma
// subsampled, the grids apart (scaled, turned, cropped off the grid,
// moved, or subsampled otherwise), and along each axis the input's chroma
// plane holds the sample (chroma_axis_resampled). The chroma plane is
// resampled as a plane, as videoconvertscale scales the planes of a frame
// whose format it keeps and resamples 4:2:2 into 4:2:0 (its lines, not
// its columns). Otherwise it is filtered down from full-resolution pixels
// (downsample_chroma): that costs a 2x2 block six pixels' taps and
// matrices instead of four pixels' luma and one chroma sample, and
// filters an axis whose subsampling does not change too. An input of
// full-resolution chroma (4:4:4) is filtered down whatever the output, and
// so are a turned frame and 4:1:1 or 4:1:0 whose subsampling changes.
inline bool
chroma_resampled_from_plane (const ConvertScale & op)
{
  const Component &a = op.in.comp[1], &b = op.out.comp[1];
  if (op.chroma_direct || !op.in.yuv || !op.out.yuv || a.plane < 0 || b.plane < 0 ||
      (b.log2_x | b.log2_y) == 0)
    return false;
  if (a.log2_x == b.log2_x && a.log2_y == b.log2_y)
    return true;
  /* Turned, the output's axes are the input's the other way round; blocks
   * of 4 pixels (4:1:1, 4:1:0) may end with one whose sample's place is
   * past the picture's edge (the border's, there). */
  return (a.log2_x | a.log2_y) != 0 && !rotates (op.orientation) && b.log2_x <= 1 &&
         b.log2_y <= 1 &&
         chroma_axis_resampled (b.log2_x, a.log2_x, op.out.h_cosited, op.filter) &&
         chroma_axis_resampled (b.log2_y, a.log2_y, op.out.v_cosited, op.filter);
}

// The input components that the output rows `rows` (bits 0..2: the
// matrix's rows, bit 3: alpha) read.
inline unsigned
inputs_of (const ConvertScale & op, unsigned rows)
{
  unsigned m = 0;
  for (int i = 0; i < 3; i++)
    if ((rows >> i) & 1u)
      for (int c = 0; c < 3; c++)
        if (op.matrix[i][c] != 0.0f)
          m |= 1u << c;
  if (rows & 8u)
    m |= 8u;
  return m;
}

// The Words of the input components `members`: one load of `word` bytes
// where they share a plane and lie in one aligned word per sample.
inline ConvertScale::Words
words_of (const Image & im, unsigned members)
{
  ConvertScale::Words w;
  /* One component alone reads as well by itself (pixels::load), without
   * the extraction of the others. */
  if ((members & (members - 1)) == 0)
    return w;
  int plane = -1, step = 0;
  for (int c = 0; c < 4; c++) {
    if (!((members >> c) & 1u))
      continue;
    const Component & k = im.comp[c];
    if ((plane >= 0 && (k.plane != plane || k.step != step)) ||
        k.offset + im.bytes > k.step)
      return ConvertScale::Words{};
    plane = k.plane, step = k.step;
  }
  if (plane < 0 || (step != 2 && step != 4) ||
      ((std::uintptr_t)im.data[plane] | im.pitch[plane]) % (unsigned)step != 0)
    return ConvertScale::Words{};
  w.base = im.data[plane];
  w.pitch = (unsigned)im.pitch[plane];
  w.word = step;
  return w;
}

// Whether every output pixel is four 8-bit components in one aligned
// 32-bit word.
inline bool
packed_output (const Image & o)
{
  unsigned offsets = 0;
  for (const Component & k : o.comp) {
    if (k.plane != 0 || k.step != 4 || k.log2_x || k.log2_y || k.offset > 3)
      return false;
    offsets |= 1u << k.offset;
  }
  return o.bytes == 1 && o.shift == 0 && offsets == 0xfu &&
         ((std::uintptr_t)o.data[0] | o.pitch[0]) % 4 == 0;
}

// The bytes of the one little-endian word that holds each pixel of a
// generic output, every component a bit field of it (ConvertScale::
// out_fields); 0 where its components lie otherwise. store_words would
// write such a word too, but asks for every component where its word lies
// (addresses known only at run time), which left a kernel compiled for
// RGBA -> RGB10A2_LE with calls, pointer compares and loads it never takes.
inline int
fields_output (const Image & o)
{
  if (!o.generic || o.palette)
    return 0;
  int word = 0;
  for (const Component & k : o.comp) {
    if (k.plane < 0)
      continue;
    if (k.plane != 0 || k.offset != 0 || k.pair_step != 0 || k.big_endian || k.log2_x ||
        k.log2_y || (k.word != 2 && k.word != 4) || k.step != k.word ||
        (word != 0 && k.word != word))
      return 0;
    word = k.word;
  }
  if (word == 0 || ((std::uintptr_t)o.data[0] | o.pitch[0]) % (unsigned)word != 0)
    return 0;
  return word;
}

// Whether resolved `op` reads its input by the image's sample size and
// writes one word of bit fields a pixel (out_fields): the resampling
// families take such frames with output bytes 0, storing each word whole
// (store_pixel<0>; choose_path, dispatch_taps_per_pixel).
GCS_HD bool
samples_into_fields (const ConvertScale & op)
{
  return !op.in.generic && op.out_fields != 0;
}

// Sets op.word_copy and op.word_bytes. With the identity matrix every
// code is to_output's 1*c + 0*a + 0*b + 0 = c (exact: codes are small
// integers) and quantize keeps it; alpha is the input's, or max_code
// (255) where it has none, times 1.
inline void
resolve_word_copy (ConvertScale & op)
{
  op.word_copy = false;
  const Image &i = op.in, &o = op.out;
  if (!op.out_packed || op.in_words[0].word != 4 || op.in_sub != 0 || i.bytes != 1 ||
      i.max_code != 255 || o.max_code != 255 || op.alpha_scale != 1.0f)
    return;
  for (int r = 0; r < 3; r++)
    for (int c = 0; c < 4; c++)
      if (op.matrix[r][c] != (r == c ? 1.0f : 0.0f))
        return;
  for (int c = 0; c < 4; c++) {
    const bool has = ((op.in_full >> c) & 1u) != 0;
    if (!has && c < 3)
      return;
    op.word_bytes[o.comp[c].offset] = (std::uint8_t) (has ? i.comp[c].offset : 4);
  }
  op.word_copy = true;
}

// Fills the derived fields of `op` (see ConvertScale) and each component's
// base and pitch: what the kernel and the twin compute once per launch.
inline void
resolve (ConvertScale & op)
{
  resolve_planes (op.in);
  resolve_planes (op.out);
  const bool swap = rotates (op.orientation);
  op.scale_x = (float)op.src_w / (float)(swap ? op.dst_h : op.dst_w);
  op.scale_y = (float)op.src_h / (float)(swap ? op.dst_w : op.dst_h);
  op.inputs_all = inputs_of (op, 0xfu);
  op.inputs_luma = inputs_of (op, op.out.yuv ? 0x9u : 0xfu);
  op.inputs_chroma = inputs_of (op, 0x6u);
  op.chroma_direct = chroma_on_same_grid (op);
  op.chroma_resampled = chroma_resampled_from_plane (op);
  op.in_full = op.in_sub = 0;
  for (int c = 0; c < 4; c++) {
    const Component & k = op.in.comp[c];
    if (k.plane < 0)
      continue;
    if (k.log2_x | k.log2_y) {
      op.in_sub |= 1u << c;
      op.sub_log2_x = k.log2_x, op.sub_log2_y = k.log2_y;
    } else {
      op.in_full |= 1u << c;
    }
  }
  op.in_words[0] = words_of (op.in, op.in_full);
  op.in_words[1] = words_of (op.in, op.in_sub);
  op.out_packed = packed_output (op.out);
  op.out_fields = (std::uint8_t)fields_output (op.out);
  resolve_word_copy (op);
}

// Tap k (0..2: the pixel before the block's first, the first, the next)
// of a block's chroma filter along one axis subsampled by 2^l (0 or 1),
// cosited or not: its weight (0: no tap), as downsample_chroma takes it.
GCS_HD float
chroma_tap_weight (int l, bool cosited, int k)
{
  if (!l)
    return k == 1 ? 1.0f : 0.0f;
  if (k == 1)
    return 0.5f;
  return cosited ? 0.25f : (k == 2 ? 0.5f : 0.0f);
}

// Chroma of the output block at (x0, y0) from the full-resolution chroma
// around it, filtered as GStreamer's chroma resampler does: a cosited
// sample weighs its column 2 and its neighbours 1; a sample between two
// columns (or rows) averages them.
template <class Full>
GCS_HD void
downsample_chroma (
    const ConvertScale & op, int x0, int y0, Full full, float * u, float * v)
{
  const Image & o = op.out;
  const Component & k = o.comp[1];
  /* Up to three columns (and rows) around the block's first: each tap's
   * place and weight computed in the loop, not read from arrays by the
   * loop's index. Such arrays were a 48-byte stack frame in the built
   * kernels and chains of compares and selects in those compiled for a
   * conversion: 89 of the 116 instructions of a tap's loop for 4:4:4
   * 16-bit into P016 (its SASS, H200). The loops stay loops: unrolled,
   * each of the nine taps would be a copy of a whole pixel's sampling
   * (compile time, code size). */
  const int lx = k.log2_x ? 1 : 0, ly = k.log2_y ? 1 : 0;
  float su = 0.0f, sv = 0.0f;
  GCS_NO_UNROLL
  for (int j = 0; j < 3; j++) {
    const float wy = chroma_tap_weight (ly, o.v_cosited, j);
    if (wy == 0.0f)
      continue;
    const int y = j == 1 ? y0 : clampi (y0 + j - 1, 0, o.height - 1);
    float ru = 0.0f, rv = 0.0f;
    GCS_NO_UNROLL
    for (int i = 0; i < 3; i++) {
      const float wx = chroma_tap_weight (lx, o.h_cosited, i);
      if (wx == 0.0f)
        continue;
      const Pixel p = full (i == 1 ? x0 : clampi (x0 + i - 1, 0, o.width - 1), y);
      ru = mad (wx, p.c[1], ru);
      rv = mad (wx, p.c[2], rv);
    }
    su = mad (wy, ru, su);
    sv = mad (wy, rv, sv);
  }
  *u = su;
  *v = sv;
}

// Stores pixel (x, y)'s packed word in a packed output (4 bytes a pixel,
// plane 0): one 32-bit store on the GPU; on the host its 4 bytes, little
// endian, as the GPU stores them.
GCS_HD void
store_word (const Image & o, int x, int y, unsigned word)
{
  std::uint8_t * p = o.data[0] + sample_offset ((unsigned)o.pitch[0], 4, x, y);
#if defined(__CUDA_ARCH__)
  *(unsigned *)p = word;
#else
  for (int b = 0; b < 4; b++)
    p[b] = (std::uint8_t) (word >> (8 * b));
#endif
}

// Stores output pixel (x, y) of a packed output (op.out_packed) as one word.
GCS_HD void
store_packed (const ConvertScale & op, int x, int y, const Pixel & px)
{
  const Image & o = op.out;
  unsigned word = 0;
  GCS_UNROLL
  for (int c = 0; c < 4; c++)
    word |= quantize<1> (o, px.c[c]) << (8 * o.comp[c].offset);
  store_word (o, x, y, word);
}

// Stores output pixel (x, y) where op.out_fields: its codes (each at most
// its max_code) put together in one word, stored once; on the host its
// bytes, little endian, as the GPU stores them.
GCS_HD void
store_fields (const ConvertScale & op, int x, int y, const Pixel & px)
{
  const Image & o = op.out;
  unsigned word = 0;
  GCS_UNROLL
  for (int c = 0; c < 4; c++) {
    const Component & k = o.comp[c];
    if (k.plane >= 0)
      word |= round_code (px.c[c], k.max_code) << k.shift;
  }
  const int bytes = op.out_fields;
  std::uint8_t * p = o.data[0] + sample_offset ((unsigned)o.pitch[0], bytes, x, y);
#if defined(__CUDA_ARCH__)
  if (bytes == 4)
    *(unsigned *)p = word;
  else
    *(unsigned short *)p = (unsigned short)word;
#else
  for (int b = 0; b < bytes; b++)
    p[b] = (std::uint8_t) (word >> (8 * b));
#endif
}

// The index GStreamer's RGB8P packing gives codes r, g, b, a (0..255) in
// its palette (write_palette): transparent below half alpha, else the
// cube's entry of each code / 47.
GCS_HD unsigned
palette_index (unsigned r, unsigned g, unsigned b, unsigned a)
{
  return a < 0x80u ? 216u : (r / 47u) * 36u + (g / 47u) * 6u + b / 47u;
}

// Writes GStreamer's RGB8P palette into a palette output's data[1]: entry
// i < 216 the cube's colour (i / 36, i / 6 % 6, i % 6) in steps of 0x33,
// 216 transparent black, the rest opaque black.
GCS_HD void
write_palette (const Image & o)
{
  for (unsigned i = 0; i < 256; i++) {
    const unsigned argb = i < 216u ? 0xff000000u | (i / 36u * 0x33u) << 16 |
                                         (i / 6u % 6u * 0x33u) << 8 | (i % 6u * 0x33u)
                                   : (i == 216u ? 0u : 0xff000000u);
    write_word (o.data[1] + (std::size_t)i * o.pitch[1], 4, false, argb);
  }
}

// store<0> of the output pixel (x, y)'s components (but its chroma where
// subsampled), in order: where the next shares the word the last wrote
// (RGB10A2, r210, Y410, RGB16), it goes into that word in a register, and
// the word is written once. A word is written before any other is read:
// memory ends as after store<0> of each (a read of the word the last
// wrote, its bits changed, the word written again).
GCS_HD void
store_words (const Image & o, int x, int y, const Pixel & px, bool subsampled)
{
  std::uint8_t * at = nullptr;
  unsigned word = 0;
  int bytes = 0;
  bool big_endian = false;
  GCS_UNROLL
  for (int c = 0; c < 4; c++) {
    const Component & k = o.comp[c];
    if (k.plane < 0 || (subsampled && (c == 1 || c == 2)))
      continue;
    std::uint8_t * p = k.base + generic_offset (k, x >> k.log2_x, y >> k.log2_y);
    const unsigned mask = (unsigned)k.max_code << k.shift;
    if (p != at || k.word != bytes || k.big_endian != big_endian) {
      if (at)
        put_word (at, bytes, big_endian, word);
      at = p, bytes = k.word, big_endian = k.big_endian;
      word = k.clear ? 0u : fetch_word (p, bytes, big_endian);
    } else if (k.clear) {
      word = 0u;
    }
    word = (word & ~mask) | (round_code (px.c[c], k.max_code) << k.shift);
  }
  if (at)
    put_word (at, bytes, big_endian, word);
}

// Stores the output pixel (x, y)'s components but its chroma where the
// output subsamples chroma (written per block).
template <int OB>
GCS_HD void
store_pixel (const ConvertScale & op, int x, int y, const Pixel & px, bool subsampled)
{
  const Image & o = op.out;
  if (OB == 1 && !subsampled && op.out_packed) {
    store_packed (op, x, y, px);
    return;
  }
  if (OB == 0 && o.palette) {
    const Component & k = o.comp[0];
    write_word (k.base + generic_offset (k, x, y), 1, false,
        palette_index (round_code (px.c[0], 255), round_code (px.c[1], 255),
            round_code (px.c[2], 255), round_code (px.c[3], 255)));
    return;
  }
  if constexpr (OB == 0) {
    if (op.out_fields != 0 && !subsampled)
      store_fields (op, x, y, px);
    else
      store_words (o, x, y, px, subsampled);
  } else {
    GCS_UNROLL
    for (int c = 0; c < 4; c++) {
      const Component & k = o.comp[c];
      if (k.plane >= 0 && !(subsampled && (c == 1 || c == 2)))
        store<OB> (o, k, x >> k.log2_x, y >> k.log2_y, px.c[c]);
    }
  }
}

// Where a chroma sample subsampled by 2^l sits from its block's first
// pixel: on it (cosited) or amid the block's 2^l pixels.
GCS_HD float
chroma_centre (int l, bool cosited)
{
  return cosited ? 0.0f : 0.5f * (float)((1 << l) - 1);
}

// Output codes of the chroma of the output block at (x0, y0) where
// chroma_direct: the input's chroma sample there, with luma where it is
// sited.
template <Filter F, int IB>
GCS_HD Pixel
direct_chroma (const ConvertScale & op, int x0, int y0)
{
  const Image & o = op.out;
  const int lx = o.comp[1].log2_x, ly = o.comp[1].log2_y;
  const float sx = (float)(op.src_x + x0) + chroma_centre (lx, o.h_cosited);
  const float sy = (float)(op.src_y + y0) + chroma_centre (ly, o.v_cosited);
  return convert<F, IB> (op, sx, sy, op.inputs_chroma);
}

// Output codes of the chroma of the output block at (x0, y0) where
// op.chroma_resampled: the input at the output chroma sample's place (its
// siting), over the footprint of that sample (the block's pixels: the
// area filter averages what the block covers); the border's where that
// place is outside the picture.
template <Filter F, int IB>
GCS_HD Pixel
resampled_chroma (const ConvertScale & op, int x0, int y0)
{
  const Image & o = op.out;
  const int lx = o.comp[1].log2_x, ly = o.comp[1].log2_y;
  const float dx = (float)(x0 - op.dst_x) + chroma_centre (lx, o.h_cosited);
  const float dy = (float)(y0 - op.dst_y) + chroma_centre (ly, o.v_cosited);
  if (dx < -0.5f || dy < -0.5f || dx > (float)op.dst_w - 0.5f ||
      dy > (float)op.dst_h - 0.5f)
    return border_pixel (op);
  float sx, sy;
  source_position (op, dx, dy, &sx, &sy);
  /* The block's extent along the source axes (swapped by a turn). */
  const float bw = (float)(1 << lx), bh = (float)(1 << ly);
  const bool swap = rotates (op.orientation);
  return convert<F, IB> (op, sx, sy, op.inputs_chroma, swap ? bh : bw, swap ? bw : bh);
}

// Weight of the pixel `d` columns (or rows) from a block's first in the
// block's chroma sample, subsampled by n = 2^l: the mean of the block's n
// pixels, or, cosited, a triangle over 2n - 1 pixels centred on the first
// (n = 2: 1/4 1/2 1/4, as downsample_chroma). Taps d run from first_tap.
GCS_HD float
chroma_weight (int n, bool cosited, int d)
{
  if (!cosited)
    return 1.0f / (float)n;
  const int a = d < 0 ? -d : d;
  return (float)(n - a) / (float)(n * n);
}

GCS_HD int
first_tap (int n, bool cosited)
{
  return cosited ? 1 - n : 0;
}

// write_block_with for the generic path: the same, in loops (blocks of
// up to 4x4 pixels: 4:1:1, 4:1:0), the pixels of the block's chroma
// computed again where it is filtered down; one copy of the pixel's
// arithmetic, not one per pixel of an unrolled block.
template <Filter F, int IB, class PixelAt, class DirectChroma>
GCS_HD void
write_generic_block (
    const ConvertScale & op, int bx, int by, PixelAt pixel, DirectChroma direct)
{
  const Image & o = op.out;
  const Component & chroma = o.comp[1];
  const int bw = o.yuv ? 1 << chroma.log2_x : 1, bh = o.yuv ? 1 << chroma.log2_y : 1;
  const int x0 = bx * bw, y0 = by * bh;
  if (o.palette && bx == 0 && by == 0) /* one block writes the palette */
    write_palette (o);
  if (bw == 1 && bh == 1) {
    if (x0 < o.width && y0 < o.height)
      store_pixel<0> (op, x0, y0, pixel (x0, y0, op.inputs_all), false);
    return;
  }
  const bool alone = op.chroma_direct || op.chroma_resampled;
  for (int j = 0; j < bh && y0 + j < o.height; j++)
    for (int i = 0; i < bw && x0 + i < o.width; i++)
      store_pixel<0> (op, x0 + i, y0 + j,
          pixel (x0 + i, y0 + j, alone ? op.inputs_luma : op.inputs_all), true);
  if (chroma.plane < 0)
    return;
  Pixel p{};
  if (op.chroma_direct) {
    p = direct (x0, y0);
  } else if (op.chroma_resampled) {
    p = resampled_chroma<F, IB> (op, x0, y0);
  } else {
    for (int j = first_tap (bh, o.v_cosited); j < bh; j++) {
      const float wy = chroma_weight (bh, o.v_cosited, j);
      const int y = clampi (y0 + j, 0, o.height - 1);
      for (int i = first_tap (bw, o.h_cosited); i < bw; i++) {
        const float w = wy * chroma_weight (bw, o.h_cosited, i);
        const Pixel q = pixel (clampi (x0 + i, 0, o.width - 1), y, op.inputs_chroma);
        p.c[1] = mad (w, q.c[1], p.c[1]);
        p.c[2] = mad (w, q.c[2], p.c[2]);
      }
    }
  }
  store<0> (o, chroma, bx, by, p.c[1]);
  store<0> (o, o.comp[2], bx, by, p.c[2]);
}

// Writes the output block (bx, by): its pixels' luma (or RGB) and alpha,
// and its chroma sample. pixel (x, y, need) gives output pixel (x, y)'s
// codes from the input components `need` (pixel_at), and direct (x0, y0)
// the chroma of block (x0, y0) where op.chroma_direct (direct_chroma); or
// a kernel's faster equivalents that compute the same. Where
// op.chroma_resampled, resampled_chroma gives the chroma (once per block:
// no kernel has a faster equivalent).
template <Filter F, int IB, int OB, class PixelAt, class DirectChroma>
GCS_HD void
write_block_with (
    const ConvertScale & op, int bx, int by, PixelAt pixel, DirectChroma direct)
{
  const Image & o = op.out;
  const Component & chroma = o.comp[1];
  const int lx = o.yuv ? chroma.log2_x : 0, ly = o.yuv ? chroma.log2_y : 0;
  const int x0 = bx << lx, y0 = by << ly;
  const int bw = 1 << lx, bh = 1 << ly;
  const bool subsampled = (lx | ly) != 0;
  if (!subsampled) { /* a block of one pixel, without the loops below */
    if (x0 < o.width && y0 < o.height)
      store_pixel<OB> (op, x0, y0, pixel (x0, y0, op.inputs_all), false);
    return;
  }
  if (op.chroma_direct || op.chroma_resampled) {
    /* Chroma is computed once for the block, on its own (direct or
     * resampled_chroma): the pixels need only what their luma (or RGB)
     * and alpha read, and compute only those (their chroma is never
     * stored). */
    GCS_UNROLL
    for (int j = 0; j < 2; j++) {
      GCS_UNROLL
      for (int i = 0; i < 2; i++) {
        const int x = x0 + i, y = y0 + j;
        if (i < bw && j < bh && x < o.width && y < o.height)
          store_pixel<OB> (op, x, y, pixel (x, y, op.inputs_luma), true);
      }
    }
    if (chroma.plane >= 0) {
      const Pixel p =
          op.chroma_direct ? direct (x0, y0) : resampled_chroma<F, IB> (op, x0, y0);
      store<OB> (o, chroma, bx, by, p.c[1]);
      store<OB> (o, o.comp[2], bx, by, p.c[2]);
    }
    return;
  }
  /* The block's own pixels, in named variables: an array indexed at run
   * time would live in (slow) local memory on the GPU. */
  Pixel p00{}, p01{}, p10{}, p11{};
  GCS_UNROLL
  for (int j = 0; j < 2; j++) {
    GCS_UNROLL
    for (int i = 0; i < 2; i++) {
      const int x = x0 + i, y = y0 + j;
      if (i >= bw || j >= bh || x >= o.width || y >= o.height)
        continue;
      const Pixel px = pixel (x, y, op.inputs_all);
      if (j == 0)
        (i == 0 ? p00 : p01) = px;
      else
        (i == 0 ? p10 : p11) = px;
      store_pixel<OB> (op, x, y, px, true);
    }
  }
  if (chroma.plane < 0)
    return;
  float u, v;
  downsample_chroma (
      op, x0, y0,
      [&] (int x, int y) {
        const int i = x - x0, j = y - y0;
        /* A pixel outside the block gives its chroma alone: what the
         * matrix's chroma rows read is all it needs (the same codes). */
        if (i < 0 || i >= bw || j < 0 || j >= bh)
          return pixel (x, y, op.inputs_chroma);
        return j == 0 ? (i == 0 ? p00 : p01) : (i == 0 ? p10 : p11);
      },
      &u, &v);
  store<OB> (o, chroma, bx, by, u);
  store<OB> (o, o.comp[2], bx, by, v);
}

// write_block_with pixel_at: the reference every kernel equals (sample
// bytes 0: write_generic_block's, the generic path's).
template <Filter F, int IB, int OB>
GCS_HD void
write_block (const ConvertScale & op, int bx, int by)
{
  auto pixel = [&] (int x, int y, unsigned need) {
    return pixel_at<F, IB> (op, x, y, need);
  };
  auto direct = [&] (int x0, int y0) { return direct_chroma<F, IB> (op, x0, y0); };
  if constexpr (OB == 0)
    write_generic_block<F, IB> (op, bx, by, pixel, direct);
  else
    write_block_with<F, IB, OB> (op, bx, by, pixel, direct);
}

GCS_HD int
blocks_x (const Image & o)
{
  const int l = o.yuv ? o.comp[1].log2_x : 0;
  return (o.width + (1 << l) - 1) >> l;
}

GCS_HD int
blocks_y (const Image & o)
{
  const int l = o.yuv ? o.comp[1].log2_y : 0;
  return (o.height + (1 << l) - 1) >> l;
}

// Calls fn (input bytes, output bytes) with op's sample sizes as
// compile-time constants (std::integral_constant).
template <class Fn>
inline void
dispatch_bytes (const ConvertScale & op, Fn fn)
{
  auto with_out = [&] (auto ib) {
    if (op.out.bytes == 2)
      fn (ib, std::integral_constant<int, 2>{});
    else
      fn (ib, std::integral_constant<int, 1>{});
  };
  if (op.in.bytes == 2)
    with_out (std::integral_constant<int, 2>{});
  else
    with_out (std::integral_constant<int, 1>{});
}

// Calls fn (filter, input bytes, output bytes) with op's values as
// compile-time constants (bytes 0 on both sides: the generic path): the
// twin is instantiated per combination, so that none of these choices is
// a branch per sample.
template <class Fn>
inline void
dispatch (const ConvertScale & op, Fn fn)
{
  auto with_filter = [&] (auto f) {
    if (generic (op))
      fn (f, std::integral_constant<int, 0>{}, std::integral_constant<int, 0>{});
    else
      dispatch_bytes (op, [&] (auto ib, auto ob) { fn (f, ib, ob); });
  };
  switch (op.filter) {
    case Filter::NEAREST:
      with_filter (std::integral_constant<Filter, Filter::NEAREST>{});
      break;
    case Filter::BICUBIC:
      with_filter (std::integral_constant<Filter, Filter::BICUBIC>{});
      break;
    case Filter::AREA:
      with_filter (std::integral_constant<Filter, Filter::AREA>{});
      break;
    default:
      with_filter (std::integral_constant<Filter, Filter::BILINEAR>{});
      break;
  }
}

} // namespace gst_cs::gpu::pixels

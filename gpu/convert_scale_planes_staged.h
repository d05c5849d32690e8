/* SPDX-License-Identifier: LGPL-2.1-or-later */
// The plane-by-plane path (convert_scale_planes.h) for frames that the
// orientation turns (90 degrees, the transposes). There a warp's threads
// write neighbouring output columns, which read neighbouring source rows:
// from global memory each of their loads touches 32 rows (4:2:0 luma: 64),
// and a 1080p NV12 frame turned took 47.9 us where the same frame flipped
// took 12.1 (H200, 2026-11-29). So the CUDA block first copies the source
// rectangles its tile reads (luma; the chroma words, or the U and V
// planes) into shared memory along source rows, and its threads read them
// there: the same samples, so the same bits as planes::write_block from
// global memory, which the CPU twin runs. A tile whose rectangles do not
// fit its stage (a large shrink) reads global memory as before.
#pragma once

#include "convert_scale_planes.h"

namespace gst_cs::gpu::planes {

// Regions of the stage: 0 luma; 1 the chroma words (SubWord), or U; 2 V.
constexpr int kStagedRegions = 3;

// Where a region's samples lie in the stage: sample (x, y) of its plane
// at `at` + (y - y0) * pitch + (x - x0) * step bytes.
struct StagedRegion {
  int x0 = 0, y0 = 0;
  unsigned pitch = 0;
  int step = 0;
  unsigned at = 0;
};

// A two_tap source (as two_tap::GlobalSource) that reads the stage:
// load (k, ...) component k's region, word (...) region 1's words.
template <int IB> struct StagedSource {
  const std::uint8_t * stage = nullptr;
  StagedRegion r[kStagedRegions];
  int shift = 0;
  GCS_HD const std::uint8_t * at (int k, int x, int y) const
  {
    const StagedRegion & g = r[k];
    return stage + g.at + (unsigned)(y - g.y0) * g.pitch +
           (unsigned)((x - g.x0) * g.step);
  }
  GCS_HD float load (int k, int x, int y) const
  {
    /* A region starts 16-aligned, its pitch and 2-byte steps are even:
     * a 2-byte sample is one aligned load. */
    const std::uint8_t * p = at (k, x, y);
    if (IB == 1)
      return (float)p[0];
#if defined(__CUDA_ARCH__)
    return (float)((unsigned)*(const unsigned short *)p >> shift);
#else
    return (float)((unsigned)(p[0] | (p[1] << 8)) >> shift);
#endif
  }
  GCS_HD unsigned word (int bytes, int x, int y) const
  {
    return pixels::load_aligned_word (at (1, x, y), bytes);
  }
};

// The pitch of a region of w samples of `step` bytes a row (the last
// sample `last` bytes, 1, 2 or 4) in the stage, where neighbouring
// threads read one column `apart` rows apart (1 or 2): aligned to `last`,
// and `apart` rows an odd number of 4-byte words, so that 32 threads read
// 32 banks.
GCS_HD unsigned
staged_pitch (int w, int step, int last, int apart)
{
  /* Whole 4-byte words: a row copied a word at a time (stage_tile) ends
   * up to 3 bytes after its last sample, and must not reach the next. */
  const unsigned p = ((unsigned)((w - 1) * step + last) + 3u) & ~3u;
  if (apart == 2 && last <= 2)
    return p + 2u;              /* 2 mod 4: two rows, 4 mod 8 */
  return (p & 4u) ? p : p + 4u; /* an odd number of words; two rows, 8 mod 16 */
}

// Where the staged path is taken: a turned frame.
inline bool
staged (const ConvertScale & op)
{
  return pixels::rotates (op.orientation);
}

// The stage that a tile of the output's blocks, kTileX columns of them
// by `rows`, needs at most (a little more than its source rectangles at
// op's scale, the taps of both filters beside them); 0 where a block of
// those rows could not hold its stage within kMaxStageBytes.
constexpr unsigned kMaxStageBytes = 40 * 1024;

inline unsigned
stage_bytes (const ConvertScale & op, int rows, int sub_word)
{
  const Image & o = op.out;
  const Image & i = op.in;
  /* Turned: output rows run along source x, columns along source y. */
  const double across_x = (double)(rows << o.comp[1].log2_y) * op.scale_x;
  const double across_y = (double)(two_tap::kTileX << o.comp[1].log2_x) * op.scale_y;
  /* + 4 samples for the taps beside the rectangle, + 4 for its start
   * moved back to a word boundary (stage_tile). */
  auto region = [&] (int lx, int ly, int step, int last) {
    const int w = (int)(across_x / (1 << lx)) + 8, h = (int)(across_y / (1 << ly)) + 4;
    return (unsigned)h * staged_pitch (w, step, last, 1) + 16u;
  };
  const int lx = i.comp[1].log2_x, ly = i.comp[1].log2_y;
  unsigned bytes = region (0, 0, i.comp[0].step, i.bytes);
  if (sub_word)
    bytes += region (lx, ly, sub_word, sub_word);
  else
    bytes += region (lx, ly, i.comp[1].step, i.bytes) +
             region (lx, ly, i.comp[2].step, i.bytes);
  return bytes <= kMaxStageBytes ? bytes : 0;
}

#if defined(__CUDACC__)

// The source rectangles (luma, then chroma: x0, x1, y0, y1 inclusive)
// that a tile's blocks read where they lie in the picture.
struct TileBox {
  int v[8];
};

__device__ inline void
widen (int * lo_hi, const TwoTaps & t)
{
  atomicMin (lo_hi, t.i0 < t.i1 ? t.i0 : t.i1);
  atomicMax (lo_hi + 1, t.i0 < t.i1 ? t.i1 : t.i0);
}

// Copies `rows` rows of `words` 4-byte words from global memory (from,
// aligned, `pitch` bytes a row) into the stage (to, 16-aligned, an even
// `to_pitch`), thread t of `threads`: the CUDA block's threads share out
// every word of the rectangle, each with kInFlight loads issued before its
// stores. A row at a time, a warp waited on memory once per 32 bytes of
// a row, one wait after another.
__device__ inline void
copy_words (const std::uint8_t * from, unsigned pitch, std::uint8_t * to,
    unsigned to_pitch, int words, int rows, int t, int threads)
{
  constexpr int kInFlight = 8;
  const int total = words * rows;
  for (int i0 = t; i0 < total; i0 += kInFlight * threads) {
    unsigned v[kInFlight], at[kInFlight];
    GCS_UNROLL
    for (int j = 0; j < kInFlight; j++) {
      const int i = i0 + j * threads;
      if (i < total) {
        const int y = i / words, x = i - y * words;
        v[j] = *(const unsigned *)(from + (unsigned)y * pitch + 4u * (unsigned)x);
        at[j] = (unsigned)y * to_pitch + 4u * (unsigned)x;
      }
    }
    GCS_UNROLL
    for (int j = 0; j < kInFlight; j++) {
      if (i0 + j * threads < total) {
        /* Rows of a pitch of 2 mod 4 bytes start on every other word. */
        if ((at[j] & 3u) == 0) {
          *(unsigned *)(to + at[j]) = v[j];
        } else {
          unsigned short * h = (unsigned short *)(to + at[j]);
          h[0] = (unsigned short)v[j];
          h[1] = (unsigned short)(v[j] >> 16);
        }
      }
    }
  }
}

// The same, a byte at a time, for rows that do not start on words.
__device__ inline void
copy_bytes (const std::uint8_t * from, unsigned pitch, std::uint8_t * to,
    unsigned to_pitch, int bytes, int rows, int t, int threads)
{
  const int warp = t / 32, lane = t % 32, warps = threads / 32;
  for (int y = warp; y < rows; y += warps)
    for (int b = lane; b < bytes; b += 32)
      to[(unsigned)y * to_pitch + b] = from[(unsigned)y * pitch + b];
}

// Fills row_taps with the taps of the tile's rows (from by0, at most
// `rows`), finds the source rectangles its blocks read and copies them
// into `stage` (`capacity` bytes) where they fit: then *src reads them
// and it returns true, for every thread of the CUDA block alike.
template <Filter F, int IB, int SubWord>
__device__ bool
stage_tile (const ConvertScale & op, int nbx, int nby, int rows, LineTaps * row_taps,
    TileBox & box, std::uint8_t * stage, unsigned capacity, StagedSource<IB> * src)
{
  const int t = threadIdx.y * blockDim.x + threadIdx.x;
  const int by0 = blockIdx.y * rows;
  if (t < 8)
    box.v[t] = (t & 1) ? INT_MIN : INT_MAX;
  __syncthreads ();
  /* Turned: a row's taps run along source x, a column's along source y. */
  for (int k = t; k < rows && by0 + k < nby; k += blockDim.x * blockDim.y) {
    const LineTaps l = line_taps<F> (op, true, by0 + k);
    row_taps[k] = l;
    for (int j = 0; j < 2; j++)
      if (l.luma_in[j])
        widen (&box.v[0], l.luma[j]);
    if (l.chroma_in)
      widen (&box.v[4], l.chroma);
  }
  const int bx = blockIdx.x * blockDim.x + threadIdx.x;
  if (threadIdx.y == 0 && bx < nbx) {
    const LineTaps l = line_taps<F> (op, false, bx);
    for (int i = 0; i < 2; i++)
      if (l.luma_in[i])
        widen (&box.v[2], l.luma[i]);
    if (l.chroma_in)
      widen (&box.v[6], l.chroma);
  }
  __syncthreads ();
  const Image & im = op.in;
  const std::uint8_t * bases[kStagedRegions];
  unsigned pitches[kStagedRegions];
  int lasts[kStagedRegions], boxes[kStagedRegions];
  bases[0] = im.comp[0].base, pitches[0] = (unsigned)im.comp[0].pitch;
  src->r[0].step = im.comp[0].step, lasts[0] = IB, boxes[0] = 0;
  constexpr int regions = SubWord ? 2 : 3;
  if (SubWord) {
    bases[1] = op.in_words[1].base, pitches[1] = op.in_words[1].pitch;
    src->r[1].step = SubWord, lasts[1] = SubWord, boxes[1] = 4;
  } else {
    GCS_UNROLL
    for (int k = 1; k < 3; k++) {
      bases[k] = im.comp[k].base, pitches[k] = (unsigned)im.comp[k].pitch;
      src->r[k].step = im.comp[k].step, lasts[k] = IB, boxes[k] = 4;
    }
  }
  const int luma_apart = 1 << op.out.comp[1].log2_x;
  unsigned used = 0;
  int w[kStagedRegions] = {}, h[kStagedRegions] = {};
  bool by_words[kStagedRegions];
  GCS_UNROLL
  for (int k = 0; k < regions; k++) {
    const int * b = &box.v[boxes[k]];
    StagedRegion & g = src->r[k];
    g.x0 = b[0], g.y0 = b[2];
    w[k] = b[0] <= b[1] ? b[1] - b[0] + 1 : 0;
    h[k] = b[2] <= b[3] ? b[3] - b[2] + 1 : 0;
    if (w[k] == 0 || h[k] == 0)
      w[k] = h[k] = 0;
    /* Rows that start on 4-byte words (the plane and its pitch do) are
     * copied a word at a time: the region then starts on the word that
     * holds its first sample. The word that holds the last lies within
     * the row's pitch. */
    by_words[k] = ((std::uintptr_t)bases[k] & 3u) == 0 && (pitches[k] & 3u) == 0 &&
                  (g.step == 1 || g.step == 2 || g.step == 4);
    if (by_words[k] && w[k]) {
      const int lead = ((g.x0 * g.step) & 3) / g.step;
      g.x0 -= lead;
      w[k] += lead;
    }
    /* Neighbouring threads write neighbouring output columns: source
     * rows, a block's width of luma rows apart, one chroma row. */
    g.pitch = w[k] ? staged_pitch (w[k], g.step, lasts[k], k ? 1 : luma_apart) : 0u;
    g.at = used;
    used += (g.pitch * (unsigned)h[k] + 15u) & ~15u;
  }
  if (used > capacity)
    return false; /* the same for every thread: box and capacity are */
  src->stage = stage;
  src->shift = im.shift;
  const int threads = blockDim.x * blockDim.y;
  GCS_UNROLL
  for (int k = 0; k < regions; k++) {
    const StagedRegion & g = src->r[k];
    const int n = w[k] ? (w[k] - 1) * g.step + lasts[k] : 0;
    const std::uint8_t * from =
        bases[k] + (unsigned)g.y0 * pitches[k] + (unsigned)(g.x0 * g.step);
    if (by_words[k])
      copy_words (
          from, pitches[k], stage + g.at, g.pitch, (n + 3) >> 2, h[k], t, threads);
    else
      copy_bytes (from, pitches[k], stage + g.at, g.pitch, n, h[k], t, threads);
  }
  __syncthreads ();
  return true;
}

#endif

} // namespace gst_cs::gpu::planes

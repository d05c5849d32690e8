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
// sample `last` bytes, 1, 2 or 4) in the stage: whole 4-byte words, so
// that every row starts on one (the stage's copy writes words; a row
// copied a word at a time ends up to 3 bytes after its last sample, which
// must not reach the next), and an odd number of them, so that a warp's
// threads reading one column of rows an odd number apart read 32 banks
// (2 apart, 16; 4 apart, 8: what the turns do not wait on, by
// docs/cudaconvertscale.md's Tried, not kept).
GCS_HD unsigned
staged_pitch (int w, int step, int last)
{
  const unsigned p = ((unsigned)((w - 1) * step + last) + 3u) & ~3u;
  return (p & 4u) ? p : p + 4u;
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
   * moved back to a word boundary (stage_begin). */
  auto region = [&] (int lx, int ly, int step, int last) {
    const int w = (int)(across_x / (1 << lx)) + 8, h = (int)(across_y / (1 << ly)) + 4;
    return (unsigned)h * staged_pitch (w, step, last) + 16u;
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

// The source rectangles a tile reads (luma, then chroma: x0, x1, y0, y1
// inclusive) are found from the taps of its first and last lines, each
// computed by a thread of its own: a line's taps move one way with the
// line (an affine map, floored and clamped, every step monotonic), so
// their extremes over the tile's lines lie on its two ends. ends[e] holds
// line e's (0, 1: the first and last row of blocks; 2, 3: column) luma
// and chroma taps' lowest and highest. Lines of the border take part,
// their taps clamped into the source rectangle: the rectangles are then
// at most a sample or so wider than those the picture's lines read.
struct TileEnds {
  int v[4][4];
};

// The taps' lowest and highest, where line e of the tile has them.
template <Filter F>
__device__ inline void
end_line (const ConvertScale & op, int e, int line, TileEnds & ends)
{
  const LineTaps l = line_taps<F> (op, e < 2, line);
  int * v = ends.v[e];
  v[0] = min (min (l.luma[0].i0, l.luma[0].i1), min (l.luma[1].i0, l.luma[1].i1));
  v[1] = max (max (l.luma[0].i0, l.luma[0].i1), max (l.luma[1].i0, l.luma[1].i1));
  v[2] = min (l.chroma.i0, l.chroma.i1);
  v[3] = max (l.chroma.i0, l.chroma.i1);
}

// Copies `rows` rows of `words` 4-byte words from global memory (from,
// aligned, `pitch` bytes a row) into the stage (to, 16-aligned, a pitch
// of whole words), thread t of `threads`: the CUDA block's threads share
// out every word of the rectangle. From sm_80 each is an asynchronous
// copy (cp.async), which holds no register, so the whole tile is in
// flight while the threads compute their taps (stage_wait waits for it);
// before, each thread issues kInFlight loads before its stores.
__device__ inline void
copy_words (const std::uint8_t * from, unsigned pitch, std::uint8_t * to,
    unsigned to_pitch, int words, int rows, int t, int threads)
{
  const int total = words * rows;
#if __CUDA_ARCH__ >= 800
  unsigned to_shared;
  asm("{ .reg .u64 a; cvta.to.shared.u64 a, %1; cvt.u32.u64 %0, a; }"
      : "=r"(to_shared)
      : "l"(to));
  for (int i = t; i < total; i += threads) {
    const int y = i / words, x = i - y * words;
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" ::"r"(
                     to_shared + (unsigned)y * to_pitch + 4u * (unsigned)x),
                 "l"(from + (unsigned)y * pitch + 4u * (unsigned)x)
                 : "memory");
  }
#else
  constexpr int kInFlight = 8;
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
    for (int j = 0; j < kInFlight; j++)
      if (i0 + j * threads < total)
        *(unsigned *)(to + at[j]) = v[j];
  }
#endif
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

// Finds the source rectangles that the tile of the output's blocks (its
// columns from blockIdx.x * blockDim.x, `rows` rows of them from
// blockIdx.y * rows) reads and starts their copy into `stage` (`capacity`
// bytes) where they fit: then *src reads them (after stage_wait) and it
// returns true, for every thread of the CUDA block alike.
template <Filter F, int IB, int SubWord>
__device__ bool
stage_begin (const ConvertScale & op, int nbx, int nby, int rows, TileEnds & ends,
    std::uint8_t * stage, unsigned capacity, StagedSource<IB> * src)
{
  const int t = threadIdx.y * blockDim.x + threadIdx.x;
  /* Four threads of four warps, so that no warp computes two lines. */
  if ((t & 31) == 0 && t < 4 * 32) {
    const int e = t >> 5;
    const int bx0 = blockIdx.x * blockDim.x, by0 = blockIdx.y * rows;
    const int line = e == 0   ? by0
                     : e == 1 ? min (by0 + rows, nby) - 1
                     : e == 2 ? bx0
                              : min (bx0 + (int)blockDim.x, nbx) - 1;
    end_line<F> (op, e, line, ends);
  }
  __syncthreads ();
  /* Turned: a row's taps run along source x, a column's along source y. */
  int box[8];
  GCS_UNROLL
  for (int g = 0; g < 2; g++) {
    box[4 * g] = min (ends.v[0][2 * g], ends.v[1][2 * g]);
    box[4 * g + 1] = max (ends.v[0][2 * g + 1], ends.v[1][2 * g + 1]);
    box[4 * g + 2] = min (ends.v[2][2 * g], ends.v[3][2 * g]);
    box[4 * g + 3] = max (ends.v[2][2 * g + 1], ends.v[3][2 * g + 1]);
  }
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
  unsigned used = 0;
  int w[kStagedRegions] = {}, h[kStagedRegions] = {};
  bool by_words[kStagedRegions];
  GCS_UNROLL
  for (int k = 0; k < regions; k++) {
    const int * b = &box[boxes[k]];
    StagedRegion & g = src->r[k];
    g.x0 = b[0], g.y0 = b[2];
    w[k] = b[1] - b[0] + 1;
    h[k] = b[3] - b[2] + 1;
    /* Rows that start on 4-byte words (the plane and its pitch do) are
     * copied a word at a time: the region then starts on the word that
     * holds its first sample. The word that holds the last lies within
     * the row's pitch. */
    by_words[k] = ((std::uintptr_t)bases[k] & 3u) == 0 && (pitches[k] & 3u) == 0 &&
                  (g.step == 1 || g.step == 2 || g.step == 4);
    if (by_words[k]) {
      const int lead = ((g.x0 * g.step) & 3) / g.step;
      g.x0 -= lead;
      w[k] += lead;
    }
    g.pitch = staged_pitch (w[k], g.step, lasts[k]);
    g.at = used;
    used += (g.pitch * (unsigned)h[k] + 15u) & ~15u;
  }
  if (used > capacity)
    return false; /* the same for every thread: the ends and capacity are */
  src->stage = stage;
  src->shift = im.shift;
  const int threads = blockDim.x * blockDim.y;
  GCS_UNROLL
  for (int k = 0; k < regions; k++) {
    const StagedRegion & g = src->r[k];
    const int n = (w[k] - 1) * g.step + lasts[k];
    const std::uint8_t * from =
        bases[k] + (unsigned)g.y0 * pitches[k] + (unsigned)(g.x0 * g.step);
    if (by_words[k])
      copy_words (
          from, pitches[k], stage + g.at, g.pitch, (n + 3) >> 2, h[k], t, threads);
    else
      copy_bytes (from, pitches[k], stage + g.at, g.pitch, n, h[k], t, threads);
  }
  return true;
}

// Waits until stage_begin's copies (and what every thread wrote into
// shared memory since) are there for the CUDA block's threads.
__device__ inline void
stage_wait ()
{
#if __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_all;" ::: "memory");
#endif
  __syncthreads ();
}

#endif

} // namespace gst_cs::gpu::planes

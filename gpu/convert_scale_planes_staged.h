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
  const unsigned bytes = (unsigned)((w - 1) * step + last);
  if (apart == 2 && last <= 2) {
    const unsigned p = (bytes + 1u) & ~1u;
    return (p & 2u) ? p : p + 2u; /* 2 mod 4: two rows, 4 mod 8 */
  }
  const unsigned p = (bytes + 3u) & ~3u;
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
  auto region = [&] (int lx, int ly, int step, int last) {
    const int w = (int)(across_x / (1 << lx)) + 4, h = (int)(across_y / (1 << ly)) + 4;
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
  GCS_UNROLL
  for (int k = 0; k < regions; k++) {
    const int * b = &box.v[boxes[k]];
    StagedRegion & g = src->r[k];
    g.x0 = b[0], g.y0 = b[2];
    w[k] = b[0] <= b[1] ? b[1] - b[0] + 1 : 0;
    h[k] = b[2] <= b[3] ? b[3] - b[2] + 1 : 0;
    if (w[k] == 0 || h[k] == 0)
      w[k] = h[k] = 0;
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
  /* Each warp copies rows, its threads neighbouring bytes of them. */
  const int warp = t / 32, lane = t % 32, warps = (blockDim.x * blockDim.y) / 32;
  GCS_UNROLL
  for (int k = 0; k < regions; k++) {
    const StagedRegion & g = src->r[k];
    const int n = w[k] ? (w[k] - 1) * g.step + lasts[k] : 0;
    for (int y = warp; y < h[k]; y += warps) {
      const std::uint8_t * from =
          bases[k] + (unsigned)(g.y0 + y) * pitches[k] + (unsigned)(g.x0 * g.step);
      std::uint8_t * to = stage + g.at + (unsigned)y * g.pitch;
      for (int b = lane; b < n; b += 32)
        to[b] = from[b];
    }
  }
  __syncthreads ();
  return true;
}

#endif

} // namespace gst_cs::gpu::planes

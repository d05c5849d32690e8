/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "plane_copy.h"
#include "driver_launch.h"

#include <algorithm>

namespace gst_cs::gpu {
namespace {

struct PlaneArgs {
  PlaneCopy plane[kMaxPlanes];
  unsigned word[kMaxPlanes]; // bytes moved per thread: 16, 4 or 1
};

template <typename Word>
__device__ void
copy_rows (const PlaneCopy & p, unsigned words_per_row)
{
  for (unsigned y = blockIdx.y; y < p.rows; y += gridDim.y) {
    const Word * src = reinterpret_cast<const Word *> (p.src + y * p.src_pitch);
    Word * dst = reinterpret_cast<Word *> (p.dst + y * p.dst_pitch);
    for (unsigned x = blockIdx.x * blockDim.x + threadIdx.x; x < words_per_row;
         x += gridDim.x * blockDim.x)
      dst[x] = src[x];
  }
}

// Byte by byte: the shifted luma samples sit between chroma samples.
__device__ void
copy_rows_shifted (const PlaneCopy & p)
{
  for (unsigned y = blockIdx.y; y < p.rows; y += gridDim.y) {
    const unsigned char * src = p.src + y * p.src_pitch;
    unsigned char * dst = p.dst + y * p.dst_pitch;
    for (unsigned x = blockIdx.x * blockDim.x + threadIdx.x; x < p.row_bytes;
         x += gridDim.x * blockDim.x) {
      const bool luma = x >= p.shift_first && x < p.shift_end &&
                        (x - p.shift_first) % p.shift_step < p.shift_step / 2;
      dst[x] = src[luma ? x + p.shift_step : x];
    }
  }
}

__global__ void
copy_planes_kernel (PlaneArgs args)
{
  // One grid slice (z) per plane; the branch is uniform across a block.
  const PlaneCopy & p = args.plane[blockIdx.z];
  const unsigned word = args.word[blockIdx.z];
  const unsigned words = static_cast<unsigned> (p.row_bytes / word);
  if (p.shift_end > 0)
    copy_rows_shifted (p);
  else if (word == 16)
    copy_rows<uint4> (p, words);
  else if (word == 4)
    copy_rows<unsigned> (p, words);
  else
    copy_rows<unsigned char> (p, words);
}

unsigned
widest_word (const PlaneCopy & p)
{
  if (p.shift_end > 0)
    return 1;
  for (unsigned w : { 16u, 4u }) {
    const auto a = reinterpret_cast<std::uintptr_t> (p.src) |
                   reinterpret_cast<std::uintptr_t> (p.dst) | p.src_pitch | p.dst_pitch |
                   p.row_bytes;
    if (a % w == 0)
      return w;
  }
  return 1;
}

} // namespace

cudaError_t
copy_planes (const PlaneCopy * planes, int n_planes, cudaStream_t stream)
{
  if (n_planes < 1 || n_planes > kMaxPlanes)
    return cudaErrorInvalidValue;
  PlaneArgs args{};
  unsigned max_words = 1, max_rows = 1;
  for (int i = 0; i < n_planes; i++) {
    args.plane[i] = planes[i];
    args.word[i] = widest_word (planes[i]);
    max_words = std::max<unsigned> (max_words, planes[i].row_bytes / args.word[i]);
    max_rows = std::max (max_rows, planes[i].rows);
  }
  const unsigned threads = 256;
  dim3 grid ((max_words + threads - 1) / threads, std::min (max_rows, 65535u), n_planes);
  (void)driver::launch_built (copy_planes_kernel, grid, dim3 (threads), 0, stream, args);
  return cudaGetLastError ();
}

} // namespace gst_cs::gpu

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The CPU twin of gpu/plane_copy.cu for the fakecuda stand-in: the same
 * interface and validation, the same bytes written, enqueued as lazy stream
 * work. Before touching a plane it checks, as a GPU's memory protection
 * would, that every byte range it reads or writes is device memory the
 * launching device may use; otherwise the process gets the sticky
 * cudaErrorIllegalAddress, as a faulting kernel gives it. */
#include "plane_copy.h"

#include <algorithm>
#include <cstring>

#include "fakecuda.h"

namespace gst_cs::gpu {
namespace {

struct Launch {
  PlaneCopy plane[kMaxPlanes];
  int n_planes;
};

bool
is_shifted_luma (const PlaneCopy & p, std::size_t x)
{
  return x >= p.shift_first && x < p.shift_end &&
         (x - p.shift_first) % p.shift_step < p.shift_step / 2;
}

/* Source bytes a row reads: a shifted luma sample reads shift_step bytes
 * on, which may lie past the row's own bytes. */
std::size_t
source_row_bytes (const PlaneCopy & p)
{
  if (p.shift_end == 0 || p.row_bytes == 0)
    return p.row_bytes;
  std::size_t last = std::min<std::size_t> (p.shift_end, p.row_bytes);
  while (last > p.shift_first && !is_shifted_luma (p, last - 1))
    last--;
  return last > p.shift_first ? std::max (p.row_bytes, last + p.shift_step) : p.row_bytes;
}

bool
may_access_plane (const PlaneCopy & p)
{
  const std::size_t src_row = source_row_bytes (p);
  for (unsigned y = 0; y < p.rows; y++) {
    if (!fakecuda_kernel_may_access (p.src + y * p.src_pitch, src_row) ||
        !fakecuda_kernel_may_access (p.dst + y * p.dst_pitch, p.row_bytes))
      return false;
  }
  return true;
}

/* What the kernel's threads write, row by row. */
void
copy_plane (const PlaneCopy & p)
{
  for (unsigned y = 0; y < p.rows; y++) {
    const std::uint8_t * src = p.src + y * p.src_pitch;
    std::uint8_t * dst = p.dst + y * p.dst_pitch;
    if (p.shift_end == 0) {
      std::memcpy (dst, src, p.row_bytes);
      continue;
    }
    for (std::size_t x = 0; x < p.row_bytes; x++)
      dst[x] = src[is_shifted_luma (p, x) ? x + p.shift_step : x];
  }
}

void
run (void * data)
{
  const auto * launch = static_cast<const Launch *> (data);
  for (int i = 0; i < launch->n_planes; i++) {
    if (!may_access_plane (launch->plane[i])) {
      fakecuda_fault ();
      return;
    }
    copy_plane (launch->plane[i]);
  }
}

void
release (void * data)
{
  delete static_cast<Launch *> (data);
}

} // namespace

cudaError_t
copy_planes (const PlaneCopy * planes, int n_planes, cudaStream_t stream)
{
  if (n_planes < 1 || n_planes > kMaxPlanes)
    return cudaErrorInvalidValue;
  auto * launch = new Launch{};
  std::copy (planes, planes + n_planes, launch->plane);
  launch->n_planes = n_planes;
  (void)fakecuda_launch (stream, run, launch, release);
  /* As the kernel wrapper: a failed launch is the thread's last error. */
  return cudaGetLastError ();
}

} // namespace gst_cs::gpu

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* convert_scale for the fakecuda stand-in: the kernel's path on the CPU
 * (gpu/convert_scale_host.cpp: the GPU's tiles where it uses them, which
 * the tests compare with the plain twin) enqueued as lazy stream work,
 * after the check a GPU's memory protection makes: every plane it reads
 * or writes must be device memory the launching device may use, else the
 * process gets the sticky cudaErrorIllegalAddress. */
#include "convert_scale.h"

#include "fakecuda.h"
#include "twin_image_access.hpp"

namespace gst_cs::gpu {
namespace {

/* The table of taps a description points to (convert_scale_point_lines),
 * read by its kernel and written by its filling: device memory too. */
bool
may_access_lines (const ConvertScale & op)
{
  return !op.fixed.lines_on ||
         fakecuda_kernel_may_access (op.fixed.lines, convert_scale_lines_bytes (op));
}

void
run (void * data)
{
  const auto * op = static_cast<const ConvertScale *> (data);
  if (!twin_may_access_image (op->in) || !twin_may_access_image (op->out) ||
      !may_access_lines (*op)) {
    fakecuda_fault ();
    return;
  }
  convert_scale_resolved_as_gpu_on_host (*op);
}

void
fill (void * data)
{
  const auto * op = static_cast<const ConvertScale *> (data);
  if (!may_access_lines (*op)) {
    fakecuda_fault ();
    return;
  }
  convert_scale_fill_lines_on_host (*op);
}

void
release (void * data)
{
  delete static_cast<ConvertScale *> (data);
}

} // namespace

cudaError_t
convert_scale (const ConvertScale & op, cudaStream_t stream)
{
  ConvertScale resolved;
  if (!convert_scale_resolve (op, &resolved))
    return cudaErrorInvalidValue;
  return convert_scale_resolved (resolved, stream);
}

cudaError_t
convert_scale_resolved (
    const ConvertScale & resolved, cudaStream_t stream, ConvertTicket *)
{
  /* As the kernel wrapper: the launch's own status, and a failed launch
   * leaves no last error behind. */
  const cudaError_t status =
      fakecuda_launch (stream, run, new ConvertScale (resolved), release);
  if (status != cudaSuccess)
    (void)cudaGetLastError ();
  return status;
}

cudaError_t
convert_scale_fill_lines (const ConvertScale & pointed, cudaStream_t stream)
{
  if (!convert_scale_lines_pointed (pointed))
    return cudaErrorInvalidValue;
  /* Lazy, as the kernel: ordered with the stream's other work. */
  (void)fakecuda_launch (stream, fill, new ConvertScale (pointed), release);
  return cudaGetLastError ();
}

} // namespace gst_cs::gpu

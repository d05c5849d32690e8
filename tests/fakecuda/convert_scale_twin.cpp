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

void
run (void * data)
{
  const auto * op = static_cast<const ConvertScale *> (data);
  if (!twin_may_access_image (op->in) || !twin_may_access_image (op->out)) {
    fakecuda_fault ();
    return;
  }
  convert_scale_resolved_as_gpu_on_host (*op);
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
convert_scale_resolved (const ConvertScale & resolved, cudaStream_t stream)
{
  (void)fakecuda_launch (stream, run, new ConvertScale (resolved), release);
  /* As the kernel wrapper: a failed launch is the thread's last error. */
  return cudaGetLastError ();
}

} // namespace gst_cs::gpu

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* batch_convert_launch for the fakecuda stand-in: the kernel's tiles on
 * the CPU (gpu/batch_convert_host.cpp) enqueued as lazy stream work, after
 * the check a GPU's memory protection makes: every frame's planes and the
 * tensor must be device memory the launching device may use. */
#include "batch_convert.h"

#include "fakecuda.h"
#include "twin_image_access.hpp"

namespace gst_cs::gpu {
namespace {

void
run (void * data)
{
  const auto * b = static_cast<const BatchConvert *> (data);
  const std::size_t size = b->norm.type == TensorType::FLOAT32   ? 4
                           : b->norm.type == TensorType::FLOAT16 ? 2
                                                                 : 1;
  const std::size_t elements =
      (std::size_t)b->norm.batch * 3 * b->norm.width * b->norm.height;
  bool ok = fakecuda_kernel_may_access (b->norm.dst, elements * size);
  for (int k = 0; ok && k < b->count; k++)
    ok = twin_may_access_image (b->op[k].in);
  if (!ok) {
    fakecuda_fault ();
    return;
  }
  batch_convert_resolved_on_host (*b);
}

void
release (void * data)
{
  delete static_cast<BatchConvert *> (data);
}

} // namespace

cudaError_t
batch_convert_launch (const BatchConvert & resolved, cudaStream_t stream)
{
  (void)fakecuda_launch (stream, run, new BatchConvert (resolved), release);
  return cudaGetLastError ();
}

} // namespace gst_cs::gpu

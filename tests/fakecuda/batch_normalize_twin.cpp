/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* batch_normalize for the fakecuda stand-in: the kernel's arithmetic on the
 * CPU (gpu/batch_normalize_host.cpp) enqueued as lazy stream work, after
 * the check a GPU's memory protection makes: the pictures it reads and the
 * tensor it writes must be device memory the launching device may use. */
#include "batch_normalize.h"

#include "fakecuda.h"

namespace gst_cs::gpu {
namespace {

void
run (void * data)
{
  const auto * op = static_cast<const BatchNormalize *> (data);
  const std::size_t elements = (std::size_t)op->batch * 3 * op->width * op->height;
  const std::size_t size = op->type == TensorType::FLOAT16 ? 2 : 4;
  if (!fakecuda_kernel_may_access (op->src, elements) ||
      !fakecuda_kernel_may_access (op->dst, elements * size)) {
    fakecuda_fault ();
    return;
  }
  batch_normalize_on_host (*op);
}

void
release (void * data)
{
  delete static_cast<BatchNormalize *> (data);
}

} // namespace

cudaError_t
batch_normalize (const BatchNormalize & op, cudaStream_t stream)
{
  if (!batch_normalize_is_valid (op))
    return cudaErrorInvalidValue;
  (void)fakecuda_launch (stream, run, new BatchNormalize (op), release);
  return cudaGetLastError ();
}

} // namespace gst_cs::gpu

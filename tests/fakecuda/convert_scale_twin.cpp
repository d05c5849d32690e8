/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* convert_scale for the fakecuda stand-in: the kernel's path on the CPU
 * (gpu/convert_scale_host.cpp: the GPU's tiles where it uses them, which
 * the tests compare with the plain twin) enqueued as lazy stream work,
 * after the check a GPU's memory protection makes: every plane it reads
 * or writes must be device memory the launching device may use, else the
 * process gets the sticky cudaErrorIllegalAddress. */
#include "convert_scale.h"

#include "fakecuda.h"

namespace gst_cs::gpu {
namespace {

/* Every byte of every row a component of `im` lies in. */
bool
may_access_image (const Image & im)
{
  for (const Component & c : im.comp) {
    if (c.plane < 0)
      continue;
    const int w = (im.width + (1 << c.log2_x) - 1) >> c.log2_x;
    const int h = (im.height + (1 << c.log2_y) - 1) >> c.log2_y;
    const std::size_t row = (std::size_t) (w - 1) * c.step + c.offset + im.bytes;
    for (int y = 0; y < h; y++)
      if (!fakecuda_kernel_may_access (im.data[c.plane] + y * im.pitch[c.plane], row))
        return false;
  }
  return true;
}

void
run (void * data)
{
  const auto * op = static_cast<const ConvertScale *> (data);
  if (!may_access_image (op->in) || !may_access_image (op->out)) {
    fakecuda_fault ();
    return;
  }
  convert_scale_as_gpu_on_host (*op);
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
  if (!convert_scale_is_valid (op))
    return cudaErrorInvalidValue;
  (void)fakecuda_launch (stream, run, new ConvertScale (op), release);
  /* As the kernel wrapper: a failed launch is the thread's last error. */
  return cudaGetLastError ();
}

} // namespace gst_cs::gpu

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* cudabatch's normalisation kernel timed beside a device copy of the bytes
 * it reads and writes (scripts/gpu-batch.sh builds and runs it):
 *   batch-kernel-time [batch width height]          (default 16 640 640) */
#include <cstdio>
#include <cstdlib>

#include "batch_normalize.h"
#include "cuda_check.h"

int
main (int argc, char ** argv)
{
  using namespace gst_cs::gpu;
  const int batch = argc > 1 ? std::atoi (argv[1]) : 16;
  const int w = argc > 2 ? std::atoi (argv[2]) : 640,
            h = argc > 3 ? std::atoi (argv[3]) : 640;
  const size_t in_bytes = (size_t)batch * 3 * w * h, out_bytes = in_bytes * 2;
  void *src, *dst, *copy;
  CHECK (cudaMalloc (&src, in_bytes));
  CHECK (cudaMalloc (&dst, out_bytes));
  CHECK (cudaMalloc (&copy, in_bytes + out_bytes));
  cudaStream_t s;
  cudaEvent_t a, b;
  CHECK (cudaStreamCreateWithFlags (&s, cudaStreamNonBlocking));
  CHECK (cudaEventCreate (&a));
  CHECK (cudaEventCreate (&b));
  BatchNormalize op;
  op.src = (const std::uint8_t *)src, op.dst = dst, op.batch = batch, op.width = w,
  op.height = h;
  op.type = TensorType::FLOAT16;
  const int reps = 200;
  float kernel_ms = 0, copy_ms = 0;
  for (int pass = 0; pass < 2; pass++) { /* the first warms up */
    CHECK (cudaEventRecord (a, s));
    for (int i = 0; i < reps; i++)
      CHECK (batch_normalize (op, s));
    CHECK (cudaEventRecord (b, s));
    CHECK (cudaEventSynchronize (b));
    CHECK (cudaEventElapsedTime (&kernel_ms, a, b));
    CHECK (cudaEventRecord (a, s));
    for (int i = 0; i < reps;
         i++) /* (in + out) bytes copied: read and written once each */
      CHECK (cudaMemcpyAsync (copy, (char *)copy + (in_bytes + out_bytes) / 2,
          (in_bytes + out_bytes) / 2, cudaMemcpyDeviceToDevice, s));
    CHECK (cudaEventRecord (b, s));
    CHECK (cudaEventSynchronize (b));
    CHECK (cudaEventElapsedTime (&copy_ms, a, b));
  }
  std::printf (
      "KERNEL batch_normalize %dx3x%dx%d uint8->float16: %.1f us; device copy of "
      "the %zu bytes it reads+writes: %.1f us; ratio %.2f\n",
      batch, h, w, 1e3 * kernel_ms / reps, in_bytes + out_bytes, 1e3 * copy_ms / reps,
      kernel_ms / copy_ms);
  return 0;
}

/* SPDX-License-Identifier: LGPL-2.1-or-later */
// A kernel launched through the driver's cuLaunchKernel, its function in
// the current device's context resolved once, instead of through the
// runtime's cudaLaunchKernel, which resolves the kernel to that function
// on every launch. On one H200 (2026-12-01, gcs-frame-cost) the host cost
// of a launch of 816 bytes of parameters went from 4.64 to 4.10 µs that
// way, and from 5.06 to 4.28 in a second run: a tenth of a host-bound
// converter frame.
//
// The driver's entry points come from the runtime
// (cudaGetDriverEntryPointByVersion): nothing links libcuda. Where they
// are missing (the CUDA stand-in) or a kernel cannot be resolved, launch()
// says so and the caller launches through the runtime.
#pragma once

#include <cstddef>

#include <cuda_runtime_api.h>

namespace gst_cs::gpu::driver {

// What `kernel` is: a built kernel's host stub (the address `<<<>>>` and
// cudaLaunchKernel take), or a kernel handle loaded from a library
// (cudaLibraryGetKernel).
enum class Kernel { BUILT, HANDLE };

// Launches `kernel` on `stream` with `args` as cudaLaunchKernel takes them.
// cudaSuccess where launched. Else nothing was enqueued, and the caller
// launches through the runtime, whose error (cudaGetLastError) is then
// the one that counts: cudaErrorNotSupported where the driver's way is
// not available (the stand-in, no current context, a kernel not
// resolved), another error where the driver refused the launch (not
// sticky, as the runtime's launch errors).
cudaError_t launch (const void * kernel, Kernel kind, dim3 grid, dim3 block,
    std::size_t shared_bytes, cudaStream_t stream, void ** args);

// Launches made through the driver so far, in this process: tests assert
// that the driver's way is the one taken on a GPU.
unsigned long long launched ();

template <class T> struct Same {
  using type = T;
};

// Launches built `kernel` with `args`, as `kernel<<<grid, block,
// shared_bytes, stream>>> (args...)` does: through the driver where it
// can, else through the runtime, which also makes again a launch the
// driver refused, so that its error is the runtime's (cudaGetLastError).
template <class... P>
void
start (void (*kernel) (P...), dim3 grid, dim3 block, std::size_t shared_bytes,
    cudaStream_t stream, typename Same<P>::type... args)
{
  /* Both launches only read them. */
  void * argv[sizeof...(P) ? sizeof...(P) : 1] = { const_cast<void *> (
      static_cast<const void *> (&args))... };
  const void * built = reinterpret_cast<const void *> (kernel);
  if (launch (built, Kernel::BUILT, grid, block, shared_bytes, stream, argv) !=
      cudaSuccess)
    cudaLaunchKernel (built, grid, block, argv, shared_bytes, stream);
}

} // namespace gst_cs::gpu::driver

/* SPDX-License-Identifier: LGPL-2.1-or-later */
// Kernels launched through the driver's cuLaunchKernel, each kernel's
// function in the current context resolved once, instead of through the
// runtime's cudaLaunchKernel (and <<<>>>), which finds that function again
// on every launch. On one H200 (2026-12-01, gcs-frame-cost, 816 bytes of
// parameters) a bare cuLaunchKernel cost the host 4.10 and 4.28 µs where
// <<<>>> cost 4.64 and 5.06, in two runs; the pipelines' host-bound rows
// move by more than that from run to run, and did not show it.
//
// The driver's entry points come from the runtime
// (cudaGetDriverEntryPointByVersion): nothing links libcuda. A kernel's
// first launch in a context goes through the runtime, which loads it
// there and whose error, if any, is the caller's as before; only after it
// succeeded is the kernel's function looked up. Where the driver refuses a
// launch the runtime makes it again, so that its error is the one the
// caller reads (cudaGetLastError).
#pragma once

#include <cstddef>
#include <optional>
#include <type_traits>

#include <cuda_runtime_api.h>

// A null stream is the legacy default stream on the driver's path; with
// per-thread default streams the runtime's launch would take another.
#if defined(CUDA_API_PER_THREAD_DEFAULT_STREAM)
#error "driver_launch.h: the driver's launch takes a null stream as the legacy one"
#endif

namespace gst_cs::gpu::driver {

// What `kernel` is: a built kernel's host stub (the address `<<<>>>` and
// cudaLaunchKernel take), or a kernel handle loaded from a library
// (cudaLibraryGetKernel: the kernels compiled at run time).
enum class Kernel { BUILT, HANDLE };

// Launches `kernel` on `stream` with `args` as cudaLaunchKernel takes them.
// cudaSuccess, or the runtime's error for the launch, as cudaLaunchKernel
// returns it.
cudaError_t launch (const void * kernel, Kernel kind, dim3 grid, dim3 block,
    std::size_t shared_bytes, cudaStream_t stream, void ** args);

// The id of the current context (cuCtxGetId: unique in the process, and a
// context's device never changes); none where no context is current or the
// driver's way is not there (a launch then takes the runtime's). One
// driver call.
std::optional<unsigned long long> current_context ();

// launch () in the current context, as current_context () gave it: the
// driver is not asked for it again, so that a caller that needs the
// context before it launches (the compiled kernels) asks once. None: the
// runtime's launch, which makes the device's primary context current.
cudaError_t launch_in (std::optional<unsigned long long> context, const void * kernel,
    Kernel kind, dim3 grid, dim3 block, std::size_t shared_bytes, cudaStream_t stream,
    void ** args);

// Launches made through the driver so far in this process, and launches
// the driver refused that the runtime then made: tests assert that the
// driver's way is the one taken on a GPU.
unsigned long long launched ();
unsigned long long refused ();

// The parameter types of a kernel, not deduced from the arguments: each
// argument converts to its parameter, as at a call.
template <class T> struct Same {
  using type = T;
};

// Launches built `kernel` with `args`, as `kernel<<<grid, block,
// shared_bytes, stream>>> (args...)` does.
template <class... P>
cudaError_t
launch_built (void (*kernel) (P...), dim3 grid, dim3 block, std::size_t shared_bytes,
    cudaStream_t stream, const typename Same<P>::type &... args)
{
  /* Each pointer must be the parameter's own bytes. */
  static_assert (!(std::is_reference_v<P> || ...), "kernel parameters are values");
  /* The launch only reads them. */
  void * argv[sizeof...(P) ? sizeof...(P) : 1] = { const_cast<void *> (
      static_cast<const void *> (&args))... };
  return launch (reinterpret_cast<const void *> (kernel), Kernel::BUILT, grid, block,
      shared_bytes, stream, argv);
}

} // namespace gst_cs::gpu::driver

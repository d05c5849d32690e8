/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "driver_launch.h"

#include <array>
#include <atomic>
#include <cstdint>
#include <mutex>
#include <unordered_map>

#include <cuda.h>

namespace gst_cs::gpu::driver {

namespace {

using LaunchFn = CUresult (*) (CUfunction, unsigned, unsigned, unsigned, unsigned,
    unsigned, unsigned, unsigned, CUstream, void **, void **);
using KernelFunctionFn = CUresult (*) (CUfunction *, CUkernel);
using CurrentFn = CUresult (*) (CUcontext *);

struct Entries {
  LaunchFn launch = nullptr;
  KernelFunctionFn kernel_function = nullptr;
  CurrentFn current = nullptr;
};

void *
entry_point (const char * name)
{
  void * fn = nullptr;
  cudaDriverEntryPointQueryResult found{};
  if (cudaGetDriverEntryPointByVersion (name, &fn, 12000, cudaEnableDefault, &found) !=
      cudaSuccess) {
    (void)cudaGetLastError (); /* once a process, and nothing was enqueued */
    return nullptr;
  }
  return found == cudaDriverEntryPointSuccess ? fn : nullptr;
}

const Entries &
entries ()
{
  static const Entries e = [] {
    Entries r;
    r.launch = reinterpret_cast<LaunchFn> (entry_point ("cuLaunchKernel"));
    r.kernel_function =
        reinterpret_cast<KernelFunctionFn> (entry_point ("cuKernelGetFunction"));
    r.current = reinterpret_cast<CurrentFn> (entry_point ("cuCtxGetCurrent"));
    if (!r.launch || !r.current)
      r.launch = nullptr;
    return r;
  }();
  return e;
}

std::atomic<unsigned long long> made{ 0 };

struct Key {
  const void * kernel;
  CUcontext context;
  bool operator== (const Key & o) const
  {
    return kernel == o.kernel && context == o.context;
  }
};

struct KeyHash {
  std::size_t operator() (const Key & k) const
  {
    return std::hash<const void *> () (k.kernel) * 31 + std::hash<void *> () (k.context);
  }
};

/* A kernel's function in the current context (a device's primary context,
 * the one the runtime and nvcodec use): the process's primary contexts
 * live as long as it does (nothing here resets a device), so once found
 * it stays valid. nullptr: it could not be found, for good. */
CUfunction
resolve (const void * kernel, Kernel kind, CUcontext context)
{
  static std::mutex lock;
  static std::unordered_map<Key, CUfunction, KeyHash> known;
  const Key key{ kernel, context };
  std::lock_guard<std::mutex> hold (lock);
  auto it = known.find (key);
  if (it != known.end ())
    return it->second;
  CUfunction f = nullptr;
  if (kind == Kernel::BUILT) {
    cudaFunction_t fn = nullptr;
    if (cudaGetFuncBySymbol (&fn, kernel) == cudaSuccess)
      f = reinterpret_cast<CUfunction> (fn);
    else
      (void)cudaGetLastError (); /* ours: the runtime's launch says its own */
  } else if (entries ().kernel_function) {
    if (entries ().kernel_function (
            &f, reinterpret_cast<CUkernel> (const_cast<void *> (kernel))) != CUDA_SUCCESS)
      f = nullptr;
  }
  known.emplace (key, f);
  return f;
}

} // namespace

cudaError_t
launch (const void * kernel, Kernel kind, dim3 grid, dim3 block, std::size_t shared_bytes,
    cudaStream_t stream, void ** args)
{
  const Entries & e = entries ();
  if (!e.launch)
    return cudaErrorNotSupported;
  /* None current yet: the runtime's launch makes the device's primary
   * context current. */
  CUcontext context = nullptr;
  if (e.current (&context) != CUDA_SUCCESS || !context)
    return cudaErrorNotSupported;
  /* The last few of this thread: an element's streaming thread launches
   * the same one or two kernels frame after frame. */
  struct Seen {
    const void * kernel = nullptr;
    CUcontext context = nullptr;
    CUfunction function = nullptr;
  };
  thread_local std::array<Seen, 4> seen{};
  thread_local unsigned next = 0;
  CUfunction f = nullptr;
  bool found = false;
  for (const Seen & s : seen)
    if (s.kernel == kernel && s.context == context) {
      f = s.function;
      found = true;
      break;
    }
  if (!found) {
    f = resolve (kernel, kind, context);
    seen[next++ % seen.size ()] = { kernel, context, f };
  }
  if (!f)
    return cudaErrorNotSupported;
  const CUresult r = e.launch (f, grid.x, grid.y, grid.z, block.x, block.y, block.z,
      (unsigned)shared_bytes, reinterpret_cast<CUstream> (stream), args, nullptr);
  if (r != CUDA_SUCCESS)
    return cudaErrorLaunchFailure;
  made.fetch_add (1, std::memory_order_relaxed);
  return cudaSuccess;
}

unsigned long long
launched ()
{
  return made.load (std::memory_order_relaxed);
}

} // namespace gst_cs::gpu::driver

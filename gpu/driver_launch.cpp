/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "driver_launch.h"

#include <array>
#include <atomic>
#include <mutex>
#include <unordered_map>

#include <cuda.h>
#include <cudaTypedefs.h>

namespace gst_cs::gpu::driver {

namespace {

struct Entries {
  PFN_cuLaunchKernel_v4000 launch = nullptr;
  PFN_cuKernelGetFunction_v12000 kernel_function = nullptr;
  PFN_cuCtxGetId_v12000 context_id = nullptr;
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
    r.launch =
        reinterpret_cast<PFN_cuLaunchKernel_v4000> (entry_point ("cuLaunchKernel"));
    r.kernel_function = reinterpret_cast<PFN_cuKernelGetFunction_v12000> (
        entry_point ("cuKernelGetFunction"));
    r.context_id = reinterpret_cast<PFN_cuCtxGetId_v12000> (entry_point ("cuCtxGetId"));
    if (!r.context_id)
      r.launch = nullptr;
    return r;
  }();
  return e;
}

std::atomic<unsigned long long> made{ 0 }, made_again{ 0 };

/* A kernel in a context, by the context's id: unique for the life of the
 * process, so that a context destroyed (a device reset, a context an
 * application made and dropped) never hands its functions to another. */
struct Key {
  const void * kernel;
  unsigned long long context;
  bool operator== (const Key & o) const
  {
    return kernel == o.kernel && context == o.context;
  }
};

struct KeyHash {
  std::size_t operator() (const Key & k) const
  {
    return std::hash<const void *> () (k.kernel) * 31 +
           std::hash<unsigned long long> () (k.context);
  }
};

std::mutex known_lock;
std::unordered_map<Key, CUfunction, KeyHash> known; /* nullptr: not found, for good */

bool
look_up (const Key & key, CUfunction * f)
{
  std::lock_guard<std::mutex> hold (known_lock);
  auto it = known.find (key);
  if (it == known.end ())
    return false;
  *f = it->second;
  return true;
}

/* After the kernel's first launch in the current context succeeded: it is
 * loaded there. Found outside the lock (CUDA calls); two threads that race
 * here find the same function. */
void
find (const Key & key, Kernel kind)
{
  CUfunction f = nullptr;
  if (kind == Kernel::BUILT) {
    cudaFunction_t fn = nullptr;
    if (cudaGetFuncBySymbol (&fn, key.kernel) == cudaSuccess)
      f = reinterpret_cast<CUfunction> (fn);
    else
      (void)cudaGetLastError (); /* ours: the launch before it succeeded */
  } else if (entries ().kernel_function) {
    if (entries ().kernel_function (&f,
            reinterpret_cast<CUkernel> (const_cast<void *> (key.kernel))) != CUDA_SUCCESS)
      f = nullptr;
  }
  std::lock_guard<std::mutex> hold (known_lock);
  known.try_emplace (key, f);
}

} // namespace

std::optional<unsigned long long>
current_context ()
{
  const Entries & e = entries ();
  unsigned long long id = 0;
  if (e.launch && e.context_id (nullptr, &id) == CUDA_SUCCESS)
    return id;
  return std::nullopt;
}

cudaError_t
launch (const void * kernel, Kernel kind, dim3 grid, dim3 block, std::size_t shared_bytes,
    cudaStream_t stream, void ** args)
{
  return launch_in (
      current_context (), kernel, kind, grid, block, shared_bytes, stream, args);
}

cudaError_t
launch_in (std::optional<unsigned long long> context, const void * kernel, Kernel kind,
    dim3 grid, dim3 block, std::size_t shared_bytes, cudaStream_t stream, void ** args)
{
  auto through_runtime = [&] {
    return cudaLaunchKernel (kernel, grid, block, args, shared_bytes, stream);
  };
  /* No context current yet (the runtime's launch makes the device's
   * primary context current), or no driver's way. */
  if (!context)
    return through_runtime ();
  const Entries & e = entries ();
  /* The last few of this thread: a streaming thread launches the same one
   * or two kernels frame after frame. */
  struct Seen {
    const void * kernel = nullptr;
    unsigned long long context = 0;
    CUfunction function = nullptr;
  };
  thread_local std::array<Seen, 4> seen{};
  thread_local unsigned next = 0;
  const Key key{ kernel, *context };
  CUfunction f = nullptr;
  bool found = false;
  for (const Seen & s : seen)
    if (s.kernel == kernel && s.context == *context) {
      f = s.function;
      found = true;
      break;
    }
  if (!found && look_up (key, &f)) {
    seen[next++ % seen.size ()] = { kernel, *context, f };
    found = true;
  }
  if (!found) {
    const cudaError_t r = through_runtime ();
    if (r == cudaSuccess)
      find (key, kind);
    return r;
  }
  if (!f)
    return through_runtime ();
  if (e.launch (f, grid.x, grid.y, grid.z, block.x, block.y, block.z,
          (unsigned)shared_bytes, reinterpret_cast<CUstream> (stream), args,
          nullptr) != CUDA_SUCCESS) {
    made_again.fetch_add (1, std::memory_order_relaxed);
    return through_runtime ();
  }
  made.fetch_add (1, std::memory_order_relaxed);
  return cudaSuccess;
}

unsigned long long
launched ()
{
  return made.load (std::memory_order_relaxed);
}

unsigned long long
refused ()
{
  return made_again.load (std::memory_order_relaxed);
}

} // namespace gst_cs::gpu::driver

/* SPDX-License-Identifier: LGPL-2.1-or-later */
// Converter kernels compiled at run time for the conversion at hand: the
// same kernel instance the build chose, compiled by NVRTC with the
// resolved description (all but where the frames lie) a constant of its
// source, so that the kernel no longer reads the description and branches
// on it per thread (scripts/specialize-study: 8 to 55 times fewer
// instructions in the code, fewer registers, no stack).
//
// The built kernel computes every frame until its compiled twin is ready:
// a thread of the process compiles a description once it has been
// launched kSeenBeforeCompile times (a description whose crop moves every
// frame never is), at most kMostKernels of them per process. That thread
// makes no CUDA call, and NVRTC compiles in a process of its own
// (gcs-rtc-compile, beside the plugin; run_apart.h says why): the
// launching thread that first finds the code compiled loads it (a module
// load, once a description). The result
// is kept in memory and on disk ($XDG_CACHE_HOME/gst-cudastreams/convert,
// keyed by the description, the kernels' source and the GPU
// architecture), so a later run starts with it.
//
// GST_CS_CONVERT_RTC: "0" never compiles (the built kernels alone); "wait"
// compiles at the first launch of a description and waits for it (tests,
// benchmarks); anything else, or unset, as above. Where the compiler or
// NVRTC (libnvrtc) cannot be found, the built kernels run. A process that
// exits while a kernel is being compiled does not wait for it: its
// compiler process finishes on its own and writes the disk cache, so that
// a run shorter than the compile leaves the kernel to the next (without
// it, 4K NV12 -> 1080p RGBA bicubic ran the built kernel in every round of
// a benchmark: its runs were shorter than the compile, which each killed).
// GST_CS_CONVERT_RTC_COMPILER: the compiler's path,
// where it is not beside the plugin.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include <cuda_runtime_api.h>

#include "convert_scale.h"
#include "rtc_cache.h"

namespace gst_cs::gpu::rtc {

constexpr int kSeenBeforeCompile = 8;
constexpr int kMostKernels = 64;
// Descriptions remembered (counted towards kSeenBeforeCompile) at most: a
// crop that moves every frame makes a new one each frame, and the memory
// they take stays bounded (about 1 KiB each); later ones are not counted.
constexpr int kMostDescriptions = 4096;

// Launches, in place of `kernel` (the built instance, its first parameter
// the description), its twin compiled for resolved `op`, where one is
// ready; `args` as cudaLaunchKernel takes them. `context`: the current
// one, as driver::current_context () gave it, which the caller launches
// `kernel` in too where this does not (the driver is asked once a launch).
// `ticket`: `op`'s (convert_scale.h), or null. False where none is (the
// caller launches `kernel`): it may have asked for one.
bool launch (const void * kernel, const ConvertScale & op, dim3 grid, dim3 block,
    std::size_t shared_bytes, cudaStream_t stream,
    std::optional<unsigned long long> context, void ** args,
    ConvertTicket * ticket = nullptr);

// What the compiler did so far, for tests and logs: kernels compiled (or
// read from the cache) and loaded, compiles or loads that failed (the last one's log in
// `last_error`), compiled kernels not used (kMostStackBytes), launches
// that took a compiled kernel.
struct Stats {
  int compiled = 0;
  int failed = 0;
  int declined = 0;
  long long launches = 0;
  std::string last_error;
};
Stats stats ();

// The source NVRTC compiles for `kernel_name` (a template-id, as
// "gst_cs::gpu::kernels::convert_scale_block_kernel<...>") and resolved
// `op`, and whether NVRTC compiles it for `arch` (as "sm_90"): for tests
// without a GPU. `log`: NVRTC's; `stack`: the compiled kernel's stack
// bytes a thread, as ptxas reports them (-1: none reported); `cache`: the
// file the compiler process caches it in, as for a run ("": none).
std::string source_for (const ConvertScale & op);
bool compiles (const ConvertScale & op, const std::string & kernel_name,
    const std::string & arch, std::string * log, int * stack = nullptr,
    const std::string & cache = "");

} // namespace gst_cs::gpu::rtc

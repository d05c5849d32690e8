/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Holds back the work enqueued on a stream after close() until open(): on
 * a GPU a host function that waits, found at run time (the stand-in has
 * none and needs none: its streams run only when something waits on
 * them). So "still in flight" does not depend on how fast the GPU is. */
#pragma once

#include <gst/check/gstcheck.h>

#include <dlfcn.h>

#include <atomic>

#include <cuda_runtime_api.h>

struct StreamGate {
  std::atomic<bool> opened{ false };
  void close (cudaStream_t stream)
  {
    using LaunchHostFunc = cudaError_t (*) (cudaStream_t, cudaHostFn_t, void *);
    auto launch =
        reinterpret_cast<LaunchHostFunc> (dlsym (RTLD_DEFAULT, "cudaLaunchHostFunc"));
    if (launch)
      fail_unless_equals_int (launch (stream, wait_until_open, this), cudaSuccess);
  }
  void open () { opened = true; }
  ~StreamGate () { open (); }

private:
  static void wait_until_open (void * data)
  {
    while (!static_cast<StreamGate *> (data)->opened)
      g_usleep (100);
  }
};

/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "base/gstcshostsignal.hpp"

#include <mutex>

#include <cuda.h>

#include "gstcserror-private.h"

namespace gst_cs {

namespace {

using WaitValueFn = CUresult (*) (CUstream, CUdeviceptr, cuuint32_t, unsigned int);

/* A driver entry point, or nullptr (with the runtime's error cleared). */
void *
driver_entry (const char * name)
{
  void * p = nullptr;
  cudaDriverEntryPointQueryResult status = cudaDriverEntryPointSymbolNotFound;
  if (cudaGetDriverEntryPointByVersion (name, &p, 12000, cudaEnableDefault, &status) ==
          cudaSuccess &&
      status == cudaDriverEntryPointSuccess)
    return p;
  (void)cudaGetLastError ();
  return nullptr;
}

WaitValueFn
wait_value_fn ()
{
  static WaitValueFn fn = nullptr;
  static std::once_flag once;
  std::call_once (once,
      [] { fn = reinterpret_cast<WaitValueFn> (driver_entry ("cuStreamWaitValue32")); });
  return fn;
}

} // namespace

/* Not CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_MEM_OPS_V1: CUDA 12 deprecated it,
 * and a driver of today (580 on an H200) answers 0 while the operations
 * work. A device that refuses them refuses the call when it is enqueued
 * (stream_wait_host_signal), and the callers fall back then. */
bool
host_signal_supported ()
{
  return wait_value_fn () != nullptr;
}

bool
stream_wait_host_signal (
    cudaStream_t stream, void * device_address, guint32 value, GError ** error)
{
  WaitValueFn fn = wait_value_fn ();
  const CUresult r = fn ? fn (reinterpret_cast<CUstream> (stream),
                              reinterpret_cast<CUdeviceptr> (device_address), value,
                              CU_STREAM_WAIT_VALUE_GEQ)
                        : CUDA_ERROR_NOT_SUPPORTED;
  if (r == CUDA_SUCCESS)
    return true;
  g_set_error (error, GST_CS_ERROR, GST_CS_ERROR_CUDA,
      "cuStreamWaitValue32 failed with driver error %d", (int)r);
  return false;
}

void
raise_host_signal (guint32 * host_address)
{
  /* Release order: the staging writes of this thread come first (streaming
   * stores are fenced by their copy). */
  __atomic_fetch_add (host_address, 1u, __ATOMIC_RELEASE);
}

} // namespace gst_cs

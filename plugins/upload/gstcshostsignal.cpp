/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "upload/gstcshostsignal.hpp"

#include <mutex>

#include <cuda.h>

#include "gstcserror-private.h"

namespace gst_cs {

namespace {

using WaitValueFn = CUresult (*) (CUstream, CUdeviceptr, cuuint32_t, unsigned int);

WaitValueFn
wait_value_fn ()
{
  static WaitValueFn fn = nullptr;
  static std::once_flag once;
  std::call_once (once, [] {
    void * p = nullptr;
    cudaDriverEntryPointQueryResult status = cudaDriverEntryPointSymbolNotFound;
    if (cudaGetDriverEntryPointByVersion ("cuStreamWaitValue32", &p, 12000,
            cudaEnableDefault, &status) == cudaSuccess &&
        status == cudaDriverEntryPointSuccess)
      fn = reinterpret_cast<WaitValueFn> (p);
    else
      (void)cudaGetLastError ();
  });
  return fn;
}

} // namespace

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

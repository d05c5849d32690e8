/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "base/gstcshostsignal.hpp"

#include <map>
#include <mutex>

#include <cuda.h>

#include "gstcserror-private.h"

namespace gst_cs {

namespace {

using WaitValueFn = CUresult (*) (CUstream, CUdeviceptr, cuuint32_t, unsigned int);
using DeviceGetFn = CUresult (*) (CUdevice *, int);
using AttributeFn = CUresult (*) (int *, CUdevice_attribute, CUdevice);

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

/* Whether the driver says `device` cannot use stream memory operations.
 * CUDA 12 deprecated the attribute (the operations are always there); an
 * attribute the driver no longer knows is no "no". */
bool
device_refuses_memory_ops (int device)
{
  auto get = reinterpret_cast<DeviceGetFn> (driver_entry ("cuDeviceGet"));
  auto attribute = reinterpret_cast<AttributeFn> (driver_entry ("cuDeviceGetAttribute"));
  CUdevice handle = 0;
  int can = 1;
  if (!get || !attribute || get (&handle, device) != CUDA_SUCCESS)
    return false;
  return attribute (&can, CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_MEM_OPS_V1, handle) ==
             CUDA_SUCCESS &&
         !can;
}

} // namespace

bool
host_signal_supported ()
{
  return wait_value_fn () != nullptr;
}

bool
host_signal_supported (int device)
{
  static std::mutex lock;
  static std::map<int, bool> known;
  if (!host_signal_supported ())
    return false;
  std::lock_guard<std::mutex> hold (lock);
  auto it = known.find (device);
  if (it == known.end ())
    it = known.emplace (device, !device_refuses_memory_ops (device)).first;
  return it->second;
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

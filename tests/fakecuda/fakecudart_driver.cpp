/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* libfakecudart: the CUDA driver API that GStreamer's CUDA library
 * (libgstcuda-1.0, nvcodec's) loads, over the stand-in's own devices,
 * streams, events and memory.
 *
 * GStreamer opens "libcuda.so.1" by name and needs every symbol of its
 * list, so the build puts a libcuda.so.1 that is this library where
 * LD_LIBRARY_PATH finds it (tests/fakecuda/meson.build), for the tests of
 * nvcodec's memory on the stand-in. The calls nvcodec's memory, pools,
 * contexts and streams make run here with the runtime's semantics (lazy
 * stream work, the cross-device rules); the rest (kernels, textures, GL,
 * IPC, virtual memory, memory pools, external memory) answer
 * CUDA_ERROR_NOT_SUPPORTED, and the device attributes say so, so
 * GStreamer does not try them.
 *
 * No cuda.h here: its macros rename entry points by toolkit version
 * (cuCtxCreate is cuCtxCreate_v4 in CUDA 13), while GStreamer asks for the
 * names below, whatever toolkit it was built with. */
#include "fakecudart.hpp"

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>

namespace fakecuda {
namespace {

using CUresult = int;
using CUdevice = int;
using CUdeviceptr = std::uintptr_t;
using CUcontext = Context *;

constexpr CUresult kSuccess = 0;
constexpr CUresult kInvalidValue = 1;
constexpr CUresult kInvalidContext = 201;
constexpr CUresult kNotSupported = 801;

/* CUDA_MEMCPY2D, as the driver's header lays it out. */
enum MemoryType { kHostMemory = 1, kDeviceMemory = 2, kArray = 3, kUnified = 4 };
struct Memcpy2D {
  std::size_t srcXInBytes, srcY;
  int srcMemoryType;
  const void * srcHost;
  CUdeviceptr srcDevice;
  void * srcArray;
  std::size_t srcPitch;
  std::size_t dstXInBytes, dstY;
  int dstMemoryType;
  void * dstHost;
  CUdeviceptr dstDevice;
  void * dstArray;
  std::size_t dstPitch;
  std::size_t WidthInBytes, Height;
};

/* The runtime's codes are the driver's for everything the stand-in
 * answers, but for these. */
CUresult
to_driver (cudaError_t err)
{
  switch (err) {
    case cudaErrorMemoryAllocation:
      return 2; /* CUDA_ERROR_OUT_OF_MEMORY */
    case cudaErrorInvalidPitchValue:
    case cudaErrorInvalidMemcpyDirection:
      return kInvalidValue;
    default:
      return (CUresult)err;
  }
}

/* Runs `body` as the runtime runs its entry points (under the lock, the
 * sticky error first), but leaves the thread's last runtime error alone:
 * a driver call's failure is its own answer. */
CUresult
driver_call (const std::function<cudaError_t ()> & body)
{
  const cudaError_t before = last_runtime_error ();
  const cudaError_t err = call (body);
  restore_runtime_error (before);
  return to_driver (err);
}

/* Whether `ctx` is a context made here and not destroyed. */
bool
live (CUcontext ctx)
{
  for (auto & c : state ().contexts)
    if (c.get () == ctx)
      return c->live;
  return false;
}

const void *
address (int type, const void * host, CUdeviceptr device)
{
  return type == kHostMemory ? host : reinterpret_cast<const void *> (device);
}

cudaError_t
copy_2d (const char * call, const Memcpy2D * p, cudaStream_t stream, bool synchronous)
{
  if (!p || p->srcMemoryType == kArray || p->dstMemoryType == kArray)
    return cudaErrorNotSupported;
  auto * src = static_cast<const unsigned char *> (
      address (p->srcMemoryType, p->srcHost, p->srcDevice));
  auto * dst = static_cast<unsigned char *> (
      const_cast<void *> (address (p->dstMemoryType, p->dstHost, p->dstDevice)));
  if (!src || !dst)
    return cudaErrorInvalidValue;
  return copy (call,
      { dst + p->dstY * p->dstPitch + p->dstXInBytes, p->dstPitch,
          src + p->srcY * p->srcPitch + p->srcXInBytes, p->srcPitch, p->WidthInBytes,
          p->Height },
      cudaMemcpyDefault, stream, synchronous);
}

CUresult
copy_linear (const char * call, CUdeviceptr dst, const void * src, std::size_t bytes,
    cudaStream_t stream, bool synchronous)
{
  return driver_call ([&] {
    return copy (call, { reinterpret_cast<void *> (dst), bytes, src, bytes, bytes, 1 },
        cudaMemcpyDefault, stream, synchronous);
  });
}

} // namespace
} // namespace fakecuda

using namespace fakecuda;

#define FAKECUDA_DRIVER extern "C" __attribute__ ((visibility ("default")))

/* ---- initialisation, devices ---- */

FAKECUDA_DRIVER CUresult
cuInit (unsigned int)
{
  return kSuccess;
}

FAKECUDA_DRIVER CUresult
cuDriverGetVersion (int * version)
{
  if (!version)
    return kInvalidValue;
  *version = CUDART_VERSION;
  return kSuccess;
}

FAKECUDA_DRIVER CUresult
cuDeviceGetCount (int * count)
{
  return driver_call ([&] {
    if (!count)
      return cudaErrorInvalidValue;
    *count = state ().n_devices;
    return cudaSuccess;
  });
}

FAKECUDA_DRIVER CUresult
cuDeviceGet (CUdevice * device, int ordinal)
{
  return driver_call ([&] {
    if (!device)
      return cudaErrorInvalidValue;
    if (!valid_device (ordinal))
      return cudaErrorInvalidDevice;
    *device = ordinal;
    return cudaSuccess;
  });
}

FAKECUDA_DRIVER CUresult
cuDeviceGetName (char * name, int len, CUdevice device)
{
  return driver_call ([&] {
    if (!name || len <= 0)
      return cudaErrorInvalidValue;
    if (!valid_device (device))
      return cudaErrorInvalidDevice;
    std::snprintf (name, (std::size_t)len, "fakecuda device %d", device);
    return cudaSuccess;
  });
}

/* Unified addressing and the like as the runtime says; memory pools,
 * virtual memory management and IPC handles: 0, so that GStreamer does
 * not use them. */
FAKECUDA_DRIVER CUresult
cuDeviceGetAttribute (int * value, int attrib, CUdevice device)
{
  return driver_call ([&] {
    if (!value)
      return cudaErrorInvalidValue;
    if (!valid_device (device))
      return cudaErrorInvalidDevice;
    *value = device_attribute (attrib, device);
    return cudaSuccess;
  });
}

FAKECUDA_DRIVER CUresult
cuDeviceGetUuid (unsigned char * uuid, CUdevice device)
{
  return driver_call ([&] {
    if (!uuid)
      return cudaErrorInvalidValue;
    if (!valid_device (device))
      return cudaErrorInvalidDevice;
    std::memset (uuid, 0, 16);
    uuid[0] = (unsigned char)device;
    return cudaSuccess;
  });
}

FAKECUDA_DRIVER CUresult
cuDeviceCanAccessPeer (int * can, CUdevice device, CUdevice peer)
{
  return driver_call ([&] { return cudaDeviceCanAccessPeer (can, device, peer); });
}

/* ---- contexts ---- */

FAKECUDA_DRIVER CUresult
cuDevicePrimaryCtxRetain (CUcontext * ctx, CUdevice device)
{
  return driver_call ([&] {
    if (!ctx)
      return cudaErrorInvalidValue;
    *ctx = primary_context (device);
    return *ctx ? cudaSuccess : cudaErrorInvalidDevice;
  });
}

FAKECUDA_DRIVER CUresult
cuDevicePrimaryCtxRelease_v2 (CUdevice device)
{
  return driver_call (
      [&] { return valid_device (device) ? cudaSuccess : cudaErrorInvalidDevice; });
}

/* A context of its own (nvcodec 1.22 makes one per element), current. */
FAKECUDA_DRIVER CUresult
cuCtxCreate_v2 (CUcontext * ctx, unsigned int, CUdevice device)
{
  return driver_call ([&] {
    if (!ctx)
      return cudaErrorInvalidValue;
    if (!valid_device (device))
      return cudaErrorInvalidDevice;
    State & st = state ();
    st.contexts.push_back (std::make_unique<Context> ());
    *ctx = st.contexts.back ().get ();
    (*ctx)->device = device;
    context_stack ().push_back (*ctx);
    return cudaSuccess;
  });
}

FAKECUDA_DRIVER CUresult
cuCtxDestroy_v2 (CUcontext ctx)
{
  return driver_call ([&] {
    if (!live (ctx) || ctx->primary)
      return (cudaError_t)kInvalidContext;
    /* Its work finishes first, as the driver synchronises it. */
    count_host_block ("cuCtxDestroy");
    run_device (ctx->device);
    ctx->live = false;
    auto & stack = context_stack ();
    for (auto it = stack.begin (); it != stack.end ();)
      it = *it == ctx ? stack.erase (it) : it + 1;
    return cudaSuccess;
  });
}

FAKECUDA_DRIVER CUresult
cuCtxPushCurrent_v2 (CUcontext ctx)
{
  return driver_call ([&] {
    if (!live (ctx))
      return (cudaError_t)kInvalidContext;
    context_stack ().push_back (ctx);
    return cudaSuccess;
  });
}

FAKECUDA_DRIVER CUresult
cuCtxPopCurrent_v2 (CUcontext * ctx)
{
  return driver_call ([&] {
    auto & stack = context_stack ();
    if (stack.empty ())
      return (cudaError_t)kInvalidContext;
    if (ctx)
      *ctx = stack.back ();
    stack.pop_back ();
    return cudaSuccess;
  });
}

FAKECUDA_DRIVER CUresult
cuCtxGetCurrent (CUcontext * ctx)
{
  return driver_call ([&] {
    if (!ctx)
      return cudaErrorInvalidValue;
    auto & stack = context_stack ();
    *ctx = stack.empty () ? nullptr : stack.back ();
    return cudaSuccess;
  });
}

FAKECUDA_DRIVER CUresult
cuCtxSynchronize (void)
{
  return driver_call ([&] {
    count_host_block ("cuCtxSynchronize");
    run_device (current_device ());
    return cudaSuccess;
  });
}

/* Kernels of the current context's device may touch the peer's memory. */
FAKECUDA_DRIVER CUresult
cuCtxEnablePeerAccess (CUcontext peer, unsigned int)
{
  return driver_call ([&] {
    if (!live (peer))
      return (cudaError_t)kInvalidContext;
    const int device = current_device ();
    if (peer->device == device)
      return cudaErrorInvalidDevice;
    state ().peer[device][peer->device] = true;
    return cudaSuccess;
  });
}

FAKECUDA_DRIVER CUresult
cuCtxDisablePeerAccess (CUcontext peer)
{
  return driver_call ([&] {
    if (!live (peer))
      return (cudaError_t)kInvalidContext;
    state ().peer[current_device ()][peer->device] = false;
    return cudaSuccess;
  });
}

FAKECUDA_DRIVER CUresult
cuCtxGetLimit (std::size_t * value, int)
{
  if (!value)
    return kInvalidValue;
  *value = 0;
  return kSuccess;
}

FAKECUDA_DRIVER CUresult
cuCtxSetLimit (int, std::size_t)
{
  return kSuccess;
}

/* ---- memory ---- */

FAKECUDA_DRIVER CUresult
cuMemAlloc_v2 (CUdeviceptr * ptr, std::size_t bytes)
{
  void * p = nullptr;
  const CUresult r = driver_call ([&] { return cudaMalloc (&p, bytes); });
  if (ptr)
    *ptr = reinterpret_cast<CUdeviceptr> (p);
  return r;
}

/* Rows padded to 512 bytes, as a GPU's pitched allocations are. */
FAKECUDA_DRIVER CUresult
cuMemAllocPitch_v2 (CUdeviceptr * ptr, std::size_t * pitch, std::size_t width,
    std::size_t height, unsigned int)
{
  if (!pitch)
    return kInvalidValue;
  *pitch = (width + 511) / 512 * 512;
  return cuMemAlloc_v2 (ptr, *pitch * height);
}

FAKECUDA_DRIVER CUresult
cuMemFree_v2 (CUdeviceptr ptr)
{
  return driver_call ([&] { return cudaFree (reinterpret_cast<void *> (ptr)); });
}

FAKECUDA_DRIVER CUresult
cuMemAllocHost_v2 (void ** ptr, std::size_t bytes)
{
  return driver_call ([&] { return cudaMallocHost (ptr, bytes); });
}

FAKECUDA_DRIVER CUresult
cuMemFreeHost (void * ptr)
{
  return driver_call ([&] { return cudaFreeHost (ptr); });
}

FAKECUDA_DRIVER CUresult
cuMemcpy2D_v2 (const Memcpy2D * p)
{
  return driver_call ([&] { return copy_2d ("cuMemcpy2D", p, cudaStreamLegacy, true); });
}

FAKECUDA_DRIVER CUresult
cuMemcpy2DAsync_v2 (const Memcpy2D * p, cudaStream_t stream)
{
  return driver_call ([&] { return copy_2d ("cuMemcpy2DAsync", p, stream, false); });
}

FAKECUDA_DRIVER CUresult
cuMemcpyHtoD_v2 (CUdeviceptr dst, const void * src, std::size_t bytes)
{
  return copy_linear ("cuMemcpyHtoD", dst, src, bytes, cudaStreamLegacy, true);
}

FAKECUDA_DRIVER CUresult
cuMemcpyHtoDAsync_v2 (
    CUdeviceptr dst, const void * src, std::size_t bytes, cudaStream_t stream)
{
  return copy_linear ("cuMemcpyHtoDAsync", dst, src, bytes, stream, false);
}

FAKECUDA_DRIVER CUresult
cuMemcpyDtoH_v2 (void * dst, CUdeviceptr src, std::size_t bytes)
{
  return copy_linear ("cuMemcpyDtoH", reinterpret_cast<CUdeviceptr> (dst),
      reinterpret_cast<const void *> (src), bytes, cudaStreamLegacy, true);
}

FAKECUDA_DRIVER CUresult
cuMemcpyDtoHAsync_v2 (void * dst, CUdeviceptr src, std::size_t bytes, cudaStream_t stream)
{
  return copy_linear ("cuMemcpyDtoHAsync", reinterpret_cast<CUdeviceptr> (dst),
      reinterpret_cast<const void *> (src), bytes, stream, false);
}

FAKECUDA_DRIVER CUresult
cuMemcpyDtoD_v2 (CUdeviceptr dst, CUdeviceptr src, std::size_t bytes)
{
  return copy_linear ("cuMemcpyDtoD", dst, reinterpret_cast<const void *> (src), bytes,
      cudaStreamLegacy, true);
}

FAKECUDA_DRIVER CUresult
cuMemcpyDtoDAsync_v2 (
    CUdeviceptr dst, CUdeviceptr src, std::size_t bytes, cudaStream_t stream)
{
  return copy_linear ("cuMemcpyDtoDAsync", dst, reinterpret_cast<const void *> (src),
      bytes, stream, false);
}

/* ---- streams and events: the runtime's, whose handles they are ---- */

FAKECUDA_DRIVER CUresult
cuStreamCreate (cudaStream_t * stream, unsigned int flags)
{
  return driver_call ([&] { return cudaStreamCreateWithFlags (stream, flags); });
}

FAKECUDA_DRIVER CUresult
cuStreamDestroy_v2 (cudaStream_t stream)
{
  return driver_call ([&] { return cudaStreamDestroy (stream); });
}

FAKECUDA_DRIVER CUresult
cuStreamDestroy (cudaStream_t stream)
{
  return cuStreamDestroy_v2 (stream);
}

FAKECUDA_DRIVER CUresult
cuStreamSynchronize (cudaStream_t stream)
{
  return driver_call ([&] { return cudaStreamSynchronize (stream); });
}

FAKECUDA_DRIVER CUresult
cuStreamWaitEvent (cudaStream_t stream, cudaEvent_t event, unsigned int flags)
{
  return driver_call ([&] { return cudaStreamWaitEvent (stream, event, flags); });
}

FAKECUDA_DRIVER CUresult
cuEventCreate (cudaEvent_t * event, unsigned int flags)
{
  return driver_call ([&] { return cudaEventCreateWithFlags (event, flags); });
}

FAKECUDA_DRIVER CUresult
cuEventDestroy_v2 (cudaEvent_t event)
{
  return driver_call ([&] { return cudaEventDestroy (event); });
}

FAKECUDA_DRIVER CUresult
cuEventRecord (cudaEvent_t event, cudaStream_t stream)
{
  return driver_call ([&] { return cudaEventRecord (event, stream); });
}

FAKECUDA_DRIVER CUresult
cuEventSynchronize (cudaEvent_t event)
{
  return driver_call ([&] { return cudaEventSynchronize (event); });
}

FAKECUDA_DRIVER CUresult
cuEventQuery (cudaEvent_t event)
{
  return driver_call ([&] { return cudaEventQuery (event); });
}

/* ---- errors ---- */

FAKECUDA_DRIVER CUresult
cuGetErrorName (CUresult err, const char ** name)
{
  if (!name)
    return kInvalidValue;
  *name = err == 2 ? "CUDA_ERROR_OUT_OF_MEMORY"
                   : cudaGetErrorName ((cudaError_t)err); /* the same numbers */
  return kSuccess;
}

FAKECUDA_DRIVER CUresult
cuGetErrorString (CUresult err, const char ** text)
{
  if (!text)
    return kInvalidValue;
  *text = cudaGetErrorString ((cudaError_t)err);
  return kSuccess;
}

/* ---- what the stand-in does not do ---- */

/* Kernels (nvcodec's converters compile theirs at run time), textures,
 * OpenGL, IPC, virtual memory, memory pools, external memory and
 * semaphores, memsets. */
#define FAKECUDA_NOT_SUPPORTED(name) \
  FAKECUDA_DRIVER CUresult name (void) \
  { \
    return kNotSupported; \
  }
FAKECUDA_NOT_SUPPORTED (cuLaunchKernel)
FAKECUDA_NOT_SUPPORTED (cuModuleLoadData)
FAKECUDA_NOT_SUPPORTED (cuModuleGetFunction)
FAKECUDA_NOT_SUPPORTED (cuModuleUnload)
FAKECUDA_NOT_SUPPORTED (cuTexObjectCreate)
FAKECUDA_NOT_SUPPORTED (cuTexObjectDestroy)
FAKECUDA_NOT_SUPPORTED (cuGLGetDevices_v2)
FAKECUDA_NOT_SUPPORTED (cuGraphicsGLRegisterBuffer)
FAKECUDA_NOT_SUPPORTED (cuGraphicsGLRegisterImage)
FAKECUDA_NOT_SUPPORTED (cuGraphicsMapResources)
FAKECUDA_NOT_SUPPORTED (cuGraphicsResourceGetMappedPointer_v2)
FAKECUDA_NOT_SUPPORTED (cuGraphicsResourceSetMapFlags_v2)
FAKECUDA_NOT_SUPPORTED (cuGraphicsSubResourceGetMappedArray)
FAKECUDA_NOT_SUPPORTED (cuGraphicsUnmapResources)
FAKECUDA_NOT_SUPPORTED (cuGraphicsUnregisterResource)
FAKECUDA_NOT_SUPPORTED (cuIpcCloseMemHandle)
FAKECUDA_NOT_SUPPORTED (cuIpcGetEventHandle)
FAKECUDA_NOT_SUPPORTED (cuIpcGetMemHandle)
FAKECUDA_NOT_SUPPORTED (cuIpcOpenEventHandle)
FAKECUDA_NOT_SUPPORTED (cuIpcOpenMemHandle)
FAKECUDA_NOT_SUPPORTED (cuMemAddressFree)
FAKECUDA_NOT_SUPPORTED (cuMemAddressReserve)
FAKECUDA_NOT_SUPPORTED (cuMemCreate)
FAKECUDA_NOT_SUPPORTED (cuMemExportToShareableHandle)
FAKECUDA_NOT_SUPPORTED (cuMemGetAccess)
FAKECUDA_NOT_SUPPORTED (cuMemGetAllocationGranularity)
FAKECUDA_NOT_SUPPORTED (cuMemGetAllocationPropertiesFromHandle)
FAKECUDA_NOT_SUPPORTED (cuMemImportFromShareableHandle)
FAKECUDA_NOT_SUPPORTED (cuMemMap)
FAKECUDA_NOT_SUPPORTED (cuMemRelease)
FAKECUDA_NOT_SUPPORTED (cuMemRetainAllocationHandle)
FAKECUDA_NOT_SUPPORTED (cuMemSetAccess)
FAKECUDA_NOT_SUPPORTED (cuMemUnmap)
FAKECUDA_NOT_SUPPORTED (cuMemAllocAsync)
FAKECUDA_NOT_SUPPORTED (cuMemAllocFromPoolAsync)
FAKECUDA_NOT_SUPPORTED (cuMemFreeAsync)
FAKECUDA_NOT_SUPPORTED (cuMemPoolCreate)
FAKECUDA_NOT_SUPPORTED (cuMemPoolDestroy)
FAKECUDA_NOT_SUPPORTED (cuMemPoolGetAttribute)
FAKECUDA_NOT_SUPPORTED (cuMemPoolSetAttribute)
FAKECUDA_NOT_SUPPORTED (cuMemsetD2D8_v2)
FAKECUDA_NOT_SUPPORTED (cuMemsetD2D8Async)
FAKECUDA_NOT_SUPPORTED (cuMemsetD2D16_v2)
FAKECUDA_NOT_SUPPORTED (cuMemsetD2D16Async)
FAKECUDA_NOT_SUPPORTED (cuMemsetD2D32_v2)
FAKECUDA_NOT_SUPPORTED (cuMemsetD2D32Async)
FAKECUDA_NOT_SUPPORTED (cuImportExternalMemory)
FAKECUDA_NOT_SUPPORTED (cuDestroyExternalMemory)
FAKECUDA_NOT_SUPPORTED (cuExternalMemoryGetMappedBuffer)
FAKECUDA_NOT_SUPPORTED (cuExternalMemoryGetMappedMipmappedArray)
FAKECUDA_NOT_SUPPORTED (cuImportExternalSemaphore)
FAKECUDA_NOT_SUPPORTED (cuDestroyExternalSemaphore)
FAKECUDA_NOT_SUPPORTED (cuSignalExternalSemaphoresAsync)
FAKECUDA_NOT_SUPPORTED (cuWaitExternalSemaphoresAsync)

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* libfakecudart: devices (FAKECUDA_DEVICES of them, default 1), the
 * calling thread's current device, peer access, properties and versions. */
#include "fakecudart.hpp"

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace fakecuda {
namespace {

/* What the fake devices say they are: Hopper-like figures, so code that
 * sizes things from them gets plausible numbers; the memory is the
 * stand-in's capacity. */
struct Figure {
  cudaDeviceAttr attr;
  int value;
};

constexpr Figure kFigures[] = {
  { cudaDevAttrMaxThreadsPerBlock, 1024 },
  { cudaDevAttrMaxBlockDimX, 1024 },
  { cudaDevAttrMaxBlockDimY, 1024 },
  { cudaDevAttrMaxBlockDimZ, 64 },
  { cudaDevAttrMaxGridDimX, 2147483647 },
  { cudaDevAttrMaxGridDimY, 65535 },
  { cudaDevAttrMaxGridDimZ, 65535 },
  { cudaDevAttrWarpSize, 32 },
  { cudaDevAttrMaxPitch, 2147483647 },
  { cudaDevAttrMultiProcessorCount, 132 },
  { cudaDevAttrIntegrated, 0 },
  { cudaDevAttrCanMapHostMemory, 1 },
  { cudaDevAttrConcurrentKernels, 1 },
  { cudaDevAttrAsyncEngineCount, 2 },
  { cudaDevAttrUnifiedAddressing, 1 },
  { cudaDevAttrTexturePitchAlignment, 32 },
  { cudaDevAttrComputeCapabilityMajor, 9 },
  { cudaDevAttrComputeCapabilityMinor, 0 },
  { cudaDevAttrGlobalMemoryBusWidth, 5120 },
  { cudaDevAttrL2CacheSize, 50 << 20 },
  { cudaDevAttrHostRegisterSupported, 1 },
  { cudaDevAttrHostRegisterReadOnlySupported, 1 },
  { cudaDevAttrIpcEventSupport, 1 },
};

int
figure (cudaDeviceAttr attr)
{
  for (const Figure & f : kFigures)
    if (f.attr == attr)
      return f.value;
  return 0; /* anything the stand-in does not model */
}

void
fill_properties (cudaDeviceProp * p, int device)
{
  std::memset (p, 0, sizeof *p);
  std::snprintf (p->name, sizeof p->name, "fakecuda device %d", device);
  p->uuid.bytes[0] = (char)device;
  p->totalGlobalMem = kDeviceMemoryBytes;
  p->warpSize = figure (cudaDevAttrWarpSize);
  p->maxThreadsPerBlock = figure (cudaDevAttrMaxThreadsPerBlock);
  p->maxThreadsDim[0] = figure (cudaDevAttrMaxBlockDimX);
  p->maxThreadsDim[1] = figure (cudaDevAttrMaxBlockDimY);
  p->maxThreadsDim[2] = figure (cudaDevAttrMaxBlockDimZ);
  p->maxGridSize[0] = figure (cudaDevAttrMaxGridDimX);
  p->maxGridSize[1] = figure (cudaDevAttrMaxGridDimY);
  p->maxGridSize[2] = figure (cudaDevAttrMaxGridDimZ);
  p->memPitch = (size_t)figure (cudaDevAttrMaxPitch);
  p->major = figure (cudaDevAttrComputeCapabilityMajor);
  p->minor = figure (cudaDevAttrComputeCapabilityMinor);
  p->texturePitchAlignment = (size_t)figure (cudaDevAttrTexturePitchAlignment);
  p->multiProcessorCount = figure (cudaDevAttrMultiProcessorCount);
  p->canMapHostMemory = figure (cudaDevAttrCanMapHostMemory);
  p->concurrentKernels = figure (cudaDevAttrConcurrentKernels);
  p->pciBusID = device + 1;
  p->asyncEngineCount = figure (cudaDevAttrAsyncEngineCount);
  p->unifiedAddressing = figure (cudaDevAttrUnifiedAddressing);
  p->memoryBusWidth = figure (cudaDevAttrGlobalMemoryBusWidth);
  p->l2CacheSize = figure (cudaDevAttrL2CacheSize);
  p->streamPrioritiesSupported = 1;
  p->hostRegisterSupported = 1;
}

} // namespace

int
device_attribute (int attr, int device)
{
  /* FAKECUDA_NO_IPC=1: a device without CUDA IPC (Jetson, other Tegra). */
  if (attr == cudaDevAttrIpcEventSupport) {
    const char * no = std::getenv ("FAKECUDA_NO_IPC");
    if (no && *no && *no != '0')
      return 0;
  }
  /* FAKECUDA_MPS=1: contexts on the device are shared through MPS. */
  if (attr == cudaDevAttrMpsEnabled) {
    const char * mps = std::getenv ("FAKECUDA_MPS");
    return mps && *mps && *mps != '0';
  }
  return attr == cudaDevAttrPciBusId ? device + 1 : figure ((cudaDeviceAttr)attr);
}

} // namespace fakecuda

using namespace fakecuda;

/* A count needs no device context, so it keeps working after a kernel
 * fault, as on a GPU; so do the version queries. */
cudaError_t
cudaGetDeviceCount (int * count)
{
  std::lock_guard<std::recursive_mutex> guard (state ().mutex);
  if (!count)
    return record_error (cudaErrorInvalidValue);
  *count = state ().n_devices;
  return *count > 0 ? cudaSuccess : record_error (cudaErrorNoDevice);
}

cudaError_t
cudaRuntimeGetVersion (int * runtimeVersion)
{
  if (!runtimeVersion)
    return record_error (cudaErrorInvalidValue);
  *runtimeVersion = CUDART_VERSION;
  return cudaSuccess;
}

cudaError_t
cudaDriverGetVersion (int * driverVersion)
{
  if (!driverVersion)
    return record_error (cudaErrorInvalidValue);
  *driverVersion = CUDART_VERSION;
  return cudaSuccess;
}

cudaError_t
cudaSetDevice (int device)
{
  return call ([&] {
    if (!valid_device (device))
      return cudaErrorInvalidDevice;
    set_current_device (device);
    return cudaSuccess;
  });
}

cudaError_t
cudaGetDevice (int * device)
{
  return call ([&] {
    if (!device)
      return cudaErrorInvalidValue;
    *device = current_device ();
    return cudaSuccess;
  });
}

cudaError_t
cudaDeviceCanAccessPeer (int * canAccessPeer, int device, int peerDevice)
{
  return call ([&] {
    if (!canAccessPeer)
      return cudaErrorInvalidValue;
    if (!valid_device (device) || !valid_device (peerDevice))
      return cudaErrorInvalidDevice;
    *canAccessPeer = device != peerDevice; /* CUDA says 0 for itself */
    return cudaSuccess;
  });
}

/* Lets kernels of the current device touch `peerDevice`'s memory (copies
 * between devices need no such thing). */
cudaError_t
cudaDeviceEnablePeerAccess (int peerDevice, unsigned int flags)
{
  return call ([&] {
    const int device = current_device ();
    if (!valid_device (device) || !valid_device (peerDevice) || peerDevice == device)
      return cudaErrorInvalidDevice;
    if (flags != 0)
      return cudaErrorInvalidValue;
    auto && enabled = state ().peer[device][peerDevice];
    if (enabled)
      return cudaErrorPeerAccessAlreadyEnabled;
    enabled = true;
    return cudaSuccess;
  });
}

cudaError_t
cudaDeviceDisablePeerAccess (int peerDevice)
{
  return call ([&] {
    const int device = current_device ();
    if (!valid_device (device) || !valid_device (peerDevice) || peerDevice == device)
      return cudaErrorInvalidDevice;
    auto && enabled = state ().peer[device][peerDevice];
    if (!enabled)
      return cudaErrorPeerAccessNotEnabled;
    enabled = false;
    return cudaSuccess;
  });
}

cudaError_t
cudaDeviceGetAttribute (int * value, enum cudaDeviceAttr attr, int device)
{
  return call ([&] {
    if (!value)
      return cudaErrorInvalidValue;
    if (!valid_device (device))
      return cudaErrorInvalidDevice;
    *value = device_attribute (attr, device);
    return cudaSuccess;
  });
}

cudaError_t
cudaGetDeviceProperties (struct cudaDeviceProp * prop, int device)
{
  return call ([&] {
    if (!prop)
      return cudaErrorInvalidValue;
    if (!valid_device (device))
      return cudaErrorInvalidDevice;
    fill_properties (prop, device);
    return cudaSuccess;
  });
}

/* The stand-in's driver (fakecudart_driver.cpp), whose primary contexts
 * nvcodec's context sharing asks for. */
extern "C" int cuInit (unsigned int flags);
extern "C" int cuDevicePrimaryCtxRetain (Context ** ctx, int device);
extern "C" int cuDeviceGet (int * device, int ordinal);
extern "C" int cuDeviceGetAttribute (int * value, int attrib, int device);

namespace {

/* Whether the process' libcuda.so.1 is the stand-in (the tests of nvcodec's
 * memory put it first on the library path). On a machine with a GPU and
 * without that, GStreamer's CUDA library loads the real driver, which knows
 * nothing of the stand-in's contexts: its primary contexts are not handed
 * out then, and nvcodec's context sharing finds none, as without a driver. */
bool
driver_is_stand_in ()
{
  void * lib = dlopen ("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
  if (!lib)
    return false;
  const bool ours = dlsym (lib, "cuInit") == reinterpret_cast<void *> (&cuInit);
  dlclose (lib);
  return ours;
}

} // namespace

/* The driver's entry points the project asks the runtime for: the stream
 * wait on host memory that the staged upload and the tracer's gate use
 * (and the device attribute that says whether it may), and the primary
 * context that nvcodec's context sharing wraps. */
cudaError_t
cudaGetDriverEntryPointByVersion (const char * symbol, void ** funcPtr, unsigned int,
    unsigned long long, enum cudaDriverEntryPointQueryResult * driverStatus)
{
  void * fn = nullptr;
  if (symbol && std::strcmp (symbol, "cuStreamWaitValue32") == 0)
    fn = stream_wait_value32_entry ();
  else if (symbol && std::strcmp (symbol, "cuDeviceGet") == 0)
    fn = reinterpret_cast<void *> (&cuDeviceGet);
  else if (symbol && std::strcmp (symbol, "cuDeviceGetAttribute") == 0)
    fn = reinterpret_cast<void *> (&cuDeviceGetAttribute);
  else if (symbol && std::strcmp (symbol, "cuDevicePrimaryCtxRetain") == 0 &&
           driver_is_stand_in ())
    fn = reinterpret_cast<void *> (&cuDevicePrimaryCtxRetain);
  if (funcPtr)
    *funcPtr = fn;
  if (driverStatus)
    *driverStatus = fn ? cudaDriverEntryPointSuccess : cudaDriverEntryPointSymbolNotFound;
  return fn ? cudaSuccess : cudaErrorNotSupported;
}

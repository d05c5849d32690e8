/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* libfakecudart: error names and strings, as CUDA 13.0's libcudart gives
 * them, for every code the stand-in returns (and a few neighbours). */
#include "fakecudart.hpp"

namespace {

struct ErrorText {
  cudaError_t code;
  const char * name;
  const char * text;
};

#define ERROR_TEXT(code, text) \
  { \
    code, #code, text \
  }

const ErrorText kErrors[] = {
  ERROR_TEXT (cudaSuccess, "no error"),
  ERROR_TEXT (cudaErrorInvalidValue, "invalid argument"),
  ERROR_TEXT (cudaErrorMemoryAllocation, "out of memory"),
  ERROR_TEXT (cudaErrorInitializationError, "initialization error"),
  ERROR_TEXT (cudaErrorCudartUnloading, "driver shutting down"),
  ERROR_TEXT (cudaErrorInvalidConfiguration, "invalid configuration argument"),
  ERROR_TEXT (cudaErrorInvalidPitchValue, "invalid pitch argument"),
  ERROR_TEXT (cudaErrorInvalidSymbol, "invalid device symbol"),
  ERROR_TEXT (cudaErrorInvalidDevicePointer, "invalid device pointer"),
  ERROR_TEXT (cudaErrorInvalidMemcpyDirection, "invalid copy direction for memcpy"),
  ERROR_TEXT (cudaErrorInsufficientDriver,
      "CUDA driver version is insufficient for CUDA runtime version"),
  ERROR_TEXT (cudaErrorNoDevice, "no CUDA-capable device is detected"),
  ERROR_TEXT (cudaErrorInvalidDevice, "invalid device ordinal"),
  ERROR_TEXT (cudaErrorInvalidResourceHandle, "invalid resource handle"),
  ERROR_TEXT (cudaErrorNotReady, "device not ready"),
  ERROR_TEXT (cudaErrorIllegalAddress, "an illegal memory access was encountered"),
  ERROR_TEXT (cudaErrorMapBufferObjectFailed, "mapping of buffer object failed"),
  ERROR_TEXT (cudaErrorPeerAccessAlreadyEnabled, "peer access is already enabled"),
  ERROR_TEXT (cudaErrorPeerAccessNotEnabled, "peer access has not been enabled"),
  ERROR_TEXT (cudaErrorContextIsDestroyed, "context is destroyed"),
  ERROR_TEXT (cudaErrorHostMemoryAlreadyRegistered,
      "part or all of the requested memory range is already mapped"),
  ERROR_TEXT (cudaErrorHostMemoryNotRegistered,
      "pointer does not correspond to a registered memory region"),
  ERROR_TEXT (cudaErrorPeerAccessUnsupported,
      "peer access is not supported between these two devices"),
  ERROR_TEXT (cudaErrorLaunchFailure, "unspecified launch failure"),
  ERROR_TEXT (cudaErrorNotSupported, "operation not supported"),
  ERROR_TEXT (cudaErrorUnknown, "unknown error"),
};

#undef ERROR_TEXT

/* CUDA's answer, for names and strings alike, to a code it does not know. */
constexpr const char * kUnrecognised = "unrecognized error code";

const ErrorText *
find (cudaError_t code)
{
  for (const ErrorText & e : kErrors)
    if (e.code == code)
      return &e;
  return nullptr;
}

} // namespace

const char *
cudaGetErrorName (cudaError_t error)
{
  const ErrorText * e = find (error);
  return e ? e->name : kUnrecognised;
}

const char *
cudaGetErrorString (cudaError_t error)
{
  const ErrorText * e = find (error);
  return e ? e->text : kUnrecognised;
}

/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "ipc/gstcsipcdevice.hpp"

#include <cuda_runtime_api.h>

namespace gst_cs {
namespace ipc {

static int
attribute (cudaDeviceAttr attr, int device)
{
  int v = 0;
  if (cudaDeviceGetAttribute (&v, attr, device) != cudaSuccess) {
    (void)cudaGetLastError ();
    v = 0;
  }
  return v;
}

bool
check_device (GstElement * element, GstDebugCategory * category, int device)
{
  // CUDA IPC is Linux on devices with unified addressing; Jetson and other
  // Tegra devices have none (cudaDevAttrIpcEventSupport says so).
  if (!attribute (cudaDevAttrIpcEventSupport, device)) {
    GST_ELEMENT_ERROR (element, RESOURCE, SETTINGS,
        ("CUDA device %d cannot share memory and events with other processes (CUDA IPC "
         "is not available on Jetson and other Tegra devices)",
            device),
        (NULL));
    return false;
  }
  if (attribute (cudaDevAttrMpsEnabled, device))
    GST_CAT_INFO_OBJECT (category, element,
        "CUDA device %d is shared through MPS: the processes' GPU work runs side by side",
        device);
  else
    GST_CAT_INFO_OBJECT (category, element,
        "CUDA device %d is not shared through MPS: the GPU switches between the "
        "processes' contexts, which bounds frames across processes (start "
        "nvidia-cuda-mps-control -d; docs/ipc.md)",
        device);
  return true;
}

} // namespace ipc
} // namespace gst_cs

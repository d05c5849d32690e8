/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "gstcsdevice-private.h"

#include <cuda_runtime_api.h>

#include "gstcserror-private.h"

/**
 * gst_cs_device_resolve:
 * @requested: a device ordinal, or -1 for the default device (0)
 * @device_id: (out): the device to use
 * @error: (out) (optional): why no device can be used
 *
 * Checks that a CUDA device exists and can be used: no driver, no device and
 * an ordinal past the last device each give a #GST_CS_ERROR_NO_DEVICE error
 * with a message a person can act on. The calling thread's current device
 * does not change.
 *
 * Returns: %TRUE when @device_id is usable
 */
gboolean
gst_cs_device_resolve (gint requested, gint * device_id, GError ** error)
{
  g_return_val_if_fail (device_id != NULL, FALSE);
  int count = 0;
  cudaError_t err = cudaGetDeviceCount (&count);
  if (err != cudaSuccess || count == 0) {
    g_set_error (error, GST_CS_ERROR, GST_CS_ERROR_NO_DEVICE,
        "No CUDA device available: %s",
        err != cudaSuccess ? cudaGetErrorString (err)
                           : "the driver reports zero devices");
    (void)cudaGetLastError ();
    return FALSE;
  }
  if (requested < -1 || requested >= count) {
    g_set_error (error, GST_CS_ERROR, GST_CS_ERROR_NO_DEVICE,
        "CUDA device %d does not exist: this machine has %d device(s), numbered 0 to %d",
        requested, count, count - 1);
    return FALSE;
  }
  *device_id = requested < 0 ? 0 : requested;
  return TRUE;
}

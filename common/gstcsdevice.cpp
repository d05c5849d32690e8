#include "gstcsdevice.h"

#include "gstcserror.h"

gboolean
gst_cs_device_resolve (gint requested, gint * device_id, GError ** error)
{
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
        "CUDA device %d does not exist: this machine has %d device(s), "
        "numbered 0 to %d",
        requested, count, count - 1);
    return FALSE;
  }
  *device_id = requested < 0 ? 0 : requested;
  return TRUE;
}

gboolean
gst_cs_device_make_current (gint device_id, GError ** error)
{
  return GST_CS_CHECK (cudaSetDevice (device_id), error);
}

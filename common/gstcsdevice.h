/* CUDA device selection. */
#pragma once

#include <gst/gst.h>
#include <cuda_runtime_api.h>

#include "gstcsapi.h"

G_BEGIN_DECLS

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
 * Returns: %TRUE when @device_id is usable.
 *
 * Since: 0.1
 */
GST_CS_API gboolean gst_cs_device_resolve      (gint      requested,
                                                gint    * device_id,
                                                GError ** error);

/**
 * gst_cs_device_make_current:
 * @device_id: a device ordinal
 * @error: (out) (optional): the CUDA error
 *
 * Makes @device_id current on the calling thread (cudaSetDevice). Every
 * streaming thread calls this before its CUDA work, because a thread may serve
 * elements on several devices.
 *
 * Since: 0.1
 */
GST_CS_API gboolean gst_cs_device_make_current (gint      device_id,
                                                GError ** error);

G_END_DECLS

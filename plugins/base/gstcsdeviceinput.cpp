/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "base/gstcsdeviceinput.hpp"

#include "gstcsdeviceguard.hpp"
#include "gstcserror-private.h"
#include "nvcodec/gstcsnvcodec.hpp"
#include "base/gstcspeerimport.hpp"

namespace gst_cs {

GstBuffer *
DeviceInput::prepare (GstBuffer * inbuf)
{
  const gint device = gst_cs_base_transform_get_device (owner_);
  if (!on_other_device (inbuf, device))
    return inbuf;
  GError * err = NULL;
  DeviceGuard guard (device, &err);
  if (!guard.ok () ||
      !import_from_other_device (inbuf, device, gst_cs_base_transform_get_stream (owner_),
          imports_, gst_cs_base_transform_get_waits (owner_), &imported_, &err)) {
    GST_CS_POST_ERROR (owner_, err, "Cannot copy a frame from another CUDA device");
    return NULL;
  }
  return imported_;
}

bool
DeviceInput::finish (GstBuffer * inbuf, GstBuffer * outbuf, bool read)
{
  bool ok = true;
  if (read && is_nvcodec_memory (gst_buffer_peek_memory (inbuf, 0))) {
    GError * err = NULL;
    ok = held_.hold (inbuf, gst_cs_base_transform_get_device (owner_),
        gst_cs_base_transform_get_stream (owner_),
        gst_cs_base_transform_get_waits (owner_), &err);
    if (!ok)
      GST_CS_POST_ERROR (owner_, err, "Cannot keep an nvcodec frame while it is read");
  }
  /* A copy from another device is ours to release, unless it went on as the
   * output itself. */
  if (imported_ && imported_ != outbuf)
    gst_buffer_unref (imported_);
  imported_ = NULL;
  return ok;
}

void
DeviceInput::release_held ()
{
  held_.drain_on (gst_cs_base_transform_get_device (owner_),
      gst_cs_base_transform_get_waits (owner_), GST_OBJECT (owner_));
}

void
DeviceInput::reset ()
{
  gst_clear_buffer (&imported_);
  imports_.reset ();
  release_held ();
}

} // namespace gst_cs

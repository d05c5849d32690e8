/* SPDX-License-Identifier: LGPL-2.1-or-later */
// Using a device for a while without changing the caller's (internal,
// header-only).
#pragma once

#include <glib.h>
#include <cuda_runtime_api.h>

#include "gstcserror-private.h"

namespace gst_cs {

// Makes `device` current on the calling thread and gives the thread its own
// device back when it goes. The library runs on application threads too (state
// changes, pool teardown, buffers pushed from the application), whose current
// device belongs to the application.
class DeviceGuard {
public:
  DeviceGuard (int device, GError ** error)
  {
    if (cudaGetDevice (&previous_) != cudaSuccess) {
      (void)cudaGetLastError ();
      previous_ = -1;
    }
    if (previous_ == device) {
      ok_ = true;
      return;
    }
    ok_ = GST_CS_CHECK (cudaSetDevice (device), error);
    changed_ = ok_;
  }
  ~DeviceGuard ()
  {
    if (changed_ && previous_ >= 0)
      (void)cudaSetDevice (previous_);
  }
  DeviceGuard (const DeviceGuard &) = delete;
  DeviceGuard & operator= (const DeviceGuard &) = delete;

  bool ok () const { return ok_; }

private:
  int previous_ = -1;
  bool ok_ = false;
  bool changed_ = false;
};

} // namespace gst_cs

/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "ipc/gstcsipcevents.hpp"

#include "gstcsdeviceguard.hpp"
#include "gstcserror-private.h"

namespace gst_cs {
namespace ipc {

OwnEvents::~OwnEvents ()
{
  DeviceGuard guard (device_, nullptr);
  for (cudaEvent_t e : events_)
    (void)cudaEventDestroy (e);
  (void)cudaGetLastError ();
}

bool
OwnEvents::add (GError ** error)
{
  DeviceGuard guard (device_, error);
  if (!guard.ok ())
    return false;
  cudaEvent_t e = nullptr;
  cudaIpcEventHandle_t h;
  if (!GST_CS_CHECK (
          cudaEventCreateWithFlags (&e, cudaEventDisableTiming | cudaEventInterprocess),
          error))
    return false;
  if (!GST_CS_CHECK (cudaIpcGetEventHandle (&h, e), error)) {
    (void)cudaEventDestroy (e);
    return false;
  }
  events_.push_back (e);
  handles_.push_back (h);
  return true;
}

PeerEvents::~PeerEvents ()
{
  DeviceGuard guard (device_, nullptr);
  for (auto & [slot, e] : events_)
    (void)cudaEventDestroy (e);
  (void)cudaGetLastError ();
}

bool
PeerEvents::open (guint32 slot, const cudaIpcEventHandle_t & handle, GError ** error)
{
  DeviceGuard guard (device_, error);
  if (!guard.ok ())
    return false;
  cudaEvent_t e = nullptr;
  if (!GST_CS_CHECK (cudaIpcOpenEventHandle (&e, handle), error))
    return false;
  auto it = events_.find (slot);
  if (it != events_.end ())
    (void)cudaEventDestroy (it->second);
  events_[slot] = e;
  return true;
}

cudaEvent_t
PeerEvents::find (guint32 slot) const
{
  auto it = events_.find (slot);
  return it == events_.end () ? nullptr : it->second;
}

} // namespace ipc
} // namespace gst_cs

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

bool
OwnEvents::take (guint32 * slot, GError ** error, bool * is_new)
{
  if (is_new)
    *is_new = false;
  if (free_.empty ()) {
    for (auto it = settling_.begin (); it != settling_.end ();) {
      if (cudaEventQuery (events_[*it]) == cudaSuccess) {
        free_.push_back (*it);
        it = settling_.erase (it);
      } else {
        (void)cudaGetLastError ();
        if (in_order_)
          break;
        ++it;
      }
    }
  }
  if (!free_.empty ()) {
    *slot = free_.back ();
    free_.pop_back ();
    return true;
  }
  if (limit_ && size () >= limit_ && !settling_.empty ()) {
    *slot = settling_.front ();
    settling_.pop_front ();
    return true;
  }
  if (!add (error))
    return false;
  *slot = size () - 1;
  if (is_new)
    *is_new = true;
  return true;
}

void
OwnEvents::put_back (guint32 slot)
{
  if (cudaEventQuery (events_[slot]) == cudaSuccess) {
    free_.push_back (slot);
  } else {
    (void)cudaGetLastError ();
    settling_.push_back (slot);
  }
}

PeerEvents::~PeerEvents ()
{
  DeviceGuard guard (device_, nullptr);
  for (cudaEvent_t e : events_)
    if (e)
      (void)cudaEventDestroy (e);
  (void)cudaGetLastError ();
}

bool
PeerEvents::open (guint32 slot, const cudaIpcEventHandle_t & handle, GError ** error)
{
  if (slot >= kMaxEventSlots) {
    g_set_error (error, GST_CS_ERROR, GST_CS_ERROR_INVALID,
        "event slot %u is out of range (at most %u slots)", slot, kMaxEventSlots);
    return false;
  }
  DeviceGuard guard (device_, error);
  if (!guard.ok ())
    return false;
  cudaEvent_t e = nullptr;
  if (!GST_CS_CHECK (cudaIpcOpenEventHandle (&e, handle), error))
    return false;
  if (events_.size () <= slot)
    events_.resize (slot + 1, nullptr);
  if (events_[slot])
    (void)cudaEventDestroy (events_[slot]);
  events_[slot] = e;
  return true;
}

} // namespace ipc
} // namespace gst_cs

/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "batch/gstcsbatchheld.hpp"

#include "gstcsdeviceguard.hpp"

namespace gst_cs {

bool
BatchHeld::hold (guint pad, GstBuffer * frame, int device, cudaStream_t stream,
    GstCsWaitCounter * waits, GError ** error)
{
  std::lock_guard<std::mutex> locked (lock_);
  std::unique_ptr<HeldBuffers> & list = pads_[pad];
  if (!list)
    list = std::make_unique<HeldBuffers> (kPerPad);
  return list->hold (frame, device, stream, waits, error);
}

void
BatchHeld::release_done (int device)
{
  std::lock_guard<std::mutex> locked (lock_);
  if (device < 0 || pads_.empty ())
    return;
  GError * err = nullptr;
  DeviceGuard guard (device, &err);
  if (!guard.ok ()) {
    g_clear_error (&err);
    return; /* the next pass, or the drain at the end, lets them go */
  }
  for (auto & p : pads_)
    p.second->release_done ();
}

void
BatchHeld::drain_pad (guint pad, int device, GstCsWaitCounter * waits, GstObject * owner)
{
  std::lock_guard<std::mutex> locked (lock_);
  auto it = pads_.find (pad);
  if (it != pads_.end ())
    it->second->drain_on (device, waits, owner);
}

void
BatchHeld::drain (int device, GstCsWaitCounter * waits, GstObject * owner)
{
  std::lock_guard<std::mutex> locked (lock_);
  for (auto & p : pads_)
    p.second->drain_on (device, waits, owner);
}

guint
BatchHeld::size ()
{
  std::lock_guard<std::mutex> locked (lock_);
  guint n = 0;
  for (auto & p : pads_)
    n += p.second->size ();
  return n;
}

} // namespace gst_cs

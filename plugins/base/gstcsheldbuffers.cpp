/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "base/gstcsheldbuffers.hpp"

#include "gstcsdeviceguard.hpp"
#include "gstcserror-private.h"
#include "gstcshostwait-private.h"

namespace gst_cs {

HeldBuffers::~HeldBuffers ()
{
  /* Only reached after drain() (stop) or with nothing enqueued: an event
   * still pending here would release memory the GPU reads, so wait. */
  (void)drain (nullptr, nullptr);
  for (const Slot & s : spare_)
    (void)cudaEventDestroy (s.event); /* any device may be current */
}

bool
HeldBuffers::take_event (int device, Slot * slot, GError ** error)
{
  for (auto it = spare_.begin (); it != spare_.end (); ++it) {
    if (it->device == device) {
      *slot = *it;
      spare_.erase (it);
      return true;
    }
  }
  /* One per slot and device, at most capacity() + 1 per device in the
   * element's life. An event belongs to the device current when it is
   * made. */
  slot->device = device;
  return GST_CS_CHECK (
      cudaEventCreateWithFlags (&slot->event, cudaEventDisableTiming), error);
}

void
HeldBuffers::release_front ()
{
  Held h = held_.front ();
  held_.pop_front ();
  gst_buffer_unref (h.buffer);
  spare_.push_back (h.slot);
}

bool
HeldBuffers::hold (GstBuffer * buffer, int device, cudaStream_t stream,
    GstCsWaitCounter * waits, GError ** error)
{
  release_done ();
  DeviceGuard guard (device, error);
  Slot slot;
  if (!guard.ok () || !take_event (device, &slot, error))
    return false;
  if (!GST_CS_CHECK (cudaEventRecord (slot.event, stream), error)) {
    spare_.push_back (slot);
    return false;
  }
  held_.push_back ({ gst_buffer_ref (buffer), slot });
  while (held_.size () > capacity_) {
    /* The element keeps at most capacity() (what upstream can spare):
     * waiting here keeps it from running dry. Rare: a read is done long
     * before `capacity` frames later (but for a capacity of 0). */
    if (!gst_cs_host_wait_event (held_.front ().slot.event, waits, error))
      return false;
    release_front ();
  }
  return true;
}

void
HeldBuffers::release_done ()
{
  /* Events of one stream complete in order: stop at the first pending. */
  while (!held_.empty ()) {
    cudaError_t state = cudaEventQuery (held_.front ().slot.event);
    if (state == cudaErrorNotReady)
      return;
    (void)cudaGetLastError ();
    release_front ();
  }
}

void
HeldBuffers::drain_on (int device, GstCsWaitCounter * waits, GstObject * owner)
{
  if (held_.empty () || device < 0)
    return;
  GError * err = nullptr;
  DeviceGuard guard (device, &err);
  if (!guard.ok () || !drain (waits, &err)) {
    GST_WARNING_OBJECT (owner, "%s", err ? err->message : "cannot wait");
    g_clear_error (&err);
  }
}

bool
HeldBuffers::drain (GstCsWaitCounter * waits, GError ** error)
{
  bool ok = true;
  release_done ();
  if (!held_.empty ())
    ok = gst_cs_host_wait_event (held_.back ().slot.event, waits, error);
  while (!held_.empty ())
    release_front ();
  return ok;
}

} // namespace gst_cs

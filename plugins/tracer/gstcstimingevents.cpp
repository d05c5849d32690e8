/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "tracer/gstcstimingevents.hpp"

#include "gstcsdeviceguard.hpp"
#include "gstcserror-private.h"

namespace gst_cs {

cudaEvent_t
TimingEventPool::take (int device, GError ** error)
{
  {
    std::lock_guard<std::mutex> hold (lock_);
    if ((size_t)device < free_.size () && !free_[device].empty ()) {
      cudaEvent_t e = free_[device].back ();
      free_[device].pop_back ();
      return e;
    }
  }
  cudaEvent_t e = nullptr;
  if (!GST_CS_CHECK (cudaEventCreateWithFlags (&e, cudaEventDefault), error))
    return nullptr;
  return e;
}

void
TimingEventPool::give (int device, cudaEvent_t event)
{
  if (!event)
    return;
  std::lock_guard<std::mutex> hold (lock_);
  if ((size_t)device >= free_.size ())
    free_.resize (device + 1);
  free_[device].push_back (event);
}

void
TimingEventPool::clear ()
{
  std::lock_guard<std::mutex> hold (lock_);
  for (size_t d = 0; d < free_.size (); d++) {
    DeviceGuard guard ((int)d, NULL);
    for (cudaEvent_t e : free_[d])
      if (!guard.ok () || !GST_CS_CHECK (cudaEventDestroy (e), NULL))
        break; /* the process is going: what is left goes with it */
    free_[d].clear ();
  }
}

} // namespace gst_cs

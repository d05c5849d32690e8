/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "batch/gstcsbatchdeadline.hpp"

#include <algorithm>

namespace gst_cs {

GstClockTime
BatchDeadline::margin (GstClockTime timeout) const
{
  const GstClockTime slack = std::max<GstClockTime> (GST_MSECOND, timeout / 10);
  return std::min (longest_.load () + slack, timeout / 2);
}

void
BatchDeadline::note (GstClockTime taken)
{
  taken_[next_] = taken;
  next_ = (next_ + 1) % kBatches;
  longest_ = *std::max_element (taken_.begin (), taken_.end ());
}

void
BatchDeadline::reset ()
{
  taken_.fill (0);
  next_ = 0;
  longest_ = 0;
}

} // namespace gst_cs

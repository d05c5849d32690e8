/* SPDX-License-Identifier: LGPL-2.1-or-later */
// How early cudabatch starts a partial batch on live sources (internal).
#pragma once

#include <array>
#include <atomic>

#include <gst/gst.h>

namespace gst_cs {

// GstAggregator starts a batch that a stalled live source holds up at its
// deadline: the batch's time plus the pipeline's latency (the sources'
// plus batched-push-timeout). The batch then still has to be made and
// pushed, and the aggregator's thread to wake: a frame of a stalled
// batch would leave later than one frame interval plus the timeout after
// its capture. So the element moves the deadline earlier by a margin: the
// longest of the last batches' times from their start (a timed-out one's
// deadline) to their push, plus a tenth of the timeout (at least 1 ms)
// for what the last batches did not show, at most half the timeout.
// note() from the aggregator's thread, margin() from any.
class BatchDeadline {
public:
  // The margin for `timeout` (batched-push-timeout).
  GstClockTime margin (GstClockTime timeout) const;
  // A batch took `taken` from its start (a timed-out batch: from the
  // deadline that woke the aggregator) to its push.
  void note (GstClockTime taken);
  // At stop: forgets the batches.
  void reset ();

private:
  static constexpr size_t kBatches = 32;
  std::array<GstClockTime, kBatches> taken_{}; /* the aggregator's thread */
  size_t next_ = 0;
  std::atomic<GstClockTime> longest_{ 0 }; /* the longest in taken_ */
};

} // namespace gst_cs

/* SPDX-License-Identifier: LGPL-2.1-or-later */
// cudabatch's time (internal): a batch's PTS and the position in the
// output segment, and GAP events where no source has a frame.
#pragma once

#include <gst/base/gstaggregator.h>

namespace gst_cs {

// Running time `rt` (an input frame's) as a position in the output
// segment, where batches and gaps are stamped: the running time itself
// until a seek moves the segment.
GstClockTime batch_position_of (GstAggregator * agg, GstClockTime rt);

// A position of the output segment in running time.
GstClockTime batch_running_time_of (GstAggregator * agg, GstClockTime position);

// Where the next batch or gap begins in the output segment: the position
// reached so far, or the segment's start before the first.
GstClockTime batch_next_position (GstAggregator * agg);

// Moves the position on to `end`, never back: GstAggregator's deadline
// for live sources is the position's running time plus the latency, and a
// position that went back (a late frame's batch) would put it behind the
// clock, where every wait returns at once.
void batch_advance_position (GstAggregator * agg, GstClockTime end);

// At a flush of every pad: the position starts again from the segment.
void batch_reset_position (GstAggregator * agg);

// Pushes a GAP event for [`pts`, `pts` + `duration`) on the src pad, after
// the segment event where none went out yet (the caller negotiated the
// caps, which sent the stream-start and caps events). False where the
// event was not taken.
bool batch_push_gap (GstAggregator * agg, GstClockTime pts, GstClockTime duration);

} // namespace gst_cs

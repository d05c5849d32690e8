/* SPDX-License-Identifier: LGPL-2.1-or-later */
// The metas that travel with a frame (internal): its layout (GstVideoMeta),
// crop (GstVideoCropMeta), regions of interest (GstVideoRegionOfInterestMeta,
// without their params), cudabatch's slots (GstCsBatchMeta), in encodings
// of our own on every GStreamer version; from GStreamer 1.24 also every
// other meta GStreamer can serialise (gst_meta_serialize: custom metas,
// reference timestamps, audio metas). Our sync meta does not travel: the
// frame's event does (FRAME's slot).
#pragma once

#include <string>
#include <vector>

#include <gst/gst.h>

#include "gstcsbatchmeta.h"
#include "ipc/gstcsipcwire.hpp"

namespace gst_cs {
namespace ipc {

// A batch's slots as its sources set them: pad, source size, scale and
// offset. They change with a source's caps, not from batch to batch, so
// they travel in a SLOTS record of their own, sent to a consumer again
// only when they change; a FRAME's batch meta carries each slot's
// emptiness and PTS alone (16 slots: some 800 bytes less a record, into
// every consumer's ring).
using Slots = std::vector<GstCsBatchSlot>;

// Appends the metas of `buffer` that travel to `w`: a count, then each as
// a kind, a length and its bytes; `*batch` is its batch meta (nullptr:
// none). False when a batch has more slots than a record holds
// (kMaxSlots).
bool write_metas (Writer & w, GstBuffer * buffer, const GstCsBatchMeta ** batch);

// Whether the slots of `m` have the sources `known` has (all but each
// slot's PTS and emptiness): a field compare a batch, no record written.
bool same_sources (const GstCsBatchMeta * m, const Slots & known);

// The SLOTS record of `m`'s slots into `w` (begun and finished here).
void write_slots (Writer & w, const GstCsBatchMeta * m);

// A SLOTS record's fields into `out`; false when they are malformed.
bool read_slots (Reader & r, Slots * out);

// Adds the metas read from `r` to `buffer` (whose metadata is writable),
// a batch's with the `slots` of the last SLOTS record; false with `why`
// set when they are malformed. A meta this side does not know (a
// serialised one whose type is not registered here) is skipped.
bool read_metas (Reader & r, GstBuffer * buffer, const Slots & slots, std::string * why);

} // namespace ipc
} // namespace gst_cs

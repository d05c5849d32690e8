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

#include <gst/gst.h>

#include "ipc/gstcsipcwire.hpp"

namespace gst_cs {
namespace ipc {

// Appends the metas of `buffer` that travel to `w`: a count, then each as
// a kind, a length and its bytes. False when a batch has more slots than
// a record holds (kMaxSlots).
bool write_metas (Writer & w, GstBuffer * buffer);

// Adds the metas read from `r` to `buffer` (whose metadata is writable);
// false with `why` set when they are malformed. A meta this side does not
// know (a serialised one whose type is not registered here) is skipped.
bool read_metas (Reader & r, GstBuffer * buffer, std::string * why);

} // namespace ipc
} // namespace gst_cs

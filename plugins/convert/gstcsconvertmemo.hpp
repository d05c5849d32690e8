/* SPDX-License-Identifier: LGPL-2.1-or-later */
// cudaconvertscale's description of the last frame, resolved for the
// kernel and kept for the next (internal). A stream's frames mostly differ
// only in where their memory lies: the same caps, settings, region and
// plane layouts. Those reuse the last resolved description with its
// pointers moved (gpu::convert_scale_move) instead of describing and
// resolving it again, which cost 0.3 to 0.6 us of a frame's 7 to 10 us
// of host time where the GPU's work is small (docs/cudaconvertscale.md).
#pragma once

#include <cstddef>
#include <cstdint>

#include <gst/video/video.h>

#include "convert/gstcsconvertdesc.hpp"

namespace gst_cs {

// What a frame's description is made of, besides the caps (the memo is
// cleared when they change): the element's settings, the region of the
// input it reads, and the offsets and strides of both frames' planes.
struct ConvertKey {
  ConvertSettings settings;
  guint x = 0, y = 0, width = 0, height = 0; // the region
  const GstVideoInfo * in = nullptr;         // the input frame's layout (Region::frame)
  const GstVideoInfo * out = nullptr;        // the output's
};

class ConvertMemo {
public:
  // The resolved description of the frame whose input starts at `in` and
  // output at `out` (convert_image's bases) and whose key is `key`: the
  // last one moved where its key was the same and the move keeps its
  // alignment, else describe () (a gpu::ConvertScale with its memory)
  // resolved afresh. Null where convert_scale refuses the description.
  // The caller may point it at a table of taps (gpu::convert_scale_point_lines),
  // which the moves of the next frames keep.
  template <class Describe>
  gpu::ConvertScale * resolve (
      const ConvertKey & key, const guint8 * in, guint8 * out, Describe describe)
  {
    if (valid_ && same (key) &&
        gpu::convert_scale_move (&op_, shift (in, in_), shift (out, out_))) {
      in_ = in, out_ = out;
      moved_ = true;
      return &op_;
    }
    moved_ = false;
    valid_ = false;
    ticket_ = {};
    if (!gpu::convert_scale_resolve (describe (), &op_))
      return nullptr;
    keep (key);
    in_ = in, out_ = out;
    valid_ = true;
    return &op_;
  }

  // The next frame describes afresh (new caps).
  void clear ()
  {
    valid_ = false;
    ticket_ = {};
  }

  // The resolved description's ticket for its compiled kernel
  // (gpu::convert_scale_resolved): kept while only its moves change it,
  // reset wherever the description itself changes.
  gpu::ConvertTicket * ticket () { return &ticket_; }

  // The caller changed the description resolve () returned other than by
  // moving it (pointed it at a table of taps or off one): its ticket goes.
  void changed () { ticket_ = {}; }

  // Whether the last resolve () moved the description of the frame before
  // (its second frame or a later one) rather than describing afresh.
  bool moved () const { return moved_; }

private:
  /* Bytes from `from` to `to`: different allocations, so not a pointer
   * difference. */
  static std::ptrdiff_t shift (const guint8 * to, const guint8 * from)
  {
    return static_cast<std::ptrdiff_t> (
        reinterpret_cast<std::uintptr_t> (to) - reinterpret_cast<std::uintptr_t> (from));
  }
  bool same (const ConvertKey & key) const;
  void keep (const ConvertKey & key);

  bool valid_ = false;
  bool moved_ = false;
  gpu::ConvertScale op_; // resolved, for in_ and out_
  gpu::ConvertTicket ticket_;
  const guint8 * in_ = nullptr;
  guint8 * out_ = nullptr;
  ConvertSettings settings_;
  guint region_[4] = {};
  // [0]: the input's layout, [1]: the output's
  gint size_[2][2] = {};
  gsize offset_[2][GST_VIDEO_MAX_PLANES] = {};
  gint stride_[2][GST_VIDEO_MAX_PLANES] = {};
};

} // namespace gst_cs

/* SPDX-License-Identifier: LGPL-2.1-or-later */
// The input frames of an element whose GPU work reads device frames and
// writes others (internal): cudacrop, cudaconvertscale.
#pragma once

#include "base/gstcsbasetransform.h"
#include "base/gstcsheldbuffers.hpp"
#include "base/gstcsscratchpool.hpp"

namespace gst_cs {

// What such an element does with its input besides reading it. A frame of
// another device is copied to the element's device first (the cross-device
// policy), once per frame, and let go after the frame's work. nvcodec's
// pools know nothing of our events: a frame of theirs that our GPU work
// read is kept until that work is done, checked as frames go by (at most
// `held_nvcodec_frames`; a full list waits for its oldest). Used from the
// streaming thread; errors are posted on the element.
class DeviceInput {
public:
  DeviceInput (GstCsBaseTransform * owner, guint held_nvcodec_frames)
      : owner_ (owner), held_ (held_nvcodec_frames)
  {}
  ~DeviceInput () { gst_clear_buffer (&imported_); }
  DeviceInput (const DeviceInput &) = delete;
  DeviceInput & operator= (const DeviceInput &) = delete;

  // In prepare_output_buffer: the frame the GPU work reads, `inbuf` or its
  // copy on the element's device made now. NULL after posting an error.
  GstBuffer * prepare (GstBuffer * inbuf);
  // In transform: the frame prepare() gave for `inbuf`.
  GstBuffer * source (GstBuffer * inbuf) const { return imported_ ? imported_ : inbuf; }
  // Whether that is a copy (which read `inbuf` on the GPU).
  bool copied () const { return imported_ != nullptr; }
  // At the end of transform: keeps `inbuf` where it is nvcodec's and `read`
  // (our GPU work read it), and drops this frame's copy unless it went on as
  // `outbuf`. False after posting an error where `inbuf` cannot be kept.
  bool finish (GstBuffer * inbuf, GstBuffer * outbuf, bool read);

  // The nvcodec frames kept at most: upstream is asked for that many more.
  guint held_capacity () const { return held_.capacity (); }
  // At a flush: lets go of the kept frames once the GPU has read them (a
  // counted wait, not per frame).
  void release_held ();
  // At stop: that, and the copy and the memory of copies.
  void reset ();

private:
  GstCsBaseTransform * owner_;     /* the element: it owns this */
  HeldBuffers held_;               /* nvcodec inputs our GPU work still reads */
  ScratchPool imports_;            /* copies of frames from another device */
  GstBuffer * imported_ = nullptr; /* this frame's copy, prepare to finish */
};

} // namespace gst_cs

/* SPDX-License-Identifier: LGPL-2.1-or-later */
// The orientation a stream's image-orientation tags ask for, read as
// videoflip (1.28) reads them, for cudaconvertscale's video-direction=auto
// (internal).
#pragma once

#include <gst/video/video.h>

#include <string>

namespace gst_cs {

// The method an image-orientation tag's value names ("rotate-90",
// "flip-rotate-0", ...); false for any other value.
bool orientation_from_tag (const gchar * value, GstVideoOrientationMethod * m);

// A stream's tags, global and per stream: a stream tag's orientation wins
// over a global one; a tag list without one takes its scope's back (a
// stream list falls back to the global orientation, a global list to
// identity, unless a stream list set one); a new stream starts from
// identity. A value that names no orientation counts as none. Not locked:
// the element holds its object lock.
class OrientationTags {
public:
  // Takes note of `tags`. Returns whether the orientation asked for
  // changed; `unknown` (may be null) gets a value that named none, to be
  // freed.
  bool take (const GstTagList * tags, gchar ** unknown);

  // A STREAM_START of `stream_id`: another stream than the last starts from
  // identity. Returns whether the orientation changed.
  bool start_stream (const gchar * stream_id);

  // As when the element starts.
  void reset ();

  GstVideoOrientationMethod current () const { return current_; }

private:
  bool set (GstVideoOrientationMethod m);

  GstVideoOrientationMethod current_ = GST_VIDEO_ORIENTATION_IDENTITY;
  GstVideoOrientationMethod global_ = GST_VIDEO_ORIENTATION_IDENTITY;
  bool stream_has_one_ = false; /* a stream list named an orientation */
  std::string stream_id_;
};

} // namespace gst_cs

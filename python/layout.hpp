/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* How the planes of a video frame look as arrays: rows, columns, channels,
 * element size, pitch, and where each plane's visible region starts. Shared
 * by the export of frames and the import of pushed arrays, so both follow
 * the same shape rules. */
#pragma once

#include <array>
#include <string>

#include <gst/video/video.h>

namespace cspy {

struct PlaneShape {
  gint width = 0;    /* columns (pixels of the plane) */
  gint height = 0;   /* rows */
  gint channels = 0; /* elements per column */
  guint itemsize = 1;
  gint pitch = 0;   /* bytes per row */
  gsize offset = 0; /* from the start of the buffer to the first visible element */

  gsize row_bytes () const { return (gsize)width * channels * itemsize; }
};

struct FrameLayout {
  GstVideoFormat format = GST_VIDEO_FORMAT_UNKNOWN;
  guint n_planes = 0;
  std::array<PlaneShape, GST_VIDEO_MAX_PLANES> planes{};
  gint crop_x = 0, crop_y = 0, width = 0, height = 0; /* the visible region */
  /* Why the planes cannot be arrays (bit-packed formats); empty when they can. */
  std::string unsupported;

  const char * format_name () const { return gst_video_format_to_string (format); }
};

/* The layout of `buffer` with caps `info`: its video meta's offsets and
 * pitches (or the default ones), its crop meta's region. */
FrameLayout frame_layout (GstBuffer * buffer, const GstVideoInfo * info);

/* The layout of a frame of `info` whose planes are rows of `pitch0` bytes
 * for plane 0, back to back (the standard layout of a pushed array); the
 * other planes' pitches scale with their row sizes. Empty `unsupported`
 * on success. */
FrameLayout packed_layout (const GstVideoInfo * info, gint pitch0);

} // namespace cspy

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Where a crop starts in each plane of a frame, rounded as videocrop does. */
#pragma once

#include <gst/video/video.h>

#include <gst/gst.h>

G_BEGIN_DECLS

/**
 * GstCsCropPlane:
 * @offset: bytes from the start of the source plane to the first byte of
 *   the cropped plane
 * @row_bytes: bytes of one cropped row (whole macro-pixels for YUY2/UYVY)
 * @rows: rows of the cropped plane
 * @shift_first: first output byte of a luma shift, see @shift_end
 * @shift_end: 0, or (packed 4:2:2 cropped at an odd column only) the end of
 *   videocrop's luma shift: after copying @row_bytes from @offset, the luma
 *   samples of the output (@shift_step / 2 bytes each, from byte
 *   @shift_first on, @shift_step apart, below @shift_end) take the source
 *   bytes @shift_step further on (the next luma sample); chroma is not moved
 * @shift_step: bytes from one luma sample to the next in a packed 4:2:2
 *   row: 2, or 4 for 16-bit samples (v216, Y210, Y212)
 *
 * One plane of a crop. Rows of the source plane are its stride apart.

 */
typedef struct {
  gsize offset;
  gsize row_bytes;
  guint rows;
  guint shift_first;
  guint shift_end;
  guint shift_step;
} GstCsCropPlane;

/**
 * gst_cs_crop_is_offsets_only:
 * @finfo: a video format
 * @x: the crop's first column
 *
 * Returns: whether a crop starting at column @x is a plain change of plane
 * offsets (a zero-copy crop). Only packed 4:2:2 (YUY2, UYVY, v216, ...) at
 * an odd column is not: its first pixel starts inside a macro-pixel.

 */
/* clang-format off */
gboolean gst_cs_crop_is_offsets_only (const GstVideoFormatInfo * finfo,
                                     guint                      x);

/**
 * gst_cs_crop_can_start_at:
 * @finfo: a video format
 * @x: the crop's first column
 *
 * Returns: whether a crop of @finfo can start at column @x: always, except
 * IYU1 inside its groups of 4 pixels (6 bytes of U, Y, Y, V, Y, Y, whose
 * luma no byte shift reaches)

 */
gboolean gst_cs_crop_can_start_at    (const GstVideoFormatInfo * finfo,
                                     guint                      x);

/**
 * gst_cs_crop_planes:
 * @src: the source frame: its format and plane strides (a buffer's layout)
 * @x, @y: the crop's top-left pixel in the source frame
 * @width, @height: the crop's size in pixels (at least 1)
 * @planes: (out caller-allocates) (array fixed-size=4): one entry per plane
 *   of @src
 *
 * Computes the crop exactly as videocrop 1.22 copies it, so results are
 * bit-exact with it. Luma and packed RGB start at (@x, @y). Subsampled
 * planes start at the sample covering (@x, @y): @x and @y rounded down to
 * the subsampling (chroma is never resampled). Sizes are the output's plane
 * sizes; odd sizes stay odd. P010_10LE and P016_LE, which videocrop does not
 * support, follow its NV12 rule with 2-byte samples, and so do the other
 * formats it does not take: planes start at (@x, @y) rounded down to their
 * subsampling. A palette (RGB8P) is copied whole. IYU1 starts at @x
 * rounded down to its groups of 4 pixels (see gst_cs_crop_can_start_at()).
 * Packed 4:2:2 at an odd @x copies from the macro-pixel boundary and shifts
 * the luma by one sample (see #GstCsCropPlane), 8-bit or 16-bit; like
 * videocrop, it leaves the last luma sample of even-width rows unshifted
 * (its shift loop stops at the default stride).
 *
 * Returns: gst_cs_crop_is_offsets_only() of @x: %TRUE when every plane is
 * just @offset further on (no shift)

 */
gboolean gst_cs_crop_planes          (const GstVideoInfo * src,
                                     guint                x,
                                     guint                y,
                                     guint                width,
                                     guint                height,
                                     GstCsCropPlane     * planes);

/* clang-format on */

G_END_DECLS

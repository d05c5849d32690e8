/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Caps negotiation of cudaconvertscale (crop, scale, colour conversion and
 * rotation): the transform and fixation rules, as pure functions on caps so
 * that they can be tested without a GPU. They work structure by structure
 * and keep each structure's caps features: the element adds the memories. */
#pragma once

#include <gst/gst.h>

#include "base/gstcscaps.h"

G_BEGIN_DECLS

/**
 * gst_cs_convert_format_refusal:
 * @format: a raw video format
 *
 * Whether the converter reads and writes @format: every format of
 * GStreamer's video library whose samples are bit fields of words of 1, 2
 * or 4 bytes (gst_cs_convert_layout()), at most 4:1:0 subsampled, palettes
 * of such words (RGB8P) and samples in pairs (IYU1) included; not the
 * tiled ones nor those of complex packing (v210, ...).
 *
 * Returns: %NULL where it does, else why not (a static string)
 */
/**
 * gst_cs_convert_formats:
 *
 * The formats the converter reads and writes, as a list of names in
 * GStreamer's order of preference (gst_video_formats_raw(), videoconvert's
 * templates): the elements' formats (gst_cs::video_formats(), those of
 * this GStreamer) for which gst_cs_convert_format_refusal() is %NULL,
 * found once.
 *
 * Returns: (transfer none): a #GST_TYPE_LIST of strings
 */
/**
 * gst_cs_convert_caps_with_formats:
 * @caps: (transfer full): caps
 *
 * @caps with the format of every structure in the project's device memory
 * set to gst_cs_convert_formats() (nvcodec's memory keeps its formats):
 * the element's templates, from the elements' shared ones.
 *
 * Returns: (transfer full): the caps
 */

/**
 * gst_cs_convert_caps_transform:
 * @caps: caps on one pad
 * @filter: (nullable): caps to intersect the result with
 *
 * The caps the other pad can have: first @caps unchanged, then @caps with
 * width and height opened to [1, 16384] and the pixel-aspect-ratio (where
 * present) to [1/G_MAXINT, G_MAXINT/1], then the same without format,
 * colorimetry and chroma-site. The order makes negotiation prefer
 * passthrough, then a scale without conversion. Structures already
 * expressed by an earlier one are left out. Other fields (framerate,
 * interlace-mode, ...) and the caps features of every structure are kept.
 * With @filter, the result is gst_caps_intersect_full (@filter, result,
 * GST_CAPS_INTERSECT_FIRST).
 *
 * Returns: (transfer full): the caps
 */
/**
 * gst_cs_convert_caps_fixate:
 * @direction: the pad @caps are on
 * @caps: the fixed caps on that pad
 * @othercaps: (transfer full): the caps of the other pad
 * @rotated: whether the frame turns by 90 or 270 degrees (or is transposed):
 *   the input's width and height, and its pixel-aspect-ratio, swap
 *
 * Fixates @othercaps as videoconvertscale (1.22) does: the input's format
 * where allowed, else the allowed format of least loss (videoconvert's
 * score); the size and pixel-aspect-ratio that keep the input's display
 * aspect ratio, within what @othercaps allows; the input's colorimetry and
 * chroma-site where the conversion keeps their meaning and @othercaps
 * allows them. Everything else as gst_caps_fixate().
 *
 * Returns: (transfer full): the fixed caps, one structure with the caps
 * features it had in @othercaps (empty caps where @othercaps is empty)
 */
/**
 * gst_cs_convert_caps_explain:
 * @wanted: the caps one side accepts (downstream's)
 * @possible: the caps the element can give that side (not ANY)
 *
 * Why nothing of @possible is in @wanted, for a message a user reads: the
 * fields of the structure of @wanted that comes nearest (fewest fields
 * apart), each with the value asked for and what @possible has there
 * ("width 20000 (this element makes [ 1, 16384 ])", a list as its values:
 * "format UYVP (this element makes NV12, RGBA)"), or its caps features
 * where no structure of @possible has them.
 *
 * Returns: (transfer full) (nullable): the reason; %NULL where the caps
 * meet, or where either is empty or @wanted ANY
 */
/* clang-format off */
const gchar *  gst_cs_convert_format_refusal    (GstVideoFormat  format);

const GValue * gst_cs_convert_formats           (void);

GstCaps *      gst_cs_convert_caps_with_formats (GstCaps       * caps);

GstCaps * gst_cs_convert_caps_transform (GstCaps         * caps,
                                         GstCaps         * filter);

GstCaps * gst_cs_convert_caps_fixate    (GstPadDirection   direction,
                                         GstCaps         * caps,
                                         GstCaps         * othercaps,
                                         gboolean          rotated);

gchar *   gst_cs_convert_caps_explain   (GstCaps         * wanted,
                                         GstCaps         * possible);
/* clang-format on */

G_END_DECLS

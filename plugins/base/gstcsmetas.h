/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What the metas of an input frame become on an element's output: copied,
 * transformed (regions of interest, analytics boxes: scaled, moved by a
 * crop, turned) or dropped, as GStreamer's CPU elements that do the same
 * to a frame decide, on the GStreamer that runs. */
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>

G_BEGIN_DECLS

/**
 * GstCsMetaGeometry:
 * @in_info: the input's caps
 * @in_rect: the region of the input frame the output shows, in the
 *   coordinates of the input buffer (those of its crop meta, and of the
 *   boxes on it)
 * @out_info: the output's caps
 * @out_rect: where that region lands in the output frame (borders left out)
 * @orientation: how the region is turned on the way (#GstVideoOrientationMethod,
 *   as videoflip's video-direction)
 * @converted: scaled or converted to another format (videoconvertscale's
 *   rules), not only copied or cropped
 *
 * What an element does to a frame, as far as its metas are concerned.
 */
typedef struct {
  const GstVideoInfo * in_info;
  GstVideoRectangle in_rect;
  const GstVideoInfo * out_info;
  GstVideoRectangle out_rect;
  GstVideoOrientationMethod orientation;
  gboolean converted;
} GstCsMetaGeometry;

/* clang-format off */
void     gst_cs_meta_geometry_init (GstCsMetaGeometry       * geometry,
                                    const GstVideoInfo      * in_info,
                                    GstBuffer               * inbuf,
                                    const GstVideoInfo      * out_info);

gboolean gst_cs_meta_transform     (GstBuffer               * outbuf,
                                    GstMeta                 * meta,
                                    GstBuffer               * inbuf,
                                    const GstCsMetaGeometry * geometry);

/* clang-format on */

G_END_DECLS

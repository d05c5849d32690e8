/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "gstcsvideo-private.h"

#include <algorithm>

/* The palette of RGB8P: 256 entries of 4 bytes, as GstVideoInfo lays it
 * out (a stride of 4, 256 rows). */
static gboolean
is_palette (const GstVideoInfo * info, guint plane)
{
  return GST_VIDEO_FORMAT_INFO_HAS_PALETTE (info->finfo) && plane == 1;
}

/**
 * gst_cs_video_plane_row_bytes:
 * @info: a video info
 * @plane: a plane index
 *
 * Returns: the bytes of visible pixels in one row of @plane (no padding),
 * counting whole macro-pixels for formats such as YUY2 and IYU1; 4 for a
 * palette (one entry a row)
 */
gsize
gst_cs_video_plane_row_bytes (const GstVideoInfo * info, guint plane)
{
  gint comps[GST_VIDEO_MAX_COMPONENTS];
  gsize bytes = 0;
  if (is_palette (info, plane))
    return 4;
  /* IYU1 (4:1:1 packed) has no bytes per pixel: 4 pixels in 6 bytes. */
  if (GST_VIDEO_INFO_FORMAT (info) == GST_VIDEO_FORMAT_IYU1)
    return (gsize)(GST_VIDEO_INFO_WIDTH (info) + 3) / 4 * 6;
  gst_video_format_info_component (info->finfo, plane, comps);
  /* The widest component decides: in YUY2 the chroma component spans two
   * pixels (pstride 4), so an odd width still covers a whole macro-pixel. */
  for (gint i = 0; i < GST_VIDEO_MAX_COMPONENTS && comps[i] >= 0; i++) {
    gsize w = GST_VIDEO_INFO_COMP_WIDTH (info, comps[i]);
    bytes = std::max (bytes, w * GST_VIDEO_INFO_COMP_PSTRIDE (info, comps[i]));
  }
  return bytes;
}

/**
 * gst_cs_video_plane_rows:
 * @info: a video info
 * @plane: a plane index
 *
 * Returns: the number of rows of @plane (256 for a palette)
 */
guint
gst_cs_video_plane_rows (const GstVideoInfo * info, guint plane)
{
  gint comps[GST_VIDEO_MAX_COMPONENTS];
  guint rows = 0;
  if (is_palette (info, plane))
    return 256;
  gst_video_format_info_component (info->finfo, plane, comps);
  for (gint i = 0; i < GST_VIDEO_MAX_COMPONENTS && comps[i] >= 0; i++)
    rows = std::max<guint> (rows, GST_VIDEO_INFO_COMP_HEIGHT (info, comps[i]));
  return rows;
}

/**
 * gst_cs_video_info_device_layout:
 * @info: the frame as negotiated
 * @layout: (out): @info with strides and plane offsets aligned to
 *   %GST_CS_DEVICE_PITCH_ALIGN (but a palette's stride, 4), and the size
 *   of the whole allocation
 */
void
gst_cs_video_info_device_layout (const GstVideoInfo * info, GstVideoInfo * layout)
{
  const gsize align = GST_CS_DEVICE_PITCH_ALIGN;
  gsize offset = 0;
  *layout = *info;
  for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES (info); p++) {
    /* A palette stays 1 KiB in one piece, whatever its stride says:
     * GStreamer's unpack and videoconvert read it so. */
    gsize stride = is_palette (info, p)
                       ? 4
                       : GST_ROUND_UP_N (gst_cs_video_plane_row_bytes (info, p), align);
    layout->stride[p] = (gint)stride;
    layout->offset[p] = offset;
    offset += GST_ROUND_UP_N (stride * gst_cs_video_plane_rows (info, p), align);
  }
  layout->size = offset;
}

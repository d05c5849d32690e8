/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "batch/gstcsbatchslot.hpp"

#include "convert/gstcsconvertdesc.hpp"

namespace gst_cs {

GstVideoFormat
batch_slot_format (const BatchSettings & s, bool staging)
{
  if (staging)
    return GST_VIDEO_FORMAT_RGBP;
  const bool bgr = s.order == GST_CS_BATCH_CHANNEL_ORDER_BGR;
  if (s.layout == GST_CS_BATCH_LAYOUT_NHWC)
    return bgr ? GST_VIDEO_FORMAT_BGR : GST_VIDEO_FORMAT_RGB;
  return bgr ? GST_VIDEO_FORMAT_BGRP : GST_VIDEO_FORMAT_RGBP;
}

GstVideoInfo
batch_slot_layout (const BatchSettings & s, GstVideoFormat format)
{
  GstVideoInfo info;
  gst_video_info_set_format (&info, format, (guint)s.width, (guint)s.height);
  /* GStreamer rounds rows up to 4 bytes; a tensor's are packed. */
  const gsize plane = (gsize)s.width * (gsize)s.height;
  if (GST_VIDEO_INFO_N_PLANES (&info) == 3) {
    for (guint p = 0; p < 3; p++) {
      GST_VIDEO_INFO_PLANE_STRIDE (&info, p) = s.width;
      GST_VIDEO_INFO_PLANE_OFFSET (&info, p) = p * plane;
    }
  } else {
    GST_VIDEO_INFO_PLANE_STRIDE (&info, 0) = 3 * s.width;
    GST_VIDEO_INFO_PLANE_OFFSET (&info, 0) = 0;
  }
  GST_VIDEO_INFO_SIZE (&info) = 3 * plane;
  return info;
}

void
batch_describe_slot (const GstVideoInfo * in, const Region & region,
    const BatchSettings & s, const GstVideoInfo * out, gpu::ConvertScale * op,
    GstCsBatchSlot * slot)
{
  ConvertSettings settings;
  settings.filter = static_cast<gpu::Filter> (s.method);
  settings.add_borders = s.letterbox;
  settings.border_argb = 0xff000000u | (s.border << 16) | (s.border << 8) | s.border;
  describe_convert (in, out, (gint)region.x, (gint)region.y, (gint)region.width,
      (gint)region.height, settings, op);
  if (s.position == GST_CS_BATCH_POSITION_TOP_LEFT)
    op->dst_x = 0, op->dst_y = 0;
  /* tensor x -> frame x: the picture's rectangle onto the visible region */
  slot->source_width = (gint)region.width;
  slot->source_height = (gint)region.height;
  slot->scale_x = (double)region.width / op->dst_w;
  slot->scale_y = (double)region.height / op->dst_h;
  slot->offset_x = -op->dst_x * slot->scale_x;
  slot->offset_y = -op->dst_y * slot->scale_y;
}

} // namespace gst_cs

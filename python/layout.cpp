/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "layout.hpp"

namespace cspy {

/* Columns, channels and element size of `plane`, for a frame `width` x
 * `height` pixels wide; false for planes whose pixels are not whole
 * elements (v210, RGB16, tiled formats ...). */
static bool
plane_geometry (const GstVideoFormatInfo * finfo, guint plane, gint width, gint height,
    PlaneShape * out)
{
  gint comps[GST_VIDEO_MAX_COMPONENTS];
  gst_video_format_info_component (finfo, plane, comps);
  gint comp = comps[0];
  if (comp < 0 || GST_VIDEO_FORMAT_INFO_IS_TILED (finfo))
    return false;
  guint depth = GST_VIDEO_FORMAT_INFO_DEPTH (finfo, comp);
  gint pstride = GST_VIDEO_FORMAT_INFO_PSTRIDE (finfo, comp);
  guint itemsize = depth == 8 ? 1 : (depth > 8 && depth <= 16) ? 2 : 0;
  if (itemsize == 0 || pstride <= 0 || pstride % itemsize != 0)
    return false;
  out->itemsize = itemsize;
  out->channels = pstride / itemsize;
  out->width = GST_VIDEO_FORMAT_INFO_SCALE_WIDTH (finfo, comp, width);
  out->height = GST_VIDEO_FORMAT_INFO_SCALE_HEIGHT (finfo, comp, height);
  return true;
}

static std::string
unsupported_reason (const GstVideoFormatInfo * finfo)
{
  return std::string (GST_VIDEO_FORMAT_INFO_NAME (finfo)) +
         " has pixels that are not whole bytes per component: it cannot be a DLPack "
         "tensor";
}

FrameLayout
frame_layout (GstBuffer * buffer, const GstVideoInfo * info)
{
  FrameLayout l;
  const GstVideoFormatInfo * finfo = info->finfo;
  l.format = GST_VIDEO_INFO_FORMAT (info);
  l.n_planes = GST_VIDEO_INFO_N_PLANES (info);
  std::array<gsize, GST_VIDEO_MAX_PLANES> offsets{};
  std::array<gint, GST_VIDEO_MAX_PLANES> strides{};
  gint full_w = GST_VIDEO_INFO_WIDTH (info), full_h = GST_VIDEO_INFO_HEIGHT (info);
  GstVideoMeta * vmeta = gst_buffer_get_video_meta (buffer);
  for (guint p = 0; p < l.n_planes; p++) {
    offsets[p] = vmeta ? vmeta->offset[p] : GST_VIDEO_INFO_PLANE_OFFSET (info, p);
    strides[p] = vmeta ? vmeta->stride[p] : GST_VIDEO_INFO_PLANE_STRIDE (info, p);
  }
  if (vmeta) {
    full_w = vmeta->width;
    full_h = vmeta->height;
  }
  l.width = full_w;
  l.height = full_h;
  if (GstVideoCropMeta * crop = gst_buffer_get_video_crop_meta (buffer)) {
    l.crop_x = crop->x;
    l.crop_y = crop->y;
    l.width = crop->width;
    l.height = crop->height;
  }
  for (guint p = 0; p < l.n_planes; p++) {
    PlaneShape & s = l.planes[p];
    if (!plane_geometry (finfo, p, l.width, l.height, &s)) {
      l.unsupported = unsupported_reason (finfo);
      return l;
    }
    gint comps[GST_VIDEO_MAX_COMPONENTS];
    gst_video_format_info_component (finfo, p, comps);
    /* The origin rounds down in subsampled planes: the chroma sample that
     * covers the first visible pixel. */
    gint x = l.crop_x >> GST_VIDEO_FORMAT_INFO_W_SUB (finfo, comps[0]);
    gint y = l.crop_y >> GST_VIDEO_FORMAT_INFO_H_SUB (finfo, comps[0]);
    s.pitch = strides[p];
    s.offset = offsets[p] + (gsize)y * strides[p] + (gsize)x * s.channels * s.itemsize;
  }
  return l;
}

FrameLayout
packed_layout (const GstVideoInfo * info, gint pitch0)
{
  FrameLayout l;
  const GstVideoFormatInfo * finfo = info->finfo;
  l.format = GST_VIDEO_INFO_FORMAT (info);
  l.n_planes = GST_VIDEO_INFO_N_PLANES (info);
  l.width = GST_VIDEO_INFO_WIDTH (info);
  l.height = GST_VIDEO_INFO_HEIGHT (info);
  gsize offset = 0;
  for (guint p = 0; p < l.n_planes; p++) {
    PlaneShape & s = l.planes[p];
    if (!plane_geometry (finfo, p, l.width, l.height, &s)) {
      l.unsupported = unsupported_reason (finfo);
      return l;
    }
    /* Plane p's rows are the same fraction of plane 0's pitch as of its
     * row size (I420's chroma rows are half as long as its luma rows). */
    gsize row0 = l.planes[0].row_bytes ();
    if (((gsize)pitch0 * s.row_bytes ()) % row0 != 0) {
      l.unsupported = std::string (gst_video_format_to_string (l.format)) +
                      " planes of this size do not pack back to back";
      return l;
    }
    s.pitch = (gint)((gsize)pitch0 * s.row_bytes () / row0);
    s.offset = offset;
    offset += (gsize)s.pitch * s.height;
  }
  return l;
}

} // namespace cspy

/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "base/gstcsframe.hpp"

#include <cstring>

#include "gstcserror-private.h"
#include "gstcsvideo-private.h"

namespace gst_cs {

bool
buffer_layout (GstBuffer * buffer, const GstVideoInfo * info, GstVideoInfo * layout,
    gsize size, GError ** error)
{
  *layout = *info;
  if (GstVideoMeta * vm = gst_buffer_get_video_meta (buffer)) {
    if (vm->format != GST_VIDEO_INFO_FORMAT (info) ||
        vm->n_planes != GST_VIDEO_INFO_N_PLANES (info)) {
      g_set_error (error, GST_CS_ERROR, GST_CS_ERROR_INVALID,
          "The buffer's video meta says %s with %u planes, the caps say %s",
          gst_video_format_to_string (vm->format), vm->n_planes,
          GST_VIDEO_INFO_NAME (info));
      return false;
    }
    for (guint p = 0; p < vm->n_planes; p++) {
      layout->offset[p] = vm->offset[p];
      layout->stride[p] = vm->stride[p];
    }
  }
  for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES (layout); p++) {
    gsize row = gst_cs_video_plane_row_bytes (layout, p);
    guint rows = gst_cs_video_plane_rows (layout, p);
    gint stride = layout->stride[p];
    if (stride <= 0 || (gsize)stride < row) {
      g_set_error (error, GST_CS_ERROR, GST_CS_ERROR_INVALID,
          "Plane %u has a stride of %d bytes, less than one row of %s %dx%d "
          "(%" G_GSIZE_FORMAT " bytes)",
          p, stride, GST_VIDEO_INFO_NAME (info), GST_VIDEO_INFO_WIDTH (info),
          GST_VIDEO_INFO_HEIGHT (info), row);
      return false;
    }
    gsize end = layout->offset[p] + (gsize)stride * (rows - 1) + row;
    if (end > size) {
      g_set_error (error, GST_CS_ERROR, GST_CS_ERROR_INVALID,
          "The buffer holds %" G_GSIZE_FORMAT " bytes but a %s %dx%d frame "
          "needs %" G_GSIZE_FORMAT " (plane %u ends there): the buffer is "
          "smaller than its caps say",
          size, GST_VIDEO_INFO_NAME (info), GST_VIDEO_INFO_WIDTH (info),
          GST_VIDEO_INFO_HEIGHT (info), end, p);
      return false;
    }
  }
  return true;
}

Planes
planes_at (guint8 * base, const GstVideoInfo * layout)
{
  Planes planes;
  planes.n = GST_VIDEO_INFO_N_PLANES (layout);
  for (guint p = 0; p < planes.n; p++) {
    planes.data[p] = base + layout->offset[p];
    planes.stride[p] = layout->stride[p];
  }
  return planes;
}

bool
locate_region (GstBuffer * buffer, const GstVideoInfo * info, gsize size, guint x,
    guint y, guint width, guint height, Region * region, GError ** error)
{
  /* The video meta describes the whole frame in memory; with a crop meta
   * the caps only give the size of the region it marks. */
  GstVideoInfo frame = *info;
  if (GstVideoMeta * vm = gst_buffer_get_video_meta (buffer)) {
    frame.width = vm->width;
    frame.height = vm->height;
  }
  if (!buffer_layout (buffer, &frame, &region->frame, size, error))
    return false;
  guint64 fx = x, fy = y;
  if (const GstVideoCropMeta * cm = gst_buffer_get_video_crop_meta (buffer)) {
    fx += cm->x;
    fy += cm->y;
  }
  /* An alternate field's picture has the field's lines (the meta, as the
   * caps, gives the frame's height). */
  const gint lines = GST_VIDEO_INFO_FIELD_HEIGHT (&frame);
  if (fx + width > (guint64)frame.width || fy + height > (guint64)lines) {
    g_set_error (error, GST_CS_ERROR, GST_CS_ERROR_INVALID,
        "The region %ux%u at (%" G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT ") does not "
        "fit in the %dx%d %s (counting the buffer's crop meta, if any)",
        width, height, fx, fy, frame.width, lines,
        GST_VIDEO_INFO_INTERLACE_MODE (&frame) == GST_VIDEO_INTERLACE_MODE_ALTERNATE
            ? "field"
            : "frame");
    return false;
  }
  if (!gst_cs_crop_can_start_at (frame.finfo, (guint)fx)) {
    g_set_error (error, GST_CS_ERROR, GST_CS_ERROR_INVALID,
        "A region of %s cannot start at column %" G_GUINT64_FORMAT
        ": 4 pixels share 6 bytes there; start it at a multiple of 4 "
        "(counting the buffer's crop meta, if any)",
        GST_VIDEO_INFO_NAME (&frame), fx);
    return false;
  }
  region->x = (guint)fx;
  region->y = (guint)fy;
  region->width = width;
  region->height = height;
  region->offsets_only = gst_cs_crop_planes (
      &region->frame, region->x, region->y, width, height, region->planes);
  return true;
}

Region
region_in (const Region & region, const GstVideoInfo * layout)
{
  Region r = region;
  r.frame = *layout;
  r.offsets_only = gst_cs_crop_planes (layout, r.x, r.y, r.width, r.height, r.planes);
  return r;
}

bool
locate_visible (GstBuffer * buffer, const GstVideoInfo * info, gsize size,
    Region * region, GError ** error)
{
  return locate_region (buffer, info, size, 0, 0, GST_VIDEO_INFO_WIDTH (info),
      GST_VIDEO_INFO_FIELD_HEIGHT (info), region, error);
}

void
LayoutMemo::key_of (Key * key, int kind, GstBuffer * buffer, gsize size, guint x, guint y,
    guint width, guint height)
{
  key->kind = kind;
  key->size = size;
  key->x = x, key->y = y, key->width = width, key->height = height;
  if (const GstVideoMeta * vm = gst_buffer_get_video_meta (buffer)) {
    key->has_video_meta = true;
    key->format = vm->format;
    key->n_planes = vm->n_planes;
    key->frame_width = vm->width;
    key->frame_height = vm->height;
    for (guint p = 0; p < vm->n_planes && p < GST_VIDEO_MAX_PLANES; p++) {
      key->offset[p] = vm->offset[p];
      key->stride[p] = vm->stride[p];
    }
  }
  if (kind == 1) {
    if (const GstVideoCropMeta * cm = gst_buffer_get_video_crop_meta (buffer)) {
      key->has_crop_meta = true;
      key->crop_x = cm->x;
      key->crop_y = cm->y;
    }
  }
}

bool
LayoutMemo::Key::operator== (const Key & o) const
{
  if (kind != o.kind || size != o.size || x != o.x || y != o.y || width != o.width ||
      height != o.height || has_video_meta != o.has_video_meta || format != o.format ||
      n_planes != o.n_planes || frame_width != o.frame_width ||
      frame_height != o.frame_height || has_crop_meta != o.has_crop_meta ||
      crop_x != o.crop_x || crop_y != o.crop_y)
    return false;
  /* Planes past n_planes are never set: equal in both. */
  for (guint p = 0; p < n_planes && p < GST_VIDEO_MAX_PLANES; p++) {
    if (offset[p] != o.offset[p] || stride[p] != o.stride[p])
      return false;
  }
  return true;
}

bool
LayoutMemo::hit (const Key & key, const GstVideoInfo * info) const
{
  /* The caps as bytes: kept with memcpy, so equal caps (the same bytes,
   * padding too) always hit; any other difference only misses. */
  return valid_ && key == key_ && std::memcmp (info, &info_, sizeof *info) == 0;
}

void
LayoutMemo::keep (const Key & key, const GstVideoInfo * info, const Region & region)
{
  key_ = key;
  std::memcpy (&info_, info, sizeof info_);
  region_ = region;
  valid_ = true;
}

bool
LayoutMemo::locate_region (GstBuffer * buffer, const GstVideoInfo * info, gsize size,
    guint x, guint y, guint width, guint height, Region * region, GError ** error)
{
  Key key;
  key_of (&key, 1, buffer, size, x, y, width, height);
  if (hit (key, info)) {
    *region = region_;
    return true;
  }
  if (!gst_cs::locate_region (buffer, info, size, x, y, width, height, region, error))
    return false;
  keep (key, info, *region);
  return true;
}

bool
LayoutMemo::locate_visible (GstBuffer * buffer, const GstVideoInfo * info, gsize size,
    Region * region, GError ** error)
{
  return locate_region (buffer, info, size, 0, 0, GST_VIDEO_INFO_WIDTH (info),
      GST_VIDEO_INFO_FIELD_HEIGHT (info), region, error);
}

bool
LayoutMemo::buffer_layout (GstBuffer * buffer, const GstVideoInfo * info,
    GstVideoInfo * layout, gsize size, GError ** error)
{
  Key key;
  key_of (&key, 2, buffer, size, 0, 0, 0, 0);
  if (hit (key, info)) {
    *layout = region_.frame;
    return true;
  }
  if (!gst_cs::buffer_layout (buffer, info, layout, size, error))
    return false;
  Region r;
  r.frame = *layout;
  keep (key, info, r);
  return true;
}

Planes
region_planes (guint8 * base, const Region & region)
{
  Planes planes = planes_at (base, &region.frame);
  for (guint p = 0; p < planes.n; p++)
    planes.data[p] += region.planes[p].offset;
  return planes;
}

bool
copy_planes (const Planes & src, const Planes & dst, const GstVideoInfo * geometry,
    cudaMemcpyKind kind, cudaStream_t stream, GError ** error,
    GstCsWaitCounter * pageable)
{
  for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES (geometry); p++) {
    if (pageable)
      gst_cs_host_wait_count (pageable);
    if (!GST_CS_CHECK (cudaMemcpy2DAsync (dst.data[p], dst.stride[p], src.data[p],
                           src.stride[p], gst_cs_video_plane_row_bytes (geometry, p),
                           gst_cs_video_plane_rows (geometry, p), kind, stream),
            error))
      return false;
  }
  return true;
}

} // namespace gst_cs

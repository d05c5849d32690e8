#include "gstcsframe.hpp"

#include "gstcserror.h"
#include "gstcsvideo.h"

namespace gcs {

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
copy_planes (const Planes & src, const Planes & dst, const GstVideoInfo * geometry,
    cudaMemcpyKind kind, cudaStream_t stream, GError ** error)
{
  for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES (geometry); p++) {
    if (!GST_CS_CHECK (cudaMemcpy2DAsync (dst.data[p], dst.stride[p], src.data[p],
                           src.stride[p], gst_cs_video_plane_row_bytes (geometry, p),
                           gst_cs_video_plane_rows (geometry, p), kind, stream),
            error))
      return false;
  }
  return true;
}

} // namespace gcs

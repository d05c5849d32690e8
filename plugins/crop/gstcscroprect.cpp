/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "crop/gstcscroprect.h"

#include "gstcsvideo-private.h"

namespace {

/* How the components of one plane are subsampled. In a packed 4:2:2 plane
 * luma (not subsampled) and chroma (horizontally by 2) share a row. */
struct PlaneSampling {
  guint ws_min = G_MAXUINT, ws_max = 0, hs = 0;
  guint pstride = 0;     /* bytes of the most subsampled component */
  guint luma_offset = 0; /* byte of the least subsampled one */
};

PlaneSampling
plane_sampling (const GstVideoFormatInfo * finfo, guint plane)
{
  PlaneSampling s;
  gint comps[GST_VIDEO_MAX_COMPONENTS];
  gst_video_format_info_component (finfo, plane, comps);
  for (gint i = 0; i < GST_VIDEO_MAX_COMPONENTS && comps[i] >= 0; i++) {
    const guint c = comps[i];
    const guint ws = GST_VIDEO_FORMAT_INFO_W_SUB (finfo, c);
    const guint pstride = GST_VIDEO_FORMAT_INFO_PSTRIDE (finfo, c);
    if (i == 0 || ws > s.ws_max) {
      s.ws_max = ws;
      s.pstride = pstride;
    } else if (ws == s.ws_max) {
      s.pstride = MAX (s.pstride, pstride);
    }
    if (ws < s.ws_min) {
      s.ws_min = ws;
      s.luma_offset = GST_VIDEO_FORMAT_INFO_POFFSET (finfo, c);
    }
    s.hs = MAX (s.hs, (guint)GST_VIDEO_FORMAT_INFO_H_SUB (finfo, c));
  }
  return s;
}

/* A pixel starting inside a macro-pixel: the plane mixes subsamplings. */
bool
splits_macro_pixel (const PlaneSampling & s, guint x)
{
  return s.ws_max > s.ws_min && (x & ((1u << s.ws_max) - 1)) != 0;
}

} // namespace

gboolean
gst_cs_crop_is_offsets_only (const GstVideoFormatInfo * finfo, guint x)
{
  for (guint p = 0; p < GST_VIDEO_FORMAT_INFO_N_PLANES (finfo); p++) {
    if (splits_macro_pixel (plane_sampling (finfo, p), x))
      return FALSE;
  }
  return TRUE;
}

gboolean
gst_cs_crop_can_start_at (const GstVideoFormatInfo * finfo, guint x)
{
  return GST_VIDEO_FORMAT_INFO_FORMAT (finfo) != GST_VIDEO_FORMAT_IYU1 || x % 4 == 0;
}

/* Bytes from the start of a row of plane @p to the column @x. */
static gsize
column_offset (const GstVideoInfo * src, guint p, const PlaneSampling & s, guint x)
{
  if (GST_VIDEO_FORMAT_INFO_HAS_PALETTE (src->finfo) && p == 1)
    return 0;
  if (GST_VIDEO_INFO_FORMAT (src) == GST_VIDEO_FORMAT_IYU1)
    return (gsize)(x / 4) * 6;
  return (gsize)(x >> s.ws_max) * s.pstride;
}

gboolean
gst_cs_crop_planes (const GstVideoInfo * src, guint x, guint y, guint width, guint height,
    GstCsCropPlane * planes)
{
  /* The output frame in its default layout: its plane sizes are what
   * videocrop copies, and its stride bounds videocrop's luma shift. */
  GstVideoInfo out;
  gst_video_info_init (&out);
  gst_video_info_set_format (&out, GST_VIDEO_INFO_FORMAT (src), width, height);

  gboolean offsets_only = TRUE;
  for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES (src); p++) {
    const PlaneSampling s = plane_sampling (src->finfo, p);
    GstCsCropPlane * plane = &planes[p];
    /* Rounding down to the subsampling, then scaling, is a shift. A
     * palette has no rows of the picture. */
    const bool palette = GST_VIDEO_FORMAT_INFO_HAS_PALETTE (src->finfo) && p == 1;
    plane->offset = (palette ? 0 : (gsize)(y >> s.hs) * (gsize)src->stride[p]) +
                    column_offset (src, p, s, x);
    plane->row_bytes = gst_cs_video_plane_row_bytes (&out, p);
    plane->rows = gst_cs_video_plane_rows (&out, p);
    plane->shift_first = 0;
    plane->shift_end = 0;
    plane->shift_step = 2;
    if (splits_macro_pixel (s, x) && s.pstride > 0) {
      /* The luma's pixel stride: 2 bytes, 4 with 16-bit samples. */
      const guint step = s.pstride / 2;
      offsets_only = FALSE;
      plane->shift_first = s.luma_offset;
      plane->shift_step = step;
      plane->shift_end = (guint)MAX (out.stride[p] - (gint)step, 0);
    }
  }
  return offsets_only;
}

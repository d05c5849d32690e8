#include "gstcsvideo.h"

#include <algorithm>

gsize
gst_cs_video_plane_row_bytes (const GstVideoInfo * info, guint plane)
{
  gint comps[GST_VIDEO_MAX_COMPONENTS];
  gsize bytes = 0;
  gst_video_format_info_component (info->finfo, plane, comps);
  /* The widest component decides: in YUY2 the chroma component spans two
   * pixels (pstride 4), so an odd width still covers a whole macro-pixel. */
  for (gint i = 0; i < GST_VIDEO_MAX_COMPONENTS && comps[i] >= 0; i++) {
    gsize w = GST_VIDEO_INFO_COMP_WIDTH (info, comps[i]);
    bytes = std::max (bytes, w * GST_VIDEO_INFO_COMP_PSTRIDE (info, comps[i]));
  }
  return bytes;
}

guint
gst_cs_video_plane_rows (const GstVideoInfo * info, guint plane)
{
  gint comps[GST_VIDEO_MAX_COMPONENTS];
  guint rows = 0;
  gst_video_format_info_component (info->finfo, plane, comps);
  for (gint i = 0; i < GST_VIDEO_MAX_COMPONENTS && comps[i] >= 0; i++)
    rows = std::max<guint> (rows, GST_VIDEO_INFO_COMP_HEIGHT (info, comps[i]));
  return rows;
}

void
gst_cs_video_info_device_layout (const GstVideoInfo * info, GstVideoInfo * layout)
{
  const gsize align = GST_CS_DEVICE_PITCH_ALIGN;
  gsize offset = 0;
  *layout = *info;
  for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES (info); p++) {
    gsize stride = GST_ROUND_UP_N (gst_cs_video_plane_row_bytes (info, p), align);
    layout->stride[p] = (gint)stride;
    layout->offset[p] = offset;
    offset += GST_ROUND_UP_N (stride * gst_cs_video_plane_rows (info, p), align);
  }
  layout->size = offset;
}

gboolean
gst_cs_video_caps_are_device (const GstCaps * caps)
{
  if (!caps || gst_caps_is_empty (caps) || gst_caps_is_any (caps))
    return FALSE;
  GstCapsFeatures * f = gst_caps_get_features (caps, 0);
  return f && gst_caps_features_contains (f, GST_CAPS_FEATURE_MEMORY_CS_DEVICE);
}

GstCaps *
gst_cs_caps_with_memory (GstCaps * caps, gboolean device, GstCaps * filter)
{
  GstCaps * out = gst_caps_copy (caps);
  for (guint i = 0; i < gst_caps_get_size (out); i++)
    gst_caps_set_features (out, i,
        device ? gst_caps_features_new (GST_CAPS_FEATURE_MEMORY_CS_DEVICE, NULL)
               : gst_caps_features_new_empty ());
  if (filter) {
    GstCaps * tmp = gst_caps_intersect_full (filter, out, GST_CAPS_INTERSECT_FIRST);
    gst_caps_unref (out);
    out = tmp;
  }
  return out;
}

GstCaps *
gst_cs_caps_any_memory (GstCaps * caps, GstCaps * filter)
{
  GstCaps * both = gst_caps_merge (gst_cs_caps_with_memory (caps, TRUE, NULL),
      gst_cs_caps_with_memory (caps, FALSE, NULL));
  if (!filter)
    return both;
  GstCaps * out = gst_caps_intersect_full (filter, both, GST_CAPS_INTERSECT_FIRST);
  gst_caps_unref (both);
  return out;
}

void
gst_cs_query_set_pool (
    GstQuery * query, GstBufferPool * pool, guint size, guint min, guint max)
{
  if (gst_query_get_n_allocation_pools (query) > 0)
    gst_query_set_nth_allocation_pool (query, 0, pool, size, min, max);
  else
    gst_query_add_allocation_pool (query, pool, size, min, max);
}

void
gst_cs_query_propose_held (GstQuery * query, guint held)
{
  if (gst_query_get_n_allocation_pools (query) == 0) {
    /* An entry without a pool still needs the frame size: elements using
     * basetransform's default allocation configure a pool with it. */
    GstCaps * caps = NULL;
    GstVideoInfo info, layout;
    gst_query_parse_allocation (query, &caps, NULL);
    if (!caps || !gst_video_info_from_caps (&info, caps))
      return;
    gst_cs_video_info_device_layout (&info, &layout);
    /* The caps' default layout can be the larger one (NV12 rounds odd
     * heights up), and a video pool refuses a size below it. */
    gst_query_add_allocation_pool (query, NULL, MAX (layout.size, info.size), held, 0);
    return;
  }
  GstBufferPool * pool = NULL;
  guint size = 0, min = 0, max = 0;
  gst_query_parse_nth_allocation_pool (query, 0, &pool, &size, &min, &max);
  gst_query_set_nth_allocation_pool (query, 0, pool, size, MAX (min, held), max);
  if (pool)
    gst_object_unref (pool);
}

/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "base/gstcsmetas.h"

#include <gst/video/video.h>

/* Whether @meta of an input frame still describes the frame after a copy
 * into other memory (and, when @cropped, a crop): metas bound to the memory
 * never do (the video and sync metas are made anew); metas about the frame
 * as a whole (no tags) always do; after a crop only those tagged "video"
 * alone do, as videocrop decides, since positions and sizes no longer match;
 * without a crop, the frame's size, orientation and colours are unchanged. */
gboolean
gst_cs_meta_survives_copy (const GstMeta * meta, gboolean cropped)
{
  const GType api = meta->info->api;
  const gchar * const * tags = gst_meta_api_type_get_tags (api);
  if (!tags)
    return TRUE;
  static const GQuark memory = g_quark_from_static_string (GST_META_TAG_MEMORY_STR);
  static const GQuark video = g_quark_from_static_string (GST_META_TAG_VIDEO_STR);
  if (gst_meta_api_type_has_tag (api, memory))
    return FALSE;
  if (cropped)
    return g_strv_length ((gchar **)tags) == 1 && gst_meta_api_type_has_tag (api, video);
  for (const gchar * const * t = tags; *t; t++) {
    if (g_strcmp0 (*t, GST_META_TAG_VIDEO_STR) != 0 &&
        g_strcmp0 (*t, GST_META_TAG_VIDEO_SIZE_STR) != 0 &&
        g_strcmp0 (*t, GST_META_TAG_VIDEO_ORIENTATION_STR) != 0 &&
        g_strcmp0 (*t, GST_META_TAG_VIDEO_COLORSPACE_STR) != 0)
      return FALSE;
  }
  return TRUE;
}

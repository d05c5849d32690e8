/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "base/gstcsformats.hpp"

#include "gstcsmemory.h"

namespace gst_cs {

bool
video_format_is_plain (GstVideoFormat format)
{
  if (format == GST_VIDEO_FORMAT_UNKNOWN || format == GST_VIDEO_FORMAT_ENCODED)
    return false;
  const GstVideoFormatInfo * info = gst_video_format_get_info (format);
  if (!info || GST_VIDEO_FORMAT_INFO_IS_TILED (info))
    return false;
#if GST_CHECK_VERSION(1, 22, 0)
  /* v210, UYVP and the 10-bit words of GRAY10_LE32 or NV12_10LE40 pack
   * samples across bytes: no byte offset starts their pixel x. */
  if (GST_VIDEO_FORMAT_INFO_IS_COMPLEX (info))
    return false;
#else
  /* Before 1.22 the flag did not exist; the same formats have no whole
   * bytes per pixel. */
  for (guint c = 0; c < GST_VIDEO_FORMAT_INFO_N_COMPONENTS (info); c++)
    if (GST_VIDEO_FORMAT_INFO_PSTRIDE (info, c) == 0 && format != GST_VIDEO_FORMAT_IYU1)
      return false;
#endif
  return true;
}

GValue *
video_formats_without (const gchar * (*refusal) (GstVideoFormat))
{
  GValue * list = g_new0 (GValue, 1);
  g_value_init (list, GST_TYPE_LIST);
  guint n = 0;
  const GstVideoFormat * formats = gst_video_formats_raw (&n);
  for (guint i = 0; i < n; i++) {
    if (!video_format_is_plain (formats[i]) || (refusal && refusal (formats[i])))
      continue;
    GValue name = G_VALUE_INIT;
    g_value_init (&name, G_TYPE_STRING);
    g_value_set_static_string (&name, gst_video_format_to_string (formats[i]));
    gst_value_list_append_and_take_value (list, &name);
  }
  return list;
}

const GValue *
video_formats ()
{
  static const GValue * formats = video_formats_without (nullptr);
  return formats;
}

/* System memory or ours: nvcodec's GstCudaMemory allocates fewer formats,
 * and its structures keep their own list. */
static bool
is_ours_or_system (GstCapsFeatures * features)
{
  return !features ||
         gst_caps_features_is_equal (features, GST_CAPS_FEATURES_MEMORY_SYSTEM_MEMORY) ||
         gst_caps_features_contains (features, GST_CAPS_FEATURE_MEMORY_CS) ||
         (gst_caps_features_get_size (features) == 1 &&
             gst_caps_features_contains (features, GST_CAPS_FEATURE_FORMAT_INTERLACED));
}

GstCaps *
caps_with_video_formats (const gchar * caps)
{
  GstCaps * out = gst_caps_from_string (caps);
  g_return_val_if_fail (out != NULL, NULL);
  for (guint i = 0; i < gst_caps_get_size (out); i++) {
    GstStructure * s = gst_caps_get_structure (out, i);
    if (gst_structure_has_name (s, "video/x-raw") &&
        gst_structure_has_field (s, "format") &&
        is_ours_or_system (gst_caps_get_features (out, i)))
      gst_structure_set_value (s, "format", video_formats ());
  }
  return out;
}

GstPadTemplate *
pad_template_with_video_formats (const gchar * name, GstPadDirection direction,
    GstPadPresence presence, const gchar * caps)
{
  GstCaps * c = caps_with_video_formats (caps);
  GstPadTemplate * t = gst_pad_template_new (name, direction, presence, c);
  gst_caps_unref (c);
  return t;
}

void
add_video_pad_templates (
    GstElementClass * klass, const gchar * sink_caps, const gchar * src_caps)
{
  gst_element_class_add_pad_template (klass,
      pad_template_with_video_formats ("sink", GST_PAD_SINK, GST_PAD_ALWAYS, sink_caps));
  gst_element_class_add_pad_template (klass,
      pad_template_with_video_formats ("src", GST_PAD_SRC, GST_PAD_ALWAYS, src_caps));
}

} // namespace gst_cs

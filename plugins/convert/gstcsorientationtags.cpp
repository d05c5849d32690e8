/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "convert/gstcsorientationtags.hpp"

namespace gst_cs {

bool
orientation_from_tag (const gchar * value, GstVideoOrientationMethod * m)
{
  static const struct {
    const gchar * tag;
    GstVideoOrientationMethod method;
  } map[] = {
    { "rotate-0", GST_VIDEO_ORIENTATION_IDENTITY },
    { "rotate-90", GST_VIDEO_ORIENTATION_90R },
    { "rotate-180", GST_VIDEO_ORIENTATION_180 },
    { "rotate-270", GST_VIDEO_ORIENTATION_90L },
    { "flip-rotate-0", GST_VIDEO_ORIENTATION_HORIZ },
    { "flip-rotate-90", GST_VIDEO_ORIENTATION_UL_LR },
    { "flip-rotate-180", GST_VIDEO_ORIENTATION_VERT },
    { "flip-rotate-270", GST_VIDEO_ORIENTATION_UR_LL },
  };
  for (const auto & e : map)
    if (g_strcmp0 (value, e.tag) == 0) {
      *m = e.method;
      return true;
    }
  return false;
}

bool
OrientationTags::set (GstVideoOrientationMethod m)
{
  const bool changed = current_ != m;
  current_ = m;
  return changed;
}

bool
OrientationTags::take (const GstTagList * tags, gchar ** unknown)
{
  gchar * value = NULL;
  GstVideoOrientationMethod m = GST_VIDEO_ORIENTATION_IDENTITY;
  bool named = gst_tag_list_get_string (tags, GST_TAG_IMAGE_ORIENTATION, &value);
  if (named && !orientation_from_tag (value, &m)) {
    named = false;
    if (unknown) {
      *unknown = value;
      value = NULL;
    }
  }
  g_free (value);
  const bool stream = gst_tag_list_get_scope (tags) == GST_TAG_SCOPE_STREAM;
  if (stream) {
    stream_has_one_ = named;
    return set (named ? m : global_);
  }
  global_ = named ? m : GST_VIDEO_ORIENTATION_IDENTITY;
  return !stream_has_one_ && set (global_);
}

bool
OrientationTags::start_stream (const gchar * stream_id)
{
  if (stream_id && stream_id_ == stream_id)
    return false;
  stream_id_ = stream_id ? stream_id : "";
  stream_has_one_ = false;
  global_ = GST_VIDEO_ORIENTATION_IDENTITY;
  return set (GST_VIDEO_ORIENTATION_IDENTITY);
}

void
OrientationTags::reset ()
{
  *this = OrientationTags ();
}

} // namespace gst_cs

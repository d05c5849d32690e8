/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "convert/gstcsconvertmemo.hpp"

#include <cstring>

namespace gst_cs {

namespace {

bool
same_settings (const ConvertSettings & a, const ConvertSettings & b)
{
  return a.filter == b.filter && a.orientation == b.orientation &&
         a.add_borders == b.add_borders && a.border_argb == b.border_argb;
}

} // namespace

bool
ConvertMemo::same (const ConvertKey & key) const
{
  if (!same_settings (key.settings, settings_) || key.x != region_[0] ||
      key.y != region_[1] || key.width != region_[2] || key.height != region_[3])
    return false;
  const GstVideoInfo * layouts[2] = { key.in, key.out };
  for (int k = 0; k < 2; k++) {
    const GstVideoInfo * l = layouts[k];
    if (GST_VIDEO_INFO_WIDTH (l) != size_[k][0] ||
        GST_VIDEO_INFO_HEIGHT (l) != size_[k][1] ||
        std::memcmp (l->offset, offset_[k], sizeof offset_[k]) != 0 ||
        std::memcmp (l->stride, stride_[k], sizeof stride_[k]) != 0)
      return false;
  }
  return true;
}

void
ConvertMemo::keep (const ConvertKey & key)
{
  settings_ = key.settings;
  region_[0] = key.x, region_[1] = key.y, region_[2] = key.width, region_[3] = key.height;
  const GstVideoInfo * layouts[2] = { key.in, key.out };
  for (int k = 0; k < 2; k++) {
    size_[k][0] = GST_VIDEO_INFO_WIDTH (layouts[k]);
    size_[k][1] = GST_VIDEO_INFO_HEIGHT (layouts[k]);
    std::memcpy (offset_[k], layouts[k]->offset, sizeof offset_[k]);
    std::memcpy (stride_[k], layouts[k]->stride, sizeof stride_[k]);
  }
}

} // namespace gst_cs

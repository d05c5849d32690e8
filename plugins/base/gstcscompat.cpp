/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "base/gstcscompat.hpp"

#include <gst/video/navigation.h>

namespace gst_cs {

bool
navigation_coordinates (GstEvent * event, gdouble * x, gdouble * y)
{
#if GST_CHECK_VERSION(1, 22, 0)
  return gst_navigation_event_get_coordinates (event, x, y);
#else
  const GstStructure * s = gst_event_get_structure (event);
  return s && gst_structure_get_double (s, "pointer_x", x) &&
         gst_structure_get_double (s, "pointer_y", y);
#endif
}

void
navigation_set_coordinates (GstEvent * event, gdouble x, gdouble y)
{
#if GST_CHECK_VERSION(1, 22, 0)
  gst_navigation_event_set_coordinates (event, x, y);
#else
  gst_structure_set (gst_event_writable_structure (event), "pointer_x", G_TYPE_DOUBLE, x,
      "pointer_y", G_TYPE_DOUBLE, y, NULL);
#endif
}

} // namespace gst_cs

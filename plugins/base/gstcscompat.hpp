/* SPDX-License-Identifier: LGPL-2.1-or-later */
// What differs between the GStreamer versions the plugin builds against
// (1.20 to 1.28), in one place: each function does with the newest API what
// older headers lack.
#pragma once

#include <gst/gst.h>

namespace gst_cs {

// The pointer position of a navigation event (mouse and touch events).
// 1.22 added gst_navigation_event_get/set_coordinates; 1.20 has only the
// event's structure fields, which the newer calls read too.
bool navigation_coordinates (GstEvent * event, gdouble * x, gdouble * y);
// Sets it on a writable event of that kind.
void navigation_set_coordinates (GstEvent * event, gdouble x, gdouble y);

} // namespace gst_cs

/* SPDX-License-Identifier: LGPL-2.1-or-later */
// cudabatch's properties: their ids, specs and enum types (internal).
#pragma once

#include <glib-object.h>

/* The property ids of cudabatch. */
enum BatchProperty {
  PROP_0,
  PROP_BATCH_SIZE,
  PROP_WIDTH,
  PROP_HEIGHT,
  PROP_LAYOUT,
  PROP_CHANNEL_ORDER,
  PROP_DTYPE,
  PROP_MEAN,
  PROP_STD,
  PROP_SCALE,
  PROP_OFFSET,
  PROP_LETTERBOX,
  PROP_LETTERBOX_POSITION,
  PROP_BORDER_VALUE,
  PROP_METHOD,
  PROP_TIMEOUT,
  PROP_DEVICE_ID,
  PROP_HOST_WAITS,
};

namespace gst_cs {

// Installs every property of cudabatch on `klass`.
void batch_install_properties (GObjectClass * klass, guint64 default_timeout_us);

} // namespace gst_cs

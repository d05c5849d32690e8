/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Which CUDA device (private: the library and the plugin, not installed). */
#pragma once

#include <gst/gst.h>

#include "cudastreams-prelude.h"

G_BEGIN_DECLS

/* clang-format off */
GST_CS_API
gboolean gst_cs_device_resolve (gint      requested,
                                gint    * device_id,
                                GError ** error);

/* clang-format on */

G_END_DECLS

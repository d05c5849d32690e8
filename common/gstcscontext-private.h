/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* How an element finds its stream pool through GstContext (private: the
 * library and the plugin, not installed). */
#pragma once

#include <gst/gst.h>

#include "gstcsstreampool.h"

G_BEGIN_DECLS

/* clang-format off */
GST_CS_API
gboolean gst_cs_ensure_stream_pool   (GstElement       * element,
                                      gint               device_id,
                                      GstCsStreamPool ** pool,
                                      GError          ** error);

GST_CS_API
void     gst_cs_handle_set_context   (GstElement       * element,
                                      GstContext       * context,
                                      gint               device_id,
                                      GstCsStreamPool ** pool);

GST_CS_API
gboolean gst_cs_handle_context_query (GstElement       * element,
                                      GstQuery         * query,
                                      GstCsStreamPool  * pool);

/* clang-format on */

G_END_DECLS

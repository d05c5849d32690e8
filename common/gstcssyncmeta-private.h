/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* One event for a frame's write and its reads (private: the library and the
 * plugin, not installed). */
#pragma once

#include "gstcssyncmeta.h"

G_BEGIN_DECLS

/* clang-format off */
GST_CS_API
GstCsSyncMeta * gst_cs_sync_meta_record_read (GstBuffer    * buffer,
                                              GstBuffer    * read,
                                              gint           device_id,
                                              cudaStream_t   stream,
                                              GError      ** error);

GST_CS_API
void gst_cs_sync_meta_add_reader (GstCsSyncMeta * meta,
                                  GstBuffer     * read);

GST_CS_API
void gst_cs_sync_meta_copy       (GstBuffer     * dest,
                                  GstBuffer     * src);

/* clang-format on */

G_END_DECLS

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Batch metas kept with their tensor from batch to batch (private: the
 * library and the plugin, not installed). */
#pragma once

#include "gstcsbatchmeta.h"

G_BEGIN_DECLS

/* clang-format off */
GST_CS_API
GstCsBatchMeta * gst_cs_buffer_add_pooled_batch_meta (GstBuffer * buffer,
                                                      guint       n_slots);
/* clang-format on */

G_END_DECLS

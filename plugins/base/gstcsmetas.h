/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Which metas of an input frame still describe the output of an element. */
#pragma once

#include <gst/gst.h>

G_BEGIN_DECLS

/* clang-format off */
gboolean gst_cs_meta_survives_copy (const GstMeta * meta,
                                    gboolean        cropped);

/* clang-format on */

G_END_DECLS

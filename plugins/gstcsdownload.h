/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "base/gstcsbasetransform.h"

G_BEGIN_DECLS

#define GST_TYPE_CS_DOWNLOAD (gst_cs_download_get_type ())
G_DECLARE_FINAL_TYPE (
    GstCsDownload, gst_cs_download, GST, CS_DOWNLOAD, GstCsBaseTransform)

G_END_DECLS

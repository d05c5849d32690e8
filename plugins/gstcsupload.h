/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "base/gstcsbasetransform.h"

G_BEGIN_DECLS

#define GST_TYPE_CS_UPLOAD (gst_cs_upload_get_type ())
G_DECLARE_FINAL_TYPE (GstCsUpload, gst_cs_upload, GST, CS_UPLOAD, GstCsBaseTransform)

G_END_DECLS

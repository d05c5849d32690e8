/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "base/gstcsbasetransform.h"

G_BEGIN_DECLS

#define GST_TYPE_CS_CROP (gst_cs_crop_get_type ())
G_DECLARE_FINAL_TYPE (GstCsCrop, gst_cs_crop, GST, CS_CROP, GstCsBaseTransform)

G_END_DECLS

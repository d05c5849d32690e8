/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "base/gstcsbasetransform.h"

G_BEGIN_DECLS

/**
 * GstCsConvertScaleMethod:
 * @GST_CS_CONVERT_SCALE_NEAREST: the nearest source pixel
 * @GST_CS_CONVERT_SCALE_BILINEAR: interpolation between the 2x2 nearest
 *   pixels (as videoconvertscale's bilinear; aliases when shrinking a lot)
 * @GST_CS_CONVERT_SCALE_BICUBIC: Catmull-Rom cubic over 4x4 pixels
 * @GST_CS_CONVERT_SCALE_AREA: the average of the source area each output
 *   pixel covers when shrinking (no aliasing), bilinear when enlarging
 *
 * Since: 0.2
 */
typedef enum {
  GST_CS_CONVERT_SCALE_NEAREST = 0,
  GST_CS_CONVERT_SCALE_BILINEAR = 1,
  GST_CS_CONVERT_SCALE_BICUBIC = 2,
  GST_CS_CONVERT_SCALE_AREA = 3,
} GstCsConvertScaleMethod;

#define GST_TYPE_CS_CONVERT_SCALE_METHOD (gst_cs_convert_scale_method_get_type ())
GType gst_cs_convert_scale_method_get_type (void);

#define GST_TYPE_CS_CONVERT_SCALE (gst_cs_convert_scale_get_type ())
G_DECLARE_FINAL_TYPE (
    GstCsConvertScale, gst_cs_convert_scale, GST, CS_CONVERT_SCALE, GstCsBaseTransform)

G_END_DECLS

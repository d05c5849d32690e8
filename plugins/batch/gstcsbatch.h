/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* cudabatch: frames of many streams into one model-ready tensor. */
#pragma once

#include <gst/gst.h>
#include <gst/base/gstaggregator.h>

G_BEGIN_DECLS

/**
 * GstCsBatchLayout:
 * @GST_CS_BATCH_LAYOUT_NCHW: batch, channel, row, column
 * @GST_CS_BATCH_LAYOUT_NHWC: batch, row, column, channel
 *
 * Since: 0.3
 */
typedef enum {
  GST_CS_BATCH_LAYOUT_NCHW = 0,
  GST_CS_BATCH_LAYOUT_NHWC = 1,
} GstCsBatchLayout;

/**
 * GstCsBatchChannelOrder:
 * @GST_CS_BATCH_CHANNEL_ORDER_RGB: red first
 * @GST_CS_BATCH_CHANNEL_ORDER_BGR: blue first
 *
 * Since: 0.3
 */
typedef enum {
  GST_CS_BATCH_CHANNEL_ORDER_RGB = 0,
  GST_CS_BATCH_CHANNEL_ORDER_BGR = 1,
} GstCsBatchChannelOrder;

/**
 * GstCsBatchDType:
 * @GST_CS_BATCH_DTYPE_UINT8: the 8-bit codes, not normalised
 * @GST_CS_BATCH_DTYPE_FLOAT16: IEEE half precision, normalised
 * @GST_CS_BATCH_DTYPE_FLOAT32: IEEE single precision, normalised
 *
 * Since: 0.3
 */
typedef enum {
  GST_CS_BATCH_DTYPE_UINT8 = 0,
  GST_CS_BATCH_DTYPE_FLOAT16 = 1,
  GST_CS_BATCH_DTYPE_FLOAT32 = 2,
} GstCsBatchDType;

/**
 * GstCsBatchPosition:
 * @GST_CS_BATCH_POSITION_CENTER: borders on both sides
 * @GST_CS_BATCH_POSITION_TOP_LEFT: the picture in the top left corner,
 *   borders right and bottom
 *
 * Since: 0.3
 */
typedef enum {
  GST_CS_BATCH_POSITION_CENTER = 0,
  GST_CS_BATCH_POSITION_TOP_LEFT = 1,
} GstCsBatchPosition;

#define GST_TYPE_CS_BATCH_LAYOUT (gst_cs_batch_layout_get_type ())
#define GST_TYPE_CS_BATCH_CHANNEL_ORDER (gst_cs_batch_channel_order_get_type ())
#define GST_TYPE_CS_BATCH_DTYPE (gst_cs_batch_dtype_get_type ())
#define GST_TYPE_CS_BATCH_POSITION (gst_cs_batch_position_get_type ())
#define GST_TYPE_CS_BATCH (gst_cs_batch_get_type ())

/* clang-format off */
GType gst_cs_batch_layout_get_type        (void);
GType gst_cs_batch_channel_order_get_type (void);
GType gst_cs_batch_dtype_get_type         (void);
GType gst_cs_batch_position_get_type      (void);

G_DECLARE_FINAL_TYPE (GstCsBatch, gst_cs_batch, GST, CS_BATCH, GstAggregator)
/* clang-format on */

G_END_DECLS

/* SPDX-License-Identifier: LGPL-2.1-or-later */
// What cudabatch makes of its properties (internal): the tensor's shape,
// type and caps, and the per-channel factors of its normalisation.
#pragma once

#include <gst/gst.h>

#include "batch/gstcsbatch.h"
#include "gstcsconvertscale.h"

namespace gst_cs {

// The properties, copied whole under the object lock: a batch is made with
// one setting.
struct BatchSettings {
  guint batch_size = 0; /* 0: one slot per sink pad */
  gint width = 640, height = 640;
  GstCsBatchLayout layout = GST_CS_BATCH_LAYOUT_NCHW;
  GstCsBatchChannelOrder order = GST_CS_BATCH_CHANNEL_ORDER_RGB;
  GstCsBatchDType dtype = GST_CS_BATCH_DTYPE_FLOAT32;
  double mean[3] = { 0.0, 0.0, 0.0 };
  double std[3] = { 1.0, 1.0, 1.0 };
  double scale[3] = { 1.0 / 255.0, 1.0 / 255.0, 1.0 / 255.0 };
  double offset[3] = { 0.0, 0.0, 0.0 };
  bool use_scale = false; /* scale/offset were set after mean/std */
  bool letterbox = true;
  GstCsBatchPosition position = GST_CS_BATCH_POSITION_CENTER;
  guint border = 0;
  GstCsConvertScaleMethod method = GST_CS_CONVERT_SCALE_BILINEAR;
};

// value = code * scale[c] + offset[c] for tensor channel c (its order):
// the scale/offset properties, or (code / 255 - mean) / std.
void batch_factors (const BatchSettings & s, float scale[3], float offset[3]);

// Bytes of one element of the tensor.
gsize batch_element_size (GstCsBatchDType dtype);

// Elements of one slot (3 x height x width).
guint64 batch_slot_elements (const BatchSettings & s);

// Fails, saying why, where a tensor of `batch` slots cannot be made: no
// slot, or more than 2^31 elements (what kernels index with 32 bits).
bool batch_check_shape (const BatchSettings & s, guint batch, GError ** error);

// The fixed src caps of a tensor of `batch` slots (NNStreamer's
// other/tensors; see docs/cudabatch.md).
GstCaps * batch_tensor_caps (
    const BatchSettings & s, guint batch, gint fps_n, gint fps_d);

// Reads a per-channel property value: a GstValueArray of 1 or 3 numbers
// (one number stands for all three). False, `out` untouched, otherwise.
bool batch_read_channels (const GValue * value, double out[3]);
void batch_write_channels (GValue * value, const double in[3]);

} // namespace gst_cs

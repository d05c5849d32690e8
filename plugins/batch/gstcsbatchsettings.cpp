/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "batch/gstcsbatchsettings.hpp"

#include "gstcserror.h"
#include "gstcsmemory.h"

namespace gst_cs {

void
batch_factors (const BatchSettings & s, float scale[3], float offset[3])
{
  for (int c = 0; c < 3; c++) {
    if (s.use_scale) {
      scale[c] = (float)s.scale[c];
      offset[c] = (float)s.offset[c];
    } else {
      scale[c] = (float)(1.0 / (255.0 * s.std[c]));
      offset[c] = (float)(-s.mean[c] / s.std[c]);
    }
  }
}

gsize
batch_element_size (GstCsBatchDType dtype)
{
  switch (dtype) {
    case GST_CS_BATCH_DTYPE_UINT8:
      return 1;
    case GST_CS_BATCH_DTYPE_FLOAT16:
      return 2;
    default:
      return 4;
  }
}

guint64
batch_slot_elements (const BatchSettings & s)
{
  return 3ull * (guint64)s.width * (guint64)s.height;
}

bool
batch_check_shape (const BatchSettings & s, guint batch, GError ** error)
{
  if (batch == 0) {
    g_set_error (error, GST_CS_ERROR, GST_CS_ERROR_INVALID,
        "batch-size is 0 (one slot per sink pad) and no sink pad is linked: "
        "request sink_%%u pads or set batch-size");
    return false;
  }
  const guint64 elements = batch * batch_slot_elements (s);
  if (elements > (1ull << 31)) {
    g_set_error (error, GST_CS_ERROR, GST_CS_ERROR_INVALID,
        "A tensor of %u x 3 x %d x %d is %" G_GUINT64_FORMAT
        " elements, more than 2^31: lower batch-size, width or height",
        batch, s.height, s.width, elements);
    return false;
  }
  return true;
}

GstCaps *
batch_tensor_caps (const BatchSettings & s, guint batch, gint fps_n, gint fps_d)
{
  static const char * const types[] = { "uint8", "float16", "float32" };
  /* NNStreamer's dimensions: innermost first. */
  gchar * dims = s.layout == GST_CS_BATCH_LAYOUT_NCHW
                     ? g_strdup_printf ("%d:%d:3:%u", s.width, s.height, batch)
                     : g_strdup_printf ("3:%d:%d:%u", s.width, s.height, batch);
  GstCaps * caps = gst_caps_new_simple ("other/tensors", "format", G_TYPE_STRING,
      "static", "num_tensors", G_TYPE_INT, 1, "types", G_TYPE_STRING, types[s.dtype],
      "dimensions", G_TYPE_STRING, dims, "framerate", GST_TYPE_FRACTION, fps_n, fps_d,
      NULL);
  gst_caps_set_features (
      caps, 0, gst_caps_features_new (GST_CAPS_FEATURE_MEMORY_CS, NULL));
  g_free (dims);
  return caps;
}

bool
batch_read_channels (const GValue * value, double out[3])
{
  if (!GST_VALUE_HOLDS_ARRAY (value))
    return false;
  const guint n = gst_value_array_get_size (value);
  if (n != 1 && n != 3)
    return false;
  double v[3];
  for (guint i = 0; i < 3; i++) {
    const GValue * e = gst_value_array_get_value (value, n == 1 ? 0 : i);
    GValue d = G_VALUE_INIT;
    g_value_init (&d, G_TYPE_DOUBLE);
    if (!g_value_type_transformable (G_VALUE_TYPE (e), G_TYPE_DOUBLE) ||
        !g_value_transform (e, &d))
      return false;
    v[i] = g_value_get_double (&d);
  }
  for (int i = 0; i < 3; i++)
    out[i] = v[i];
  return true;
}

void
batch_write_channels (GValue * value, const double in[3])
{
  for (int i = 0; i < 3; i++) {
    GValue d = G_VALUE_INIT;
    g_value_init (&d, G_TYPE_DOUBLE);
    g_value_set_double (&d, in[i]);
    gst_value_array_append_and_take_value (value, &d);
  }
}

} // namespace gst_cs

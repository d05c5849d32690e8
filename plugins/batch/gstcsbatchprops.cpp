/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "batch/gstcsbatchprops.hpp"

#include "batch/gstcsbatch.h"
#include "batch/gstcsbatchsettings.hpp"

/* An enum GType registered once from `values`. */
#define GST_CS_DEFINE_ENUM(fn, name, ...) \
  GType fn (void) \
  { \
    static GType type = 0; \
    static const GEnumValue values[] = { __VA_ARGS__, { 0, NULL, NULL } }; \
    if (g_once_init_enter (&type)) \
      g_once_init_leave (&type, g_enum_register_static (name, values)); \
    return type; \
  }

/* clang-format off */
GST_CS_DEFINE_ENUM (gst_cs_batch_layout_get_type, "GstCsBatchLayout",
    { GST_CS_BATCH_LAYOUT_NCHW, "Batch, channel, row, column", "nchw" },
    { GST_CS_BATCH_LAYOUT_NHWC, "Batch, row, column, channel", "nhwc" })
GST_CS_DEFINE_ENUM (gst_cs_batch_channel_order_get_type, "GstCsBatchChannelOrder",
    { GST_CS_BATCH_CHANNEL_ORDER_RGB, "Red, green, blue", "rgb" },
    { GST_CS_BATCH_CHANNEL_ORDER_BGR, "Blue, green, red", "bgr" })
GST_CS_DEFINE_ENUM (gst_cs_batch_dtype_get_type, "GstCsBatchDType",
    { GST_CS_BATCH_DTYPE_UINT8, "8-bit codes, not normalised", "uint8" },
    { GST_CS_BATCH_DTYPE_FLOAT16, "Half precision, normalised", "float16" },
    { GST_CS_BATCH_DTYPE_FLOAT32, "Single precision, normalised", "float32" })
GST_CS_DEFINE_ENUM (gst_cs_batch_position_get_type, "GstCsBatchPosition",
    { GST_CS_BATCH_POSITION_CENTER, "Centred, borders on both sides", "center" },
    { GST_CS_BATCH_POSITION_TOP_LEFT, "Top left, borders right and bottom", "top-left" })
/* clang-format on */

namespace gst_cs {
namespace {

GParamSpec *
channels_spec (
    const char * name, const char * nick, const char * blurb, GParamFlags flags)
{
  return gst_param_spec_array (name, nick, blurb,
      g_param_spec_double ("value", "Value", "One channel's value", -G_MAXDOUBLE,
          G_MAXDOUBLE, 0.0, (GParamFlags)(G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS)),
      flags);
}

} // namespace

void
batch_install_properties (GObjectClass * klass, guint64 default_timeout_us)
{
  const BatchSettings d;
  const auto flags = (GParamFlags)(G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
                                   GST_PARAM_MUTABLE_PLAYING);
  /**
   * GstCsBatch:batch-size:
   *
   * Slots per batch. 0: one per sink pad still in the stream, so the
   * tensor's first dimension follows pads added, removed and ended (a new
   * shape is renegotiated before the batch). With more pads than slots the
   * pads take turns; with fewer, the slots left are empty.
   *
   * Since: 0.3
   */
  g_object_class_install_property (klass, PROP_BATCH_SIZE,
      g_param_spec_uint ("batch-size", "Batch size",
          "Slots per batch (0: one per sink pad in the stream)", 0, 65535, d.batch_size,
          flags));
  g_object_class_install_property (klass, PROP_WIDTH,
      g_param_spec_int (
          "width", "Width", "Width of each slot in pixels", 1, 16384, d.width, flags));
  g_object_class_install_property (klass, PROP_HEIGHT,
      g_param_spec_int ("height", "Height", "Height of each slot in pixels", 1, 16384,
          d.height, flags));
  g_object_class_install_property (klass, PROP_LAYOUT,
      g_param_spec_enum ("layout", "Layout",
          "Order of the tensor's dimensions: nchw (planar) or nhwc (interleaved)",
          GST_TYPE_CS_BATCH_LAYOUT, d.layout, flags));
  g_object_class_install_property (klass, PROP_CHANNEL_ORDER,
      g_param_spec_enum ("channel-order", "Channel order",
          "Order of the colour channels in the tensor", GST_TYPE_CS_BATCH_CHANNEL_ORDER,
          d.order, flags));
  g_object_class_install_property (klass, PROP_DTYPE,
      g_param_spec_enum ("dtype", "Element type",
          "Element type: uint8 (codes as they are) or float16/float32 (normalised)",
          GST_TYPE_CS_BATCH_DTYPE, d.dtype, flags));
  /**
   * GstCsBatch:mean:
   *
   * Per channel of the tensor (in its channel order), for float tensors:
   * value = (code / 255 - mean) / std. One number stands for all three.
   * Setting mean or std makes them the normalisation (over scale/offset).
   *
   * Since: 0.3
   */
  g_object_class_install_property (klass, PROP_MEAN,
      channels_spec ("mean", "Mean",
          "Per-channel mean of (code / 255), as \"<0.485,0.456,0.406>\"", flags));
  g_object_class_install_property (klass, PROP_STD,
      channels_spec ("std", "Std",
          "Per-channel standard deviation of (code / 255), as \"<0.229,0.224,0.225>\"",
          flags));
  /**
   * GstCsBatch:scale:
   *
   * Per channel, for float tensors: value = code * scale + offset. Setting
   * scale or offset makes them the normalisation (over mean/std).
   *
   * Since: 0.3
   */
  g_object_class_install_property (klass, PROP_SCALE,
      channels_spec ("scale", "Scale",
          "Per-channel factor: value = code * scale + offset (over mean/std once set)",
          flags));
  g_object_class_install_property (klass, PROP_OFFSET,
      channels_spec ("offset", "Offset",
          "Per-channel offset: value = code * scale + offset (over mean/std once set)",
          flags));
  g_object_class_install_property (klass, PROP_LETTERBOX,
      g_param_spec_boolean ("letterbox", "Letterbox",
          "Keep each frame's display aspect ratio, with borders (else stretch it)",
          d.letterbox, flags));
  g_object_class_install_property (klass, PROP_LETTERBOX_POSITION,
      g_param_spec_enum ("letterbox-position", "Letterbox position",
          "Where the picture goes in its slot when letterboxed",
          GST_TYPE_CS_BATCH_POSITION, d.position, flags));
  g_object_class_install_property (klass, PROP_BORDER_VALUE,
      g_param_spec_uint ("border-value", "Border value",
          "Code (0-255) of the borders in every channel, before normalisation", 0, 255,
          d.border, flags));
  g_object_class_install_property (klass, PROP_METHOD,
      g_param_spec_enum ("method", "Method",
          "Scaling filter (cudaconvertscale's): nearest-neighbour, bilinear, bicubic "
          "or area",
          GST_TYPE_CS_CONVERT_SCALE_METHOD, d.method, flags));
  /**
   * GstCsBatch:batched-push-timeout:
   *
   * With live sources: how long after a batch is due it waits for a
   * stalled source, in microseconds; then the batch goes out with that
   * source's slot empty, and where no source has a frame a GAP event goes
   * out instead. It is GstAggregator's latency under another name: setting
   * either sets both, so that the LATENCY answer (upstream's latency and
   * this) and the wait agree. The partial batch is started early enough
   * for its own work to fit in the timeout (by the longest that recent
   * batches took, plus a tenth of the timeout, at most half of it), so
   * that it leaves at most one frame interval plus the timeout after its
   * oldest frame's capture. Without live sources every batch waits for
   * every pad that has not ended.
   *
   * Since: 0.3
   */
  g_object_class_install_property (klass, PROP_TIMEOUT,
      g_param_spec_uint64 ("batched-push-timeout", "Batched push timeout",
          "Live sources: microseconds a batch may wait for a stalled source; the "
          "partial batch is started early enough to leave within it",
          0, G_MAXUINT64 / 1000, default_timeout_us, flags));
  g_object_class_install_property (klass, PROP_DEVICE_ID,
      g_param_spec_int ("device-id", "Device ID",
          "CUDA device to batch on (-1: the default device); read at start", -1, 32767,
          -1,
          (GParamFlags)(G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
                        GST_PARAM_MUTABLE_READY)));
  g_object_class_install_property (klass, PROP_HOST_WAITS,
      g_param_spec_uint64 ("host-waits", "Host waits",
          "How often the element blocked the CPU on the GPU", 0, G_MAXUINT64, 0,
          (GParamFlags)(G_PARAM_READABLE | G_PARAM_STATIC_STRINGS)));
}

} // namespace gst_cs

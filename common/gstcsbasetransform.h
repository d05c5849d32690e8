/* Base class of the project's elements: a device, a leased stream, the
 * stream-pool context and a host-wait counter. */
#pragma once

#include <gst/gst.h>
#include <gst/base/gstbasetransform.h>
#include <cuda_runtime_api.h>

#include "gstcsapi.h"
#include "gstcshostwait.h"
#include "gstcsstreampool.h"

G_BEGIN_DECLS

#define GST_TYPE_CS_BASE_TRANSFORM (gst_cs_base_transform_get_type ())
G_DECLARE_DERIVABLE_TYPE (GstCsBaseTransform, gst_cs_base_transform, GST,
    CS_BASE_TRANSFORM, GstBaseTransform)

/**
 * GstCsBaseTransformClass:
 *
 * Subclasses read the fields of #GstCsBaseTransform (device, stream) between
 * start and stop, from the streaming thread. start() resolves the device
 * ("device-id" property), finds the stream pool (context) and leases a
 * stream; a missing device fails the state change with a clear error.
 *
 * Since: 0.1
 */
struct _GstCsBaseTransformClass {
  GstBaseTransformClass parent_class;
  /*< private >*/
  gpointer _reserved[GST_PADDING];
};

GST_CS_API gint              gst_cs_base_transform_get_device (GstCsBaseTransform * self);
GST_CS_API cudaStream_t      gst_cs_base_transform_get_stream (GstCsBaseTransform * self);
GST_CS_API GstCsWaitCounter* gst_cs_base_transform_get_waits  (GstCsBaseTransform * self);

G_END_DECLS

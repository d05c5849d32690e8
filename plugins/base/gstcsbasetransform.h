/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Base class of the elements: a device, a stream leased from the pool the
 * stream-pool context gives, a host-wait counter, and caps parsed once. */
#pragma once

#include <gst/gst.h>
#include <gst/base/gstbasetransform.h>
#include <gst/video/video.h>
#include <cuda_runtime_api.h>

#include "gstcshostwait.h"
#include "gstcssyncmeta-private.h"

G_BEGIN_DECLS

#define GST_TYPE_CS_BASE_TRANSFORM (gst_cs_base_transform_get_type ())
#define GST_CS_BASE_TRANSFORM(obj) \
  (G_TYPE_CHECK_INSTANCE_CAST ((obj), GST_TYPE_CS_BASE_TRANSFORM, GstCsBaseTransform))
#define GST_CS_BASE_TRANSFORM_CLASS(klass) \
  (G_TYPE_CHECK_CLASS_CAST ((klass), GST_TYPE_CS_BASE_TRANSFORM, GstCsBaseTransformClass))
#define GST_CS_BASE_TRANSFORM_GET_CLASS(obj) \
  (G_TYPE_INSTANCE_GET_CLASS ((obj), GST_TYPE_CS_BASE_TRANSFORM, GstCsBaseTransformClass))
#define GST_IS_CS_BASE_TRANSFORM(obj) \
  (G_TYPE_CHECK_INSTANCE_TYPE ((obj), GST_TYPE_CS_BASE_TRANSFORM))

typedef struct _GstCsBaseTransform GstCsBaseTransform;
typedef struct _GstCsBaseTransformClass GstCsBaseTransformClass;
typedef struct _GstCsBaseTransformPrivate GstCsBaseTransformPrivate;

/**
 * GstCsBaseTransform:
 * @in_info: the negotiated input caps, parsed
 * @out_info: the negotiated output caps, parsed
 *
 * Between start and stop a subclass reads the device, the stream and the
 * counter from the streaming thread. start() resolves the device (the
 * "device-id" property), finds the stream pool (GstContext) and leases a
 * stream; a missing device fails the state change with a clear error.
 */
struct _GstCsBaseTransform {
  GstBaseTransform parent;

  GstVideoInfo in_info;
  GstVideoInfo out_info;

  /*< private >*/
  GstCsBaseTransformPrivate * priv;
};

/**
 * GstCsBaseTransformClass:
 * @set_info: called by set_caps with both caps parsed; @in_info and
 *   @out_info are stored in the instance when it returns %TRUE
 * @submit_input_buffer: as #GstBaseTransformClass's, which a subclass
 *   overrides here instead (default: #GstBaseTransform's)
 * @generate_output: as #GstBaseTransformClass's, which a subclass
 *   overrides here instead (default: #GstBaseTransform's)
 *
 * The base class times the two per-frame calls for the cudastreams tracer
 * around whatever a subclass puts here.
 */
struct _GstCsBaseTransformClass {
  GstBaseTransformClass parent_class;

  gboolean (*set_info) (GstCsBaseTransform * self, GstCaps * incaps,
      GstVideoInfo * in_info, GstCaps * outcaps, GstVideoInfo * out_info);
  GstFlowReturn (*submit_input_buffer) (
      GstBaseTransform * trans, gboolean is_discont, GstBuffer * input);
  GstFlowReturn (*generate_output) (GstBaseTransform * trans, GstBuffer ** outbuf);
};

/* clang-format off */
GType              gst_cs_base_transform_get_type        (void);

gint               gst_cs_base_transform_get_device      (GstCsBaseTransform * self);

cudaStream_t       gst_cs_base_transform_get_stream      (GstCsBaseTransform * self);

GstCsWaitCounter * gst_cs_base_transform_get_waits       (GstCsBaseTransform * self);

guint64            gst_cs_base_transform_count_frame     (GstCsBaseTransform * self);

GstCsWaitMemo *    gst_cs_base_transform_get_input_waits (GstCsBaseTransform * self);

void               gst_cs_base_transform_sync_controlled (GstBaseTransform   * trans,
                                                          GstBuffer          * buffer);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (GstCsBaseTransform, gst_object_unref)

/* clang-format on */

G_END_DECLS

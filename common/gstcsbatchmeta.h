/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The batch meta: where each slot of a batched tensor comes from. */
#pragma once

#include <gst/gst.h>

#include "cudastreams-prelude.h"

G_BEGIN_DECLS

#define GST_CS_BATCH_META_API_TYPE (gst_cs_batch_meta_api_get_type ())
#define GST_CS_BATCH_META_INFO (gst_cs_batch_meta_get_info ())

/**
 * GstCsBatchSlot:
 * @empty: no frame in this slot (a stalled or ended source, or a batch
 *   larger than the sources); its tensor values are 0
 * @pad_index: the sink pad's number (N of sink_N)
 * @pad_name: the sink pad's name as a quark (g_quark_to_string())
 * @pts: the frame's presentation timestamp, as its source stamped it
 * @source_width: the frame's width in pixels (after its crop meta, if any)
 * @source_height: the frame's height
 * @scale_x: source pixels per tensor pixel, horizontally
 * @scale_y: source pixels per tensor pixel, vertically
 * @offset_x: the source x of tensor x = 0
 * @offset_y: the source y of tensor y = 0
 *
 * One slot of a batch. A point (x, y) of the tensor (pixel edges: the
 * centre of tensor pixel i is at i + 0.5) lies at (x * @scale_x +
 * @offset_x, y * @scale_y + @offset_y) of the source frame; a box maps
 * corner by corner. Points in the letterbox borders map outside the frame.
 *
 * Since: 0.3
 */
typedef struct {
  gboolean empty;
  guint pad_index;
  GQuark pad_name;
  GstClockTime pts;
  gint source_width;
  gint source_height;
  gdouble scale_x;
  gdouble scale_y;
  gdouble offset_x;
  gdouble offset_y;
  /*< private >*/
  gpointer _gst_reserved[GST_PADDING];
} GstCsBatchSlot;

/**
 * GstCsBatchMeta:
 * @meta: the parent
 * @n_slots: the batch size: the tensor's first dimension
 * @slots: (array length=n_slots): each slot, in the tensor's order
 *
 * Attached by cudabatch to every batch it pushes.
 *
 * Since: 0.3
 */
typedef struct {
  GstMeta meta;
  guint n_slots;
  GstCsBatchSlot * slots;
  /*< private >*/
  gpointer _gst_reserved[GST_PADDING];
} GstCsBatchMeta;

/* clang-format off */
GST_CS_API
GType               gst_cs_batch_meta_api_get_type (void);

GST_CS_API
const GstMetaInfo * gst_cs_batch_meta_get_info     (void);

/**
 * gst_buffer_get_cs_batch_meta:
 * @b: a #GstBuffer
 *
 * Returns: (nullable) (transfer none): the #GstCsBatchMeta of @b
 *
 * Since: 0.3
 */
#define gst_buffer_get_cs_batch_meta(b) \
  ((GstCsBatchMeta *) gst_buffer_get_meta ((b), GST_CS_BATCH_META_API_TYPE))

GST_CS_API
GstCsBatchMeta *    gst_cs_buffer_add_batch_meta   (GstBuffer            * buffer,
                                                    guint                  n_slots);

GST_CS_API
void                gst_cs_batch_slot_to_source    (const GstCsBatchSlot * slot,
                                                    gdouble                x,
                                                    gdouble                y,
                                                    gdouble              * source_x,
                                                    gdouble              * source_y);
/* clang-format on */

G_END_DECLS

/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "batch/gstcsbatchpad.h"

G_DEFINE_TYPE (GstCsBatchPad, gst_cs_batch_pad, GST_TYPE_AGGREGATOR_PAD);

static void
gst_cs_batch_pad_class_init (GstCsBatchPadClass *)
{}

static void
gst_cs_batch_pad_init (GstCsBatchPad * self)
{
  gst_video_info_init (&self->info);
  self->has_info = FALSE;
  self->index = 0;
}

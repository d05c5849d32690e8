/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "batch/gstcsbatchpad.h"

G_DEFINE_TYPE (GstCsBatchPad, gst_cs_batch_pad, GST_TYPE_AGGREGATOR_PAD);

static void
gst_cs_batch_pad_finalize (GObject * object)
{
  auto * self = GST_CS_BATCH_PAD (object);
  gst_clear_caps (&self->caps);
  delete self->imports;
  G_OBJECT_CLASS (gst_cs_batch_pad_parent_class)->finalize (object);
}

static void
gst_cs_batch_pad_class_init (GstCsBatchPadClass * klass)
{
  G_OBJECT_CLASS (klass)->finalize = gst_cs_batch_pad_finalize;
}

static void
gst_cs_batch_pad_init (GstCsBatchPad * self)
{
  gst_video_info_init (&self->info);
  self->caps = NULL;
  self->has_info = FALSE;
  self->index = 0;
  self->imports = new gst_cs::ScratchPool ();
}

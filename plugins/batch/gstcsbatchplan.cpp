/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "batch/gstcsbatchplan.hpp"

#include <algorithm>

namespace gst_cs {
namespace {

/* The sink pads in the order of their numbers, referenced. */
std::vector<GstCsBatchPad *>
sorted_pads (GstElement * element)
{
  std::vector<GstCsBatchPad *> pads;
  GST_OBJECT_LOCK (element);
  for (GList * l = element->sinkpads; l; l = l->next)
    pads.push_back (GST_CS_BATCH_PAD (gst_object_ref (l->data)));
  GST_OBJECT_UNLOCK (element);
  std::sort (pads.begin (), pads.end (),
      [] (GstCsBatchPad * a, GstCsBatchPad * b) { return a->index < b->index; });
  return pads;
}

/* Pads still in the stream: not ended, or with frames left. */
std::vector<GstCsBatchPad *>
active_pads (const std::vector<GstCsBatchPad *> & pads)
{
  std::vector<GstCsBatchPad *> active;
  for (GstCsBatchPad * p : pads) {
    auto * ap = GST_AGGREGATOR_PAD (p);
    if (!gst_aggregator_pad_is_eos (ap) || gst_aggregator_pad_has_buffer (ap))
      active.push_back (p);
  }
  return active;
}

/* The frame rate of the first pad that has one; 0/1 where none has. */
void
input_rate (const std::vector<GstCsBatchPad *> & pads, gint * n, gint * d)
{
  *n = 0, *d = 1;
  for (GstCsBatchPad * p : pads)
    if (p->has_info && GST_VIDEO_INFO_FPS_N (&p->info) > 0) {
      *n = GST_VIDEO_INFO_FPS_N (&p->info), *d = GST_VIDEO_INFO_FPS_D (&p->info);
      return;
    }
}

} // namespace

BatchPlan::BatchPlan (GstElement * element, const BatchSettings & s)
    : settings (s), pads_ (sorted_pads (element)), active_ (active_pads (pads_))
{
  batch_ = s.batch_size ? s.batch_size : (guint)active_.size ();
  input_rate (pads_, &fps_n_, &fps_d_);
  caps_ = batch_tensor_caps (s, MAX (batch_, 1), fps_n_, fps_d_);
}

GstClockTime
BatchPlan::frame_interval () const
{
  return fps_n_ > 0 ? gst_util_uint64_scale_int (GST_SECOND, fps_d_, fps_n_)
                    : GST_CLOCK_TIME_NONE;
}

BatchPlan::~BatchPlan ()
{
  for (GstCsBatchPad * p : pads_)
    gst_object_unref (p);
  gst_caps_unref (caps_);
}

} // namespace gst_cs

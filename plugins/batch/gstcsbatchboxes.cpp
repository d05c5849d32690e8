/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "config.h"

#include "batch/gstcsbatchboxes.hpp"

#include <algorithm>
#include <cmath>

#include <gst/video/gstvideometa.h>
#if HAVE_GST_ANALYTICS_OD
#include <gst/analytics/analytics.h>
#endif

namespace gst_cs {
namespace {

/* One box of a frame, where it came from. */
struct FrameBox {
  GQuark type = 0;
  gint id = -1, parent_id = -1;
  double x = 0, y = 0, width = 0, height = 0;
  const GList * params = nullptr; /* a region-of-interest meta's */
  bool od = false;
  float confidence = 0.0f;
};

/* A slot's box as GStreamer's region-of-interest meta on the batch. */
void
add_box (GstBuffer * tensor, guint slot, const FrameBox & f, const BatchBox & b)
{
  /* Whole pixels: the corners rounded, as GStreamer's own meta transforms
   * round them. */
  const double x0 = std::floor (b.x + 0.5), y0 = std::floor (b.y + 0.5);
  const double x1 = std::floor (b.x + b.width + 0.5),
               y1 = std::floor (b.y + b.height + 0.5);
  GstVideoRegionOfInterestMeta * m = gst_buffer_add_video_region_of_interest_meta_id (
      tensor, f.type, (guint)x0, (guint)y0, (guint)(x1 - x0), (guint)(y1 - y0));
  if (!m)
    return;
  m->id = f.id;
  m->parent_id = f.parent_id;
  for (const GList * l = f.params; l; l = l->next)
    gst_video_region_of_interest_meta_add_param (
        m, gst_structure_copy (static_cast<const GstStructure *> (l->data)));
  GstStructure * where =
      gst_structure_new ("GstCsBatchBox", "slot", G_TYPE_UINT, slot, "x", G_TYPE_DOUBLE,
          b.x, "y", G_TYPE_DOUBLE, b.y, "width", G_TYPE_DOUBLE, b.width, "height",
          G_TYPE_DOUBLE, b.height, "source", G_TYPE_STRING, f.od ? "od" : "roi", NULL);
  if (f.od)
    gst_structure_set (where, "confidence", G_TYPE_FLOAT, f.confidence, NULL);
  gst_video_region_of_interest_meta_add_param (m, where);
}

void
add_frame_box (GstBuffer * tensor, const SlotPicture & p, const FrameBox & f)
{
  BatchBox b;
  if (batch_map_box (p, f.x, f.y, f.width, f.height, &b))
    add_box (tensor, p.slot, f, b);
}

/* The frame's region-of-interest metas. */
void
add_roi_boxes (GstBuffer * tensor, GstBuffer * frame, const SlotPicture & p)
{
  gpointer state = NULL;
  while (GstMeta * meta = gst_buffer_iterate_meta_filtered (
             frame, &state, GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE)) {
    auto * roi = reinterpret_cast<GstVideoRegionOfInterestMeta *> (meta);
    FrameBox f;
    f.type = roi->roi_type;
    f.id = roi->id;
    f.parent_id = roi->parent_id;
    f.x = roi->x, f.y = roi->y, f.width = roi->w, f.height = roi->h;
    f.params = roi->params;
    add_frame_box (tensor, p, f);
  }
}

#if HAVE_GST_ANALYTICS_OD
/* The object-detection boxes of the frame's relation meta. */
void
add_od_boxes (GstBuffer * tensor, GstBuffer * frame, const SlotPicture & p)
{
  GstAnalyticsRelationMeta * rmeta = gst_buffer_get_analytics_relation_meta (frame);
  if (!rmeta)
    return;
  gpointer state = NULL;
  GstAnalyticsMtd mtd;
  while (gst_analytics_relation_meta_iterate (
      rmeta, &state, gst_analytics_od_mtd_get_mtd_type (), &mtd)) {
    gint x, y, w, h;
    gfloat confidence = 0.0f;
    if (!gst_analytics_od_mtd_get_location (&mtd, &x, &y, &w, &h, &confidence))
      continue;
    FrameBox f;
    f.type = gst_analytics_od_mtd_get_obj_type (&mtd);
    f.id = (gint)mtd.id;
    f.x = x, f.y = y, f.width = w, f.height = h;
    f.od = true;
    f.confidence = confidence;
    add_frame_box (tensor, p, f);
  }
}
#endif

} // namespace

bool
batch_map_box (
    const SlotPicture & p, double x, double y, double w, double h, BatchBox * box)
{
  if (p.region_width <= 0 || p.region_height <= 0)
    return false;
  /* frame -> visible region -> the picture in the slot */
  const double sx = (double)p.width / p.region_width;
  const double sy = (double)p.height / p.region_height;
  double x0 = p.x + (x - p.region_x) * sx, y0 = p.y + (y - p.region_y) * sy;
  double x1 = p.x + (x + w - p.region_x) * sx, y1 = p.y + (y + h - p.region_y) * sy;
  x0 = std::max (x0, (double)p.x), y0 = std::max (y0, (double)p.y);
  x1 = std::min (x1, (double)(p.x + p.width)),
  y1 = std::min (y1, (double)(p.y + p.height));
  if (!(x1 > x0) || !(y1 > y0))
    return false;
  box->x = x0, box->y = y0, box->width = x1 - x0, box->height = y1 - y0;
  return true;
}

void
batch_add_boxes (GstBuffer * tensor, const std::vector<GstBuffer *> & frames,
    const std::vector<SlotPicture> & pictures)
{
  for (size_t i = 0; i < frames.size () && i < pictures.size (); i++) {
    add_roi_boxes (tensor, frames[i], pictures[i]);
#if HAVE_GST_ANALYTICS_OD
    add_od_boxes (tensor, frames[i], pictures[i]);
#endif
  }
}

} // namespace gst_cs

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Caps and ALLOCATION-query helpers shared by the elements. */
#pragma once

#include <gst/video/video.h>

#include "gstcsmemory.h"

G_BEGIN_DECLS

/* The raw video formats the elements move between host and device. */
#define GST_CS_VIDEO_FORMATS \
  "{ RGBA, BGRA, RGBx, BGRx, ARGB, ABGR, RGB, BGR, " \
  "GRAY8, GRAY16_LE, NV12, NV21, I420, YV12, Y42B, Y444, P010_10LE, P016_LE, " \
  "YUY2, UYVY, RGBP, BGRP }"

/* Largest width/height accepted in caps: bounds a frame to a few GiB. */
#define GST_CS_VIDEO_MAX_SIZE 16384

/* Template caps of the elements: the formats above, 1 to 16384 pixels, in
 * the memory @features names ("" for system memory). */
#define GST_CS_VIDEO_CAPS(features) \
  "video/x-raw" features ", format = (string) " GST_CS_VIDEO_FORMATS \
  ", width = (int) [ 1, 16384 ], height = (int) [ 1, 16384 ], " \
  "framerate = (fraction) [ 0, max ]"
#define GST_CS_VIDEO_DEVICE_CAPS GST_CS_VIDEO_CAPS ("(" GST_CAPS_FEATURE_MEMORY_CS ")")
#define GST_CS_VIDEO_SYSTEM_CAPS GST_CS_VIDEO_CAPS ("")

/* The same for alternate fields (interlace-mode=alternate, one field a
 * buffer), which GStreamer describes with the format:Interlaced feature
 * beside the memory's: "; "-separated, to follow the caps above in an
 * element's template. */
#define GST_CS_VIDEO_FIELD_CAPS(memory) \
  "; " GST_CS_VIDEO_CAPS ("(" memory GST_CAPS_FEATURE_FORMAT_INTERLACED ")")
#define GST_CS_VIDEO_DEVICE_FIELD_CAPS \
  GST_CS_VIDEO_FIELD_CAPS (GST_CAPS_FEATURE_MEMORY_CS ", ")
#define GST_CS_VIDEO_SYSTEM_FIELD_CAPS GST_CS_VIDEO_FIELD_CAPS ("")

/* clang-format off */
gboolean  gst_cs_caps_are_device                (const GstCaps  * caps);

GstCapsFeatures *
          gst_cs_caps_features_in_memory        (const GstCapsFeatures * features,
                                                 const gchar     * memory);

GstCaps * gst_cs_caps_with_memory               (GstCaps        * caps,
                                                 gboolean         device,
                                                 GstCaps        * filter);

GstCaps * gst_cs_caps_any_memory                (GstCaps        * caps,
                                                 GstCaps        * filter);

GstCaps * gst_cs_caps_apply_filter              (GstCaps        * caps,
                                                 GstCaps        * filter);

void      gst_cs_query_set_pool                 (GstQuery       * query,
                                                 GstBufferPool  * pool,
                                                 guint            size,
                                                 guint            min,
                                                 guint            max);

void      gst_cs_query_propose_held             (GstQuery       * query,
                                                 guint            held,
                                                 guint            bound);

void      gst_cs_query_propose_held_passthrough (GstQuery       * query,
                                                 GstQuery       * decide_query,
                                                 guint            own);

void      gst_cs_query_parse_held               (GstQuery       * query,
                                                 guint          * held,
                                                 guint          * bound);

gboolean  gst_cs_query_parse_video_info         (GstQuery       * query,
                                                 GstCaps       ** caps,
                                                 GstVideoInfo   * info);

guint     gst_cs_pool_bound                     (guint            min,
                                                 guint            downstream_bound,
                                                 guint            own);

void      gst_cs_query_add_layout_metas         (GstQuery       * query);

/* clang-format on */

G_END_DECLS

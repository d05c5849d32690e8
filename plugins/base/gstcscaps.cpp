/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "base/gstcscaps.h"

#include <initializer_list>

#include "gstcsvideo-private.h"

/* Whether the first structure of @caps carries our device-memory feature. */
gboolean
gst_cs_caps_are_device (const GstCaps * caps)
{
  if (!caps || gst_caps_is_empty (caps) || gst_caps_is_any (caps))
    return FALSE;
  GstCapsFeatures * f = gst_caps_get_features (caps, 0);
  return f && gst_caps_features_contains (f, GST_CAPS_FEATURE_MEMORY_CS);
}

/* The caps features of a structure of @features moved into @memory (a
 * memory feature, or NULL for system memory): the memory's feature, and
 * format:Interlaced where @features has it (alternate fields stay fields
 * in any memory). */
GstCapsFeatures *
gst_cs_caps_features_in_memory (const GstCapsFeatures * features, const gchar * memory)
{
  GstCapsFeatures * out =
      memory ? gst_caps_features_new (memory, NULL) : gst_caps_features_new_empty ();
  if (features && !gst_caps_features_is_any (features) &&
      gst_caps_features_contains (features, GST_CAPS_FEATURE_FORMAT_INTERLACED))
    gst_caps_features_add (out, GST_CAPS_FEATURE_FORMAT_INTERLACED);
  return out;
}

/* @caps with every structure's memory replaced: device memory or system
 * memory. The caps transform of an element that only moves frames between
 * memories; intersected with @filter (in its order) when given. */
GstCaps *
gst_cs_caps_with_memory (GstCaps * caps, gboolean device, GstCaps * filter)
{
  GstCaps * out = gst_caps_copy (caps);
  for (guint i = 0; i < gst_caps_get_size (out); i++)
    gst_caps_set_features (out, i,
        gst_cs_caps_features_in_memory (
            gst_caps_get_features (caps, i), device ? GST_CAPS_FEATURE_MEMORY_CS : NULL));
  return gst_cs_caps_apply_filter (out, filter);
}

/* @caps in device memory, then in system memory (device first: passthrough
 * of device frames is preferred). */
GstCaps *
gst_cs_caps_any_memory (GstCaps * caps, GstCaps * filter)
{
  GstCaps * both = gst_caps_merge (gst_cs_caps_with_memory (caps, TRUE, NULL),
      gst_cs_caps_with_memory (caps, FALSE, NULL));
  return gst_cs_caps_apply_filter (both, filter);
}

/* The end of every caps transform: @caps (taken) intersected with the
 * @filter of a caps query, in the filter's order (the preference of the
 * one who asks), or @caps themselves without a filter. */
GstCaps *
gst_cs_caps_apply_filter (GstCaps * caps, GstCaps * filter)
{
  if (!filter)
    return caps;
  GstCaps * out = gst_caps_intersect_full (filter, caps, GST_CAPS_INTERSECT_FIRST);
  gst_caps_unref (caps);
  return out;
}

/* Puts @pool first in an ALLOCATION @query, replacing the first pool
 * downstream proposed. */
void
gst_cs_query_set_pool (
    GstQuery * query, GstBufferPool * pool, guint size, guint min, guint max)
{
  if (gst_query_get_n_allocation_pools (query) > 0)
    gst_query_set_nth_allocation_pool (query, 0, pool, size, min, max);
  else
    gst_query_add_allocation_pool (query, pool, size, min, max);
}

/* Tells upstream, in an ALLOCATION @query it answers, that the element reads
 * any plane layout (GstVideoMeta) and honours crop metas (GstVideoCropMeta). */
void
gst_cs_query_add_layout_metas (GstQuery * query)
{
  for (GType api : { GST_VIDEO_META_API_TYPE, GST_VIDEO_CROP_META_API_TYPE })
    if (!gst_query_find_allocation_meta (query, api, NULL))
      gst_query_add_allocation_meta (query, api, NULL);
}

/* Tells upstream, through the first pool entry, how many of its buffers the
 * element may hold at once (@held, the entry's minimum: an element that
 * keeps frames in flight holds that many, and a pool too small for them
 * makes the producer wait for the consumer) and, when @bound is not 0, how
 * many at most its pool may have (the entry's maximum: an application that
 * holds frames states how many; past that, the producer waits for it). */
void
gst_cs_query_propose_held (GstQuery * query, guint held, guint bound)
{
  if (gst_query_get_n_allocation_pools (query) == 0) {
    /* An entry without a pool still needs the frame size: elements using
     * basetransform's default allocation configure a pool with it. */
    GstVideoInfo info, layout;
    if (!gst_cs_query_parse_video_info (query, NULL, &info))
      return;
    gst_cs_video_info_device_layout (&info, &layout);
    /* The caps' default layout can be the larger one (NV12 rounds odd
     * heights up), and a video pool refuses a size below it. */
    gst_query_add_allocation_pool (
        query, NULL, MAX (layout.size, info.size), held, bound ? MAX (bound, held) : 0);
    return;
  }
  GstBufferPool * pool = NULL;
  guint size = 0, min = 0, max = 0;
  gst_query_parse_nth_allocation_pool (query, 0, &pool, &size, &min, &max);
  min = MAX (min, held);
  if (bound)
    max = MAX (max, bound);
  gst_query_set_nth_allocation_pool (query, 0, pool, size, min, max ? MAX (max, min) : 0);
  if (pool)
    gst_object_unref (pool);
}

/* gst_cs_query_propose_held() for an element that may pass upstream's
 * frames on untouched: downstream then holds them as well, so upstream is
 * asked for what downstream holds (its answer to @decide_query, the
 * element's own ALLOCATION query; NULL when there was none) and @own more,
 * and a bound downstream sets grows by @own too. */
void
gst_cs_query_propose_held_passthrough (
    GstQuery * query, GstQuery * decide_query, guint own)
{
  guint held = 0, bound = 0;
  if (decide_query)
    gst_cs_query_parse_held (decide_query, &held, &bound);
  gst_cs_query_propose_held (query, held + own, bound ? bound + own : 0);
}

/* The caps of an ALLOCATION @query (not a new reference; @caps may be NULL)
 * and their video @info. FALSE when the query has no caps or they are not
 * raw video. */
gboolean
gst_cs_query_parse_video_info (GstQuery * query, GstCaps ** caps, GstVideoInfo * info)
{
  GstCaps * c = NULL;
  gst_query_parse_allocation (query, &c, NULL);
  if (caps)
    *caps = c;
  return c && gst_video_info_from_caps (info, c);
}

/* The frames downstream holds at once and the bound it sets on the pool (0:
 * none), from the first pool entry of an ALLOCATION @query it answered. */
void
gst_cs_query_parse_held (GstQuery * query, guint * held, guint * bound)
{
  *held = *bound = 0;
  if (gst_query_get_n_allocation_pools (query) > 0)
    gst_query_parse_nth_allocation_pool (query, 0, NULL, NULL, held, bound);
}

/* The most buffers a pool of ours may have: none set (0, it grows as
 * needed) unless downstream bounds what it holds; then that bound, plus the
 * @own frames the element itself holds, and never below the pool's @min. */
guint
gst_cs_pool_bound (guint min, guint downstream_bound, guint own)
{
  return downstream_bound ? MAX (min, downstream_bound + own) : 0;
}

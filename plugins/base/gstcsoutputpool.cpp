/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "base/gstcsoutputpool.hpp"

#include <gst/video/video.h>

#include "gstcsbufferpool-private.h"
#include "base/gstcscaps.h"
#include "gstcserror-private.h"
#include "nvcodec/gstcsnvcodec.hpp"

namespace gst_cs {

GstBufferPool *
output_pool_new (GstElement * element, gint device, GstCaps * caps, guint size, guint min,
    guint max, GstQuery * query, bool nvcodec)
{
  if (nvcodec) {
    GError * err = NULL;
    GstBufferPool * pool = nvcodec_pool_new (device, caps, size, min, max, query, &err);
    if (!pool)
      GST_CS_POST_ERROR (element, err, "Cannot allocate frames in nvcodec's memory");
    return pool;
  }
  GstBufferPool * pool = gst_cs_buffer_pool_new (device);
  GstStructure * config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_set_params (config, caps, size, min, max);
  gst_buffer_pool_config_add_option (config, GST_BUFFER_POOL_OPTION_VIDEO_META);
  if (!gst_buffer_pool_set_config (pool, config)) {
    GST_ELEMENT_ERROR (element, RESOURCE, SETTINGS, (NULL),
        ("Cannot configure a device buffer pool for %" GST_PTR_FORMAT, caps));
    gst_object_unref (pool);
    return NULL;
  }
  return pool;
}

namespace {

/* Posts why `pool` could not allocate (ours keeps the allocator's error),
 * else `fallback`, as an element error of `element`. */
void
post_allocation_error (GstElement * element, GstBufferPool * pool, const char * fallback)
{
  GError * err = GST_IS_CS_BUFFER_POOL (pool)
                     ? gst_cs_buffer_pool_take_error (GST_CS_BUFFER_POOL (pool))
                     : NULL;
  if (!err)
    err = g_error_new_literal (GST_CS_ERROR, GST_CS_ERROR_CUDA, fallback);
  GST_CS_POST_ERROR (element, err, "Cannot allocate device frames");
}

} // namespace

bool
activate_output_pool (GstElement * element, GstBufferPool * pool)
{
  if (gst_buffer_pool_is_active (pool) || gst_buffer_pool_set_active (pool, TRUE))
    return true;
  post_allocation_error (element, pool, "Cannot activate the device pool");
  return false;
}

bool
decide_output_pool (GstCsBaseTransform * base, GstQuery * query, guint min_buffers,
    bool nvcodec, GstBufferPool ** pool)
{
  GstCaps * caps = NULL;
  GstVideoInfo info;
  if (!gst_cs_query_parse_video_info (query, &caps, &info))
    return false;
  guint dmin = 0, dbound = 0;
  gst_cs_query_parse_held (query, &dmin, &dbound);
  const guint min = MAX (min_buffers, dmin);
  const guint max = gst_cs_pool_bound (min, dbound, 1);
  GstBufferPool * made = output_pool_new (GST_ELEMENT (base),
      gst_cs_base_transform_get_device (base), caps, info.size, min, max, query, nvcodec);
  if (!made)
    return false;
  /* Only the element writes these frames, on its stream: the one released
   * last may go out first (GstCsBufferPool). */
  if (GST_IS_CS_BUFFER_POOL (made))
    gst_cs_buffer_pool_set_writer_stream (
        GST_CS_BUFFER_POOL (made), gst_cs_base_transform_get_stream (base));
  gst_object_replace ((GstObject **)pool, GST_OBJECT_CAST (made));
  gst_object_unref (made);
  gst_cs_query_set_pool (query, *pool, info.size, min, max);
  return true;
}

GstFlowReturn
acquire_output_frame (GstBaseTransform * trans, GstBufferPool * pool, GstBuffer * source,
    GstBuffer ** outbuf)
{
  if (!pool || !activate_output_pool (GST_ELEMENT (trans), pool))
    return GST_FLOW_ERROR;
  GstFlowReturn ret = gst_buffer_pool_acquire_buffer (pool, outbuf, NULL);
  /* An active pool grows past its first frames where downstream holds
   * more: that allocation may fail too (FLUSHING and EOS are no failure). */
  if (ret == GST_FLOW_ERROR)
    post_allocation_error (GST_ELEMENT (trans), pool, "Cannot allocate a device frame");
  if (ret != GST_FLOW_OK)
    return ret;
  GST_BASE_TRANSFORM_GET_CLASS (trans)->copy_metadata (trans, source, *outbuf);
  return GST_FLOW_OK;
}

} // namespace gst_cs

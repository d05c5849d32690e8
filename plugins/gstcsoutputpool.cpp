/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "gstcsoutputpool.hpp"

#include <gst/video/video.h>

#include "gstcsbufferpool-private.h"
#include "gstcserror-private.h"
#include "gstcsnvcodec.hpp"

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

bool
activate_output_pool (GstElement * element, GstBufferPool * pool)
{
  if (gst_buffer_pool_is_active (pool) || gst_buffer_pool_set_active (pool, TRUE))
    return true;
  GError * err = GST_IS_CS_BUFFER_POOL (pool)
                     ? gst_cs_buffer_pool_take_error (GST_CS_BUFFER_POOL (pool))
                     : NULL;
  if (!err)
    err =
        g_error_new (GST_CS_ERROR, GST_CS_ERROR_CUDA, "Cannot activate the device pool");
  GST_CS_POST_ERROR (element, err, "Cannot allocate device frames");
  return false;
}

} // namespace gst_cs

/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "base/gstcsscratchpool.hpp"

#include "gstcsbufferpool-private.h"
#include "gstcserror-private.h"
#include "gstcsmemory-private.h"

namespace gst_cs {

void
ScratchPool::reset ()
{
  if (pool_) {
    gst_buffer_pool_set_active (pool_, FALSE);
    gst_clear_object (&pool_);
  }
  device_ = -1;
}

bool
ScratchPool::configure (GstBufferPool * pool, GstCaps * caps, gsize size, GError ** error)
{
  pool_ = pool;
  GstStructure * config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_set_params (config, caps, (guint)size, 0, 0);
  if (!GST_IS_CS_BUFFER_POOL (pool)) {
    GstAllocator * alloc = gst_cs_allocator_new (device_);
    gst_buffer_pool_config_set_allocator (config, alloc, NULL);
    gst_object_unref (alloc);
  }
  if (!gst_buffer_pool_set_config (pool, config)) {
    g_set_error (error, GST_CS_ERROR, GST_CS_ERROR_INVALID,
        "Cannot configure a pool of %" G_GSIZE_FORMAT "-byte device buffers", size);
    return false;
  }
  return true;
}

GstBuffer *
ScratchPool::frame (gint device, const GstVideoInfo * info, GError ** error)
{
  if (!pool_ || !video_ || device_ != device || !gst_video_info_is_equal (&info_, info)) {
    reset ();
    device_ = device;
    video_ = true;
    info_ = *info;
    GstCaps * caps = gst_video_info_to_caps (info);
    bool ok = configure (gst_cs_buffer_pool_new (device), caps, info->size, error);
    gst_caps_unref (caps);
    if (!ok) {
      reset ();
      return nullptr;
    }
  }
  return acquire (error);
}

GstBuffer *
ScratchPool::bytes (gint device, gsize size, GError ** error)
{
  if (!pool_ || video_ || device_ != device || size_ != size) {
    reset ();
    device_ = device;
    video_ = false;
    size_ = size;
    if (!configure (gst_buffer_pool_new (), NULL, size, error)) {
      reset ();
      return nullptr;
    }
  }
  return acquire (error);
}

GstBuffer *
ScratchPool::acquire (GError ** error)
{
  GstBuffer * buf = NULL;
  if ((gst_buffer_pool_is_active (pool_) || gst_buffer_pool_set_active (pool_, TRUE)) &&
      gst_buffer_pool_acquire_buffer (pool_, &buf, NULL) == GST_FLOW_OK)
    return buf;
  GError * why = GST_IS_CS_BUFFER_POOL (pool_)
                     ? gst_cs_buffer_pool_take_error (GST_CS_BUFFER_POOL (pool_))
                     : NULL;
  if (why)
    g_propagate_error (error, why);
  else
    g_set_error (error, GST_CS_ERROR, GST_CS_ERROR_OUT_OF_MEMORY,
        "Cannot allocate a device buffer on CUDA device %d", device_);
  return nullptr;
}

} // namespace gst_cs

/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "batch/gstcselementdevice.hpp"

#include "gstcscontext-private.h"
#include "gstcsdevice-private.h"
#include "gstcserror-private.h"
#include "base/gstcsframespan.hpp"
#include "nvcodec/gstcsnvcodec.hpp"

namespace gst_cs {

ElementDevice::~ElementDevice ()
{
  stop ();
  gst_clear_object (&stream_pool_);
}

void
ElementDevice::set_requested (gint device)
{
  GST_OBJECT_LOCK (owner_);
  requested_ = device;
  GST_OBJECT_UNLOCK (owner_);
}

gint
ElementDevice::requested () const
{
  GST_OBJECT_LOCK (owner_);
  const gint d = requested_;
  GST_OBJECT_UNLOCK (owner_);
  return d;
}

gint
ElementDevice::query_device () const
{
  return device_ >= 0 ? device_ : requested_;
}

bool
ElementDevice::start ()
{
  GError * err = NULL;
  gint device = -1;
  if (!gst_cs_device_resolve (requested (), &device, &err)) {
    GST_CS_POST_ERROR (owner_, err, "Cannot start");
    return false;
  }
  GstCsStreamPool * pool = NULL;
  if (!gst_cs_ensure_stream_pool (owner_, device, &pool, &err)) {
    GST_CS_POST_ERROR (owner_, err, "Cannot create CUDA streams");
    return false;
  }
  GST_OBJECT_LOCK (owner_);
  device_ = device;
  gst_object_replace ((GstObject **)&stream_pool_, GST_OBJECT_CAST (pool));
  lease_pool_ = pool; /* the stream goes back to it, whatever is set later */
  stream_ = gst_cs_stream_pool_lease (pool);
  GST_OBJECT_UNLOCK (owner_);
  GST_INFO_OBJECT (owner_, "device %d, stream %p", device, stream_);
  trace_ = trace_started (owner_);
  return true;
}

void
ElementDevice::stop ()
{
  trace_stopped (owner_, &trace_);
  GST_OBJECT_LOCK (owner_);
  if (lease_pool_ && stream_)
    gst_cs_stream_pool_release (lease_pool_, stream_);
  gst_clear_object (&lease_pool_);
  stream_ = nullptr;
  device_ = -1;
  GST_OBJECT_UNLOCK (owner_);
}

void
ElementDevice::set_context (GstContext * context)
{
  GST_OBJECT_LOCK (owner_);
  const gint device = query_device ();
  GstCsStreamPool * pool =
      stream_pool_ ? GST_CS_STREAM_POOL (gst_object_ref (stream_pool_)) : NULL;
  GST_OBJECT_UNLOCK (owner_);
  gst_cs_handle_set_context (owner_, context, device, &pool);
  take_cuda_context (owner_, context, device);
  GST_OBJECT_LOCK (owner_);
  gst_clear_object (&stream_pool_);
  stream_pool_ = pool;
  GST_OBJECT_UNLOCK (owner_);
}

bool
ElementDevice::answer_context_query (GstQuery * query)
{
  if (GST_QUERY_TYPE (query) != GST_QUERY_CONTEXT)
    return false;
  GST_OBJECT_LOCK (owner_);
  GstCsStreamPool * pool =
      stream_pool_ ? GST_CS_STREAM_POOL (gst_object_ref (stream_pool_)) : NULL;
  const gint device = query_device ();
  GST_OBJECT_UNLOCK (owner_);
  const bool ok = gst_cs_handle_context_query (owner_, query, pool);
  gst_clear_object (&pool);
  return ok || answer_cuda_context_query (owner_, query, device);
}

void
ElementDevice::announce ()
{
  GST_OBJECT_LOCK (owner_);
  const gint device = query_device ();
  GST_OBJECT_UNLOCK (owner_);
  post_cuda_context (owner_, device);
}

} // namespace gst_cs

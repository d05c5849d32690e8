/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "base/gstcspeerimport.hpp"

#include <mutex>
#include <set>
#include <utility>

#include "gstcserror-private.h"
#include "gstcsmemory-private.h"
#include "nvcodec/gstcsnvcodec.hpp"
#include "gstcssyncmeta-private.h"

namespace gst_cs {

bool
on_other_device (GstBuffer * buffer, gint device)
{
  if (gst_buffer_n_memory (buffer) != 1)
    return false;
  const gint on = memory_device (gst_buffer_peek_memory (buffer, 0));
  return on >= 0 && on != device;
}

/* Direct copies between the two devices where they allow it (once per pair
 * and process); otherwise CUDA copies through host memory by itself. The
 * calling thread has `device` current. */
static void
allow_peer_copies (gint device, gint peer)
{
  static std::mutex lock;
  static std::set<std::pair<gint, gint>> tried;
  std::lock_guard<std::mutex> guard (lock);
  if (!tried.insert ({ device, peer }).second)
    return;
  int can = 0;
  if (cudaDeviceCanAccessPeer (&can, device, peer) == cudaSuccess && can)
    (void)cudaDeviceEnablePeerAccess (peer, 0); /* already enabled: fine */
  (void)cudaGetLastError ();
}

/* The copy has the same layout and shows the same picture: the video meta
 * anew (gst_buffer_copy_into leaves it out: it is tagged with the memory,
 * which it does not copy), every meta not bound to the memory as it is
 * (the crop meta, regions of interest...), as GstBaseTransform copies them. */
static void
copy_metas (GstBuffer * dst, GstBuffer * src)
{
  if (const GstVideoMeta * vm = gst_buffer_get_video_meta (src))
    gst_buffer_add_video_meta_full (dst, vm->flags, vm->format, vm->width, vm->height,
        vm->n_planes, const_cast<gsize *> (vm->offset), const_cast<gint *> (vm->stride));
  static const GQuark memory = g_quark_from_static_string (GST_META_TAG_MEMORY_STR);
  static const GQuark reference = g_quark_from_static_string ("memory-reference");
  gpointer state = NULL;
  while (GstMeta * meta = gst_buffer_iterate_meta (src, &state)) {
    const GstMetaInfo * info = meta->info;
    if (!info->transform_func || gst_meta_api_type_has_tag (info->api, memory) ||
        gst_meta_api_type_has_tag (info->api, reference))
      continue;
    GstMetaTransformCopy copy = { FALSE, 0, (gsize)-1 };
    info->transform_func (dst, meta, src, _gst_meta_transform_copy, &copy);
  }
}

/* A frame of a device this process cannot use (a wrong device id from an
 * application, a device hidden by CUDA_VISIBLE_DEVICES) is refused before
 * CUDA is asked anything of it. */
static bool
check_source_device (gint peer, gint device, GError ** error)
{
  int n = 0;
  if (cudaGetDeviceCount (&n) != cudaSuccess)
    (void)cudaGetLastError ();
  if (peer >= 0 && peer < n)
    return true;
  g_set_error (error, GST_CS_ERROR, GST_CS_ERROR_INVALID,
      "The frame is in memory of CUDA device %d, which this process does not have "
      "(it sees %d device(s)); the element works on device %d",
      peer, n, device);
  return false;
}

/* Says which devices a failure was between (the CUDA message names neither). */
static bool
between_devices (gint peer, gint device, GError ** error)
{
  if (error && *error)
    g_prefix_error (
        error, "Copying a frame from CUDA device %d to device %d: ", peer, device);
  return false;
}

bool
import_from_other_device (GstBuffer * buffer, gint device, cudaStream_t stream,
    ScratchPool & pool, GstCsWaitCounter * waits, GstBuffer ** local, GError ** error)
{
  const gint peer = memory_device (gst_buffer_peek_memory (buffer, 0));
  if (!check_source_device (peer, device, error))
    return false;
  DeviceMapping src;
  if (!src.map (buffer, GST_MAP_READ, device, stream, waits, error))
    return between_devices (peer, device, error);
  allow_peer_copies (device, peer);
  GstBuffer * out = pool.bytes (device, src.size (), error);
  if (!out)
    return between_devices (peer, device, error);
  gst_buffer_copy_into (out, buffer,
      (GstBufferCopyFlags)(GST_BUFFER_COPY_FLAGS | GST_BUFFER_COPY_TIMESTAMPS), 0, -1);
  copy_metas (out, buffer);
  GstMemory * dst = gst_buffer_peek_memory (out, 0);
  GstCsSyncMeta * meta = NULL;
  if (gst_cs_buffer_wait_writable (out, stream, error) &&
      gst_cs_sync_meta_wait (buffer, stream, error) &&
      GST_CS_CHECK (cudaMemcpyPeerAsync (gst_cs_memory_get_device_pointer (dst), device,
                        src.data (), peer, src.size (), stream),
          error))
    /* nvcodec's memory knows nothing of readers: the caller holds the
     * buffer until this copy is done. */
    meta = gst_cs_sync_meta_record_read (
        out, src.nvcodec () ? NULL : buffer, device, stream, error);
  if (!meta) {
    gst_buffer_unref (out);
    return between_devices (peer, device, error);
  }
  *local = out;
  return true;
}

} // namespace gst_cs

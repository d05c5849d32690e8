/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "base/gstcsdevicework.hpp"

#include "base/gstcsframespan.hpp"

#include "gstcsdeviceguard.hpp"
#include "gstcsmemory-private.h"
#include "nvcodec/gstcsnvcodec.hpp"
#include "gstcssyncmeta-private.h"

namespace gst_cs {

bool
run_device_work (GstCsBaseTransform * base, GstBuffer * inbuf, GstBuffer * outbuf,
    const EnqueueWork & enqueue, GError ** error)
{
  cudaStream_t stream = gst_cs_base_transform_get_stream (base);
  const gint device = gst_cs_base_transform_get_device (base);
  GstCsWaitCounter * waits = gst_cs_base_transform_get_waits (base);
  DeviceGuard guard (device, error);
  FrameSpan span (base, inbuf, outbuf);
  DeviceMapping in, out;
  bool ok = guard.ok () && in.map (inbuf, GST_MAP_READ, device, stream, waits, error) &&
            out.map (outbuf, GST_MAP_WRITE, device, stream, waits, error) &&
            gst_cs_sync_meta_wait_memo (
                inbuf, stream, gst_cs_base_transform_get_input_waits (base), error) &&
            gst_cs_buffer_wait_writable (outbuf, stream, error);
  if (ok) {
    span.work_begins ();
    ok = enqueue (in.data (), out.data (), stream, error);
    span.work_ends ();
  }
  /* Upstream's pool makes its next writer of our memory wait for us. */
  GstCsSyncMeta * meta = ok ? gst_cs_sync_meta_record_read (outbuf,
                                  in.nvcodec () ? NULL : inbuf, device, stream, error)
                            : NULL;
  /* Into nvcodec's memory: its stream waits for ours (1.24+), or, for
   * 1.22, which reads what it gets at once, the one host wait of this edge. */
  return meta && publish_to_nvcodec (outbuf, meta->event, waits, error);
}

} // namespace gst_cs

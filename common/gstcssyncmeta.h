/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The sync meta: what a device buffer is waiting for. */
#pragma once

#include <gst/gst.h>
#include <cuda_runtime_api.h>

#include "cudastreams-prelude.h"
#include "gstcshostwait.h"

G_BEGIN_DECLS

#define GST_CS_SYNC_META_API_TYPE (gst_cs_sync_meta_api_get_type ())
#define GST_CS_SYNC_META_INFO (gst_cs_sync_meta_get_info ())

/**
 * GstCsSyncMeta:
 * @meta: the parent
 * @device_id: the device that produced the buffer's pixels
 * @stream: the stream the producing work was enqueued on
 * @event: an event recorded on @stream right after that work; it completes
 *   when the pixels are ready. %NULL (and @stream %NULL, @device_id -1)
 *   on a pooled buffer not recorded yet: gst_cs_sync_meta_wait() then
 *   falls back to the memory's last writer, so use it rather than
 *   @event directly.
 *
 * Attached to every device buffer by its producer (our pools attach it at
 * allocation and keep it across reuse, its event dropped at release). A consumer on @stream
 * needs nothing; one on another stream makes its stream wait on @event
 * (gst_cs_sync_meta_wait()); the CPU waits on @event alone
 * (gst_cs_sync_meta_wait_host()), never on the whole stream or device.
 * Copies of the buffer share the meta's event; the event goes back to its
 * pool when the last holder is freed, so @event is valid as long as the
 * buffer is.
 *
 * Since: 0.1
 */
typedef struct {
  GstMeta meta;
  gint device_id;
  cudaStream_t stream;
  cudaEvent_t event;
  /*< private >*/
  gpointer priv;
  gpointer _gst_reserved[GST_PADDING];
} GstCsSyncMeta;

/* clang-format off */
GST_CS_API
GType               gst_cs_sync_meta_api_get_type (void);

GST_CS_API
const GstMetaInfo * gst_cs_sync_meta_get_info     (void);

/**
 * gst_buffer_get_cs_sync_meta:
 * @b: a #GstBuffer
 *
 * Returns: (nullable) (transfer none): the #GstCsSyncMeta of @b
 *
 * Since: 0.1
 */
#define gst_buffer_get_cs_sync_meta(b) \
  ((GstCsSyncMeta *) gst_buffer_get_meta ((b), GST_CS_SYNC_META_API_TYPE))

GST_CS_API
GstCsSyncMeta *     gst_cs_sync_meta_record       (GstBuffer        * buffer,
                                                   gint               device_id,
                                                   cudaStream_t       stream,
                                                   GError          ** error);

GST_CS_API
gboolean            gst_cs_sync_meta_wait         (GstBuffer        * buffer,
                                                   cudaStream_t       stream,
                                                   GError          ** error);

GST_CS_API
gboolean            gst_cs_sync_meta_wait_host    (GstBuffer        * buffer,
                                                   GstCsWaitCounter * counter,
                                                   GError          ** error);

GST_CS_API
gboolean            gst_cs_buffer_add_reader      (GstBuffer        * buffer,
                                                   gint               device_id,
                                                   cudaStream_t       stream,
                                                   GError          ** error);

GST_CS_API
gboolean            gst_cs_buffer_wait_writable   (GstBuffer        * buffer,
                                                   cudaStream_t       stream,
                                                   GError          ** error);

/* clang-format on */

G_END_DECLS

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* cudastreamsipcsrc: frames and batches from another process, on the GPU. */
#pragma once

#include <gst/gst.h>
#include <gst/base/gstpushsrc.h>

G_BEGIN_DECLS

/**
 * GstCsIpcProducerLost:
 * @GST_CS_IPC_PRODUCER_LOST_ERROR: an element error saying why
 * @GST_CS_IPC_PRODUCER_LOST_EOS: the end of the stream
 *
 * What cudastreamsipcsrc does when its producer goes away before its end
 * of stream (killed, stopped).
 *
 * Since: 0.4
 */
typedef enum {
  GST_CS_IPC_PRODUCER_LOST_ERROR = 0,
  GST_CS_IPC_PRODUCER_LOST_EOS = 1,
} GstCsIpcProducerLost;

#define GST_TYPE_CS_IPC_PRODUCER_LOST (gst_cs_ipc_producer_lost_get_type ())
#define GST_TYPE_CS_IPC_SRC (gst_cs_ipc_src_get_type ())
/* clang-format off */
GType gst_cs_ipc_producer_lost_get_type (void);
G_DECLARE_FINAL_TYPE (GstCsIpcSrc, gst_cs_ipc_src, GST, CS_IPC_SRC, GstPushSrc)
/* clang-format on */

G_END_DECLS

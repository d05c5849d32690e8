/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* cudastreamsipcsink: frames and batches to other processes, on the GPU. */
#pragma once

#include <gst/gst.h>
#include <gst/base/gstbasesink.h>

G_BEGIN_DECLS

/**
 * GstCsIpcSlowConsumer:
 * @GST_CS_IPC_SLOW_CONSUMER_DROP: a consumer that holds max-frames frames
 *   misses the next ones; the others get them
 * @GST_CS_IPC_SLOW_CONSUMER_WAIT: the producer waits for it, at most
 *   wait-timeout per frame, then it misses the frame
 *
 * Since: 0.4
 */
typedef enum {
  GST_CS_IPC_SLOW_CONSUMER_DROP = 0,
  GST_CS_IPC_SLOW_CONSUMER_WAIT = 1,
} GstCsIpcSlowConsumer;

#define GST_TYPE_CS_IPC_SLOW_CONSUMER (gst_cs_ipc_slow_consumer_get_type ())
#define GST_TYPE_CS_IPC_SINK (gst_cs_ipc_sink_get_type ())
/* clang-format off */
GType gst_cs_ipc_slow_consumer_get_type (void);
G_DECLARE_FINAL_TYPE (GstCsIpcSink, gst_cs_ipc_sink, GST, CS_IPC_SINK, GstBaseSink)
/* clang-format on */

G_END_DECLS

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* One event for a frame's write and its reads (private: the library and the
 * plugin, not installed). */
#pragma once

#include "gstcssyncmeta.h"

G_BEGIN_DECLS

/* The last event records one stream (the element's leased stream) was made
 * to wait for, so that a record seen again (imagefreeze sends one buffer,
 * with one event, every frame) is not waited for again: that stream's
 * earlier wait already orders everything enqueued on it since. Kept by
 * whoever holds the lease, and forgotten (zeroed) when the lease is taken
 * and given back: while it is held the stream cannot be destroyed, so its
 * handle cannot come to name another stream that never waited. Zeroed
 * memory is an empty memo. One thread at a time (an element's streaming
 * thread). Not for the public gst_cs_sync_meta_wait(): an application may
 * destroy a stream and get the same handle back for a new one. */
#define GST_CS_WAIT_MEMO_SIZE 4
typedef struct {
  cudaStream_t stream;
  gconstpointer event[GST_CS_WAIT_MEMO_SIZE];
  guint64 seq[GST_CS_WAIT_MEMO_SIZE];
  guint next;
} GstCsWaitMemo;

/* clang-format off */
GST_CS_API
GstCsSyncMeta * gst_cs_sync_meta_record_read (GstBuffer    * buffer,
                                              GstBuffer    * read,
                                              gint           device_id,
                                              cudaStream_t   stream,
                                              GError      ** error);

GST_CS_API
void gst_cs_sync_meta_add_reader (GstCsSyncMeta * meta,
                                  GstBuffer     * read);

GST_CS_API
void gst_cs_sync_meta_copy       (GstBuffer     * dest,
                                  GstBuffer     * src);

GST_CS_API
void gst_cs_sync_meta_clear      (GstCsSyncMeta * meta);

GST_CS_API
gboolean gst_cs_sync_meta_wait_memo (GstBuffer     * buffer,
                                     cudaStream_t    stream,
                                     GstCsWaitMemo * memo,
                                     GError       ** error);

GST_CS_API
void gst_cs_wait_memo_forget     (GstCsWaitMemo * memo);

/* clang-format on */

G_END_DECLS

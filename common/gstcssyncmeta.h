/* The sync meta: what a device buffer is waiting for. */
#pragma once

#include <gst/gst.h>
#include <cuda_runtime_api.h>

#include "gstcsapi.h"
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
 *   when the pixels are ready
 *
 * Attached to every device buffer by its producer. A consumer on @stream
 * needs nothing; one on another stream makes its stream wait on @event
 * (gst_cs_sync_meta_wait()); the CPU waits on @event alone
 * (gst_cs_sync_meta_wait_host()), never on the whole stream or device.
 * Copies of the buffer share the meta and its event; the event returns to
 * its pool when the last holder is freed.
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
} GstCsSyncMeta;

GST_CS_API GType               gst_cs_sync_meta_api_get_type (void);
GST_CS_API const GstMetaInfo * gst_cs_sync_meta_get_info     (void);

#define gst_buffer_get_cs_sync_meta(b) \
  ((GstCsSyncMeta *) gst_buffer_get_meta ((b), GST_CS_SYNC_META_API_TYPE))

/**
 * gst_cs_sync_meta_record:
 * @buffer: a buffer (its metadata writable) whose memory the work on @stream writes
 * @device_id: the current device
 * @stream: the stream the producing work was enqueued on
 * @error: (out) (optional): the CUDA error
 *
 * The producer rule: after enqueuing the work that writes @buffer, record an
 * event on @stream and attach it (replacing an older one). Also notes the
 * event as the last writer of @buffer's device and pinned memory, which
 * from then on stands for every earlier access: the writer must have waited
 * for them first (gst_cs_buffer_wait_writable()).
 *
 * Returns: (transfer none) (nullable): the meta
 *
 * Since: 0.1
 */
GST_CS_API GstCsSyncMeta * gst_cs_sync_meta_record      (GstBuffer    * buffer,
                                                         gint           device_id,
                                                         cudaStream_t   stream,
                                                         GError      ** error);

/**
 * gst_cs_sync_meta_add_reader:
 * @meta: the meta just recorded by gst_cs_sync_meta_record()
 * @read: a buffer whose device or pinned memory the same work read
 *
 * Notes @meta's event as the end of GPU reads of @read's memory, so that a
 * later writer of that memory (a pool handing it out again) waits for them.
 * One event per frame serves both purposes.
 *
 * Since: 0.1
 */
GST_CS_API void            gst_cs_sync_meta_add_reader  (GstCsSyncMeta * meta,
                                                         GstBuffer     * read);

/**
 * gst_cs_buffer_add_reader:
 * @buffer: a buffer whose memory GPU work on @stream reads (or has read)
 * @device_id: the device @stream belongs to
 * @stream: the reader's stream, on which the reading work is already enqueued
 * @error: (out) (optional): the CUDA error
 *
 * For applications that read a buffer on a stream of their own (a kernel,
 * a copy, a framework such as PyTorch): records an event on @stream after the
 * work enqueued so far and notes it as a reader of @buffer's device and
 * pinned memory. Whoever writes that memory next (a pool handing it out
 * again, once the buffer is released) first waits on the GPU for the event,
 * so the application may release the buffer right after enqueuing its reads,
 * without waiting for them. Of two readers on one stream, the one enqueued
 * later is kept. Never blocks the CPU.
 *
 * Returns: %TRUE when the reader was noted
 *
 * Since: 0.1
 */
GST_CS_API gboolean        gst_cs_buffer_add_reader     (GstBuffer    * buffer,
                                                         gint           device_id,
                                                         cudaStream_t   stream,
                                                         GError      ** error);

/**
 * gst_cs_sync_meta_wait:
 * @buffer: a buffer about to be read by GPU work on @stream
 * @stream: the consumer's stream
 * @error: (out) (optional): the CUDA error
 *
 * The consumer rule: nothing when the buffer was produced on @stream,
 * otherwise cudaStreamWaitEvent() on its event. Never blocks the CPU.
 *
 * Since: 0.1
 */
GST_CS_API gboolean        gst_cs_sync_meta_wait        (GstBuffer    * buffer,
                                                         cudaStream_t   stream,
                                                         GError      ** error);

/**
 * gst_cs_sync_meta_wait_host:
 * @buffer: a buffer the CPU is about to read
 * @counter: (nullable): the waiter's counter
 * @error: (out) (optional): the CUDA error
 *
 * Waits on the host for the buffer's event only (a counted host wait, see
 * gst_cs_host_wait_event()).
 *
 * Since: 0.1
 */
GST_CS_API gboolean        gst_cs_sync_meta_wait_host   (GstBuffer        * buffer,
                                                         GstCsWaitCounter * counter,
                                                         GError          ** error);

/**
 * gst_cs_buffer_wait_writable:
 * @buffer: a buffer whose device memory work on @stream is about to write
 * @stream: the writer's stream
 * @error: (out) (optional): the CUDA error
 *
 * Makes @stream wait (on the GPU) for every GPU reader and writer of the
 * memory still in flight from the memory's previous use.
 *
 * Since: 0.1
 */
GST_CS_API gboolean        gst_cs_buffer_wait_writable  (GstBuffer    * buffer,
                                                         cudaStream_t   stream,
                                                         GError      ** error);

G_END_DECLS

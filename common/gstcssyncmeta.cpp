/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "gstcssyncmeta-private.h"

#include "gstcserror-private.h"
#include "gstcsevent.hpp"
#include "gstcshostwait-private.h"
#include "gstcsmemory.h"
#include "gstcsmemorysync.hpp"
#include "gstcspinnedmemory-private.h"

namespace {

using Waiter = gst_cs::Event::Waiter;

/* Who may wait for work that writes @buffer: only streams while it is all
 * our device memory; the CPU for host memory (it reads the pixels next) and
 * for another plugin's memory (nvcodec 1.22 is handed ready frames). */
Waiter
waiter_of (GstBuffer * buffer)
{
  for (guint i = 0; i < gst_buffer_n_memory (buffer); i++) {
    if (!gst_is_cs_memory (gst_buffer_peek_memory (buffer, i)))
      return Waiter::HOST;
  }
  return Waiter::GPU;
}

/* Whether @buffer holds our pinned memory, which the CPU writes again once
 * the reads that the memory's sync state notes have completed. */
bool
is_pinned (GstBuffer * buffer)
{
  for (guint i = 0; i < gst_buffer_n_memory (buffer); i++) {
    if (gst_is_cs_pinned_memory (gst_buffer_peek_memory (buffer, i)))
      return true;
  }
  return false;
}

gst_cs::Event *
event_of (GstCsSyncMeta * meta)
{
  return static_cast<gst_cs::Event *> (meta->priv);
}

void
set_event (GstCsSyncMeta * meta, gst_cs::Event * event /* transfer full */)
{
  if (meta->priv)
    event_of (meta)->unref ();
  meta->priv = event;
  meta->device_id = event ? event->device () : -1;
  meta->stream = event ? event->stream () : nullptr;
  meta->event = event ? event->handle () : nullptr;
}

gboolean
meta_init (GstMeta * meta, gpointer, GstBuffer *)
{
  auto * m = reinterpret_cast<GstCsSyncMeta *> (meta);
  m->device_id = -1;
  m->stream = nullptr;
  m->event = nullptr;
  m->priv = nullptr;
  return TRUE;
}

void
meta_free (GstMeta * meta, GstBuffer *)
{
  set_event (reinterpret_cast<GstCsSyncMeta *> (meta), nullptr);
}

/* Makes @dest's sync meta (added when it has none) share @src's event. */
void
share_event (GstBuffer * dest, GstCsSyncMeta * src)
{
  auto * d = reinterpret_cast<GstCsSyncMeta *> (
      gst_buffer_get_meta (dest, GST_CS_SYNC_META_API_TYPE));
  if (!d)
    d = reinterpret_cast<GstCsSyncMeta *> (
        gst_buffer_add_meta (dest, GST_CS_SYNC_META_INFO, nullptr));
  event_of (src)->ref ();
  set_event (d, event_of (src));
}

gboolean
meta_transform (GstBuffer * dest, GstMeta * meta, GstBuffer *, GQuark type, gpointer)
{
  /* A copy, or a region of the same memory, shares the pixels and so what
   * they wait for. Other transforms make new memory with its own producer. */
  if (!GST_META_TRANSFORM_IS_COPY (type))
    return FALSE;
  auto * src = reinterpret_cast<GstCsSyncMeta *> (meta);
  if (src->priv)
    share_event (dest, src);
  return TRUE;
}

template <typename F>
bool
for_each_sync (GstBuffer * buffer, F && f)
{
  for (guint i = 0; i < gst_buffer_n_memory (buffer); i++) {
    if (gst_cs::MemorySync * s = gst_cs::memory_sync (gst_buffer_peek_memory (buffer, i)))
      if (!f (s))
        return false;
  }
  return true;
}

} // namespace

/**
 * gst_cs_sync_meta_api_get_type:
 *
 * Returns: the API type of #GstCsSyncMeta; tagged "memory", as it describes
 *   the memory's pixels
 *
 * Since: 0.1
 */
GType
gst_cs_sync_meta_api_get_type (void)
{
  static GType type = 0;
  static const gchar * tags[] = { GST_META_TAG_MEMORY_STR, NULL };
  if (g_once_init_enter (&type)) {
    GType t = gst_meta_api_type_register ("GstCsSyncMetaAPI", tags);
    g_once_init_leave (&type, t);
  }
  return type;
}

/**
 * gst_cs_sync_meta_get_info:
 *
 * Returns: the #GstMetaInfo of #GstCsSyncMeta
 *
 * Since: 0.1
 */
const GstMetaInfo *
gst_cs_sync_meta_get_info (void)
{
  static const GstMetaInfo * info = NULL;
  if (g_once_init_enter (&info)) {
    const GstMetaInfo * i = gst_meta_register (GST_CS_SYNC_META_API_TYPE, "GstCsSyncMeta",
        sizeof (GstCsSyncMeta), meta_init, meta_free, meta_transform);
    g_once_init_leave (&info, i);
  }
  return info;
}

/**
 * gst_cs_sync_meta_record:
 * @buffer: a buffer (its metadata writable) whose memory the work on @stream
 *   writes
 * @device_id: the device of @stream
 * @stream: the stream the producing work was enqueued on
 * @error: (out) (optional): the CUDA error
 *
 * The producer rule: after enqueuing the work that writes @buffer, record an
 * event on @stream and attach it (replacing an older one). Also notes the
 * event as the last writer of @buffer's device and pinned memory, which
 * from then on stands for every earlier access: the writer must have waited
 * for them first (gst_cs_buffer_wait_writable()). Never blocks.
 *
 * Returns: (transfer none) (nullable): the meta
 *
 * Since: 0.1
 */
GstCsSyncMeta *
gst_cs_sync_meta_record (
    GstBuffer * buffer, gint device_id, cudaStream_t stream, GError ** error)
{
  return gst_cs_sync_meta_record_read (buffer, NULL, device_id, stream, error);
}

/* gst_cs_sync_meta_record() for work that also read @read (nullable): the
 * one event is noted as its reader too (gst_cs_sync_meta_add_reader()).
 * Where @read is our pinned memory, the CPU waits for that event before it
 * writes there again, so the event is one to sleep on. */
GstCsSyncMeta *
gst_cs_sync_meta_record_read (GstBuffer * buffer, GstBuffer * read, gint device_id,
    cudaStream_t stream, GError ** error)
{
  g_return_val_if_fail (GST_IS_BUFFER (buffer), NULL);
  g_return_val_if_fail (gst_buffer_is_writable (buffer), NULL);
  const Waiter waiter = read && is_pinned (read) ? Waiter::HOST : waiter_of (buffer);
  gst_cs::EventRef event (gst_cs::Event::acquire (device_id, waiter, error));
  if (!event || !event->record (stream, error))
    return NULL;
  for_each_sync (buffer, [&] (gst_cs::MemorySync * s) {
    s->set_writer (event);
    return true;
  });
  GstCsSyncMeta * meta = gst_buffer_get_cs_sync_meta (buffer);
  if (!meta)
    meta = reinterpret_cast<GstCsSyncMeta *> (
        gst_buffer_add_meta (buffer, GST_CS_SYNC_META_INFO, NULL));
  set_event (meta, event.release ());
  if (read)
    gst_cs_sync_meta_add_reader (meta, read);
  return meta;
}

/**
 * gst_cs_sync_meta_add_reader:
 * @meta: a meta just recorded by gst_cs_sync_meta_record()
 * @read: a buffer whose device or pinned memory the same work read
 *
 * Notes @meta's event as the end of GPU reads of @read's memory, so that a
 * later writer of that memory (a pool handing it out again) waits for them:
 * one event per frame serves both purposes.
 */
void
gst_cs_sync_meta_add_reader (GstCsSyncMeta * meta, GstBuffer * read)
{
  g_return_if_fail (meta && meta->priv);
  g_return_if_fail (GST_IS_BUFFER (read));
  event_of (meta)->ref ();
  gst_cs::EventRef event (event_of (meta));
  for_each_sync (read, [&] (gst_cs::MemorySync * s) {
    s->add_reader (event);
    return true;
  });
}

/**
 * gst_cs_sync_meta_copy:
 * @dest: a buffer (its metadata writable) with the same pixels as @src
 * @src: a buffer
 *
 * Makes @dest wait for what @src waits for: its sync meta shares @src's
 * event. (A buffer copy does this by itself; this is for a buffer that sees
 * the same memory through another memory object.)
 */
void
gst_cs_sync_meta_copy (GstBuffer * dest, GstBuffer * src)
{
  g_return_if_fail (GST_IS_BUFFER (dest) && GST_IS_BUFFER (src));
  GstCsSyncMeta * meta = gst_buffer_get_cs_sync_meta (src);
  if (meta && meta->priv)
    share_event (dest, meta);
}

/* Forgets @meta's event, as a buffer pool does when the buffer comes back
 * (the meta stays on it, to be recorded again by the next producer). What
 * the memory's own sync state notes (its writer, its readers) stays: the
 * next writer still waits for them. */
void
gst_cs_sync_meta_clear (GstCsSyncMeta * meta)
{
  g_return_if_fail (meta != NULL);
  set_event (meta, nullptr);
}

/**
 * gst_cs_buffer_add_reader:
 * @buffer: a buffer whose memory GPU work on @stream reads (or has read)
 * @device_id: the device @stream belongs to
 * @stream: the reader's stream, on which the reading work is already
 *   enqueued
 * @error: (out) (optional): the CUDA error
 *
 * For applications that read a buffer on a stream of their own (a kernel, a
 * copy, a framework such as PyTorch): records an event on @stream after the
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
gboolean
gst_cs_buffer_add_reader (
    GstBuffer * buffer, gint device_id, cudaStream_t stream, GError ** error)
{
  g_return_val_if_fail (GST_IS_BUFFER (buffer), FALSE);
  gst_cs::EventRef event (gst_cs::Event::acquire (device_id, waiter_of (buffer), error));
  if (!event || !event->record (stream, error))
    return FALSE;
  for_each_sync (buffer, [&] (gst_cs::MemorySync * s) {
    s->add_reader (event);
    return true;
  });
  return TRUE;
}

/**
 * gst_cs_sync_meta_wait:
 * @buffer: a buffer about to be read by GPU work on @stream
 * @stream: the consumer's stream
 * @error: (out) (optional): the CUDA error
 *
 * The consumer rule: nothing when the buffer was produced on @stream,
 * otherwise cudaStreamWaitEvent() on its event. The handles CUDA resolves
 * per calling thread and current device (the legacy and per-thread default
 * streams) always wait: the producer's may have been another stream under
 * the same value. Never blocks the CPU.
 *
 * Returns: %TRUE when @stream now waits for the buffer's producer
 *
 * Since: 0.1
 */
gboolean
gst_cs_sync_meta_wait (GstBuffer * buffer, cudaStream_t stream, GError ** error)
{
  g_return_val_if_fail (GST_IS_BUFFER (buffer), FALSE);
  GstCsSyncMeta * meta = gst_buffer_get_cs_sync_meta (buffer);
  if (meta && meta->event) {
    if (gst_cs::stream_order_covers (meta->stream, stream))
      return TRUE;
    return GST_CS_CHECK (cudaStreamWaitEvent (stream, meta->event, 0), error);
  }
  /* No meta (an application's buffer, or one whose meta a transform dropped):
   * fall back to what the memory itself knows about its last writer. */
  return for_each_sync (buffer,
      [&] (gst_cs::MemorySync * s) { return s->gpu_wait_writer (stream, error); });
}

/* Whether @memo notes (@event, its record) as waited for by @stream. */
static bool
memo_holds (const GstCsWaitMemo * memo, cudaStream_t stream, const gst_cs::Event * event)
{
  if (memo->stream != stream)
    return false;
  for (guint i = 0; i < GST_CS_WAIT_MEMO_SIZE; i++) {
    if (memo->event[i] == event && memo->seq[i] == event->seq ())
      return true;
  }
  return false;
}

static void
memo_note (GstCsWaitMemo * memo, cudaStream_t stream, const gst_cs::Event * event)
{
  if (memo->stream != stream) {
    gst_cs_wait_memo_forget (memo);
    memo->stream = stream;
  }
  const guint i = memo->next++ % GST_CS_WAIT_MEMO_SIZE;
  memo->event[i] = event;
  memo->seq[i] = event->seq ();
}

/* gst_cs_sync_meta_wait(), but a record @stream already waited for, as
 * @memo notes, is not waited for again. The memo holds no reference: a
 * record is named by its Event and its number, and an Event given back and
 * recorded again gets a new number (Event::record()), so a recycled Event
 * is never taken for the record that was waited for. Numbers are never 0.
 * Handles resolved per caller are never noted: the one value names other
 * streams on other devices and threads. */
gboolean
gst_cs_sync_meta_wait_memo (
    GstBuffer * buffer, cudaStream_t stream, GstCsWaitMemo * memo, GError ** error)
{
  g_return_val_if_fail (GST_IS_BUFFER (buffer) && memo, FALSE);
  GstCsSyncMeta * meta = gst_buffer_get_cs_sync_meta (buffer);
  if (!meta || !meta->priv || gst_cs::stream_order_covers (meta->stream, stream) ||
      gst_cs::stream_resolved_per_caller (stream))
    return gst_cs_sync_meta_wait (buffer, stream, error);
  const gst_cs::Event * event = event_of (meta);
  if (memo_holds (memo, stream, event))
    return TRUE;
  if (!GST_CS_CHECK (cudaStreamWaitEvent (stream, meta->event, 0), error))
    return FALSE;
  memo_note (memo, stream, event);
  return TRUE;
}

void
gst_cs_wait_memo_forget (GstCsWaitMemo * memo)
{
  *memo = GstCsWaitMemo{};
}

/**
 * gst_cs_sync_meta_wait_host:
 * @buffer: a buffer the CPU is about to read
 * @counter: (nullable): the waiter's counter
 * @error: (out) (optional): the CUDA error
 *
 * Waits on the host for the buffer's event only: a counted host wait that
 * polls briefly, then sleeps until the GPU signals the event where the
 * buffer is host memory. Events between GPU stages (device memory) are not
 * blocking-sync, as that costs GPU time on every frame: a wait on one spins
 * (CUDA's default schedule).
 *
 * Returns: %TRUE when the pixels are ready
 *
 * Since: 0.1
 */
gboolean
gst_cs_sync_meta_wait_host (
    GstBuffer * buffer, GstCsWaitCounter * counter, GError ** error)
{
  g_return_val_if_fail (GST_IS_BUFFER (buffer), FALSE);
  GstCsSyncMeta * meta = gst_buffer_get_cs_sync_meta (buffer);
  if (meta && meta->event)
    return gst_cs_host_wait_event (meta->event, counter, error);
  return for_each_sync (buffer, [&] (gst_cs::MemorySync * s) {
    gst_cs::EventRef w = s->writer ();
    return !w || gst_cs_host_wait_event (w->handle (), counter, error);
  });
}

/**
 * gst_cs_buffer_wait_writable:
 * @buffer: a buffer whose device memory work on @stream is about to write
 * @stream: the writer's stream
 * @error: (out) (optional): the CUDA error
 *
 * Makes @stream wait (on the GPU) for every GPU reader and writer of the
 * memory still in flight from the memory's previous use. Never blocks.
 *
 * Returns: %TRUE when @stream now waits for them
 *
 * Since: 0.1
 */
gboolean
gst_cs_buffer_wait_writable (GstBuffer * buffer, cudaStream_t stream, GError ** error)
{
  g_return_val_if_fail (GST_IS_BUFFER (buffer), FALSE);
  return for_each_sync (
      buffer, [&] (gst_cs::MemorySync * s) { return s->gpu_wait_all (stream, error); });
}

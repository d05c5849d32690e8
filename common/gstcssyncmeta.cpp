#include "gstcssyncmeta.h"

#include "gstcsevent.hpp"
#include "gstcserror.h"
#include "gstcsmemorysync.hpp"

namespace {

gcs::Event *
event_of (GstCsSyncMeta * meta)
{
  return static_cast<gcs::Event *> (meta->priv);
}

void
set_event (GstCsSyncMeta * meta, gcs::Event * event /* transfer full */)
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

gboolean
meta_transform (GstBuffer * dest, GstMeta * meta, GstBuffer *, GQuark type, gpointer data)
{
  /* A copy, or a region of the same memory, shares the pixels and so what
   * they wait for. Other transforms make new memory with its own producer. */
  if (!GST_META_TRANSFORM_IS_COPY (type))
    return FALSE;
  (void)data;
  auto * src = reinterpret_cast<GstCsSyncMeta *> (meta);
  if (!src->priv)
    return TRUE;
  auto * d = reinterpret_cast<GstCsSyncMeta *> (
      gst_buffer_add_meta (dest, GST_CS_SYNC_META_INFO, nullptr));
  if (!d)
    return FALSE;
  event_of (src)->ref ();
  set_event (d, event_of (src));
  return TRUE;
}

template <typename F>
bool
for_each_sync (GstBuffer * buffer, F && f)
{
  for (guint i = 0; i < gst_buffer_n_memory (buffer); i++) {
    if (gcs::MemorySync * s = gcs::memory_sync (gst_buffer_peek_memory (buffer, i)))
      if (!f (s))
        return false;
  }
  return true;
}

} // namespace

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

GstCsSyncMeta *
gst_cs_sync_meta_record (
    GstBuffer * buffer, gint device_id, cudaStream_t stream, GError ** error)
{
  g_return_val_if_fail (gst_buffer_is_writable (buffer), NULL);
  gcs::EventRef event (gcs::Event::acquire (device_id, error));
  if (!event || !event->record (stream, error))
    return NULL;
  for_each_sync (buffer, [&] (gcs::MemorySync * s) {
    s->set_writer (event);
    return true;
  });
  GstCsSyncMeta * meta = gst_buffer_get_cs_sync_meta (buffer);
  if (!meta)
    meta = reinterpret_cast<GstCsSyncMeta *> (
        gst_buffer_add_meta (buffer, GST_CS_SYNC_META_INFO, NULL));
  set_event (meta, event.release ());
  return meta;
}

void
gst_cs_sync_meta_add_reader (GstCsSyncMeta * meta, GstBuffer * read)
{
  g_return_if_fail (meta && meta->priv);
  event_of (meta)->ref ();
  gcs::EventRef event (event_of (meta));
  for_each_sync (read, [&] (gcs::MemorySync * s) {
    s->add_reader (event);
    return true;
  });
}

gboolean
gst_cs_buffer_add_reader (
    GstBuffer * buffer, gint device_id, cudaStream_t stream, GError ** error)
{
  g_return_val_if_fail (GST_IS_BUFFER (buffer), FALSE);
  gcs::EventRef event (gcs::Event::acquire (device_id, error));
  if (!event || !event->record (stream, error))
    return FALSE;
  for_each_sync (buffer, [&] (gcs::MemorySync * s) {
    s->add_reader (event);
    return true;
  });
  return TRUE;
}

gboolean
gst_cs_sync_meta_wait (GstBuffer * buffer, cudaStream_t stream, GError ** error)
{
  GstCsSyncMeta * meta = gst_buffer_get_cs_sync_meta (buffer);
  if (meta && meta->event) {
    if (meta->stream == stream)
      return TRUE;
    return GST_CS_CHECK (cudaStreamWaitEvent (stream, meta->event, 0), error);
  }
  /* No meta (an application's buffer, or one whose meta a transform dropped):
   * fall back to what the memory itself knows about its last writer. */
  return for_each_sync (
      buffer, [&] (gcs::MemorySync * s) { return s->gpu_wait_writer (stream, error); });
}

gboolean
gst_cs_sync_meta_wait_host (
    GstBuffer * buffer, GstCsWaitCounter * counter, GError ** error)
{
  GstCsSyncMeta * meta = gst_buffer_get_cs_sync_meta (buffer);
  if (meta && meta->event)
    return gst_cs_host_wait_event (meta->event, counter, error);
  return for_each_sync (buffer, [&] (gcs::MemorySync * s) {
    gcs::EventRef w = s->writer ();
    return !w || gst_cs_host_wait_event (w->handle (), counter, error);
  });
}

gboolean
gst_cs_buffer_wait_writable (GstBuffer * buffer, cudaStream_t stream, GError ** error)
{
  return for_each_sync (
      buffer, [&] (gcs::MemorySync * s) { return s->gpu_wait_all (stream, error); });
}

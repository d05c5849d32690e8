/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "gstcsbatchmeta-private.h"

namespace {

gboolean
meta_init (GstMeta * meta, gpointer, GstBuffer *)
{
  auto * m = reinterpret_cast<GstCsBatchMeta *> (meta);
  m->n_slots = 0;
  m->slots = NULL;
  return TRUE;
}

void
meta_free (GstMeta * meta, GstBuffer *)
{
  auto * m = reinterpret_cast<GstCsBatchMeta *> (meta);
  g_free (m->slots);
  m->slots = NULL;
}

/* Every slot empty: no source yet, the identity mapping. */
void
empty_slots (GstCsBatchMeta * m)
{
  for (guint i = 0; i < m->n_slots; i++) {
    m->slots[i] = GstCsBatchSlot ();
    m->slots[i].empty = TRUE;
    m->slots[i].pts = GST_CLOCK_TIME_NONE;
    m->slots[i].scale_x = m->slots[i].scale_y = 1.0;
  }
}

/* The slots describe the tensor's layout: a copy keeps them, a transform
 * that changes the tensor drops them. */
gboolean
meta_transform (GstBuffer * dest, GstMeta * meta, GstBuffer *, GQuark type, gpointer data)
{
  if (!GST_META_TRANSFORM_IS_COPY (type))
    return FALSE;
  auto * copy = static_cast<GstMetaTransformCopy *> (data);
  if (copy->region)
    return FALSE;
  auto * m = reinterpret_cast<GstCsBatchMeta *> (meta);
  GstCsBatchMeta * d = gst_cs_buffer_add_batch_meta (dest, m->n_slots);
  if (!d)
    return FALSE;
  for (guint i = 0; i < m->n_slots; i++)
    d->slots[i] = m->slots[i];
  return TRUE;
}

} // namespace

/**
 * gst_cs_batch_meta_api_get_type:
 *
 * Returns: the API type of #GstCsBatchMeta; tagged "tensor"
 *
 * Since: 0.3
 */
GType
gst_cs_batch_meta_api_get_type (void)
{
  static GType type = 0;
  static const gchar * tags[] = { "tensor", NULL };
  if (g_once_init_enter (&type)) {
    GType t = gst_meta_api_type_register ("GstCsBatchMetaAPI", tags);
    g_once_init_leave (&type, t);
  }
  return type;
}

/**
 * gst_cs_batch_meta_get_info:
 *
 * Returns: the #GstMetaInfo of #GstCsBatchMeta
 *
 * Since: 0.3
 */
const GstMetaInfo *
gst_cs_batch_meta_get_info (void)
{
  static const GstMetaInfo * info = NULL;
  if (g_once_init_enter (&info)) {
    const GstMetaInfo * i = gst_meta_register (GST_CS_BATCH_META_API_TYPE,
        "GstCsBatchMeta", sizeof (GstCsBatchMeta), meta_init, meta_free, meta_transform);
    g_once_init_leave (&info, i);
  }
  return info;
}

/**
 * gst_cs_buffer_add_batch_meta:
 * @buffer: a writable #GstBuffer
 * @n_slots: the batch size
 *
 * Adds a batch meta of @n_slots slots, each empty until filled in.
 *
 * Returns: (transfer none): the meta
 *
 * Since: 0.3
 */
GstCsBatchMeta *
gst_cs_buffer_add_batch_meta (GstBuffer * buffer, guint n_slots)
{
  g_return_val_if_fail (GST_IS_BUFFER (buffer), NULL);
  auto * m = reinterpret_cast<GstCsBatchMeta *> (
      gst_buffer_add_meta (buffer, GST_CS_BATCH_META_INFO, NULL));
  if (!m)
    return NULL;
  m->n_slots = n_slots;
  m->slots = g_new0 (GstCsBatchSlot, MAX (n_slots, 1));
  empty_slots (m);
  return m;
}

/* A batch meta of @n_slots empty slots on @buffer, a tensor of a pool:
 * the one it came back to its pool with (POOLED: not freed at each
 * release, in whichever thread lets the batch go, and made again at each
 * batch), or a new one. */
GstCsBatchMeta *
gst_cs_buffer_add_pooled_batch_meta (GstBuffer * buffer, guint n_slots)
{
  GstCsBatchMeta * m = gst_buffer_get_cs_batch_meta (buffer);
  if (m && m->n_slots == n_slots) {
    empty_slots (m);
    return m;
  }
  if (m)
    gst_buffer_remove_meta (buffer, &m->meta);
  m = gst_cs_buffer_add_batch_meta (buffer, n_slots);
  if (m)
    m->meta.flags = (GstMetaFlags)(m->meta.flags | GST_META_FLAG_POOLED);
  return m;
}

/**
 * gst_cs_batch_slot_to_source:
 * @slot: a slot of a #GstCsBatchMeta
 * @x: a tensor x (pixel edges)
 * @y: a tensor y
 * @source_x: (out): the source frame's x there
 * @source_y: (out): the source frame's y there
 *
 * Maps a point of the tensor to the slot's source frame.
 *
 * Since: 0.3
 */
void
gst_cs_batch_slot_to_source (const GstCsBatchSlot * slot, gdouble x, gdouble y,
    gdouble * source_x, gdouble * source_y)
{
  g_return_if_fail (slot != NULL);
  if (source_x)
    *source_x = x * slot->scale_x + slot->offset_x;
  if (source_y)
    *source_y = y * slot->scale_y + slot->offset_y;
}

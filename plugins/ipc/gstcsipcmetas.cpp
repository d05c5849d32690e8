/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "ipc/gstcsipcmetas.hpp"

#include <gst/video/video.h>

#include <vector>

#include "gstcsbatchmeta.h"
#include "gstcssyncmeta.h"

namespace gst_cs {
namespace ipc {
namespace {

enum class Kind : guint16 {
  VIDEO = 1,
  CROP = 2,
  ROI = 3,
  BATCH = 4,
  SERIALIZED = 5, /* gst_meta_serialize's bytes (GStreamer >= 1.24) */
};

/* A raw format this GStreamer knows (asked without a critical warning,
 * which gst_video_format_get_info gives for a value out of range). */
bool
known_format (guint32 format)
{
  static GEnumClass * formats = G_ENUM_CLASS (g_type_class_ref (GST_TYPE_VIDEO_FORMAT));
  return format > GST_VIDEO_FORMAT_ENCODED && format <= G_MAXINT &&
         g_enum_get_value (formats, (gint)format) != NULL;
}

void
write_video (Writer & w, const GstVideoMeta * m)
{
  w.u32 (m->flags);
  w.u32 (m->format);
  w.u32 (m->width);
  w.u32 (m->height);
  w.u32 (m->n_planes);
  for (guint p = 0; p < GST_VIDEO_MAX_PLANES; p++) {
    w.u64 (m->offset[p]);
    w.i32 (m->stride[p]);
  }
}

bool
read_video (Reader & r, GstBuffer * buffer)
{
  const guint32 flags = r.u32 (), format = r.u32 (), width = r.u32 (), height = r.u32 (),
                n_planes = r.u32 ();
  gsize offset[GST_VIDEO_MAX_PLANES];
  gint stride[GST_VIDEO_MAX_PLANES];
  for (guint p = 0; p < GST_VIDEO_MAX_PLANES; p++) {
    offset[p] = r.u64 ();
    stride[p] = r.i32 ();
  }
  if (!r.done () || n_planes == 0 || n_planes > GST_VIDEO_MAX_PLANES || width == 0 ||
      height == 0 || width > 16384 || height > 16384 || !known_format (format))
    return false;
  gst_buffer_add_video_meta_full (buffer, (GstVideoFrameFlags)flags,
      (GstVideoFormat)format, width, height, n_planes, offset, stride);
  return true;
}

/* A FRAME's part of a batch meta: each slot's emptiness and PTS. */
void
write_batch (Writer & w, const GstCsBatchMeta * m)
{
  w.u32 (m->n_slots);
  for (guint i = 0; i < m->n_slots; i++) {
    w.u8 (m->slots[i].empty ? 1 : 0);
    w.u64 (m->slots[i].pts);
  }
}

/* The quark of slot `slot`'s pad name. The same names come in every batch,
 * and g_quark_from_string takes GLib's one global lock each time: the
 * reader thread keeps the last name of each slot and its quark. */
GQuark
pad_quark (guint slot, std::string_view name)
{
  struct Known {
    std::string name;
    GQuark quark = 0;
  };
  static thread_local std::vector<Known> known;
  if (name.empty ())
    return 0;
  if (known.size () <= slot)
    known.resize (slot + 1);
  Known & k = known[slot];
  if (!k.quark || k.name != name) {
    k.name.assign (name);
    k.quark = g_quark_from_string (k.name.c_str ());
  }
  return k.quark;
}

bool
read_batch (Reader & r, GstBuffer * buffer, const Slots & slots, std::string * why)
{
  const guint32 n = r.u32 ();
  if (r.ok () && n != slots.size ()) {
    *why = "a batch of " + std::to_string (n) +
           " slots, where the producer's SLOTS said " + std::to_string (slots.size ());
    return false;
  }
  if (!r.ok () || n == 0)
    return false;
  GstCsBatchMeta * m = gst_cs_buffer_add_batch_meta (buffer, n);
  for (guint i = 0; i < n; i++) {
    GstCsBatchSlot & s = m->slots[i];
    s = slots[i];
    s.empty = r.u8 () != 0;
    s.pts = r.u64 ();
  }
  return r.done ();
}

void
write_roi (Writer & w, const GstVideoRegionOfInterestMeta * m)
{
  w.str (g_quark_to_string (m->roi_type));
  w.i32 (m->id);
  w.i32 (m->parent_id);
  w.u32 (m->x);
  w.u32 (m->y);
  w.u32 (m->w);
  w.u32 (m->h);
}

bool
read_roi (Reader & r, GstBuffer * buffer)
{
  const std::string type = r.str (256);
  const gint32 id = r.i32 (), parent = r.i32 ();
  const guint32 x = r.u32 (), y = r.u32 (), width = r.u32 (), height = r.u32 ();
  if (!r.done ())
    return false;
  GstVideoRegionOfInterestMeta * m = gst_buffer_add_video_region_of_interest_meta (
      buffer, type.c_str (), x, y, width, height);
  m->id = id;
  m->parent_id = parent;
  return true;
}

/* One meta: its kind, then its length once its bytes are written. */
template <typename F>
void
entry (Writer & w, Kind kind, guint * count, F && body)
{
  w.u16 (static_cast<guint16> (kind));
  const gsize at = w.reserve32 ();
  const gsize start = w.size ();
  body ();
  w.fill32 (at, (guint32)(w.size () - start));
  (*count)++;
}

#if GST_CHECK_VERSION(1, 24, 0)
/* Another meta GStreamer can serialise: not ours, not one sent above, not
 * the send time of an earlier hop (each consumer stamps its own). */
bool
serialisable (const GstMeta * meta)
{
  const GType api = meta->info->api;
  if (api == GST_REFERENCE_TIMESTAMP_META_API_TYPE) {
    const GstCaps * ref =
        reinterpret_cast<const GstReferenceTimestampMeta *> (meta)->reference;
    if (ref && gst_caps_get_size (ref) > 0 &&
        gst_structure_has_name (
            gst_caps_get_structure (ref, 0), "timestamp/x-cudastreams-ipc-sent"))
      return false;
  }
  return meta->info->serialize_func && api != GST_VIDEO_META_API_TYPE &&
         api != GST_VIDEO_CROP_META_API_TYPE &&
         api != GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE &&
         api != GST_CS_BATCH_META_API_TYPE && api != GST_CS_SYNC_META_API_TYPE;
}
#endif

} // namespace

void
write_slots (Writer & w, const GstCsBatchMeta * m)
{
  w.begin (Msg::SLOTS);
  w.u32 (m->n_slots);
  for (guint i = 0; i < m->n_slots; i++) {
    const GstCsBatchSlot & s = m->slots[i];
    w.u32 (s.pad_index);
    w.str (s.pad_name ? g_quark_to_string (s.pad_name) : "");
    w.i32 (s.source_width);
    w.i32 (s.source_height);
    w.f64 (s.scale_x);
    w.f64 (s.scale_y);
    w.f64 (s.offset_x);
    w.f64 (s.offset_y);
  }
  w.finish ();
}

bool
same_sources (const GstCsBatchMeta * m, const Slots & known)
{
  if (m->n_slots != known.size ())
    return false;
  for (guint i = 0; i < m->n_slots; i++) {
    const GstCsBatchSlot &a = m->slots[i], &b = known[i];
    if (a.pad_index != b.pad_index || a.pad_name != b.pad_name ||
        a.source_width != b.source_width || a.source_height != b.source_height ||
        a.scale_x != b.scale_x || a.scale_y != b.scale_y || a.offset_x != b.offset_x ||
        a.offset_y != b.offset_y)
      return false;
  }
  return true;
}

bool
write_metas (Writer & w, GstBuffer * buffer, const GstCsBatchMeta ** batch)
{
  *batch = nullptr;
  const gsize count_at = w.reserve32 ();
  guint count = 0;
  if (const GstVideoMeta * vm = gst_buffer_get_video_meta (buffer))
    entry (w, Kind::VIDEO, &count, [&] { write_video (w, vm); });
  if (const GstVideoCropMeta * cm = gst_buffer_get_video_crop_meta (buffer))
    entry (w, Kind::CROP, &count, [&] {
      w.u32 (cm->x);
      w.u32 (cm->y);
      w.u32 (cm->width);
      w.u32 (cm->height);
    });
  if (const GstCsBatchMeta * bm = gst_buffer_get_cs_batch_meta (buffer)) {
    if (bm->n_slots > kMaxSlots)
      return false;
    entry (w, Kind::BATCH, &count, [&] { write_batch (w, bm); });
    *batch = bm;
  }
  gpointer state = NULL;
  GstMeta * meta;
  while ((meta = gst_buffer_iterate_meta (buffer, &state))) {
    if (meta->info->api == GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE) {
      entry (w, Kind::ROI, &count, [&] {
        write_roi (w, reinterpret_cast<GstVideoRegionOfInterestMeta *> (meta));
      });
      continue;
    }
#if GST_CHECK_VERSION(1, 24, 0)
    if (serialisable (meta)) {
      GByteArray * bytes = g_byte_array_new ();
      if (gst_meta_serialize_simple (meta, bytes))
        entry (w, Kind::SERIALIZED, &count, [&] { w.bytes (bytes->data, bytes->len); });
      g_byte_array_unref (bytes);
    }
#endif
  }
  w.fill32 (count_at, count);
  return true;
}

bool
read_slots (Reader & r, Slots * out)
{
  const guint32 n = r.u32 ();
  if (!r.ok () || n == 0 || n > kMaxSlots)
    return false;
  out->assign (n, GstCsBatchSlot{});
  for (guint i = 0; i < n; i++) {
    GstCsBatchSlot & s = (*out)[i];
    s.pad_index = r.u32 ();
    s.pad_name = pad_quark (i, r.view (256));
    s.source_width = r.i32 ();
    s.source_height = r.i32 ();
    s.scale_x = r.f64 ();
    s.scale_y = r.f64 ();
    s.offset_x = r.f64 ();
    s.offset_y = r.f64 ();
  }
  return r.done ();
}

bool
read_metas (Reader & r, GstBuffer * buffer, const Slots & slots, std::string * why)
{
  const guint32 count = r.u32 ();
  if (!r.ok () || count > 4096) {
    *why = "a frame's meta count is missing or absurd";
    return false;
  }
  for (guint32 i = 0; i < count; i++) {
    const Kind kind = static_cast<Kind> (r.u16 ());
    const guint32 len = r.u32 ();
    Reader m = r.sub (len);
    bool ok = r.ok ();
    switch (kind) {
      case Kind::VIDEO:
        ok = ok && read_video (m, buffer);
        break;
      case Kind::CROP: {
        const guint32 x = m.u32 (), y = m.u32 (), cw = m.u32 (), ch = m.u32 ();
        ok = ok && m.done ();
        if (ok) {
          GstVideoCropMeta * cm = gst_buffer_add_video_crop_meta (buffer);
          cm->x = x;
          cm->y = y;
          cm->width = cw;
          cm->height = ch;
        }
        break;
      }
      case Kind::ROI:
        ok = ok && read_roi (m, buffer);
        break;
      case Kind::BATCH:
        ok = ok && read_batch (m, buffer, slots, why);
        break;
      case Kind::SERIALIZED: {
#if GST_CHECK_VERSION(1, 24, 0)
        std::vector<guint8> bytes (len);
        guint32 consumed = 0;
        /* An unknown type is no error: the consumer may lack its library.
         * GStreamer finds a meta to deserialise by its registered name, and
         * registers a core meta only when it is first used: with 1.24.2 a
         * process that had not used reference timestamps yet lost the first
         * frame's. */
        (void)gst_reference_timestamp_meta_get_info ();
        if (ok && m.bytes (bytes.data (), len))
          (void)gst_meta_deserialize (buffer, bytes.data (), len, &consumed);
#endif
        break;
      }
      default:
        break; /* a kind of a newer producer: skipped */
    }
    if (!ok) {
      if (why->empty ())
        *why = "a frame's meta of kind " + std::to_string ((int)kind) + " is malformed";
      return false;
    }
  }
  return true;
}

} // namespace ipc
} // namespace gst_cs

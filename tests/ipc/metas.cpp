/* SPDX-License-Identifier: LGPL-2.1-or-later */
// Without a GPU: the metas an IPC FRAME record carries
// (plugins/ipc/gstcsipcmetas.hpp). A batch's slots come back whole from a
// FRAME and the SLOTS record before it; the FRAME alone carries each
// slot's emptiness and PTS, so its record stays small, and the slots'
// sources read as the same batch after batch until one changes; a batch whose
// slot count is not the last SLOTS record's is refused with a message.
#include <gst/check/gstcheck.h>
#include <gst/video/video.h>

#include <random>
#include <string>
#include <vector>

#include "gstcsbatchmeta.h"
#include "ipc/gstcsipcmetas.hpp"

namespace {

using namespace gst_cs::ipc;

constexpr guint kSlots = 16;

/* A batch buffer of kSlots slots with random fields, as cudabatch fills
 * them: pads sink_0.., sources of one size, some slots empty. */
GstBuffer *
random_batch (std::mt19937 & rng)
{
  GstBuffer * b = gst_buffer_new ();
  GstCsBatchMeta * m = gst_cs_buffer_add_batch_meta (b, kSlots);
  std::uniform_real_distribution<double> u (0.1, 4.0);
  for (guint i = 0; i < kSlots; i++) {
    GstCsBatchSlot & s = m->slots[i];
    s.empty = rng () % 5 == 0;
    s.pad_index = i;
    s.pad_name = g_quark_from_string (("sink_" + std::to_string (i)).c_str ());
    s.pts = rng ();
    s.source_width = 1920;
    s.source_height = 1080;
    s.scale_x = u (rng);
    s.scale_y = u (rng);
    s.offset_x = u (rng);
    s.offset_y = u (rng);
  }
  return b;
}

/* The body of a finished record, as a consumer reads it. */
Reader
body (const Writer & w)
{
  Msg type;
  Reader r (nullptr, 0);
  std::string why;
  fail_unless (parse_header (w.data (), w.size (), &type, &r, &why), "%s", why.c_str ());
  return r;
}

/* A FRAME record of `b`'s metas, read into a new buffer with `slots`. */
GstBuffer *
round_trip (
    GstBuffer * b, Writer & frame, Writer & slots_w, Slots * slots, std::string * why)
{
  frame.begin (Msg::FRAME);
  const GstCsBatchMeta * batch = nullptr;
  fail_unless (write_metas (frame, b, &batch) && frame.finish ());
  fail_unless (batch == gst_buffer_get_cs_batch_meta (b), "its batch meta not named");
  write_slots (slots_w, batch);
  Reader sr = body (slots_w);
  fail_unless (read_slots (sr, slots), "the SLOTS record does not read back");
  GstBuffer * out = gst_buffer_new ();
  Reader fr = body (frame);
  if (!read_metas (fr, out, *slots, why) || !fr.done ())
    gst_clear_buffer (&out);
  return out;
}

} // namespace

/* Every field of every slot comes back; the FRAME carries 9 bytes a slot. */
GST_START_TEST (test_batch_slots_round_trip)
{
  std::mt19937 rng (7);
  Writer frame, slots_w;
  Slots slots;
  for (int k = 0; k < 20; k++) {
    GstBuffer * b = random_batch (rng);
    std::string why;
    GstBuffer * out = round_trip (b, frame, slots_w, &slots, &why);
    fail_unless (out != nullptr, "%s", why.c_str ());
    const GstCsBatchMeta * want = gst_buffer_get_cs_batch_meta (b);
    const GstCsBatchMeta * got = gst_buffer_get_cs_batch_meta (out);
    fail_unless (got && got->n_slots == kSlots);
    for (guint i = 0; i < kSlots; i++) {
      const GstCsBatchSlot &w = want->slots[i], &g = got->slots[i];
      fail_unless (!w.empty == !g.empty && w.pad_index == g.pad_index &&
                       w.pad_name == g.pad_name && w.pts == g.pts &&
                       w.source_width == g.source_width &&
                       w.source_height == g.source_height && w.scale_x == g.scale_x &&
                       w.scale_y == g.scale_y && w.offset_x == g.offset_x &&
                       w.offset_y == g.offset_y,
          "batch %d, slot %u differs", k, i);
    }
    /* The header, the meta count, the kind and length, the slot count,
     * then 1 + 8 bytes a slot. */
    fail_unless_equals_int ((int)frame.size (), 16 + 4 + 6 + 4 + 9 * (int)kSlots);
    gst_buffer_unref (out);
    gst_buffer_unref (b);
  }
}
GST_END_TEST;

/* The slots' sources are the same while only PTS and emptiness change
 * (the server sends SLOTS again only where they are not), and not once
 * any source field of any slot does. */
GST_START_TEST (test_slots_change_with_sources_only)
{
  std::mt19937 rng (11);
  GstBuffer * b = random_batch (rng);
  GstCsBatchMeta * m = gst_buffer_get_cs_batch_meta (b);
  const Slots known (m->slots, m->slots + m->n_slots);
  fail_unless (same_sources (m, known));
  for (guint i = 0; i < kSlots; i++) {
    m->slots[i].pts += 33;
    m->slots[i].empty = !m->slots[i].empty;
  }
  fail_unless (same_sources (m, known), "the PTS and emptiness changed the sources");
  fail_if (same_sources (m, Slots (known.begin (), known.end () - 1)), "one slot fewer");
  /* Each source field of a slot in turn. */
  for (int f = 0; f < 8; f++) {
    Slots changed = known;
    GstCsBatchSlot & s = changed[5];
    switch (f) {
      case 0:
        s.pad_index++;
        break;
      case 1:
        s.pad_name = g_quark_from_string ("sink_99");
        break;
      case 2:
        s.source_width++;
        break;
      case 3:
        s.source_height++;
        break;
      case 4:
        s.scale_x *= 2;
        break;
      case 5:
        s.scale_y *= 2;
        break;
      case 6:
        s.offset_x += 1;
        break;
      default:
        s.offset_y += 1;
        break;
    }
    fail_if (same_sources (m, changed), "source field %d changed, unseen", f);
  }
  gst_buffer_unref (b);
}
GST_END_TEST;

/* A frame without a batch meta names none; a batch read without SLOTS,
 * or with another slot count, is refused by name. */
GST_START_TEST (test_batch_needs_its_slots)
{
  Writer frame;
  const GstCsBatchMeta * batch = nullptr;
  GstBuffer * plain = gst_buffer_new ();
  frame.begin (Msg::FRAME);
  fail_unless (write_metas (frame, plain, &batch) && !batch);
  gst_buffer_unref (plain);

  std::mt19937 rng (3);
  GstBuffer * b = random_batch (rng);
  frame.begin (Msg::FRAME);
  fail_unless (write_metas (frame, b, &batch) && batch && frame.finish ());
  for (guint n : { 0u, kSlots - 1 }) {
    Slots slots (n);
    GstBuffer * out = gst_buffer_new ();
    Reader fr = body (frame);
    std::string why;
    fail_if (read_metas (fr, out, slots, &why), "a batch read with %u slots", n);
    const std::string want =
        "a batch of 16 slots, where the producer's SLOTS said " + std::to_string (n);
    fail_unless (why == want, "'%s'", why.c_str ());
    gst_buffer_unref (out);
  }
  gst_buffer_unref (b);
}
GST_END_TEST;

static Suite *
ipc_metas_suite (void)
{
  Suite * s = suite_create ("ipc_metas");
  TCase * tc = tcase_create ("general");
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_batch_slots_round_trip);
  tcase_add_test (tc, test_slots_change_with_sources_only);
  tcase_add_test (tc, test_batch_needs_its_slots);
  return s;
}

GST_CHECK_MAIN (ipc_metas);

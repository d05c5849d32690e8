/* SPDX-License-Identifier: LGPL-2.1-or-later */
// Without a GPU: cudaconvertscale's ConvertMemo
// (plugins/convert/gstcsconvertmemo.hpp) gives the next frame of the same
// key the last resolved description moved to its memory, which computes
// (on the GPU's path, on the CPU) the same pixels as the frame's own
// description, and the same description but for its addresses; a key or
// an alignment that differs describes afresh.
#include <gst/check/gstcheck.h>

#include <cstring>
#include <random>
#include <vector>

#include "convert/gstcsconvertmemo.hpp"
#include "convert_scale_addresses.h"

namespace {

namespace gpu = gst_cs::gpu;

GstVideoInfo
info_of (GstVideoFormat f, gint w, gint h)
{
  GstVideoInfo info;
  fail_unless (gst_video_info_set_format (&info, f, w, h));
  return info;
}

// Two frames of each side in one allocation each, `shift` bytes apart
// (the second at `shift`), of random content.
struct Frames {
  GstVideoInfo in, out;
  std::vector<guint8> in_mem, out_mem;
  Frames (const GstVideoInfo & i, const GstVideoInfo & o, gsize shift)
      : in (i), out (o), in_mem (GST_VIDEO_INFO_SIZE (&i) + shift + 64),
        out_mem (GST_VIDEO_INFO_SIZE (&o) + shift + 64)
  {
    std::mt19937 random (7);
    for (guint8 & b : in_mem)
      b = (guint8)random ();
  }
  // Frame k's memory: 64-byte aligned starts, the second `shift` further.
  guint8 * at (std::vector<guint8> & m, gsize shift, int k)
  {
    auto start = reinterpret_cast<std::uintptr_t> (m.data ());
    start = (start + 63) & ~std::uintptr_t (63);
    return reinterpret_cast<guint8 *> (start) + (k ? shift : 0);
  }
};

gpu::ConvertScale
describe (Frames & f, const gst_cs::ConvertSettings & s, guint8 * in, guint8 * out)
{
  gpu::ConvertScale op;
  gst_cs::describe_convert (&f.in, &f.out, 0, 0, GST_VIDEO_INFO_WIDTH (&f.in),
      GST_VIDEO_INFO_HEIGHT (&f.in), s, &op);
  op.in = gst_cs::convert_image (&f.in, &f.in, in, false);
  op.out = gst_cs::convert_image (&f.out, &f.out, out, true);
  return op;
}

struct Pair {
  GstVideoFormat in;
  gint in_w, in_h;
  GstVideoFormat out;
  gint out_w, out_h;
  gpu::Filter filter;
};

} // namespace

/* Each kernel path's pointers (planes, words, fixed point's luma and
 * chroma, a packed output): the second frame takes the first's
 * description moved, and its pixels are those of its own. */
GST_START_TEST (test_moved_description_computes_the_frame)
{
  const Pair pairs[] = {
    { GST_VIDEO_FORMAT_NV12, 64, 48, GST_VIDEO_FORMAT_RGBA, 40, 30,
        gpu::Filter::BILINEAR },
    { GST_VIDEO_FORMAT_I420, 64, 48, GST_VIDEO_FORMAT_NV12, 32, 20,
        gpu::Filter::BILINEAR },
    { GST_VIDEO_FORMAT_YUY2, 64, 48, GST_VIDEO_FORMAT_BGRx, 64, 48,
        gpu::Filter::BILINEAR },
    { GST_VIDEO_FORMAT_BGRx, 64, 48, GST_VIDEO_FORMAT_NV12, 64, 48,
        gpu::Filter::BILINEAR },
    { GST_VIDEO_FORMAT_P010_10LE, 64, 48, GST_VIDEO_FORMAT_NV12, 64, 48,
        gpu::Filter::NEAREST },
    { GST_VIDEO_FORMAT_NV12, 64, 48, GST_VIDEO_FORMAT_I420, 40, 30,
        gpu::Filter::BICUBIC },
    { GST_VIDEO_FORMAT_RGBA, 64, 48, GST_VIDEO_FORMAT_RGBP, 20, 14, gpu::Filter::AREA },
  };
  for (const Pair & p : pairs) {
    const gsize shift = 4096 + 16 * 3;
    Frames f (info_of (p.in, p.in_w, p.in_h), info_of (p.out, p.out_w, p.out_h), shift);
    gst_cs::ConvertSettings s;
    s.filter = p.filter;
    gst_cs::ConvertMemo memo;
    int described = 0;
    const gpu::ConvertScale * op = nullptr;
    for (int k = 0; k < 2; k++) {
      guint8 *in = f.at (f.in_mem, shift, k), *out = f.at (f.out_mem, shift, k);
      const gst_cs::ConvertKey key{ s, 0, 0, (guint)p.in_w, (guint)p.in_h, &f.in,
        &f.out };
      op = memo.resolve (key, in, out, [&] () {
        described++;
        return describe (f, s, in, out);
      });
      fail_unless (op != nullptr);
    }
    fail_unless_equals_int (described, 1);
    /* All but its addresses, the moved description is the frame's own,
     * byte for byte: what the run-time compiler keys a kernel on
     * (gpu/convert_scale_rtc.h) is the same for every frame of one
     * conversion, however the memo reached it. */
    gpu::ConvertScale own, moved_op = *op;
    fail_unless (gpu::convert_scale_resolve (
        describe (f, s, f.at (f.in_mem, shift, 1), f.at (f.out_mem, shift, 1)), &own));
    gpu::each_address (own, [] (auto *& a, bool) { a = nullptr; });
    gpu::each_address (moved_op, [] (auto *& a, bool) { a = nullptr; });
    fail_unless (std::memcmp (static_cast<const void *> (&own),
                     static_cast<const void *> (&moved_op), sizeof own) == 0,
        "%s -> %s: the moved description differs from the frame's own beyond its "
        "addresses",
        gst_video_format_to_string (p.in), gst_video_format_to_string (p.out));
    /* The moved description's pixels, then the frame's own, compared. */
    guint8 * out = f.at (f.out_mem, shift, 1);
    const gsize size = GST_VIDEO_INFO_SIZE (&f.out);
    gpu::convert_scale_resolved_as_gpu_on_host (*op);
    std::vector<guint8> moved (out, out + size);
    std::fill (out, out + size, 0);
    fail_unless (
        gpu::convert_scale_on_host (describe (f, s, f.at (f.in_mem, shift, 1), out)));
    fail_unless (std::equal (moved.begin (), moved.end (), out), "%s -> %s (%s path)",
        gst_video_format_to_string (p.in), gst_video_format_to_string (p.out),
        gpu::convert_scale_path (*op));
  }
}
GST_END_TEST;

/* A frame that differs in anything of its key, or whose memory lies at a
 * shift that would change the alignments resolving read, is described
 * afresh; clear () (new caps) too. */
GST_START_TEST (test_other_frames_describe_afresh)
{
  Frames f (info_of (GST_VIDEO_FORMAT_NV12, 64, 48),
      info_of (GST_VIDEO_FORMAT_RGBA, 40, 30), 4096 + 8);
  gst_cs::ConvertMemo memo;
  int described = 0;
  gst_cs::ConvertSettings s;
  GstVideoInfo in_layout = f.in, out_layout = f.out;
  gst_cs::ConvertKey key{ s, 0, 0, 64, 48, &in_layout, &out_layout };
  auto frame = [&] (int k) {
    guint8 *in = f.at (f.in_mem, 4096 + 8, k), *out = f.at (f.out_mem, 4096, k);
    fail_unless (memo.resolve (key, in, out, [&] () {
      described++;
      return describe (f, s, in, out);
    }) != nullptr);
  };
  frame (0);
  frame (0); /* the same frame */
  fail_unless_equals_int (described, 1);
  frame (1); /* the input 8 bytes off the alignment of 16 */
  fail_unless_equals_int (described, 2);
  struct Change {
    const char * what;
    void (*change) (gst_cs::ConvertKey &, GstVideoInfo &, GstVideoInfo &);
  } changes[] = {
    { "method", [] (gst_cs::ConvertKey & k, GstVideoInfo &,
                    GstVideoInfo &) { k.settings.filter = gpu::Filter::NEAREST; } },
    { "orientation",
        [] (gst_cs::ConvertKey & k, GstVideoInfo &, GstVideoInfo &) {
          k.settings.orientation = gpu::Orientation::ROTATE_180;
        } },
    { "borders", [] (gst_cs::ConvertKey & k, GstVideoInfo &,
                     GstVideoInfo &) { k.settings.add_borders = false; } },
    { "border colour", [] (gst_cs::ConvertKey & k, GstVideoInfo &,
                           GstVideoInfo &) { k.settings.border_argb = 0xff102030u; } },
    { "region", [] (gst_cs::ConvertKey & k, GstVideoInfo &,
                    GstVideoInfo &) { k.x = 2, k.width = 62; } },
    { "input offsets", [] (gst_cs::ConvertKey &, GstVideoInfo & i,
                           GstVideoInfo &) { i.offset[1] += 64; } },
    { "input strides", [] (gst_cs::ConvertKey &, GstVideoInfo & i,
                           GstVideoInfo &) { i.stride[0] = 128; } },
    { "output strides", [] (gst_cs::ConvertKey &, GstVideoInfo &,
                            GstVideoInfo & o) { o.stride[0] = 256; } },
  };
  for (const Change & c : changes) {
    const int before = described;
    c.change (key, in_layout, out_layout);
    frame (0);
    fail_unless (
        described == before + 1, "a change of %s reused the description", c.what);
    frame (0);
    fail_unless (described == before + 1, "the same %s described afresh", c.what);
  }
  memo.clear ();
  frame (0);
  fail_unless_equals_int (described, (int)G_N_ELEMENTS (changes) + 3);
}
GST_END_TEST;

/* The ticket of the description's compiled kernel (gpu::ConvertTicket)
 * stays with its moves and goes with every other change of it: a key
 * that differs, clear () and changed (). A kept ticket of another
 * description would launch that description's kernel. */
GST_START_TEST (test_ticket_goes_with_the_description)
{
  Frames f (info_of (GST_VIDEO_FORMAT_NV12, 64, 48),
      info_of (GST_VIDEO_FORMAT_RGBA, 40, 30), 4096);
  gst_cs::ConvertMemo memo;
  gst_cs::ConvertSettings s;
  GstVideoInfo in_layout = f.in, out_layout = f.out;
  gst_cs::ConvertKey key{ s, 0, 0, 64, 48, &in_layout, &out_layout };
  int described = 0;
  auto frame = [&] (int k) {
    guint8 *in = f.at (f.in_mem, 4096, k), *out = f.at (f.out_mem, 4096, k);
    fail_unless (memo.resolve (key, in, out, [&] () {
      described++;
      return describe (f, s, in, out);
    }) != nullptr);
  };
  static const int kEntry = 0; /* stands for a compiled kernel's entry */
  frame (0);
  fail_unless (memo.ticket ()->entry == nullptr);
  memo.ticket ()->entry = &kEntry;
  frame (1);
  frame (0);
  fail_unless_equals_int (described, 1);
  fail_unless (memo.ticket ()->entry == &kEntry, "a move dropped the ticket");
  key.settings.filter = gpu::Filter::NEAREST;
  frame (1);
  fail_unless_equals_int (described, 2);
  fail_unless (memo.ticket ()->entry == nullptr, "another description kept the ticket");
  memo.ticket ()->entry = &kEntry;
  memo.changed ();
  fail_unless (memo.ticket ()->entry == nullptr, "changed () kept the ticket");
  memo.ticket ()->entry = &kEntry;
  memo.clear ();
  fail_unless (memo.ticket ()->entry == nullptr, "clear () kept the ticket");
  /* A description refused (resolve () returns null) keeps none either. */
  memo.ticket ()->entry = &kEntry;
  fail_unless (
      memo.resolve (key, f.at (f.in_mem, 4096, 0), f.at (f.out_mem, 4096, 0), [&] () {
        gpu::ConvertScale bad =
            describe (f, s, f.at (f.in_mem, 4096, 0), f.at (f.out_mem, 4096, 0));
        bad.src_w = 0;
        return bad;
      }) == nullptr);
  fail_unless (memo.ticket ()->entry == nullptr, "a refused description kept the ticket");
}
GST_END_TEST;

static Suite *
convert_memo_suite (void)
{
  Suite * s = suite_create ("convert_memo");
  TCase * tc = tcase_create ("general");
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_moved_description_computes_the_frame);
  tcase_add_test (tc, test_other_frames_describe_afresh);
  tcase_add_test (tc, test_ticket_goes_with_the_description);
  return s;
}

GST_CHECK_MAIN (convert_memo);

/* SPDX-License-Identifier: LGPL-2.1-or-later */
// Without a GPU: the table of taps per output line
// (gpu::convert_scale_point_lines) gives the fixed-point kernels of four
// taps, emulated on the CPU (convert_scale_resolved_as_gpu_on_host), the
// pixels of the plain twin (convert_scale_on_host, which computes every
// pixel's taps itself) for random descriptions; the kernels read it (one
// entry changed changes the frame); a move keeps it, and it is no frame's
// address.
#include <gst/check/gstcheck.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "convert/gstcsconvertdesc.hpp"
#include "convert_scale_addresses.h"

namespace {

namespace gpu = gst_cs::gpu;

// The table's memory: its entries are 16-byte aligned (two 16-byte loads
// an entry on the GPU).
struct alignas (16) Chunk {
  unsigned char bytes[16];
};

// One of the table's 32-byte entries as the kernels read it
// (fixed_point::QuadTaps): o0, q[4], pair[2], i0.
struct Entry {
  unsigned o0;
  int q[4];
  unsigned pair[2];
  int i0;
};
static_assert (sizeof (Entry) == 32, "fixed_point::QuadTaps' layout");

struct Description {
  GstVideoFormat in, out;
  gint in_w, in_h, out_w, out_h;
  gint crop[4]; /* x, y, w, h of the input */
  gst_cs::ConvertSettings settings;
};

std::string
name_of (const Description & d)
{
  gchar * s = g_strdup_printf ("%s %dx%d (crop %d,%d %dx%d) -> %s %dx%d, filter %d, "
                               "orientation %d, borders %d",
      gst_video_format_to_string (d.in), d.in_w, d.in_h, d.crop[0], d.crop[1], d.crop[2],
      d.crop[3], gst_video_format_to_string (d.out), d.out_w, d.out_h,
      (int)d.settings.filter, (int)d.settings.orientation, (int)d.settings.add_borders);
  std::string r = s;
  g_free (s);
  return r;
}

// A random description of the fixed-point family's inputs and outputs:
// sizes of 4 to 3840, bicubic by 0.25 to 4, area shrinking by 1 to 3, odd
// crops, flips, 180 and letterboxes; the output kept small enough for the
// plain twin's per-pixel taps.
Description
random_description (std::mt19937 & random)
{
  static const GstVideoFormat ins[] = { GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_NV21,
    GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_YV12, GST_VIDEO_FORMAT_YUY2,
    GST_VIDEO_FORMAT_UYVY, GST_VIDEO_FORMAT_Y444 };
  static const GstVideoFormat outs[] = { GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_BGRx,
    GST_VIDEO_FORMAT_RGBP, GST_VIDEO_FORMAT_Y444, GST_VIDEO_FORMAT_NV12,
    GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_YUY2 };
  static const gpu::Orientation turns[] = { gpu::Orientation::IDENTITY,
    gpu::Orientation::FLIP_H, gpu::Orientation::FLIP_V, gpu::Orientation::ROTATE_180 };
  auto uniform = [&] (double lo, double hi) {
    return std::uniform_real_distribution<double> (lo, hi) (random);
  };
  auto pick = [&] (int n) { return (int)(random () % (unsigned)n); };
  Description d{};
  d.in = ins[pick (G_N_ELEMENTS (ins))];
  d.out = outs[pick (G_N_ELEMENTS (outs))];
  d.settings.filter = pick (3) ? gpu::Filter::BICUBIC : gpu::Filter::AREA;
  d.settings.orientation = turns[pick (G_N_ELEMENTS (turns))];
  d.settings.add_borders = pick (2) == 0;
  d.settings.border_argb = (guint32)random ();
  for (;;) {
    /* Sizes spread over their logarithm: as many small frames as 4K ones. */
    d.in_w = (gint)std::exp (uniform (std::log (4.0), std::log (3840.0)));
    d.in_h = (gint)std::exp (uniform (std::log (4.0), std::log (2160.0)));
    const bool area = d.settings.filter == gpu::Filter::AREA;
    const double fx =
        area ? 1.0 / uniform (1.0, 3.0) : std::exp (uniform (-1.386, 1.386));
    const double fy =
        area ? 1.0 / uniform (1.0, 3.0) : std::exp (uniform (-1.386, 1.386));
    d.out_w = CLAMP ((gint)(d.in_w * fx), 4, 3840);
    d.out_h = CLAMP ((gint)(d.in_h * fy), 4, 3840);
    if ((gint64)d.out_w * d.out_h <= 40000 && (gint64)d.in_w * d.in_h <= 4000000)
      break;
  }
  d.crop[0] = 0, d.crop[1] = 0, d.crop[2] = d.in_w, d.crop[3] = d.in_h;
  if (pick (3) == 0 && d.in_w > 12 && d.in_h > 12) {
    d.crop[0] = 1 + 2 * pick (d.in_w / 8);
    d.crop[1] = 1 + 2 * pick (d.in_h / 8);
    d.crop[2] = d.in_w - d.crop[0] - pick (d.in_w / 4);
    d.crop[3] = d.in_h - d.crop[1] - pick (d.in_h / 4);
  }
  return d;
}

// Both frames of a description, the input of random codes.
struct Frames {
  GstVideoInfo in, out;
  std::vector<guint8> in_mem, out_mem;
  explicit Frames (const Description & d, std::mt19937 & random)
  {
    fail_unless (gst_video_info_set_format (&in, d.in, d.in_w, d.in_h));
    fail_unless (gst_video_info_set_format (&out, d.out, d.out_w, d.out_h));
    in_mem.resize (GST_VIDEO_INFO_SIZE (&in));
    out_mem.resize (GST_VIDEO_INFO_SIZE (&out));
    for (guint8 & b : in_mem)
      b = (guint8)random ();
  }
  gpu::ConvertScale describe (const Description & d)
  {
    gpu::ConvertScale op;
    gst_cs::describe_convert (
        &in, &out, d.crop[0], d.crop[1], d.crop[2], d.crop[3], d.settings, &op);
    op.in = gst_cs::convert_image (&in, &in, in_mem.data (), false);
    op.out = gst_cs::convert_image (&out, &out, out_mem.data (), true);
    return op;
  }
};

// The output of `resolved` computed as the GPU computes it, from zeroes.
std::vector<guint8>
as_gpu (Frames & f, const gpu::ConvertScale & resolved)
{
  std::fill (f.out_mem.begin (), f.out_mem.end (), 0);
  gpu::convert_scale_resolved_as_gpu_on_host (resolved);
  return f.out_mem;
}

} // namespace

/* 300 random descriptions of the family: from the table, the tiles'
 * pixels are the plain twin's, byte for byte; one entry of a line in the
 * picture changed changes them. */
GST_START_TEST (test_table_matches_twin)
{
  std::mt19937 random (20261201);
  int tried = 0, taken = 0;
  while (taken < 300) {
    fail_unless (++tried < 3000, "too few random descriptions take the four taps");
    const Description d = random_description (random);
    Frames f (d, random);
    const gpu::ConvertScale op = f.describe (d);
    const char * path = gpu::convert_scale_path (op);
    if (!path || std::strcmp (path, "fixed-point taps") != 0)
      continue;
    taken++;
    const std::string what = name_of (d);
    gpu::ConvertScale resolved;
    fail_unless (gpu::convert_scale_resolve (op, &resolved), "%s", what.c_str ());
    const std::size_t bytes = gpu::convert_scale_lines_bytes (resolved);
    fail_unless (
        bytes > 0 && bytes % sizeof (Entry) == 0, "%s: %zu bytes", what.c_str (), bytes);
    std::fill (f.out_mem.begin (), f.out_mem.end (), 0);
    fail_unless (gpu::convert_scale_on_host (op), "%s", what.c_str ());
    const std::vector<guint8> twin = f.out_mem;
    /* Poisoned first: what the table holds must be what is read. */
    std::vector<Chunk> table (bytes / sizeof (Chunk));
    std::memset (table.data (), 0xa5, bytes);
    gpu::convert_scale_point_lines (&resolved, table.data ());
    fail_unless (resolved.fixed.lines == table.data () && resolved.fixed.lines_on);
    gpu::convert_scale_fill_lines_on_host (resolved);
    fail_unless (as_gpu (f, resolved) == twin,
        "%s: the tiles' pixels from the table differ from the twin's", what.c_str ());
    /* The luma's taps of a column in the middle of the picture moved to
     * the plane's first four samples, all on the first (or, where they
     * were there, on the fourth). */
    if (taken % 5 == 0) {
      auto * entries = reinterpret_cast<Entry *> (table.data ());
      const int o = resolved.dst_x + resolved.dst_w / 2;
      Entry & e = entries[resolved.fixed.lines_at[0][0] + o + 1];
      const Entry kept = e;
      const bool first = kept.o0 == 0 && kept.q[0] == 256;
      e = first ? Entry{ 0, { 0, 0, 0, 256 }, { 0, 256u << 16 }, 0 }
                : Entry{ 0, { 256, 0, 0, 0 }, { 256, 0 }, 0 };
      fail_unless (as_gpu (f, resolved) != twin,
          "%s: one entry of the table changed, the frame did not", what.c_str ());
      e = kept;
    }
    /* Moved to other frames: the table stays where it is. */
    gpu::ConvertScale moved = resolved;
    fail_unless (gpu::convert_scale_move (&moved, 64, -128));
    fail_unless (moved.fixed.lines == table.data () && moved.fixed.lines_on &&
                     std::memcmp (moved.fixed.lines_at, resolved.fixed.lines_at,
                         sizeof moved.fixed.lines_at) == 0,
        "%s: a move changed the table's fields", what.c_str ());
  }
  g_print ("%d of %d random descriptions took the four taps\n", taken, tried);
}
GST_END_TEST;

/* The table is the description's memory, not a frame's: each_address,
 * which moves frames and strips them from a compiled kernel's key, leaves
 * it; each_table_address_pair names it; take_addresses copies it. */
GST_START_TEST (test_table_is_not_a_frame_address)
{
  std::mt19937 random (3);
  Description d{};
  d.in = GST_VIDEO_FORMAT_NV12, d.in_w = 384, d.in_h = 216;
  d.out = GST_VIDEO_FORMAT_RGBA, d.out_w = 96, d.out_h = 54;
  d.crop[2] = d.in_w, d.crop[3] = d.in_h;
  d.settings.filter = gpu::Filter::BICUBIC;
  Frames f (d, random);
  gpu::ConvertScale resolved;
  fail_unless (gpu::convert_scale_resolve (f.describe (d), &resolved));
  std::vector<Chunk> table (gpu::convert_scale_lines_bytes (resolved) / sizeof (Chunk));
  fail_unless (!table.empty ());
  gpu::convert_scale_point_lines (&resolved, table.data ());
  int frames = 0, tables = 0;
  gpu::each_address (resolved, [&] (auto *& p, bool) {
    frames++;
    fail_if (static_cast<const void *> (p) == table.data (), "a frame's address");
  });
  fail_unless (frames > 0);
  gpu::each_table_address_pair (resolved, resolved, [&] (auto *& p, auto *&) {
    tables++;
    fail_unless (static_cast<const void *> (p) == table.data ());
  });
  fail_unless_equals_int (tables, 1);
  gpu::ConvertScale compiled = resolved;
  compiled.fixed.lines = nullptr;
  gpu::take_addresses (compiled, resolved);
  fail_unless (compiled.fixed.lines == table.data ());
  /* Off again, and for a description whose kernel reads no table. */
  gpu::convert_scale_point_lines (&resolved, nullptr);
  fail_unless (!resolved.fixed.lines_on && resolved.fixed.lines == nullptr);
  d.settings.filter = gpu::Filter::BILINEAR;
  fail_unless (gpu::convert_scale_resolve (f.describe (d), &resolved));
  fail_unless_equals_int ((int)gpu::convert_scale_lines_bytes (resolved), 0);
  gpu::convert_scale_point_lines (&resolved, table.data ());
  fail_unless (!resolved.fixed.lines_on);
}
GST_END_TEST;

static Suite *
convert_lines_suite (void)
{
  Suite * s = suite_create ("convert_lines");
  TCase * tc = tcase_create ("general");
  tcase_set_timeout (tc, 110);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_table_matches_twin);
  tcase_add_test (tc, test_table_is_not_a_frame_address);
  return s;
}

GST_CHECK_MAIN (convert_lines);

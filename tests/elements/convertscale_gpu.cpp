/* SPDX-License-Identifier: LGPL-2.1-or-later */
// On a GPU: cudaconvertscale's frames are, bit for bit, those of the
// kernel's CPU twin (gpu/convert_scale_host.cpp) for every input format,
// the output formats, the four methods, the eight orientations, borders,
// odd sizes and crops, 1x1 and 16384 wide; they agree with GStreamer's
// videoconvert (conversions), videoconvertscale (scaling, PSNR) and
// videoflip (orientations, exact); cudacrop's crop meta is fused into the
// one kernel; equal caps pass frames through; the element never waits on
// the host; bad sizes and properties are refused with clear messages.
//
// Frames come from an appsrc with random content (videotestsrc's snow is
// grey: U = V = 128), the same frames teed to the CPU reference.
#include <gst/app/gstappsrc.h>
#include <gst/check/gstcheck.h>

#include <dlfcn.h>

#include <atomic>
#include <cmath>
#include <cstring>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "convert_scale.h"
#include "convert_scale_two_tap.h"
#include "convert/gstcsconvertdesc.hpp"
#include "gstcudastreams.h"
#include "testutil.h"

using testutil::Captured;
namespace gpu = gst_cs::gpu;

struct Crop {
  gint l = 0, r = 0, t = 0, b = 0;
};

using testutil::Content;

struct Case {
  Case (const char * in, gint iw, gint ih, const char * out, gint ow, gint oh)
      : in_format (in), in_w (iw), in_h (ih), out_format (out), out_w (ow), out_h (oh)
  {}
  const char * in_format;
  gint in_w, in_h;
  const char * out_format;
  gint out_w, out_h;
  gpu::Filter filter = gpu::Filter::BILINEAR;
  GstVideoOrientationMethod direction = GST_VIDEO_ORIENTATION_IDENTITY;
  Crop crop;                   /* by cudacrop before it: fused through the crop meta */
  const char * in_extra = "";  /* more input caps fields: ",colorimetry=bt709" */
  const char * out_extra = ""; /* more output caps fields */
  bool add_borders = true;
  guint32 border = 0xff000000;
  gint frames = 2;
  Content content = Content::RANDOM;
};

static const char * const method_nicks[] = { "nearest-neighbour", "bilinear", "bicubic",
  "area" };

static const char *
direction_nick (GstVideoOrientationMethod m)
{
  GEnumClass * klass = (GEnumClass *)g_type_class_ref (GST_TYPE_VIDEO_ORIENTATION_METHOD);
  const char * nick = g_enum_get_value (klass, m)->value_nick;
  g_type_class_unref (klass);
  return nick;
}

static std::string
describe (const Case & c)
{
  gchar * text = g_strdup_printf ("%s %dx%d%s -> %s %dx%d%s %s %s crop l%d r%d t%d b%d%s",
      c.in_format, c.in_w, c.in_h, c.in_extra, c.out_format, c.out_w, c.out_h,
      c.out_extra, method_nicks[(int)c.filter], direction_nick (c.direction), c.crop.l,
      c.crop.r, c.crop.t, c.crop.b, c.add_borders ? "" : " no borders");
  std::string s = text;
  g_free (text);
  return s;
}

static gchar *
input_caps (const Case & c)
{
  return g_strdup_printf ("video/x-raw,format=%s,width=%d,height=%d,framerate=30/1%s",
      c.in_format, c.in_w, c.in_h, c.in_extra);
}

/* --- frames' components ---------------------------------------------- */

/* Largest difference of codes between two frames of one format, and
 * their PSNR (dB, over every component's codes). */
struct Difference {
  guint max = 0;
  double psnr = INFINITY;
  std::string where;
};

static Difference
compare (GstBuffer * a, const GstVideoInfo * ia, GstBuffer * b, const GstVideoInfo * ib,
    const char * what)
{
  fail_unless (GST_VIDEO_INFO_FORMAT (ia) == GST_VIDEO_INFO_FORMAT (ib) &&
                   ia->width == ib->width && ia->height == ib->height,
      "%s: %s %dx%d vs %s %dx%d", what, GST_VIDEO_INFO_NAME (ia), ia->width, ia->height,
      GST_VIDEO_INFO_NAME (ib), ib->width, ib->height);
  GstVideoFrame fa, fb;
  fail_unless (
      gst_video_frame_map (&fa, const_cast<GstVideoInfo *> (ia), a, GST_MAP_READ));
  fail_unless (
      gst_video_frame_map (&fb, const_cast<GstVideoInfo *> (ib), b, GST_MAP_READ));
  Difference d;
  double sq = 0.0, n = 0.0, max_code = 0.0;
  for (guint c = 0; c < GST_VIDEO_FRAME_N_COMPONENTS (&fa); c++) {
    max_code = MAX (max_code, (double)((1u << GST_VIDEO_FRAME_COMP_DEPTH (&fa, c)) - 1));
    for (gint y = 0; y < GST_VIDEO_FRAME_COMP_HEIGHT (&fa, c); y++)
      for (gint x = 0; x < GST_VIDEO_FRAME_COMP_WIDTH (&fa, c); x++) {
        const gint va = (gint)testutil::code_of (&fa, c, x, y),
                   vb = (gint)testutil::code_of (&fb, c, x, y);
        const guint e = (guint)ABS (va - vb);
        sq += (double)e * e, n += 1.0;
        if (e > d.max) {
          d.max = e;
          gchar * w =
              g_strdup_printf ("component %u at %d,%d: %d vs %d", c, x, y, va, vb);
          d.where = w;
          g_free (w);
        }
      }
  }
  gst_video_frame_unmap (&fa);
  gst_video_frame_unmap (&fb);
  if (sq > 0.0)
    d.psnr = 10.0 * std::log10 (max_code * max_code / (sq / n));
  return d;
}

/* --- the CPU twin ------------------------------------------------------ */

/* What the element's kernel makes of `in` for case `c`, computed on the CPU
 * by the same arithmetic, described by the element's own function; `path`
 * (where given): the kernel path that computes it. in_float: the frame as
 * the float paths would compute it were it not in fixed point (the
 * description resolved, then its fixed point turned off). */
static GstBuffer *
twin_of (const Case & c, GstBuffer * in, const GstVideoInfo * ii, const GstVideoInfo * oi,
    std::string * path = nullptr, bool in_float = false)
{
  GstBuffer * out = gst_buffer_new_allocate (NULL, oi->size, NULL);
  gst_buffer_memset (out, 0, 0, oi->size);
  GstVideoFrame fi, fo;
  fail_unless (
      gst_video_frame_map (&fi, const_cast<GstVideoInfo *> (ii), in, GST_MAP_READ));
  fail_unless (
      gst_video_frame_map (&fo, const_cast<GstVideoInfo *> (oi), out, GST_MAP_WRITE));
  gst_cs::ConvertSettings settings;
  settings.filter = c.filter;
  settings.orientation = static_cast<gpu::Orientation> (c.direction);
  settings.add_borders = c.add_borders;
  settings.border_argb = c.border;
  gpu::ConvertScale op;
  gst_cs::describe_convert (ii, oi, c.crop.l, c.crop.t, c.in_w - c.crop.l - c.crop.r,
      c.in_h - c.crop.t - c.crop.b, settings, &op);
  op.in = gst_cs::convert_image (ii, &fi.info, (guint8 *)fi.map[0].data, false);
  op.out = gst_cs::convert_image (oi, &fo.info, (guint8 *)fo.map[0].data, true);
  if (in_float) {
    gpu::ConvertScale resolved;
    fail_unless (gpu::convert_scale_resolve (op, &resolved), "refused: %dx%d -> %dx%d",
        c.in_w, c.in_h, c.out_w, c.out_h);
    resolved.fixed = gpu::ConvertScale::FixedPoint{};
    gpu::convert_scale_resolved_as_gpu_on_host (resolved);
  } else {
    fail_unless (gpu::convert_scale_on_host (op), "the twin refuses %dx%d -> %dx%d",
        c.in_w, c.in_h, c.out_w, c.out_h);
  }
  if (path)
    *path = gpu::convert_scale_path (op);
  gst_video_frame_unmap (&fi);
  gst_video_frame_unmap (&fo);
  return out;
}

/* --- pipelines ------------------------------------------------------- */

/* Whether this GStreamer has the CPU reference `factory` (videoconvertscale
 * is 1.22's; a GStreamer built without gst-plugins-good lacks videoflip):
 * where it does not, the comparison says so and is left out. */
static bool
have_reference (const char * factory)
{
  GstElementFactory * f = gst_element_factory_find (factory);
  if (!f) {
    g_print ("REFERENCE-MISSING %s: not in GStreamer %s, comparison left out\n", factory,
        gst_version_string ());
    return false;
  }
  gst_object_unref (f);
  return true;
}

/* "appsrc ! tee", one branch captured as it is ("in"), the other through
 * `chain` ("out"), and, where `reference` is given, a third through it
 * ("ref"). The frames are pushed before the pipeline runs. */
static GstElement *
pipeline_of (const Case & c, const std::string & chain, const char * reference,
    Captured * in, Captured * out, Captured * ref)
{
  gchar * caps = input_caps (c);
  gchar * ref_branch =
      reference
          ? g_strdup_printf ("t. ! queue ! %s ! appsink name=ref sync=false", reference)
          : g_strdup ("");
  gchar * desc = g_strdup_printf ("appsrc name=src format=time max-bytes=0 caps=\"%s\" ! "
                                  "tee name=t t. ! queue ! appsink name=in sync=false "
                                  "t. ! queue ! %s ! appsink name=out sync=false %s",
      caps, chain.c_str (), ref_branch);
  GError * err = NULL;
  GstElement * pipeline = gst_parse_launch (desc, &err);
  fail_unless (pipeline != NULL && err == NULL, "%s: %s", desc, err ? err->message : "");
  g_free (desc);
  g_free (ref_branch);

  GstCaps * parsed = gst_caps_from_string (caps);
  GstVideoInfo info;
  fail_unless (gst_video_info_from_caps (&info, parsed), "%s", caps);
  gst_caps_unref (parsed);
  g_free (caps);
  testutil::push_frames (
      pipeline, "src", &info, c.content, 1000, c.frames, GST_SECOND / 30);
  testutil::capture_appsink (pipeline, "in", in);
  testutil::capture_appsink (pipeline, "out", out);
  if (reference)
    testutil::capture_appsink (pipeline, "ref", ref);
  return pipeline;
}

/* Ours: upload, maybe cudacrop, cudaconvertscale "cs", the output caps,
 * download. */
static std::string
chain_of (const Case & c)
{
  gchar * crop =
      c.crop.l || c.crop.r || c.crop.t || c.crop.b
          ? g_strdup_printf ("cudastreamscrop left=%d right=%d top=%d bottom=%d ! ",
                c.crop.l, c.crop.r, c.crop.t, c.crop.b)
          : g_strdup ("");
  gchar * chain =
      g_strdup_printf ("cudastreamsupload ! %scudastreamsconvertscale name=cs "
                       "method=%s video-direction=%s add-borders=%s "
                       "border-color=%u ! video/x-raw(" GST_CAPS_FEATURE_MEMORY_CS
                       "),format=%s,width=%d,height=%d%s ! cudastreamsdownload",
          crop, method_nicks[(int)c.filter], direction_nick (c.direction),
          c.add_borders ? "true" : "false", c.border, c.out_format, c.out_w, c.out_h,
          c.out_extra);
  std::string s = chain;
  g_free (chain);
  g_free (crop);
  return s;
}

/* Runs case `c`: every output frame equals its twin's, and the element
 * waited on the host for none. */
static void
check_against_twin (const Case & c)
{
  const std::string what = describe (c);
  Captured in, out, unused;
  GstElement * pipeline = pipeline_of (c, chain_of (c), NULL, &in, &out, &unused);
  testutil::run_to_eos (pipeline, what.c_str ());
  fail_unless_equals_int (testutil::host_waits (pipeline, "cs"), 0);
  fail_unless (
      in.buffers.size () == (size_t)c.frames && out.buffers.size () == in.buffers.size (),
      "%s: %zu frames in, %zu out", what.c_str (), in.buffers.size (),
      out.buffers.size ());
  for (size_t i = 0; i < in.buffers.size (); i++) {
    GstBuffer * want = twin_of (c, in.buffers[i], &in.infos[i], &out.infos[i]);
    const std::string frame = what + ", frame " + std::to_string (i);
    /* Odd-width YUY2/UYVY: the luma byte after the frame's edge is not a
     * pixel; the comparison leaves it out, as for videocrop's frames. */
    testutil::assert_cropped_equal (
        want, &out.infos[i], out.buffers[i], &out.infos[i], frame.c_str ());
    gst_buffer_unref (want);
  }
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
}

/* --- against the twin ------------------------------------------------- */

/* Every input format to the common outputs, every output format from NV12
 * and RGBA; each pair once at its own size and once scaled to an odd size,
 * the methods in turn. */
GST_START_TEST (test_formats_match_twin)
{
  const std::vector<const char *> outputs = { "RGBA", "NV12", "P010_10LE", "RGBP" };
  const std::vector<const char *> all_out = { "RGBA", "BGRA", "RGBx", "BGRx", "ARGB",
    "ABGR", "RGB", "BGR", "GRAY8", "GRAY16_LE", "NV12", "NV21", "I420", "YV12", "Y42B",
    "Y444", "P010_10LE", "P016_LE", "YUY2", "UYVY", "RGBP", "BGRP" };
  std::vector<std::pair<const char *, const char *>> pairs;
  for (const char * f : testutil::all_formats)
    for (const char * o : outputs)
      pairs.emplace_back (f, o);
  for (const char * o : all_out) {
    pairs.emplace_back ("NV12", o);
    pairs.emplace_back ("RGBA", o);
  }
  int n = 0;
  for (auto & p : pairs) {
    Case same{ p.first, 38, 22, p.second, 38, 22 };
    check_against_twin (same);
    Case scaled{ p.first, 37, 23, p.second, 20 + n % 7, 31 - n % 5 };
    scaled.filter = static_cast<gpu::Filter> (n % 4);
    scaled.add_borders = n % 2;
    check_against_twin (scaled);
    n++;
  }
}
GST_END_TEST;

static std::string path_of_case (const Case & c);

/* The eight orientations, with scaling, a fused odd crop and borders. */
GST_START_TEST (test_orientations_match_twin)
{
  for (int m = GST_VIDEO_ORIENTATION_IDENTITY; m <= GST_VIDEO_ORIENTATION_UR_LL; m++) {
    /* Scaled, cropped, bordered. Into one word of bit fields a pixel
     * (the last three) the path is the point too: the two-tap tiles where
     * the method takes at most two taps a line (nearest, bilinear, area
     * where it does not shrink: turned, 41x26 into 52x30), storing the
     * words whole; taps per pixel for the others. */
    const char * const scaled[] = { "NV12>NV12", "RGBA>I420", "I420>RGBP", "NV12>RGB16",
      "P010_10LE>Y410", "RGBA>RGB10A2_LE" };
    for (size_t k = 0; k < G_N_ELEMENTS (scaled); k++) {
      gchar ** f = g_strsplit (scaled[k], ">", 2);
      Case c{ f[0], 45, 29, f[1], 30, 52 };
      c.direction = (GstVideoOrientationMethod)m;
      c.crop = { 3, 1, 1, 2 };
      c.filter = static_cast<gpu::Filter> (m % 4);
      c.border = 0xff2080c0;
      if (k >= 3) {
        const bool turned = gst_cs::swaps_axes (static_cast<gpu::Orientation> (m));
        const bool two = c.filter == gpu::Filter::NEAREST ||
                         c.filter == gpu::Filter::BILINEAR ||
                         (c.filter == gpu::Filter::AREA && turned);
        const char * want = two ? "two taps" : "taps per pixel";
        fail_unless (path_of_case (c) == want, "%s: the %s path, not %s", scaled[k],
            path_of_case (c).c_str (), want);
      }
      check_against_twin (c);
      g_strfreev (f);
    }
    /* Turned and cropped but not scaled (one sample per pixel; 4-byte
     * words a pixel staged through shared memory, 8-bit or bit fields of
     * 10-bit RGB and Y410 in or out, and 16-bit words of fields out; 4:4:4
     * YUV into 4:4:4 YUV, whose chroma is on the output's grid when not
     * turned), and with a border. The path where it is the point. */
    const struct {
      const char * pair;
      const char * path;
    } unscaled[] = { { "RGBA>BGRx", nullptr }, { "RGBx>RGBA", nullptr },
      { "NV12>NV12", nullptr }, { "BGR10A2_LE>RGBA", "staged" },
      { "RGBA>RGB10A2_LE", "staged" }, { "Y410>BGR10A2_LE", "staged" },
      { "Y410>AYUV", "staged" }, { "RGBA>RGB16", "staged" },
      { "Y444_10LE>Y444_16LE", "one sample" } };
    for (const auto & u : unscaled) {
      gchar ** f = g_strsplit (u.pair, ">", 2);
      const bool swap = gst_cs::swaps_axes (static_cast<gpu::Orientation> (m));
      Case c{ f[0], 45, 29, f[1], swap ? 26 : 41, swap ? 41 : 26 };
      c.direction = (GstVideoOrientationMethod)m;
      c.crop = { 3, 1, 1, 2 };
      fail_unless (!u.path || path_of_case (c) == u.path, "%s: the %s path, not %s",
          u.pair, path_of_case (c).c_str (), u.path);
      check_against_twin (c);
      Case bordered = c;
      bordered.out_w += 6;
      bordered.border = 0xff2080c0;
      check_against_twin (bordered);
      g_strfreev (f);
    }
  }
}
GST_END_TEST;

/* The smallest and widest frames, large shrinks (area and the others),
 * colorimetries and ranges, borders of a colour, odd crops of 4:2:0. */
GST_START_TEST (test_edges_match_twin)
{
  std::vector<Case> cases = {
    { "NV12", 1, 1, "RGBA", 1, 1 },
    { "RGBA", 1, 1, "NV12", 1, 1 },
    { "NV12", 1, 1, "RGBA", 7, 5 },
    { "I420", 3, 3, "NV12", 1, 1 },
    { "NV12", 16384, 4, "RGBA", 16384, 4 },
    { "RGBA", 16384, 2, "NV12", 1000, 2 },
    { "NV12", 2, 16384, "RGBA", 2, 1024 },
    { "NV12", 640, 360, "RGBA", 37, 21 },
    { "P010_10LE", 64, 48, "NV12", 64, 48 },
    { "NV12", 64, 48, "P010_10LE", 64, 48 },
    { "NV12", 64, 48, "RGBA", 64, 48 },
    { "RGBA", 64, 48, "NV12", 64, 48 },
    { "RGBA", 64, 36, "RGBP", 64, 64 }, /* letterbox, a border of a colour */
    { "NV12", 33, 17, "I420", 33, 17 },
    { "P010_10LE", 37, 23, "NV12", 37, 23 }, /* YUV -> YUV on one grid, odd sizes */
    { "NV12", 37, 23, "P010_10LE", 37, 23 },
    { "I420", 38, 22, "NV21", 38, 22 },
  };
  cases[0].filter = gpu::Filter::BICUBIC;
  cases[5].filter = gpu::Filter::AREA;
  cases[6].filter = gpu::Filter::AREA;
  cases[8].in_extra = ",colorimetry=bt2020";
  cases[8].out_extra = ",colorimetry=bt709";
  cases[9].in_extra = ",colorimetry=bt601";
  cases[9].out_extra = ",colorimetry=bt2020";
  cases[10].in_extra = ",colorimetry=bt709";
  cases[11].out_extra = ",colorimetry=1:4:0:0"; /* full range, BT.601 */
  cases[12].border = 0x80ff8000;
  cases[12].out_extra = ",pixel-aspect-ratio=1/1";
  cases[13].crop = { 3, 1, 1, 2 };
  cases[16].crop = { 4, 2, 2, 6 }; /* on the chroma grid */
  for (gpu::Filter f : { gpu::Filter::NEAREST, gpu::Filter::BILINEAR,
           gpu::Filter::BICUBIC, gpu::Filter::AREA }) {
    Case shrink{ "NV12", 640, 360, "RGBA", 37, 21 };
    shrink.filter = f;
    cases.push_back (shrink);
  }
  for (const Case & c : cases)
    check_against_twin (c);
}
GST_END_TEST;

/* Bicubic and area shrinking in tiles (tap_tile): 8-bit bicubic's four
 * taps a line, padded where a line is on a sample (upscaled) and unrolled,
 * and the others' any number up to 8 (area shrinking by 2.5, 2.995, 3 and
 * 3.3, whose lines have up to five), each against the twin: turned,
 * cropped, 10-bit, packed RGB and 4:2:0 outputs. */
GST_START_TEST (test_tap_tiles_match_twin)
{
  std::vector<Case> cases = {
    { "NV12", 192, 108, "RGBA", 64, 36 },   /* area 3 */
    { "NV12", 192, 108, "NV12", 64, 36 },   /* area 3, luma alone */
    { "I420", 160, 90, "RGBA", 64, 36 },    /* area 2.5 */
    { "NV12", 599, 299, "RGBA", 200, 100 }, /* area 2.995: any number */
    { "RGBA", 211, 118, "NV12", 64, 36 },   /* area 3.3: five taps on some lines */
    { "NV12", 200, 112, "RGBA", 64, 36 },   /* area 3 of a crop at odd offsets */
    /* bicubic up 1.5 to 1 (tap_tile::sums_pay): from the tiles' row sums */
    { "NV12", 64, 36, "RGBA", 96, 54 },
    { "NV12", 64, 36, "NV12", 96, 54 },           /* the luma alone */
    { "RGBA", 60, 40, "I420", 90, 60 },           /* chroma filtered down */
    { "P010_10LE", 64, 36, "P010_10LE", 80, 46 }, /* any number of taps */
    { "NV12", 64, 48, "RGBA", 72, 96 },           /* turned */
    { "I420", 100, 60, "RGBA", 100, 60 },         /* a crop at odd offsets */
    { "NV12", 96, 64, "RGBA", 40, 72 },           /* bicubic turned */
    { "P010_10LE", 128, 72, "RGBA", 64, 36 },
    { "NV12", 200, 120, "I420", 70, 50 }, /* bicubic of a crop */
    { "RGBA", 100, 100, "BGRx", 37, 29 },
  };
  for (int k = 0; k < 6; k++)
    cases[k].filter = gpu::Filter::AREA;
  for (size_t k = 6; k < cases.size (); k++)
    cases[k].filter = gpu::Filter::BICUBIC;
  cases[5].crop = { 3, 5, 1, 3 };
  cases[10].direction = GST_VIDEO_ORIENTATION_90R;
  cases[11].crop = { 3, 5, 1, 7 };
  cases[12].direction = GST_VIDEO_ORIENTATION_90R;
  cases[14].crop = { 3, 5, 1, 7 };
  for (const Case & c : cases)
    check_against_twin (c);
}
GST_END_TEST;

/* 16-bit frames an application lays out at odd addresses (device memory
 * of its own, a video meta putting every plane at an odd offset, its rows
 * an odd number of bytes apart): Image::even does not hold, so the
 * kernels ask where each sample lies and read those of odd rows byte by
 * byte; the frames are still the twin's, bit for bit, on each kernel
 * path. (The outputs are the element's own frames, whose samples are
 * aligned words.) */
GST_START_TEST (test_odd_16bit_layout_matches_twin)
{
  std::vector<Case> cases = {
    { "P010_10LE", 38, 22, "RGBA", 38, 22 },
    { "Y444_16LE", 38, 22, "P016_LE", 38, 22 }, /* chroma filtered down */
    { "I420_10LE", 38, 22, "GBR_10LE", 38, 22 },
    { "P016_LE", 40, 24, "P010_10LE", 27, 17 },
    { "I420_12LE", 40, 24, "I420_10LE", 40, 24 },
    { "P010_10LE", 64, 36, "Y444_16LE", 96, 54 },
    { "GRAY16_LE", 60, 36, "GRAY16_LE", 20, 12 },
  };
  const char * const paths[] = { "two taps", "one sample", "two taps", "planes", "direct",
    "taps per tile", "taps per tile" };
  cases[5].filter = gpu::Filter::BICUBIC;
  cases[6].filter = gpu::Filter::AREA;
  guint32 seed = 7;
  for (size_t k = 0; k < cases.size (); k++) {
    const Case & c = cases[k];
    const std::string what = describe (c) + ", odd layout";
    GstVideoInfo info = testutil::video_info (c.in_format, c.in_w, c.in_h);
    gsize offset[GST_VIDEO_MAX_PLANES] = {}, at = 1;
    gint stride[GST_VIDEO_MAX_PLANES] = {};
    for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES (&info); p++) {
      stride[p] = info.stride[p] + 3; /* 16-bit rows: odd */
      offset[p] = at;
      at = (at + (gsize)stride[p] * GST_VIDEO_INFO_COMP_HEIGHT (&info, p) + 2) | 1;
    }
    const gsize size = at + 16;
    /* The frame's bytes on the host (the twin's input: random codes of
     * the format's depth, rows moved to the odd layout, random bytes
     * between them) and the same on the device, each with the layout in
     * a video meta. */
    GstBuffer * host = testutil::random_buffer (size, seed);
    GstBuffer * codes = testutil::video_frame (&info, Content::RANDOM, seed++);
    GstMapInfo m, cm;
    fail_unless (gst_buffer_map (host, &m, GST_MAP_WRITE));
    fail_unless (gst_buffer_map (codes, &cm, GST_MAP_READ));
    for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES (&info); p++)
      for (gint r = 0; r < GST_VIDEO_INFO_COMP_HEIGHT (&info, p); r++)
        std::memcpy (m.data + offset[p] + (gsize)r * stride[p],
            cm.data + info.offset[p] + (gsize)r * info.stride[p], info.stride[p]);
    gst_buffer_unmap (codes, &cm);
    gst_buffer_unref (codes);
    void * data = nullptr;
    fail_unless_equals_int (cudaMalloc (&data, size), cudaSuccess);
    fail_unless_equals_int (
        cudaMemcpy (data, m.data, size, cudaMemcpyHostToDevice), cudaSuccess);
    gst_buffer_unmap (host, &m);
    GstBuffer * dev = gst_buffer_new ();
    gst_buffer_append_memory (dev, gst_cs_memory_new_wrapped (0, data, size, NULL, NULL));
    for (GstBuffer * b : { host, dev })
      gst_buffer_add_video_meta_full (b, GST_VIDEO_FRAME_FLAG_NONE,
          GST_VIDEO_INFO_FORMAT (&info), c.in_w, c.in_h, GST_VIDEO_INFO_N_PLANES (&info),
          offset, stride);
    GST_BUFFER_PTS (dev) = 0;
    GST_BUFFER_DURATION (dev) = GST_SECOND / 30;

    gchar * line = g_strdup_printf (
        "appsrc name=src format=time caps=\"video/x-raw(" GST_CAPS_FEATURE_MEMORY_CS
        "),format=%s,width=%d,height=%d,framerate=30/1\" ! cudastreamsconvertscale "
        "name=cs method=%s ! video/x-raw(" GST_CAPS_FEATURE_MEMORY_CS
        "),format=%s,width=%d,height=%d ! cudastreamsdownload ! appsink name=out "
        "sync=false",
        c.in_format, c.in_w, c.in_h, method_nicks[(int)c.filter], c.out_format, c.out_w,
        c.out_h);
    GError * err = NULL;
    GstElement * pipeline = gst_parse_launch (line, &err);
    fail_unless (pipeline && !err, "%s: %s", line, err ? err->message : "");
    g_free (line);
    Captured out;
    testutil::capture_appsink (pipeline, "out", &out);
    gst_element_set_state (pipeline, GST_STATE_PLAYING);
    GstElement * src = testutil::by_name (pipeline, "src");
    fail_unless_equals_int (
        gst_app_src_push_buffer (GST_APP_SRC (src), dev), GST_FLOW_OK);
    gst_app_src_end_of_stream (GST_APP_SRC (src));
    gst_object_unref (src);
    testutil::run_to_eos (pipeline, what.c_str ());
    fail_unless_equals_int (testutil::host_waits (pipeline, "cs"), 0);
    fail_unless_equals_int (out.buffers.size (), 1);
    std::string path;
    GstBuffer * want = twin_of (c, host, &info, &out.infos[0], &path);
    fail_unless (path == paths[k], "%s: the %s path, not %s", what.c_str (),
        path.c_str (), paths[k]);
    testutil::assert_frames_equal (
        want, &out.infos[0], out.buffers[0], &out.infos[0], what.c_str ());
    gst_buffer_unref (want);
    gst_buffer_unref (host);
    gst_element_set_state (pipeline, GST_STATE_NULL);
    gst_object_unref (pipeline);
    cudaFree (data);
  }
}
GST_END_TEST;

/* Calls fn (op) with the element's description of caps `in` -> `out`
 * (its images on scratch memory) and returns what fn returns. */
template <class Fn>
static auto
with_description (const char * in, const char * out, gpu::Filter filter, bool add_borders,
    GstVideoOrientationMethod direction, Crop crop, Fn fn)
{
  GstVideoInfo vi[2];
  guint8 * data[2];
  const char * caps[2] = { in, out };
  for (int k = 0; k < 2; k++) {
    GstCaps * parsed = gst_caps_from_string (caps[k]);
    fail_unless (gst_video_info_from_caps (&vi[k], parsed), "%s", caps[k]);
    gst_caps_unref (parsed);
    data[k] = (guint8 *)g_malloc (GST_VIDEO_INFO_SIZE (&vi[k]));
  }
  gst_cs::ConvertSettings settings;
  settings.filter = filter;
  settings.add_borders = add_borders;
  settings.orientation = static_cast<gpu::Orientation> (direction);
  gpu::ConvertScale op;
  gst_cs::describe_convert (&vi[0], &vi[1], crop.l, crop.t,
      GST_VIDEO_INFO_WIDTH (&vi[0]) - crop.l - crop.r,
      GST_VIDEO_INFO_HEIGHT (&vi[0]) - crop.t - crop.b, settings, &op);
  op.in = gst_cs::convert_image (&vi[0], &vi[0], data[0], false);
  op.out = gst_cs::convert_image (&vi[1], &vi[1], data[1], true);
  auto result = fn (op);
  g_free (data[0]);
  g_free (data[1]);
  return result;
}

/* The kernel path of caps `in` -> `out` (the element's description). */
static std::string
path_of (const char * in, const char * out, gpu::Filter filter, bool add_borders = false,
    GstVideoOrientationMethod direction = GST_VIDEO_ORIENTATION_IDENTITY,
    Crop crop = Crop ())
{
  return with_description (in, out, filter, add_borders, direction, crop,
      [] (const gpu::ConvertScale & op) -> std::string {
        const char * path = gpu::convert_scale_path (op);
        return path ? path : "refused";
      });
}

/* The path the case takes. */
static std::string
path_of_case (const Case & c)
{
  gchar * in = g_strdup_printf (
      "video/x-raw,format=%s,width=%d,height=%d", c.in_format, c.in_w, c.in_h);
  gchar * out = g_strdup_printf ("video/x-raw,format=%s,width=%d,height=%d%s",
      c.out_format, c.out_w, c.out_h, c.out_extra);
  const std::string path =
      path_of (in, out, c.filter, c.add_borders, c.direction, c.crop);
  g_free (in);
  g_free (out);
  return path;
}

/* A decoder's 8-bit frames, three 8-bit planes at full resolution, and
 * packed 8-bit RGB in 4-byte words, resampled into 8-bit RGB or YUV take
 * the fixed-point arithmetic (convert_scale_fixed_point.h) in every
 * colorimetry and range (its bounds would otherwise send them back to
 * float, silently slower), and so do 10 to 16-bit YUV resampled by two taps
 * into 8-bit RGB; 3-byte RGB and packed RGB by four taps do not, nor
 * frames one sample a pixel into RGB (one_sample). */
GST_START_TEST (test_decoder_frames_take_fixed_point)
{
  const struct {
    const char *in, *out;
    gpu::Filter filter;
    bool borders;
    const char * path;
  } cases[] = {
    { "video/x-raw,format=NV12,width=3840,height=2160",
        "video/x-raw,format=RGBA,width=1920,height=1080", gpu::Filter::BILINEAR, false,
        "fixed point" },
    { "video/x-raw,format=NV12,width=1920,height=1080",
        "video/x-raw,format=RGBP,width=640,height=640,pixel-aspect-ratio=1/1",
        gpu::Filter::BILINEAR, true, "fixed point" },
    { "video/x-raw,format=I420,width=640,height=480,colorimetry=bt601",
        "video/x-raw,format=BGRx,width=853,height=480", gpu::Filter::NEAREST, false,
        "fixed point" },
    { "video/x-raw,format=YUY2,width=1280,height=720,colorimetry=bt2020",
        "video/x-raw,format=RGBA,width=1920,height=1080", gpu::Filter::AREA, false,
        "fixed point" },
    { "video/x-raw,format=NV12,width=1920,height=1080,colorimetry=1:4:0:0",
        "video/x-raw,format=Y444,width=1280,height=720", gpu::Filter::BILINEAR, false,
        "fixed point" },
    { "video/x-raw,format=NV12,width=1920,height=1080",
        "video/x-raw,format=BGRA,width=1920,height=1080", gpu::Filter::BILINEAR, false,
        "fixed point" },
    { "video/x-raw,format=RGBA,width=1280,height=720",
        "video/x-raw,format=RGBA,width=1920,height=1080", gpu::Filter::BILINEAR, false,
        "fixed point" },
    { "video/x-raw,format=BGRx,width=1920,height=1080",
        "video/x-raw,format=RGBP,width=640,height=640,pixel-aspect-ratio=1/1",
        gpu::Filter::BILINEAR, true, "fixed point" },
    { "video/x-raw,format=ARGB,width=1920,height=1080",
        "video/x-raw,format=Y444,width=1280,height=720", gpu::Filter::NEAREST, false,
        "fixed point" },
    { "video/x-raw,format=RGBA,width=3840,height=2160",
        "video/x-raw,format=NV12,width=1920,height=1080", gpu::Filter::BILINEAR, false,
        "fixed point" },
    { "video/x-raw,format=BGRx,width=1920,height=1080",
        "video/x-raw,format=NV12,width=1920,height=1080", gpu::Filter::BILINEAR, false,
        "fixed point" },
    /* Nearest: bilinear resamples 4:2:2's chroma into 4:2:0's (two taps). */
    { "video/x-raw,format=YUY2,width=3840,height=2160",
        "video/x-raw,format=I420,width=1920,height=1080", gpu::Filter::NEAREST, false,
        "fixed point" },
    { "video/x-raw,format=Y444,width=1920,height=1080",
        "video/x-raw,format=NV12,width=1920,height=1080", gpu::Filter::BILINEAR, false,
        "fixed point" },
    { "video/x-raw,format=GBR,width=1920,height=1080",
        "video/x-raw,format=I420,width=1280,height=720", gpu::Filter::BILINEAR, false,
        "fixed point" },
    { "video/x-raw,format=RGBP,width=1920,height=1080",
        "video/x-raw,format=RGBA,width=1280,height=720", gpu::Filter::NEAREST, false,
        "fixed point" },
    { "video/x-raw,format=RGBP,width=1920,height=1080",
        "video/x-raw,format=RGBA,width=1920,height=1080", gpu::Filter::BILINEAR, false,
        "one sample" },
    /* 10 to 16-bit YUV into 8-bit RGB: each sample filtered apart
     * (fixed_point::wide_codes); turned, in float. */
    { "video/x-raw,format=P010_10LE,width=1920,height=1080",
        "video/x-raw,format=RGBA,width=1280,height=720", gpu::Filter::BILINEAR, false,
        "fixed point" },
    { "video/x-raw,format=I420_12LE,width=1920,height=1080",
        "video/x-raw,format=RGBP,width=640,height=640,pixel-aspect-ratio=1/1",
        gpu::Filter::NEAREST, true, "fixed point" },
    { "video/x-raw,format=RGB,width=1920,height=1080",
        "video/x-raw,format=RGBA,width=1280,height=720", gpu::Filter::BILINEAR, false,
        "two taps" },
    /* Four taps: bicubic, area shrinking by up to 3; not turned; of YUV,
     * and of packed RGB into RGB (into subsampled chroma, in float). */
    { "video/x-raw,format=NV12,width=1920,height=1080",
        "video/x-raw,format=RGBA,width=1280,height=720", gpu::Filter::BICUBIC, false,
        "fixed-point taps" },
    { "video/x-raw,format=YUY2,width=1920,height=1080",
        "video/x-raw,format=I420,width=1280,height=720", gpu::Filter::BICUBIC, false,
        "fixed-point taps" },
    { "video/x-raw,format=RGBA,width=1920,height=1080",
        "video/x-raw,format=RGBA,width=2880,height=1620", gpu::Filter::BICUBIC, false,
        "fixed-point taps" },
    { "video/x-raw,format=BGRx,width=1920,height=1080",
        "video/x-raw,format=NV12,width=640,height=360", gpu::Filter::AREA, false,
        "taps per tile" },
    { "video/x-raw,format=NV12,width=3840,height=2160",
        "video/x-raw,format=RGBA,width=960,height=540", gpu::Filter::AREA, false,
        "taps per tile" },
    { "video/x-raw,format=P010_10LE,width=1920,height=1080",
        "video/x-raw,format=RGBA,width=1280,height=720", gpu::Filter::BICUBIC, false,
        "taps per tile" },
    /* Area shrinking by exactly 2 reads what bilinear reads (its lines
     * centred between two samples; 4:2:0's chroma not shrunk) ... */
    { "video/x-raw,format=NV12,width=3840,height=2160",
        "video/x-raw,format=RGBA,width=1920,height=1080", gpu::Filter::AREA, false,
        "fixed point" },
    { "video/x-raw,format=BGRx,width=1920,height=1080",
        "video/x-raw,format=NV12,width=960,height=540", gpu::Filter::AREA, false,
        "fixed point" },
    /* ... not by 3 (four taps), nor by 4 (the luma's four samples a line;
     * 4:2:0's chroma shrunk by 2 there). */
    { "video/x-raw,format=NV12,width=3840,height=2160",
        "video/x-raw,format=RGBA,width=1280,height=720", gpu::Filter::AREA, false,
        "fixed-point taps" },
    { "video/x-raw,format=I420,width=1920,height=1080",
        "video/x-raw,format=RGBA,width=480,height=270", gpu::Filter::AREA, false,
        "taps per tile" },
  };
  for (const auto & c : cases) {
    const std::string path = path_of (c.in, c.out, c.filter, c.borders);
    fail_unless (path == c.path, "%s -> %s: the %s path, not the %s one", c.in, c.out,
        path.c_str (), c.path);
  }
}
GST_END_TEST;

/* Case `c` on random content (seed), in fixed point and as the float
 * paths would compute it (twin_of's in_float), both on the CPU: how far
 * apart, printed as "FIXED-VS-FLOAT". Fails where the frame is not
 * computed on `path`. codes_only: the random 16-bit samples keep their
 * code's bits alone (a decoder's frames; the two arithmetics read the
 * other bits differently). */
static Difference
fixed_against_float (
    const Case & c, guint32 seed, const char * path, bool codes_only = false)
{
  GstVideoInfo ii, oi;
  gchar * ic_text = input_caps (c);
  gchar * oc_text = g_strdup_printf ("video/x-raw,format=%s,width=%d,height=%d%s",
      c.out_format, c.out_w, c.out_h, c.out_extra);
  GstCaps * ic = gst_caps_from_string (ic_text);
  GstCaps * oc = gst_caps_from_string (oc_text);
  fail_unless (gst_video_info_from_caps (&ii, ic) && gst_video_info_from_caps (&oi, oc));
  std::string taken;
  GstBuffer * frame = testutil::random_buffer (ii.size, seed);
  if (codes_only) {
    const GstVideoFormatInfo * fi = ii.finfo;
    fail_unless (GST_VIDEO_FORMAT_INFO_PSTRIDE (fi, 0) == 2, "%s: not 16-bit samples",
        GST_VIDEO_FORMAT_INFO_NAME (fi));
    const guint16 mask = (guint16)(((1u << GST_VIDEO_FORMAT_INFO_DEPTH (fi, 0)) - 1u)
                                   << GST_VIDEO_FORMAT_INFO_SHIFT (fi, 0));
    GstMapInfo map;
    fail_unless (gst_buffer_map (frame, &map, GST_MAP_READWRITE));
    for (gsize k = 0; k + 1 < map.size; k += 2) {
      const guint16 v = (guint16)((map.data[k] | (map.data[k + 1] << 8)) & mask);
      map.data[k] = (guint8)v;
      map.data[k + 1] = (guint8)(v >> 8);
    }
    gst_buffer_unmap (frame, &map);
  }
  GstBuffer * fixed = twin_of (c, frame, &ii, &oi, &taken);
  fail_unless (taken == path, "%s -> %s: the %s path, not the %s one", ic_text, oc_text,
      taken.c_str (), path);
  GstBuffer * floating = twin_of (c, frame, &ii, &oi, nullptr, true);
  const std::string what = describe (c) + ", fixed point against float";
  const Difference d = compare (fixed, &oi, floating, &oi, what.c_str ());
  g_print ("FIXED-VS-FLOAT %s: max %u, PSNR %.1f dB\n", what.c_str (), d.max, d.psnr);
  gst_buffer_unref (frame);
  gst_buffer_unref (fixed);
  gst_buffer_unref (floating);
  gst_caps_unref (ic);
  gst_caps_unref (oc);
  g_free (ic_text);
  g_free (oc_text);
  return d;
}

/* Area shrinking by exactly 2 in fixed point (fixed_point::area_as_bilinear):
 * the frame is the twin's, and within a code of the area filter in float
 * (the claim that area reads what bilinear reads there, on random
 * content); packed and planar RGB out, 4:2:0 out (chroma filtered down),
 * chroma in words and in planes, a crop of even size, a letterbox,
 * flipped and turned. */
GST_START_TEST (test_area_by_two_in_fixed_point)
{
  std::vector<Case> cases = {
    { "NV12", 128, 72, "RGBA", 64, 36 }, { "YUY2", 100, 60, "BGRx", 50, 30 },
    { "I420", 96, 64, "RGBP", 48, 32 }, { "BGRx", 128, 96, "NV12", 64, 48 },
    { "NV12", 1280, 720, "RGBA", 640, 640 }, /* letterbox: the picture 640x360 */
    { "NV12", 132, 76, "RGBA", 64, 36 },     /* a crop of 128x72 */
    { "NV12", 128, 72, "RGBA", 64, 36 },     /* flipped */
    { "NV12", 128, 72, "RGBA", 36, 64 },     /* turned */
  };
  cases[4].out_extra = ",pixel-aspect-ratio=1/1";
  cases[5].crop = { 1, 3, 2, 2 };
  cases[6].direction = GST_VIDEO_ORIENTATION_VERT;
  cases[7].direction = GST_VIDEO_ORIENTATION_90R;
  for (Case & c : cases) {
    c.filter = gpu::Filter::AREA;
    const std::string path = path_of_case (c);
    fail_unless (
        path == "fixed point", "%s: the %s path", describe (c).c_str (), path.c_str ());
    check_against_twin (c);
    const Difference d = fixed_against_float (c, 7, "fixed point");
    fail_unless (d.max <= 1, "%s: %u codes from float (%s)", describe (c).c_str (), d.max,
        d.where.c_str ());
  }
}
GST_END_TEST;

/* How far the fixed point's weights in 1/256 may put a frame from float's
 * on random content (every edge sharp): 2 is the most these frames
 * measured (fixed seeds), not a bound: the weights' rounding on two axes
 * could exceed a code in theory. */
static const guint kWeightRoundingCodes = 2;

/* 10 to 16-bit YUV into 8-bit RGB or 4:4:4 by two taps, in fixed point
 * (fixed_point::wide_codes): the path, the twin's frame, and within
 * kWeightRoundingCodes and 50 dB of the float paths on random content;
 * chroma in 4-byte words (P010, P016) and in planes (I420_10LE,
 * Y444_16LE, I422_12LE), nearest, bilinear, area by 2, flipped, cropped
 * and letterboxed; turned and into 4:2:0 they stay in float. */
GST_START_TEST (test_wide_samples_in_fixed_point)
{
  std::vector<Case> cases = {
    { "P010_10LE", 128, 72, "RGBA", 64, 36 }, { "P016_LE", 96, 54, "BGRx", 144, 81 },
    { "I420_10LE", 100, 60, "RGBP", 77, 41 }, { "Y444_16LE", 64, 48, "RGBA", 96, 72 },
    { "I422_12LE", 128, 72, "Y444", 64, 36 },
    { "P010_10LE", 128, 72, "RGBA", 64, 36 },  /* nearest, flipped */
    { "P012_LE", 132, 76, "RGBA", 64, 36 },    /* area by 2, of a crop */
    { "P010_10LE", 192, 108, "RGBP", 64, 64 }, /* letterboxed */
    { "I420_10LE", 64, 36, "RGBA", 64, 36 },   /* unscaled */
  };
  cases[5].filter = gpu::Filter::NEAREST;
  cases[5].direction = GST_VIDEO_ORIENTATION_HORIZ;
  cases[6].filter = gpu::Filter::AREA;
  cases[6].crop = { 2, 2, 2, 2 };
  cases[7].out_extra = ",pixel-aspect-ratio=1/1";
  cases[7].add_borders = true;
  for (Case & c : cases) {
    const std::string path = path_of_case (c);
    fail_unless (
        path == "fixed point", "%s: the %s path", describe (c).c_str (), path.c_str ());
    check_against_twin (c);
    /* The weights in 1/256 (Taps::of) put a filtered code within half a
     * code of float's on each axis where the edges are sharp, which the
     * matrix into RGB may double (kWeightRoundingCodes, as bicubic's). */
    const Difference d = fixed_against_float (c, 11, "fixed point", true);
    fail_unless (d.max <= kWeightRoundingCodes && d.psnr >= 50.0,
        "%s: %u codes from float, PSNR %.1f dB (%s)", describe (c).c_str (), d.max,
        d.psnr, d.where.c_str ());
  }
  /* Turned, and into 4:2:0: float. */
  fail_unless (path_of ("video/x-raw,format=P010_10LE,width=128,height=72",
                   "video/x-raw,format=RGBA,width=36,height=64", gpu::Filter::BILINEAR,
                   false, GST_VIDEO_ORIENTATION_90R) == "two taps");
  fail_unless (path_of ("video/x-raw,format=P010_10LE,width=128,height=72",
                   "video/x-raw,format=NV12,width=64,height=36", gpu::Filter::BILINEAR,
                   false) != "fixed point");
}
GST_END_TEST;

/* Bicubic's overshoot on random content (every edge sharp): the fixed
 * point and the float paths clamp each filtered code to the input's range
 * before the matrix (pixels::to_output, fixed_point::code_of), so they
 * differ by their rounding alone. The fixed point's weights in 1/256 put
 * a filtered code within a code of float's, which the matrix into RGB may
 * double (its largest coefficient, U into B, is about 2):
 * kWeightRoundingCodes. Into 4:4:4 of the same colours the matrix keeps
 * the codes, so clamping before it or after is the same; into RGB, with
 * float clamping only the output, these frames were 23 and 29 codes apart
 * (the stand-in, 2026-12-01). Shrinking, growing, chroma in words and in
 * planes, packed RGB (its alpha too). */

GST_START_TEST (test_bicubic_overshoot_clamped)
{
  std::vector<Case> cases = {
    { "NV12", 192, 108, "Y444", 128, 72 },
    { "I420", 128, 72, "Y444", 192, 108 },
    { "YUY2", 160, 90, "Y444", 100, 56 },
    { "NV12", 192, 108, "RGBA", 128, 72 },
    { "I420", 128, 72, "RGBP", 192, 108 },
    { "RGBA", 128, 72, "BGRA", 192, 108 },
    { "BGRx", 192, 108, "RGBA", 100, 56 },
  };
  for (Case & c : cases) {
    c.filter = gpu::Filter::BICUBIC;
    const Difference d = fixed_against_float (c, 11, "fixed-point taps");
    fail_unless (d.max <= kWeightRoundingCodes, "%s: %u codes from float (%s)",
        describe (c).c_str (), d.max, d.where.c_str ());
  }
}
GST_END_TEST;

/* The clamp at a range other than 0..255 (pixels::to_output clamps each
 * component to its own max_code): a P010 frame whose 10-bit codes are a
 * random NV12 frame's times 4, bicubic into RGBA on the float path,
 * against that NV12 frame on the fixed-point path (clamped at 255). Both
 * clamp before the matrix at the same place of the range, so they differ
 * by the rounding alone, as fixed point and float do above. */
GST_START_TEST (test_bicubic_overshoot_clamped_10_bit)
{
  Case narrow ("NV12", 192, 108, "RGBA", 128, 72);
  Case wide ("P010_10LE", 192, 108, "RGBA", 128, 72);
  narrow.filter = wide.filter = gpu::Filter::BICUBIC;
  narrow.in_extra = wide.in_extra = ",colorimetry=bt709";
  GstVideoInfo ni, wi, oi;
  gchar * n_text = input_caps (narrow);
  gchar * w_text = input_caps (wide);
  GstCaps * nc = gst_caps_from_string (n_text);
  GstCaps * wc = gst_caps_from_string (w_text);
  GstCaps * oc = gst_caps_from_string ("video/x-raw,format=RGBA,width=128,height=72");
  fail_unless (gst_video_info_from_caps (&ni, nc) && gst_video_info_from_caps (&wi, wc) &&
               gst_video_info_from_caps (&oi, oc));
  GstBuffer * eight = testutil::random_buffer (ni.size, 13);
  GstBuffer * ten = gst_buffer_new_allocate (NULL, wi.size, NULL);
  GstVideoFrame ef, tf;
  fail_unless (gst_video_frame_map (&ef, &ni, eight, GST_MAP_READ));
  fail_unless (gst_video_frame_map (&tf, &wi, ten, GST_MAP_WRITE));
  /* P010's samples are 16-bit words, the 10-bit code in the high bits:
   * an 8-bit code c times 4 is the word c << 8. */
  /* NV12's plane p begins with component p (Y; then U, V in words). */
  for (guint p = 0; p < GST_VIDEO_FRAME_N_PLANES (&ef); p++)
    for (gint y = 0; y < GST_VIDEO_FRAME_COMP_HEIGHT (&ef, p); y++) {
      const guint8 * from = (const guint8 *)GST_VIDEO_FRAME_PLANE_DATA (&ef, p) +
                            (gsize)y * GST_VIDEO_FRAME_PLANE_STRIDE (&ef, p);
      guint8 * to = (guint8 *)GST_VIDEO_FRAME_PLANE_DATA (&tf, p) +
                    (gsize)y * GST_VIDEO_FRAME_PLANE_STRIDE (&tf, p);
      const gint row =
          GST_VIDEO_FRAME_COMP_WIDTH (&ef, p) * GST_VIDEO_FRAME_COMP_PSTRIDE (&ef, p);
      for (gint x = 0; x < row; x++) {
        to[2 * x] = 0;
        to[2 * x + 1] = from[x];
      }
    }
  gst_video_frame_unmap (&ef);
  gst_video_frame_unmap (&tf);
  std::string narrow_path, wide_path;
  GstBuffer * a = twin_of (narrow, eight, &ni, &oi, &narrow_path);
  GstBuffer * b = twin_of (wide, ten, &wi, &oi, &wide_path);
  fail_unless (
      narrow_path == "fixed-point taps", "NV12 took the %s path", narrow_path.c_str ());
  fail_unless (wide_path != "fixed-point taps", "P010 took the fixed-point path");
  const std::string what = describe (wide) + " against " + describe (narrow);
  const Difference d = compare (a, &oi, b, &oi, what.c_str ());
  g_print ("TEN-VS-EIGHT %s (%s path): max %u, PSNR %.1f dB\n", what.c_str (),
      wide_path.c_str (), d.max, d.psnr);
  fail_unless (d.max <= kWeightRoundingCodes, "%s: %u codes apart (%s)", what.c_str (),
      d.max, d.where.c_str ());
  gst_buffer_unref (eight);
  gst_buffer_unref (ten);
  gst_buffer_unref (a);
  gst_buffer_unref (b);
  gst_caps_unref (nc);
  gst_caps_unref (wc);
  gst_caps_unref (oc);
  g_free (n_text);
  g_free (w_text);
}
GST_END_TEST;

/* Four taps in fixed point (convert_scale_fixed_taps.h), against the
 * twin: every way the input holds its chroma (planes, 2 and 4-byte words
 * in both orders, 4:4:4); outputs packed, planar and with subsampled
 * chroma (filtered down); bicubic up and down, area by 1.5, 2, 2.5 and
 * exactly 3; crops at odd offsets, a letterbox; planes of 4 samples, the
 * fewest it takes (fewer go to float), frames narrower than a tile, and
 * flipped ones, whose source rows run up the tile. A shrink by 60 (4K
 * into 64x36) is too tall for any tile's table of rows' sums: each
 * thread walks down its column keeping its rows' sums (write_quad_column),
 * upright and flipped (where the sums it keeps are of no use). Packed RGB
 * into RGB and 4:4:4, with alpha and without, its table's entries of four
 * sums; into subsampled chroma it stays in float (resolve). */
GST_START_TEST (test_fixed_taps_match_twin)
{
  std::vector<Case> cases = {
    { "NV12", 192, 108, "RGBA", 64, 36 },   /* area 3 */
    { "NV21", 160, 90, "BGRx", 64, 36 },    /* area 2.5 */
    { "I420", 120, 68, "RGBP", 80, 46 },    /* area 1.5 */
    { "YUY2", 128, 72, "Y444", 64, 36 },    /* area 2 */
    { "UYVY", 64, 36, "RGBA", 101, 57 },    /* bicubic up */
    { "YV12", 200, 120, "ABGR", 70, 50 },   /* bicubic down */
    { "RGBA", 64, 36, "RGBA", 96, 54 },     /* packed RGB */
    { "Y444", 100, 100, "NV12", 38, 30 },   /* chroma filtered down */
    { "Y444", 90, 60, "I420", 60, 40 },     /* area 1.5, into 4:2:0 */
    { "NV12", 8, 8, "RGBA", 13, 11 },       /* chroma planes of 4x4 */
    { "NV12", 6, 6, "RGBA", 9, 9 },         /* of 3x3: float */
    { "Y444", 100, 60, "YUY2", 64, 40 },    /* 4:4:4 into 4:2:2 */
    { "NV12", 640, 360, "RGBA", 640, 640 }, /* letterbox */
    { "I420", 100, 60, "RGBA", 100, 60 },   /* a crop at odd offsets */
    { "NV12", 96, 64, "RGBA", 64, 48 },     /* flipped: the rows run up */
    { "YUY2", 64, 48, "BGRx", 96, 72 },     /* turned by 180 */
    { "BGRx", 100, 100, "NV12", 38, 30 },   /* packed RGB into 4:2:0: float */
    { "NV12", 3840, 2160, "RGBA", 64, 36 }, /* no table fits */
    { "NV12", 3840, 2160, "RGBA", 64, 36 }, /* no table fits, flipped */
    { "BGRx", 64, 36, "RGBA", 101, 57 },    /* packed RGB without alpha */
    { "ARGB", 200, 120, "BGRA", 70, 50 },   /* alpha first, filtered */
    { "RGBA", 3840, 2160, "RGBx", 64, 36 }, /* packed: no table fits */
    { "RGBx", 192, 108, "BGRA", 64, 36 },   /* packed, area 3 */
    { "ABGR", 90, 60, "Y444", 120, 80 },    /* packed into 4:4:4 */
  };
  cases[14].direction = GST_VIDEO_ORIENTATION_VERT;
  cases[15].direction = GST_VIDEO_ORIENTATION_180;
  cases[18].direction = GST_VIDEO_ORIENTATION_VERT;
  for (size_t k = 0; k < 4; k++)
    cases[k].filter = gpu::Filter::AREA;
  for (size_t k = 4; k < cases.size (); k++)
    cases[k].filter = gpu::Filter::BICUBIC;
  cases[8].filter = gpu::Filter::AREA;
  cases[22].filter = gpu::Filter::AREA;
  cases[12].out_extra = ",pixel-aspect-ratio=1/1";
  cases[12].border = 0xff2080c0;
  cases[13].crop = { 3, 5, 1, 7 };
  for (size_t k = 0; k < cases.size (); k++) {
    const Case & c = cases[k];
    gchar * in = g_strdup_printf (
        "video/x-raw,format=%s,width=%d,height=%d", c.in_format, c.in_w, c.in_h);
    gchar * out = g_strdup_printf ("video/x-raw,format=%s,width=%d,height=%d%s",
        c.out_format, c.out_w, c.out_h, c.out_extra);
    const std::string path = path_of (in, out, c.filter, c.add_borders);
    /* area by 2, centred: bilinear's two taps (area_as_bilinear) */
    const char * expected = k == 10 || k == 16
                                ? "taps per tile"
                                : (k == 3 ? "fixed point" : "fixed-point taps");
    fail_unless (path == expected, "%s -> %s: the %s path, not the %s one", in, out,
        path.c_str (), expected);
    g_free (in);
    g_free (out);
    check_against_twin (c);
  }
}
GST_END_TEST;

/* Turned frames in fixed point (fixed_point::write_row, through shared
 * memory on the GPU): tiles of 32, 16 and 8 columns, cut by the frame's
 * edges, chroma in 2-byte words (NV12), 4-byte ones (YUY2) and apart
 * (I420), packed and planar outputs, a crop and a border. */
GST_START_TEST (test_turned_fixed_point_match_twin)
{
  std::vector<Case> cases = {
    { "NV12", 1920, 1080, "RGBA", 1080, 1920 }, /* 32 columns a tile */
    { "NV12", 1920, 1080, "BGRx", 720, 1270 },  /* 16 */
    { "YUY2", 133, 75, "RGBA", 75, 131 },       /* 8 */
    { "I420", 640, 360, "RGBP", 640, 640 },     /* letterboxed */
  };
  const GstVideoOrientationMethod turns[] = { GST_VIDEO_ORIENTATION_90L,
    GST_VIDEO_ORIENTATION_90R, GST_VIDEO_ORIENTATION_UL_LR, GST_VIDEO_ORIENTATION_UR_LL };
  cases[0].frames = 1;
  cases[1].frames = 1;
  cases[1].crop = { 3, 1, 1, 2 };
  cases[2].filter = gpu::Filter::NEAREST;
  cases[3].out_extra = ",pixel-aspect-ratio=1/1";
  cases[3].border = 0xff2080c0;
  for (size_t i = 0; i < cases.size (); i++) {
    Case c = cases[i];
    gchar * in = g_strdup_printf (
        "video/x-raw,format=%s,width=%d,height=%d", c.in_format, c.in_w, c.in_h);
    gchar * out = g_strdup_printf ("video/x-raw,format=%s,width=%d,height=%d%s",
        c.out_format, c.out_w, c.out_h, c.out_extra);
    const std::string path = path_of (in, out, c.filter, c.add_borders);
    fail_unless (path == "fixed point", "%s -> %s: the %s path", in, out, path.c_str ());
    g_free (in);
    g_free (out);
    c.direction = turns[i];
    check_against_twin (c);
    /* The same frame turned the other ways, on the small frames. */
    if (i >= 2)
      for (GstVideoOrientationMethod m : turns) {
        c.direction = m;
        check_against_twin (c);
      }
  }
}
GST_END_TEST;

/* YUV resampled into YUV of the same colours takes the plane-by-plane path
 * (convert_scale_planes.h) where its chroma is the input's chroma plane
 * resampled (the same subsampling; 4:2:2 into 4:2:0 and back), which must
 * equal the twin in every orientation, crop, border and sample size;
 * another colour matrix (luma and chroma mixed) and the four-tap filters
 * do not take it. */
GST_START_TEST (test_yuv_resampled_by_planes)
{
  const struct {
    const char *in, *out;
    gpu::Filter filter;
    const char * path;
  } paths[] = {
    { "video/x-raw,format=NV12,width=3840,height=2160",
        "video/x-raw,format=NV12,width=1920,height=1080", gpu::Filter::BILINEAR,
        "planes" },
    { "video/x-raw,format=I420,width=1920,height=1080,colorimetry=bt709",
        "video/x-raw,format=NV12,width=640,height=360,colorimetry=bt709",
        gpu::Filter::NEAREST, "planes" },
    { "video/x-raw,format=P010_10LE,width=1920,height=1080",
        "video/x-raw,format=P010_10LE,width=1280,height=720", gpu::Filter::BILINEAR,
        "planes" },
    { "video/x-raw,format=NV12,width=1280,height=720",
        "video/x-raw,format=I420,width=1920,height=1080", gpu::Filter::AREA, "planes" },
    /* 4:2:2 into 4:2:0 and back: chroma from the input's plane too. */
    { "video/x-raw,format=Y42B,width=1920,height=1080",
        "video/x-raw,format=I420,width=1920,height=1080", gpu::Filter::BILINEAR,
        "planes" },
    { "video/x-raw,format=I422_10LE,width=1920,height=1080",
        "video/x-raw,format=P010_10LE,width=1920,height=1080", gpu::Filter::BILINEAR,
        "planes" },
    { "video/x-raw,format=NV12,width=1280,height=720",
        "video/x-raw,format=NV16,width=1920,height=1080", gpu::Filter::NEAREST,
        "planes" },
    /* ... but where the coarser axis's filter is no mean of two samples,
     * or the chroma comes at full resolution, filtered down from pixels. */
    { "video/x-raw,format=Y42B,width=1920,height=1080",
        "video/x-raw,format=I420,width=1920,height=1080", gpu::Filter::NEAREST,
        "fixed point" },
    { "video/x-raw,format=Y444,width=1920,height=1080",
        "video/x-raw,format=NV12,width=1920,height=1080", gpu::Filter::BILINEAR,
        "fixed point" },
    { "video/x-raw,format=NV12,width=1920,height=1080,colorimetry=bt601",
        "video/x-raw,format=NV12,width=1280,height=720,colorimetry=bt709",
        gpu::Filter::BILINEAR, "two taps" },
    { "video/x-raw,format=NV12,width=3840,height=2160",
        "video/x-raw,format=NV12,width=1280,height=720", gpu::Filter::AREA,
        "taps per tile" },
    { "video/x-raw,format=NV12,width=3840,height=2160",
        "video/x-raw,format=NV12,width=480,height=270", gpu::Filter::AREA,
        "taps per pixel" },
  };
  for (const auto & c : paths) {
    const std::string path = path_of (c.in, c.out, c.filter);
    fail_unless (path == c.path, "%s -> %s: the %s path, not the %s one", c.in, c.out,
        path.c_str (), c.path);
  }
  const char * const formats[] = { "NV12", "NV21", "I420", "YV12", "P010_10LE", "P016_LE",
    "Y42B" };
  int n = 0;
  for (int m = GST_VIDEO_ORIENTATION_IDENTITY; m <= GST_VIDEO_ORIENTATION_UR_LL; m++) {
    for (const char * in : formats) {
      const char * out = formats[(n * 3 + 1) % G_N_ELEMENTS (formats)];
      const bool y42b = !strcmp (in, "Y42B") || !strcmp (out, "Y42B");
      Case c{ in, 45, 29, y42b ? in : out, 30 + n % 5, 51 - n % 4 };
      c.direction = (GstVideoOrientationMethod)m;
      c.crop = { n % 3, n % 2, 1, 2 };
      c.filter = n % 2 ? gpu::Filter::BILINEAR : gpu::Filter::NEAREST;
      if (n % 3 == 0) {
        c.border = 0xff2080c0;
        c.out_extra = ",pixel-aspect-ratio=1/1";
      }
      check_against_twin (c);
      n++;
    }
  }
  /* Subsampled otherwise: 4:2:2 into 4:2:0 and back, 8 and 10 bit,
   * unscaled, scaled, flipped, cropped. */
  const struct {
    const char *in, *out;
    GstVideoOrientationMethod m;
    gint w, h;
  } mixed[] = { { "Y42B", "I420", GST_VIDEO_ORIENTATION_IDENTITY, 44, 26 },
    { "Y42B", "NV12", GST_VIDEO_ORIENTATION_VERT, 30, 47 },
    { "I420", "Y42B", GST_VIDEO_ORIENTATION_180, 61, 33 },
    { "I422_10LE", "P010_10LE", GST_VIDEO_ORIENTATION_IDENTITY, 44, 26 },
    { "NV16", "NV21", GST_VIDEO_ORIENTATION_HORIZ, 28, 20 } };
  for (const auto & x : mixed) {
    Case c{ x.in, 45, 29, x.out, x.w, x.h };
    c.direction = x.m;
    c.crop = { 1, 0, 2, 1 };
    check_against_twin (c);
  }
}
GST_END_TEST;

/* Turned YUV -> YUV frames of real sizes: the plane-by-plane kernel copies
 * each tile's source rectangles into shared memory first
 * (convert_scale_planes_staged.h), and reads global memory where they
 * would not fit (the shrink by 6). Every tile's edge, a crop and a border
 * against the twin. */
GST_START_TEST (test_turned_planes_match_twin)
{
  struct Turned {
    Case c;
    GstVideoOrientationMethod m;
  };
  std::vector<Turned> cases = {
    { { "NV12", 1920, 1080, "NV12", 1080, 1920 }, GST_VIDEO_ORIENTATION_90R },
    { { "I420", 1920, 1080, "I420", 720, 1280 }, GST_VIDEO_ORIENTATION_90L },
    { { "P010_10LE", 1280, 720, "P010_10LE", 720, 1280 }, GST_VIDEO_ORIENTATION_UL_LR },
    { { "NV12", 643, 361, "I420", 365, 645 }, GST_VIDEO_ORIENTATION_UR_LL },
    { { "I420_10LE", 1000, 562, "I420_10LE", 330, 500 }, GST_VIDEO_ORIENTATION_90R },
    { { "NV12", 3840, 2160, "NV12", 360, 640 }, GST_VIDEO_ORIENTATION_90L },
  };
  cases[3].c.crop = { 5, 3, 2, 1 };
  cases[3].c.border = 0xff2080c0;
  cases[3].c.in_extra = ",colorimetry=bt709";
  cases[3].c.out_extra = ",colorimetry=bt709,pixel-aspect-ratio=1/1";
  cases[4].c.filter = gpu::Filter::NEAREST;
  for (Turned & t : cases) {
    t.c.frames = 1;
    t.c.direction = t.m;
    gchar * in = g_strdup_printf ("video/x-raw,format=%s,width=%d,height=%d%s",
        t.c.in_format, t.c.in_w, t.c.in_h, t.c.in_extra);
    gchar * out = g_strdup_printf ("video/x-raw,format=%s,width=%d,height=%d%s",
        t.c.out_format, t.c.out_w, t.c.out_h, t.c.out_extra);
    const std::string path = path_of (in, out, t.c.filter, t.c.add_borders);
    fail_unless (path == "planes", "%s -> %s: the %s path", in, out, path.c_str ());
    g_free (in);
    g_free (out);
    check_against_twin (t.c);
  }
}
GST_END_TEST;

/* Turned frames of the two-tap columns' fixed sets of components (10 to
 * 16-bit YUV with subsampled chroma, 16-bit packed RGB) take
 * convert_scale_two_tap_turned_kernel: output rows along source rows,
 * stored through shared memory by tiles of 8 to 32 columns. Its pixels
 * are the twin's, bit for bit: partial tiles on both axes, a tile's
 * worth of columns or fewer, a crop, borders, both filters, all four
 * turns. */
GST_START_TEST (test_turned_two_taps_match_twin)
{
  std::vector<Case> cases = {
    { "I420_10LE", 1000, 562, "GBR_10LE", 330, 500 },
    { "P010_10LE", 643, 361, "RGBA", 365, 645 },
    { "RGBA64_LE", 211, 118, "RGBA", 72, 130 },
    { "P016_LE", 100, 60, "Y444_16LE", 60, 100 },
    { "P010_10LE", 45, 29, "RGBA", 7, 5 },
    { "I422_12LE", 320, 180, "Y444_12LE", 180, 320 },
  };
  const GstVideoOrientationMethod turns[] = { GST_VIDEO_ORIENTATION_90R,
    GST_VIDEO_ORIENTATION_90L, GST_VIDEO_ORIENTATION_UL_LR, GST_VIDEO_ORIENTATION_UR_LL };
  cases[1].crop = { 5, 3, 2, 1 };
  cases[1].border = 0xff2080c0;
  cases[1].out_extra = ",pixel-aspect-ratio=1/1"; /* letterboxed */
  cases[3].filter = gpu::Filter::NEAREST;
  for (size_t k = 0; k < cases.size (); k++) {
    Case & c = cases[k];
    c.frames = 1;
    c.direction = turns[k % G_N_ELEMENTS (turns)];
    gchar * in = g_strdup_printf (
        "video/x-raw,format=%s,width=%d,height=%d", c.in_format, c.in_w, c.in_h);
    gchar * out = g_strdup_printf ("video/x-raw,format=%s,width=%d,height=%d%s",
        c.out_format, c.out_w, c.out_h, c.out_extra);
    const bool fixed = with_description (in, out, c.filter, c.add_borders, c.direction,
        c.crop, [] (const gpu::ConvertScale & op) {
          gpu::ConvertScale resolved;
          bool is_fixed = false;
          const char * path = gpu::convert_scale_path (op);
          if (path && !strcmp (path, "two taps") &&
              gpu::convert_scale_resolve (op, &resolved))
            gpu::pixels::dispatch_bytes (resolved, [&] (auto ib, auto ob) {
              gpu::two_tap::dispatch_members<decltype (ib)::value, decltype (ob)::value> (
                  resolved,
                  [&] (auto members) { is_fixed = decltype (members)::kFixed; });
            });
          return is_fixed;
        });
    fail_unless (fixed, "%s -> %s: not the two-tap columns' fixed components", in, out);
    g_free (in);
    g_free (out);
    check_against_twin (c);
  }
}
GST_END_TEST;

/* cudacrop's zero-copy output (a crop meta on the uploaded frame) reaches
 * cudaconvertscale as it is: the crop and the scale are one kernel. */
static GstPadProbeReturn
expect_crop_meta (GstPad *, GstPadProbeInfo * info, gpointer user)
{
  GstBuffer * buf = GST_PAD_PROBE_INFO_BUFFER (info);
  if (gst_buffer_get_video_crop_meta (buf))
    g_atomic_int_inc ((gint *)user);
  return GST_PAD_PROBE_OK;
}

GST_START_TEST (test_crop_fused)
{
  Case c{ "NV12", 96, 64, "RGBA", 40, 30 };
  c.crop = { 17, 9, 5, 10 };
  Captured in, out, unused;
  GstElement * pipeline = pipeline_of (c, chain_of (c), NULL, &in, &out, &unused);
  gint with_meta = 0;
  testutil::add_probe (
      pipeline, "cs", "sink", GST_PAD_PROBE_TYPE_BUFFER, expect_crop_meta, &with_meta);
  testutil::run_to_eos (pipeline, "fused crop");
  fail_unless_equals_int (with_meta, c.frames);
  for (size_t i = 0; i < in.buffers.size (); i++) {
    GstBuffer * want = twin_of (c, in.buffers[i], &in.infos[i], &out.infos[i]);
    testutil::assert_frames_equal (
        want, &out.infos[i], out.buffers[i], &out.infos[i], "fused");
    gst_buffer_unref (want);
  }
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
}
GST_END_TEST;

/* --- against GStreamer's CPU elements ----------------------------------- */

/* Conversions at one size, beside videoconvert on the same random frames.
 * The bounds found, written here: 1 code (4 for 10-bit outputs, the same
 * at 8 bits) where videoconvert converts in one step. YUV to RGB it does in
 * 8-bit fixed point (on a grey ramp its codes stray up to 3.23 from the
 * exact BT.601 formula; ours stay within the rounding, 0.5), and some pairs
 * take fast paths that repeat chroma instead of interpolating it (I420 ->
 * BGRx: 188 codes apart on random chroma): there the reference goes
 * through ARGB64 (the matrix in 16 bits, chroma resampled by GStreamer's
 * resampler, as ours), and is within 4 codes. */
static const guint videoconvert_bound_8bit = 1;
static const guint videoconvert_bound_yuv_to_rgb = 4;

GST_START_TEST (test_conversions_near_videoconvert)
{
  const char * const pairs[][2] = {
    { "NV12", "RGBA" },
    { "I420", "BGRx" },
    { "Y444", "RGB" },
    { "YUY2", "RGBA" },
    { "RGBA", "NV12" },
    { "BGRA", "I420" },
    { "RGBA", "Y444" },
    { "NV12", "I420" },
    /* 4:2:2 into 4:2:0: its lines' chroma averaged, its columns' kept. */
    { "Y42B", "I420" },
    { "NV12", "P010_10LE" },
    { "P010_10LE", "NV12" },
    { "RGBA", "RGBP" },
    { "NV12", "BGRP" },
    { "RGBA", "GRAY8" },
  };
  for (const auto & p : pairs) {
    Case c{ p[0], 64, 48, p[1], 64, 48 };
    const std::string what = describe (c);
    const bool yuv_to_rgb =
        GST_VIDEO_FORMAT_INFO_IS_YUV (
            gst_video_format_get_info (gst_video_format_from_string (c.in_format))) &&
        GST_VIDEO_FORMAT_INFO_IS_RGB (
            gst_video_format_get_info (gst_video_format_from_string (c.out_format)));
    gchar * reference = g_strdup_printf (
        "videoconvert dither=none ! %s video/x-raw,format=%s,width=%d,height=%d",
        yuv_to_rgb ? "video/x-raw,format=ARGB64 ! videoconvert dither=none !" : "",
        c.out_format, c.out_w, c.out_h);
    Captured in, out, ref;
    GstElement * pipeline = pipeline_of (c, chain_of (c), reference, &in, &out, &ref);
    testutil::run_to_eos (pipeline, what.c_str ());
    for (size_t i = 0; i < out.buffers.size (); i++) {
      Difference d = compare (
          ref.buffers[i], &ref.infos[i], out.buffers[i], &out.infos[i], what.c_str ());
      const guint depth = GST_VIDEO_FORMAT_INFO_DEPTH (out.infos[i].finfo, 0);
      const guint bound =
          (yuv_to_rgb ? videoconvert_bound_yuv_to_rgb : videoconvert_bound_8bit)
          << (depth - 8);
      GST_INFO (
          "%s: videoconvert vs ours: max %u, PSNR %.1f dB", what.c_str (), d.max, d.psnr);
      g_print (
          "CONVERT-VS-VIDEOCONVERT %s: max %u (bound %u)\n", what.c_str (), d.max, bound);
      fail_unless (d.max <= bound, "%s: %u codes from videoconvert (%s), bound %u",
          what.c_str (), d.max, d.where.c_str (), bound);
    }
    g_free (reference);
    gst_element_set_state (pipeline, GST_STATE_NULL);
    gst_object_unref (pipeline);
  }
}
GST_END_TEST;

/* Scaling smooth frames beside "videoconvertscale" with the same method:
 * at least 40 dB PSNR. */
GST_START_TEST (test_scaling_near_videoconvertscale)
{
  if (!have_reference ("videoconvertscale"))
    return;
  std::vector<Case> cases = {
    { "NV12", 1920, 1080, "RGBA", 640, 360 },
    { "NV12", 1280, 720, "NV12", 1920, 1080 },
    { "RGBA", 1920, 1080, "RGBP", 640, 640 }, /* letterbox (square pixels asked) */
    { "I420", 640, 480, "RGBA", 853, 480 },   /* pillarbox (the same) */
    { "NV12", 1920, 1080, "RGBA", 960, 540 },
    { "BGRA", 1280, 720, "RGBA", 1920, 1080 }, /* packed RGB in fixed point */
    { "BGRx", 1920, 1080, "NV12", 1280, 720 }, /* chroma filtered down, in it */
    { "YUY2", 1920, 1080, "I420", 1280, 720 },
    { "NV12", 1920, 1080, "RGBA", 960, 540 }, /* area by 2: as bilinear */
    /* four taps in fixed point: bicubic down and up, area (packed RGB's
     * bicubic in float) */
    { "NV12", 1920, 1080, "RGBA", 960, 540 },
    { "BGRA", 1280, 720, "RGBA", 1920, 1080 },
    { "YUY2", 1920, 1080, "I420", 1280, 720 },
    { "NV12", 1920, 1080, "RGBA", 1280, 720 },
    { "NV12", 1280, 720, "RGBA", 1920, 1080 },
  };
  cases[1].filter = gpu::Filter::BICUBIC;
  cases[8].filter = gpu::Filter::AREA;
  cases[9].filter = cases[10].filter = cases[11].filter = gpu::Filter::BICUBIC;
  cases[12].filter = gpu::Filter::AREA;
  cases[13].filter = gpu::Filter::BICUBIC;
  /* Without a pixel-aspect-ratio downstream, both keep the picture whole
   * by changing it (640x640 at 16/9): no borders. */
  cases[2].out_extra = cases[3].out_extra = ",pixel-aspect-ratio=1/1";
  cases[4].filter = gpu::Filter::NEAREST;
  const char * const cpu_methods[] = { "nearest-neighbour", "bilinear", "catrom",
    "bilinear" };
  for (Case & c : cases) {
    c.content = Content::SMOOTH;
    c.frames = 1;
    const std::string what = describe (c);
    gchar * reference =
        g_strdup_printf ("videoconvertscale dither=none method=%s "
                         "add-borders=true ! video/x-raw,format=%s,width=%d,"
                         "height=%d,pixel-aspect-ratio=1/1",
            cpu_methods[(int)c.filter], c.out_format, c.out_w, c.out_h);
    Captured in, out, ref;
    GstElement * pipeline = pipeline_of (c, chain_of (c), reference, &in, &out, &ref);
    testutil::run_to_eos (pipeline, what.c_str ());
    fail_unless (!out.buffers.empty () && out.buffers.size () == ref.buffers.size ());
    Difference d = compare (
        ref.buffers[0], &ref.infos[0], out.buffers[0], &out.infos[0], what.c_str ());
    g_print ("SCALE-VS-VIDEOCONVERTSCALE %s: PSNR %.1f dB, max %u\n", what.c_str (),
        d.psnr, d.max);
    fail_unless (d.psnr >= 40.0,
        "%s: PSNR %.1f dB against videoconvertscale (max %u at %s)", what.c_str (),
        d.psnr, d.max, d.where.c_str ());
    g_free (reference);
    gst_element_set_state (pipeline, GST_STATE_NULL);
    gst_object_unref (pipeline);
  }
}
GST_END_TEST;

/* Every orientation exactly as videoflip turns the frame. */
GST_START_TEST (test_orientations_equal_videoflip)
{
  if (!have_reference ("videoflip"))
    return;
  for (const char * format : { "RGBA", "GRAY8", "Y444" }) {
    for (int m = GST_VIDEO_ORIENTATION_IDENTITY; m <= GST_VIDEO_ORIENTATION_UR_LL; m++) {
      Case c{ format, 37, 23, format, 37, 23 };
      c.direction = (GstVideoOrientationMethod)m;
      const bool swap = gst_cs::swaps_axes (static_cast<gpu::Orientation> (m));
      if (swap)
        std::swap (c.out_w, c.out_h);
      const std::string what = describe (c);
      gchar * reference =
          g_strdup_printf ("videoflip video-direction=%s", direction_nick (c.direction));
      Captured in, out, ref;
      GstElement * pipeline = pipeline_of (c, chain_of (c), reference, &in, &out, &ref);
      testutil::run_to_eos (pipeline, what.c_str ());
      testutil::assert_all_frames_equal (ref, out, what.c_str ());
      g_free (reference);
      gst_element_set_state (pipeline, GST_STATE_NULL);
      gst_object_unref (pipeline);
    }
  }
}
GST_END_TEST;

/* --- passthrough, properties, bad input ------------------------------- */

static GstPadProbeReturn
note_device_pointer (GstPad *, GstPadProbeInfo * info, gpointer user)
{
  GstBuffer * buf = GST_PAD_PROBE_INFO_BUFFER (info);
  auto * seen = static_cast<std::vector<guint8 *> *> (user);
  seen->push_back (gst_cs_memory_get_device_pointer (gst_buffer_peek_memory (buf, 0)));
  return GST_PAD_PROBE_OK;
}

static GstPadProbeReturn
remember_buffer (GstPad *, GstPadProbeInfo * info, gpointer user)
{
  *(GstBuffer **)user = GST_PAD_PROBE_INFO_BUFFER (info);
  return GST_PAD_PROBE_OK;
}

static GstPadProbeReturn
count_same_buffer (GstPad *, GstPadProbeInfo * info, gpointer user)
{
  auto * seen = (std::pair<GstBuffer *, gint> *)user;
  if (GST_PAD_PROBE_INFO_BUFFER (info) == seen->first)
    seen->second++;
  return GST_PAD_PROBE_OK;
}

/* Equal caps and no crop, whatever the method (videoscale's
 * test_passthrough_method_N): the frame goes through untouched, no kernel:
 * the same buffer, so the same device memory and event. (videoscale's test
 * compares the addresses of host mappings; a host mapping of device memory
 * is a copy, so the device memory is what is compared here.) */
GST_START_TEST (test_passthrough)
{
  for (gpu::Filter filter : { gpu::Filter::NEAREST, gpu::Filter::BILINEAR,
           gpu::Filter::BICUBIC, gpu::Filter::AREA }) {
    Case c{ "NV12", 64, 48, "NV12", 64, 48 };
    c.frames = 5;
    c.filter = filter;
    const std::string what = describe (c);
    Captured in, out, unused;
    GstElement * pipeline = pipeline_of (c, chain_of (c), NULL, &in, &out, &unused);
    std::pair<GstBuffer *, gint> seen{ NULL, 0 };
    std::vector<guint8 *> memory_in, memory_out;
    testutil::add_probe (
        pipeline, "cs", "sink", GST_PAD_PROBE_TYPE_BUFFER, remember_buffer, &seen.first);
    testutil::add_probe (
        pipeline, "cs", "src", GST_PAD_PROBE_TYPE_BUFFER, count_same_buffer, &seen);
    testutil::add_probe (pipeline, "cs", "sink", GST_PAD_PROBE_TYPE_BUFFER,
        note_device_pointer, &memory_in);
    testutil::add_probe (pipeline, "cs", "src", GST_PAD_PROBE_TYPE_BUFFER,
        note_device_pointer, &memory_out);
    testutil::run_to_eos (pipeline, what.c_str ());
    fail_unless_equals_int (seen.second, c.frames);
    fail_unless (memory_in == memory_out && memory_in.size () == (size_t)c.frames, "%s",
        what.c_str ());
    testutil::assert_all_frames_equal (in, out, what.c_str ());
    fail_unless_equals_int (testutil::host_waits (pipeline, "cs"), 0);
    gst_element_set_state (pipeline, GST_STATE_NULL);
    gst_object_unref (pipeline);
  }
}
GST_END_TEST;

/* videoscale's scaling tests (videoscale.c's CREATE_TEST): every size they
 * scale between, up and down, to 1 pixel a side and from it, odd sizes,
 * with each method, a frame per format of every kind (packed and planar
 * 4:2:0, packed 4:2:2, packed RGB, 10-bit): each the twin's, bit for bit. */
GST_START_TEST (test_videoscale_sizes)
{
  const gint sizes[][4] = {
    { 640, 480, 320, 240 },
    { 640, 480, 1, 1 },
    { 641, 481, 111, 30 },
    { 641, 481, 30, 111 },
    { 640, 480, 320, 1 },
    { 640, 480, 1, 240 },
  };
  for (const char * format : { "NV12", "I420", "YUY2", "RGBA", "P010_10LE" })
    for (const auto & s : sizes)
      for (int up = 0; up < 2; up++)
        for (int f = 0; f < 4; f++) {
          Case c{ format, s[up ? 2 : 0], s[up ? 3 : 1], format, s[up ? 0 : 2],
            s[up ? 1 : 3] };
          c.filter = static_cast<gpu::Filter> (f);
          c.frames = 1;
          check_against_twin (c);
        }
}
GST_END_TEST;

/* videoscale's test_negotiation: the size and pixel-aspect-ratio the
 * element and downstream agree on, when downstream fixes both, one or
 * none, with ranges, steps and ratios the input's display aspect ratio
 * cannot keep. */
GST_START_TEST (test_negotiation_as_videoscale)
{
  const struct {
    const char *in, *out;
    gint w, h, par_n, par_d;
  } cases[] = {
    { "width=720,height=576,pixel-aspect-ratio=16/15", "width=768,height=576", 768, 576,
        1, 1 },
    { "width=320,height=240", "width=640,height=320", 640, 320, 2, 3 },
    { "width=320,height=240", "width=640,height=320,pixel-aspect-ratio=[0/1,1/1]", 640,
        320, 2, 3 },
    { "width=1920,height=2560,pixel-aspect-ratio=1/1",
        "width=[1,2048],height=[1,2048],pixel-aspect-ratio=1/1", 1536, 2048, 1, 1 },
    { "width=1920,height=2560,pixel-aspect-ratio=1/1", "width=[1,2048],height=[1,2048]",
        1920, 2048, 4, 5 },
    { "width=1920,height=2560", "width=[1,2048],height=[1,2048]", 1920, 2048, 4, 5 },
    { "width=1920,height=2560", "width=1200,height=[1,2048],pixel-aspect-ratio=1/1", 1200,
        1600, 1, 1 },
    { "width=320,height=240,pixel-aspect-ratio=1/1",
        "width=200,height=200,pixel-aspect-ratio=1/2", 200, 200, 1, 2 },
    { "width=854,height=480", "width=[2,512,2],height=[2,512,2],pixel-aspect-ratio=1/1",
        512, 288, 1, 1 },
  };
  for (const auto & c : cases) {
    gchar * desc = g_strdup_printf (
        "videotestsrc num-buffers=1 ! video/x-raw,format=RGBA,%s ! cudastreamsupload ! "
        "cudastreamsconvertscale name=cs ! video/x-raw(" GST_CAPS_FEATURE_MEMORY_CS
        "),format=RGBA,%s ! cudastreamsdownload ! fakesink",
        c.in, c.out);
    GstElement * pipeline = gst_parse_launch (desc, NULL);
    fail_unless (pipeline != NULL, "%s", desc);
    Captured out;
    testutil::capture_pad (pipeline, "cs", "src", &out);
    testutil::run_to_eos (pipeline, desc);
    fail_unless (out.buffers.size () == 1, "%s", desc);
    const GstVideoInfo & i = out.infos[0];
    fail_unless (
        i.width == c.w && i.height == c.h && i.par_n == c.par_n && i.par_d == c.par_d,
        "%s: %dx%d at %d/%d, not %dx%d at %d/%d", desc, i.width, i.height, i.par_n,
        i.par_d, c.w, c.h, c.par_n, c.par_d);
    gst_object_unref (pipeline);
    g_free (desc);
  }
}
GST_END_TEST;

/* videoscale's test_basetransform_negotiation: caps equal but for the
 * pixel-aspect-ratio (1/1 in, 12/11 out) are no passthrough: the frames
 * are drawn between borders, as the twin draws them. */
GST_START_TEST (test_pixel_aspect_ratio_alone)
{
  Case c{ "UYVY", 352, 288, "UYVY", 352, 288 };
  c.in_extra = ",pixel-aspect-ratio=1/1";
  c.out_extra = ",pixel-aspect-ratio=12/11";
  c.frames = 3;
  check_against_twin (c);
}
GST_END_TEST;

/* Out-of-range properties: GLib's warning, the value unchanged. */
GST_START_TEST (test_bad_properties)
{
  GstElement * cs = testutil::make_ours ("cudastreamsconvertscale");
  guint64 color = 0;
  g_object_set (cs, "border-color", (guint64)0xff336699, NULL);
  ASSERT_WARNING (g_object_set (cs, "border-color", (guint64)0x1ff336699ull, NULL));
  g_object_get (cs, "border-color", &color, NULL);
  fail_unless_equals_uint64 (color, 0xff336699);
  g_object_set (cs, "video-direction", GST_VIDEO_ORIENTATION_90R, NULL);
  ASSERT_WARNING (
      g_object_set (cs, "video-direction", GST_VIDEO_ORIENTATION_CUSTOM, NULL));
  GstVideoOrientationMethod m;
  g_object_get (cs, "video-direction", &m, NULL);
  fail_unless_equals_int (m, GST_VIDEO_ORIENTATION_90R);
  gst_object_unref (cs);
}
GST_END_TEST;

/* Sizes of 0 or above 16384 and formats it cannot write are refused at
 * negotiation, with a message naming the caps. */
GST_START_TEST (test_bad_caps)
{
  GstElement * cs = testutil::make_ours ("cudastreamsconvertscale");
  fail_unless (testutil::sink_accepts (cs,
      "video/x-raw(" GST_CAPS_FEATURE_MEMORY_CS "),format=NV12,width=16384,height=2,"
      "framerate=30/1"));
  fail_unless (!testutil::sink_accepts (cs,
      "video/x-raw(" GST_CAPS_FEATURE_MEMORY_CS "),format=NV12,width=16385,height=2,"
      "framerate=30/1"));
  fail_unless (!testutil::sink_accepts (cs,
      "video/x-raw(" GST_CAPS_FEATURE_MEMORY_CS "),format=NV12,width=0,height=2,"
      "framerate=30/1"));
  fail_unless (!testutil::sink_accepts (cs,
      "video/x-raw(" GST_CAPS_FEATURE_MEMORY_CS "),format=v210,width=64,height=48,"
      "framerate=30/1"));
  gst_object_unref (cs);

  /* Downstream wants a size we cannot make: the pads do not link (the
   * capsfilter's caps and our template do not meet), said so. */
  GstElement * pipeline = gst_parse_launch (
      "videotestsrc num-buffers=2 ! video/x-raw,format=NV12,width=64,height=48 ! "
      "cudastreamsupload ! cudastreamsconvertscale ! "
      "video/x-raw(" GST_CAPS_FEATURE_MEMORY_CS
      "),format=NV12,width=20000,height=48 ! fakesink",
      NULL);
  fail_unless (pipeline != NULL);
  testutil::Outcome o = testutil::run_to_end (pipeline);
  fail_unless (!o.eos && (o.error.find ("not-negotiated") != std::string::npos ||
                             o.error.find ("not-linked") != std::string::npos),
      "got: %s", o.error.c_str ());
  gst_object_unref (pipeline);
}
GST_END_TEST;

/* video-direction changed while PLAYING: the next frames are turned, the
 * caps renegotiated, no frame made half of one and half of the other. */
static GstPadProbeReturn
turn_after_first (GstPad * pad, GstPadProbeInfo *, gpointer user)
{
  if (g_atomic_int_add ((gint *)user, 1) == 1) {
    GstElement * cs = GST_ELEMENT (gst_pad_get_parent (pad));
    g_object_set (cs, "video-direction", GST_VIDEO_ORIENTATION_90R, NULL);
    gst_object_unref (cs);
  }
  return GST_PAD_PROBE_OK;
}

GST_START_TEST (test_direction_while_playing)
{
  Case c{ "RGBA", 40, 24, "RGBA", 40, 24 };
  c.frames = 6;
  /* Output caps without a size: the element chooses (turned: 24x40). */
  gchar * chain = g_strdup_printf (
      "cudastreamsupload ! cudastreamsconvertscale name=cs ! "
      "video/x-raw(" GST_CAPS_FEATURE_MEMORY_CS "),format=RGBA ! cudastreamsdownload");
  Captured in, out, unused;
  GstElement * pipeline = pipeline_of (c, chain, NULL, &in, &out, &unused);
  g_free (chain);
  gint seen = 0;
  testutil::add_probe (
      pipeline, "cs", "sink", GST_PAD_PROBE_TYPE_BUFFER, turn_after_first, &seen);
  testutil::run_to_eos (pipeline, "turned while playing");
  fail_unless_equals_int (out.buffers.size (), c.frames);
  gint turned = 0;
  for (size_t i = 0; i < out.buffers.size (); i++) {
    Case now = c;
    if (out.infos[i].width == 24) {
      now.direction = GST_VIDEO_ORIENTATION_90R;
      std::swap (now.out_w, now.out_h);
      turned++;
    }
    fail_unless (i < 2 || now.direction == GST_VIDEO_ORIENTATION_90R,
        "frame %zu is not turned", i);
    GstBuffer * want = twin_of (now, in.buffers[i], &in.infos[i], &out.infos[i]);
    testutil::assert_frames_equal (
        want, &out.infos[i], out.buffers[i], &out.infos[i], "turned while playing");
    gst_buffer_unref (want);
  }
  fail_unless (turned >= c.frames - 2, "%d frames turned", turned);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
}
GST_END_TEST;

/* --- changes that keep the caps ------------------------------------- */

/* The direction each frame must be drawn with: set by a probe on the
 * element's sink pad just before the frame enters it. */
struct Schedule {
  std::vector<GstVideoOrientationMethod> directions;
  size_t next = 0;
};

static GstPadProbeReturn
set_direction_before_frame (GstPad * pad, GstPadProbeInfo *, gpointer user)
{
  auto * s = static_cast<Schedule *> (user);
  if (s->next < s->directions.size ()) {
    GstElement * cs = GST_ELEMENT (gst_pad_get_parent (pad));
    g_object_set (cs, "video-direction", s->directions[s->next++], NULL);
    gst_object_unref (cs);
  }
  return GST_PAD_PROBE_OK;
}

/* Runs `c` with the direction changed before every frame as `directions`
 * says, behind output caps that every one of them keeps: each frame must
 * be the twin's with its own direction, as a fresh pipeline makes it. */
static void
check_directions_keep_caps (
    Case c, const std::vector<GstVideoOrientationMethod> & directions)
{
  c.frames = (gint)directions.size ();
  const std::string what = describe (c) + ", direction changed before each frame";
  Captured in, out, unused;
  GstElement * pipeline = pipeline_of (c, chain_of (c), NULL, &in, &out, &unused);
  Schedule schedule{ directions };
  testutil::add_probe (pipeline, "cs", "sink", GST_PAD_PROBE_TYPE_BUFFER,
      set_direction_before_frame, &schedule);
  testutil::run_to_eos (pipeline, what.c_str ());
  fail_unless_equals_int (testutil::host_waits (pipeline, "cs"), 0);
  fail_unless_equals_int (out.buffers.size (), c.frames);
  for (size_t i = 0; i < out.buffers.size (); i++) {
    Case now = c;
    now.direction = directions[i];
    fail_unless (out.infos[i].width == c.out_w && out.infos[i].height == c.out_h,
        "%s: frame %zu is %dx%d", what.c_str (), i, out.infos[i].width,
        out.infos[i].height);
    GstBuffer * want = twin_of (now, in.buffers[i], &in.infos[i], &out.infos[i]);
    const std::string frame =
        what + ", frame " + std::to_string (i) + " " + direction_nick (now.direction);
    testutil::assert_frames_equal (
        want, &out.infos[i], out.buffers[i], &out.infos[i], frame.c_str ());
    gst_buffer_unref (want);
  }
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
}

/* video-direction changed while PLAYING where the caps stay as they were:
 * 180 and the flips at the input's own size (identity there passes frames
 * through), and every direction into a fixed square of square pixels, as
 * a model's input is: each frame is drawn with the direction set before it
 * entered. */
GST_START_TEST (test_direction_changes_keep_caps)
{
  using M = GstVideoOrientationMethod;
  Case same{ "RGBA", 40, 24, "RGBA", 40, 24 };
  check_directions_keep_caps (
      same, { GST_VIDEO_ORIENTATION_IDENTITY, GST_VIDEO_ORIENTATION_180,
                GST_VIDEO_ORIENTATION_HORIZ, GST_VIDEO_ORIENTATION_VERT,
                GST_VIDEO_ORIENTATION_IDENTITY, GST_VIDEO_ORIENTATION_180 });
  Case square{ "NV12", 40, 24, "RGBA", 32, 32 };
  square.out_extra = ",pixel-aspect-ratio=1/1";
  std::vector<M> all;
  for (int m = GST_VIDEO_ORIENTATION_IDENTITY; m <= GST_VIDEO_ORIENTATION_UR_LL; m++)
    all.push_back ((M)m);
  all.push_back (GST_VIDEO_ORIENTATION_90R);
  all.push_back (GST_VIDEO_ORIENTATION_90L);
  check_directions_keep_caps (square, all);
}
GST_END_TEST;

/* video-direction=auto follows the stream's image-orientation tag, which
 * comes after the caps: frames turned as the kernel's twin and videoflip
 * video-direction=auto turn them, whether the caps change (rotate-90) or
 * not (rotate-180, flip-rotate-0). */
GST_START_TEST (test_direction_from_tag)
{
  const struct {
    const char * tag;
    GstVideoOrientationMethod direction;
  } tags[] = {
    { "rotate-180", GST_VIDEO_ORIENTATION_180 },
    { "flip-rotate-0", GST_VIDEO_ORIENTATION_HORIZ },
    { "rotate-90", GST_VIDEO_ORIENTATION_90R },
  };
  if (!have_reference ("taginject"))
    return;
  const bool with_videoflip = have_reference ("videoflip");
  for (const auto & t : tags) {
    Case c{ "RGBA", 37, 23, "RGBA", 37, 23 };
    c.frames = 3;
    gchar * inject = g_strdup_printf ("taginject tags=\"image-orientation=%s\"", t.tag);
    gchar * chain = g_strdup_printf (
        "%s ! cudastreamsupload ! cudastreamsconvertscale "
        "name=cs video-direction=auto ! video/x-raw(" GST_CAPS_FEATURE_MEMORY_CS
        "),format=RGBA ! cudastreamsdownload",
        inject);
    gchar * reference = g_strdup_printf ("%s ! videoflip video-direction=auto", inject);
    Captured in, out, ref;
    GstElement * pipeline =
        pipeline_of (c, chain, with_videoflip ? reference : NULL, &in, &out, &ref);
    testutil::run_to_eos (pipeline, t.tag);
    fail_unless_equals_int (out.buffers.size (), c.frames);
    c.direction = t.direction;
    if (gst_cs::swaps_axes (static_cast<gpu::Orientation> (t.direction)))
      std::swap (c.out_w, c.out_h);
    for (size_t i = 0; i < out.buffers.size (); i++) {
      const std::string what = std::string (t.tag) + ", frame " + std::to_string (i);
      GstBuffer * want = twin_of (c, in.buffers[i], &in.infos[i], &out.infos[i]);
      testutil::assert_frames_equal (
          want, &out.infos[i], out.buffers[i], &out.infos[i], what.c_str ());
      gst_buffer_unref (want);
    }
    if (with_videoflip)
      testutil::assert_all_frames_equal (ref, out, t.tag);
    gst_element_set_state (pipeline, GST_STATE_NULL);
    gst_object_unref (pipeline);
    g_free (reference);
    g_free (chain);
    g_free (inject);
  }
}
GST_END_TEST;

/* The property changes after the caps were fixed for its old value and
 * before they are in use (here while downstream is asked whether it
 * accepts them): the frame is still drawn whole with the orientation its
 * caps were fixed for, and the next one renegotiates for the new value.
 * Frame 0 goes through untouched; before frame 1 the direction becomes 90r,
 * and while the caps for it are being agreed, identity again. */
struct Flip {
  GstElement * cs;
  gint frames = 0;
  gint armed = 0; /* 1 once 90r is set, 2 once identity is back */
};

static GstPadProbeReturn
turn_before_second (GstPad *, GstPadProbeInfo *, gpointer user)
{
  auto * flip = static_cast<Flip *> (user);
  if (flip->frames++ == 1) {
    g_object_set (flip->cs, "video-direction", GST_VIDEO_ORIENTATION_90R, NULL);
    g_atomic_int_set (&flip->armed, 1);
  }
  return GST_PAD_PROBE_OK;
}

static GstPadProbeReturn
undo_turn_on_accept_caps (GstPad *, GstPadProbeInfo * info, gpointer user)
{
  auto * flip = static_cast<Flip *> (user);
  GstQuery * query = GST_PAD_PROBE_INFO_QUERY (info);
  if (GST_QUERY_TYPE (query) == GST_QUERY_ACCEPT_CAPS &&
      g_atomic_int_compare_and_exchange (&flip->armed, 1, 2))
    g_object_set (flip->cs, "video-direction", GST_VIDEO_ORIENTATION_IDENTITY, NULL);
  return GST_PAD_PROBE_OK;
}

GST_START_TEST (test_direction_change_during_negotiation)
{
  Case c{ "RGBA", 40, 24, "RGBA", 40, 24 };
  c.frames = 3;
  gchar * chain = g_strdup_printf (
      "cudastreamsupload ! cudastreamsconvertscale name=cs ! "
      "video/x-raw(" GST_CAPS_FEATURE_MEMORY_CS "),format=RGBA ! cudastreamsdownload");
  Captured in, out, unused;
  GstElement * pipeline = pipeline_of (c, chain, NULL, &in, &out, &unused);
  g_free (chain);
  GstElement * cs = testutil::by_name (pipeline, "cs");
  Flip flip{ cs };
  testutil::add_probe (
      pipeline, "cs", "sink", GST_PAD_PROBE_TYPE_BUFFER, turn_before_second, &flip);
  /* GstBaseTransform asks the peer directly, past our own pad's probes */
  GstPad * src = gst_element_get_static_pad (cs, "src");
  GstPad * peer = gst_pad_get_peer (src);
  gst_pad_add_probe (
      peer, GST_PAD_PROBE_TYPE_QUERY_DOWNSTREAM, undo_turn_on_accept_caps, &flip, NULL);
  gst_object_unref (peer);
  gst_object_unref (src);
  testutil::run_to_eos (pipeline, "direction changed during negotiation");
  gst_object_unref (cs);
  fail_unless_equals_int (flip.armed, 2);
  fail_unless_equals_int (out.buffers.size (), c.frames);
  for (size_t i = 0; i < out.buffers.size (); i++) {
    /* frame 1 in the caps fixed for 90r, the others at the input's size */
    Case now = c;
    if (i == 1) {
      now.direction = GST_VIDEO_ORIENTATION_90R;
      std::swap (now.out_w, now.out_h);
    }
    fail_unless (out.infos[i].width == now.out_w, "frame %zu is %dx%d, not %dx%d", i,
        out.infos[i].width, out.infos[i].height, now.out_w, now.out_h);
    GstBuffer * want = twin_of (now, in.buffers[i], &in.infos[i], &out.infos[i]);
    const std::string what = "changed during negotiation, frame " + std::to_string (i) +
                             " " + direction_nick (now.direction);
    testutil::assert_frames_equal (
        want, &out.infos[i], out.buffers[i], &out.infos[i], what.c_str ());
    gst_buffer_unref (want);
  }
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
}
GST_END_TEST;

/* --- caps it cannot make ------------------------------------------------ */

/* Downstream accepts only caps the element cannot make, and says so only
 * once linked (an appsink or capsfilter given its caps then, an encoder
 * that learns its limits when it opens): the stream stops, and a warning
 * of the element says what was asked for and what it makes, before the
 * source's own error. (Where the pads cannot link, parsing says why.) */
GST_START_TEST (test_impossible_caps_said)
{
  const struct {
    const char * in;
    const char * out;
    const char * said[2];
  } cases[] = {
    { "NV12,width=64,height=48", "format=NV12,width=20000,height=48",
        { "width 20000", "16384" } },
    { "NV12,width=64,height=48", "format=NV12,width=64,height=0",
        { "height 0", "16384" } },
    { "GRAY8,width=64,height=48", "format=UYVP,width=64,height=48",
        { "format UYVP", "GRAY8" } },
  };
  for (const auto & c : cases) {
    gchar * desc = g_strdup_printf (
        "videotestsrc num-buffers=2 ! video/x-raw,format=%s ! cudastreamsupload ! "
        "cudastreamsconvertscale name=cs ! capsfilter name=f ! fakesink",
        c.in);
    GError * err = NULL;
    GstElement * pipeline = gst_parse_launch (desc, &err);
    fail_unless (
        pipeline != NULL && err == NULL, "%s: %s", desc, err ? err->message : "");
    gchar * wanted =
        g_strdup_printf ("video/x-raw(" GST_CAPS_FEATURE_MEMORY_CS "),%s", c.out);
    GstCaps * caps = gst_caps_from_string (wanted);
    GstElement * filter = testutil::by_name (pipeline, "f");
    g_object_set (filter, "caps", caps, NULL);
    gst_object_unref (filter);
    gst_caps_unref (caps);
    testutil::Outcome o = testutil::run_to_end (pipeline);
    fail_unless (!o.eos, "%s: reached EOS", wanted);
    for (const char * s : c.said)
      fail_unless (o.warnings.find ("cs: ") != std::string::npos &&
                       o.warnings.find (s) != std::string::npos,
          "%s: no warning of cs saying \"%s\"; warnings: %s; error: %s", wanted, s,
          o.warnings.c_str (), o.error.c_str ());
    gst_object_unref (pipeline);
    g_free (wanted);
    g_free (desc);
  }
}
GST_END_TEST;

/* Downstream changes its caps while PLAYING to a size the element cannot
 * make: the renegotiation before the next frame fails, and the element
 * says why. */
static GstPadProbeReturn
ask_too_wide_after_first (GstPad *, GstPadProbeInfo *, gpointer user)
{
  auto * filter = static_cast<GstElement *> (user);
  if (g_object_get_data (G_OBJECT (filter), "asked") == NULL) {
    g_object_set_data (G_OBJECT (filter), "asked", GINT_TO_POINTER (1));
    return GST_PAD_PROBE_OK; /* the first frame goes through as negotiated */
  }
  GstCaps * wide = gst_caps_from_string (
      "video/x-raw(" GST_CAPS_FEATURE_MEMORY_CS "),format=RGBA,width=20000");
  g_object_set (filter, "caps", wide, NULL);
  gst_caps_unref (wide);
  return GST_PAD_PROBE_REMOVE;
}

GST_START_TEST (test_impossible_caps_while_playing_said)
{
  GstElement * pipeline = gst_parse_launch (
      "videotestsrc num-buffers=5 ! video/x-raw,format=NV12,width=64,height=48 ! "
      "cudastreamsupload ! cudastreamsconvertscale name=cs ! capsfilter name=f "
      "caps=video/x-raw(" GST_CAPS_FEATURE_MEMORY_CS "),format=RGBA ! fakesink",
      NULL);
  fail_unless (pipeline != NULL);
  GstElement * filter = testutil::by_name (pipeline, "f");
  testutil::add_probe (pipeline, "cs", "sink", GST_PAD_PROBE_TYPE_BUFFER,
      ask_too_wide_after_first, filter);
  testutil::Outcome o = testutil::run_to_end (pipeline);
  fail_unless (!o.eos, "reached EOS");
  fail_unless (o.warnings.find ("cs: Cannot make") != std::string::npos &&
                   o.warnings.find ("width 20000") != std::string::npos,
      "no warning of cs naming the width; warnings: %s; error: %s", o.warnings.c_str (),
      o.error.c_str ());
  gst_object_unref (filter);
  gst_object_unref (pipeline);
}
GST_END_TEST;

/* --- the documented examples ------------------------------------------- */

/* The gst-launch examples of the element's documentation (the SECTION
 * comment gst-inspect and the reference pages show), each with the text
 * that follows it, from the source file. */
struct Example {
  std::string command, text;
};

static std::vector<Example>
documented_examples ()
{
  const char * root = g_getenv ("CS_SOURCE_ROOT");
  fail_unless (root != NULL, "CS_SOURCE_ROOT is not set");
  gchar * path = g_build_filename (root, "plugins", "gstcsconvertscale.cpp", NULL);
  gchar * source = NULL;
  fail_unless (g_file_get_contents (path, &source, NULL, NULL), "cannot read %s", path);
  std::vector<Example> examples;
  Example * in = nullptr; /* within |[ ... ]| */
  bool describing = false;
  gchar ** lines = g_strsplit (source, "\n", -1);
  for (gchar ** l = lines; *l && !g_str_has_prefix (*l, " * Since:"); l++) {
    const std::string line = g_str_has_prefix (*l, " * ") ? *l + 3 : "";
    if (g_str_has_prefix (*l, " * |[")) {
      examples.emplace_back ();
      in = &examples.back ();
    } else if (in && g_str_has_prefix (*l, " * ]|")) {
      in->text = *l + 5;
      describing = true;
      in = nullptr;
    } else if (in) {
      /* shell continuation lines */
      const bool more = !line.empty () && line.back () == '\\';
      in->command += line.substr (0, more ? line.size () - 1 : line.size ());
    } else if (describing && !line.empty ()) {
      examples.back ().text += " " + line;
    } else {
      describing = false;
    }
  }
  g_strfreev (lines);
  g_free (source);
  g_free (path);
  return examples;
}

/* `command` as gst-launch-1.0 would read it, each element named as only
 * this plugin names it (nvcodec may hold the short names), one frame from
 * the source, the sink an appsink "out". */
static GstElement *
parse_example (const std::string & command)
{
  gint argc = 0;
  gchar ** argv = NULL;
  fail_unless (
      g_shell_parse_argv (command.c_str (), &argc, &argv, NULL), "%s", command.c_str ());
  fail_unless (
      argc > 2 && g_str_equal (argv[0], "gst-launch-1.0"), "%s", command.c_str ());
  std::vector<std::string> words;
  for (gint i = 1; i < argc; i++) {
    const std::string w = argv[i];
    if (w == "cudaupload" || w == "cudaconvertscale" || w == "cudadownload")
      words.push_back ("cudastreams" + w.substr (4));
    else if (i == argc - 1)
      words.insert (words.end (), { "appsink", "name=out" });
    else
      words.push_back (w);
    if (w == "videotestsrc")
      words.push_back ("num-buffers=1");
  }
  g_strfreev (argv);
  std::vector<const gchar *> args;
  for (const std::string & w : words)
    args.push_back (w.c_str ());
  args.push_back (NULL);
  GError * err = NULL;
  GstElement * pipeline = gst_parse_launchv (args.data (), &err);
  fail_unless (pipeline != NULL && err == NULL, "%s: %s", command.c_str (),
      err ? err->message : "");
  return pipeline;
}

/* Whether rows [first, last) of every plane of a planar RGB frame are all
 * 0 (the default opaque black border). */
static bool
rows_black (GstBuffer * buf, const GstVideoInfo * info, gint first, gint last)
{
  GstVideoFrame f;
  fail_unless (
      gst_video_frame_map (&f, const_cast<GstVideoInfo *> (info), buf, GST_MAP_READ));
  bool black = true;
  for (guint p = 0; p < GST_VIDEO_FRAME_N_PLANES (&f); p++)
    for (gint y = first; y < last; y++) {
      const guint8 * row = (const guint8 *)GST_VIDEO_FRAME_PLANE_DATA (&f, p) +
                           (gsize)y * GST_VIDEO_FRAME_PLANE_STRIDE (&f, p);
      for (gint x = 0; x < GST_VIDEO_FRAME_WIDTH (&f); x++)
        black = black && row[x] == 0;
    }
  gst_video_frame_unmap (&f);
  return black;
}

/* Every example of the element's documentation runs, and the one that says
 * it letterboxes does: a 16:9 frame in 640x640 has 140 black rows above
 * and below the picture. */
GST_START_TEST (test_documented_examples)
{
  const std::vector<Example> examples = documented_examples ();
  fail_unless (examples.size () >= 2, "%zu examples found", examples.size ());
  bool letterbox_seen = false;
  for (const Example & e : examples) {
    GstElement * pipeline = parse_example (e.command);
    Captured out;
    testutil::capture_appsink (pipeline, "out", &out);
    testutil::run_to_eos (pipeline, e.command.c_str ());
    fail_unless_equals_int (out.buffers.size (), 1);
    if (e.text.find ("letterbox") != std::string::npos) {
      letterbox_seen = true;
      const GstVideoInfo * info = &out.infos[0];
      fail_unless (info->width == 640 && info->height == 640, "%s: %dx%d",
          e.text.c_str (), info->width, info->height);
      fail_unless (rows_black (out.buffers[0], info, 0, 140) &&
                       rows_black (out.buffers[0], info, 500, 640) &&
                       !rows_black (out.buffers[0], info, 140, 500),
          "%s: the picture is not letterboxed (140 black rows above and below); the "
          "example: %s",
          e.text.c_str (), e.command.c_str ());
    }
    gst_element_set_state (pipeline, GST_STATE_NULL);
    gst_object_unref (pipeline);
  }
  fail_unless (letterbox_seen, "no example says it letterboxes");
}
GST_END_TEST;

/* --- the output pool ---------------------------------------------------- */

/* A download reads each frame on its own stream and waits for its copy
 * before it lets the frame go (none kept in flight): the element's pool
 * then hands that frame out again first (its bytes still in the GPU's L2),
 * every frame the same memory, with no host wait of the element's. */
GST_START_TEST (test_pool_reuse_beside_download)
{
  Case c{ "NV12", 64, 48, "RGBA", 40, 30 };
  c.frames = 6;
  std::string chain = chain_of (c);
  chain.replace (chain.rfind ("cudastreamsdownload"), std::string::npos,
      "cudastreamsdownload max-in-flight=0");
  Captured in, out, unused;
  GstElement * pipeline = pipeline_of (c, chain, NULL, &in, &out, &unused);
  std::vector<guint8 *> written;
  testutil::add_probe (
      pipeline, "cs", "src", GST_PAD_PROBE_TYPE_BUFFER, note_device_pointer, &written);
  testutil::run_to_eos (pipeline, "beside a download");
  fail_unless_equals_int (testutil::host_waits (pipeline, "cs"), 0);
  fail_unless_equals_int (written.size (), c.frames);
  for (size_t i = 1; i < written.size (); i++)
    fail_unless (written[i] == written[0],
        "frame %zu was written into other memory than frame 0 (%p, %p)", i, written[i],
        written[0]);
  for (size_t i = 0; i < out.buffers.size (); i++) {
    GstBuffer * want = twin_of (c, in.buffers[i], &in.infos[i], &out.infos[i]);
    testutil::assert_frames_equal (
        want, &out.infos[i], out.buffers[i], &out.infos[i], "beside a download");
    gst_buffer_unref (want);
  }
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
}
GST_END_TEST;

/* --- the table of taps per output line --------------------------------- */

/* A random case of the four-tap fixed-point family: NV12, NV21, I420,
 * YV12, YUY2, UYVY or Y444 into RGBA, BGRx, RGBP, Y444, NV12, I420 or
 * YUY2, bicubic by 0.25 to 4 or area shrinking by 1 to 3, odd crops,
 * flips, 180 and letterboxes; small enough for the stand-in. */
static Case
random_quad_case (std::mt19937 & random)
{
  static const char * const ins[] = { "NV12", "NV21", "I420", "YV12", "YUY2", "UYVY",
    "Y444" };
  static const char * const outs[] = { "RGBA", "BGRx", "RGBP", "Y444", "NV12", "I420",
    "YUY2" };
  static const GstVideoOrientationMethod turns[] = { GST_VIDEO_ORIENTATION_IDENTITY,
    GST_VIDEO_ORIENTATION_HORIZ, GST_VIDEO_ORIENTATION_VERT, GST_VIDEO_ORIENTATION_180 };
  auto pick = [&] (int n) { return (int)(random () % (unsigned)n); };
  auto uniform = [&] (double lo, double hi) {
    return std::uniform_real_distribution<double> (lo, hi) (random);
  };
  const bool area = pick (3) == 0;
  const gint iw = 8 + 2 * pick (300), ih = 8 + 2 * pick (200);
  const double fx = area ? 1.0 / uniform (1.0, 3.0) : std::exp (uniform (-1.386, 1.386));
  const double fy = area ? 1.0 / uniform (1.0, 3.0) : std::exp (uniform (-1.386, 1.386));
  Case c (ins[pick (G_N_ELEMENTS (ins))], iw, ih, outs[pick (G_N_ELEMENTS (outs))],
      CLAMP ((gint)(iw * fx) & ~1, 8, 640), CLAMP ((gint)(ih * fy) & ~1, 8, 480));
  c.filter = area ? gpu::Filter::AREA : gpu::Filter::BICUBIC;
  c.direction = turns[pick (G_N_ELEMENTS (turns))];
  if (pick (3) == 0)
    c.crop = { 1 + 2 * pick (iw / 8), 2 * pick (iw / 8), 1 + 2 * pick (ih / 8),
      2 * pick (ih / 8) };
  if (pick (4) == 0)
    c.out_extra = ",pixel-aspect-ratio=1/1"; /* a letterbox or pillarbox */
  return c;
}

/* The next random case that takes the four-tap path ("fixed-point
 * taps"), of `filter` when given (an area case is made a shrink: area
 * enlarges by two taps). Fails when 200 tries in a row miss the path
 * (one in ten or more take it). */
static Case
next_quad_case (std::mt19937 & random, std::optional<gpu::Filter> filter)
{
  for (int tried = 0; tried < 200; tried++) {
    Case c = random_quad_case (random);
    if (filter) {
      c.filter = *filter;
      if (c.filter == gpu::Filter::AREA && (c.out_w > c.in_w || c.out_h > c.in_h))
        std::swap (c.out_w, c.in_w), std::swap (c.out_h, c.in_h), c.crop = Crop ();
    }
    if (path_of_case (c) == "fixed-point taps")
      return c;
  }
  fail ("too few random cases take the four taps");
  return random_quad_case (random);
}

/* The table filled by the GPU's kernel (gpu::convert_scale_fill_lines)
 * holds, entry for entry, what the host computes (QuadTaps::at through
 * fill_quad_line): 200 random descriptions, both filters. Catches the
 * compiler putting a weight in the wrong slot (fixed_taps.h says nvcc
 * 13.0 did once). */
GST_START_TEST (test_quad_lines_match_host)
{
  std::mt19937 random (11);
  for (int taken = 0; taken < 200; taken++) {
    const Case c =
        next_quad_case (random, taken % 2 ? gpu::Filter::AREA : gpu::Filter::BICUBIC);
    const std::string what = describe (c);
    GstVideoInfo vi[2];
    gchar * caps[2] = { g_strdup_printf ("video/x-raw,format=%s,width=%d,height=%d",
                            c.in_format, c.in_w, c.in_h),
      g_strdup_printf ("video/x-raw,format=%s,width=%d,height=%d%s", c.out_format,
          c.out_w, c.out_h, c.out_extra) };
    for (int k = 0; k < 2; k++) {
      GstCaps * parsed = gst_caps_from_string (caps[k]);
      fail_unless (gst_video_info_from_caps (&vi[k], parsed), "%s", caps[k]);
      gst_caps_unref (parsed);
      g_free (caps[k]);
    }
    /* The fill reads the description only, never the frames. */
    std::vector<guint8> in_mem (GST_VIDEO_INFO_SIZE (&vi[0])),
        out_mem (GST_VIDEO_INFO_SIZE (&vi[1]));
    gst_cs::ConvertSettings settings;
    settings.filter = c.filter;
    settings.orientation = static_cast<gpu::Orientation> (c.direction);
    settings.add_borders = c.add_borders;
    gpu::ConvertScale op, resolved;
    gst_cs::describe_convert (&vi[0], &vi[1], c.crop.l, c.crop.t,
        c.in_w - c.crop.l - c.crop.r, c.in_h - c.crop.t - c.crop.b, settings, &op);
    op.in = gst_cs::convert_image (&vi[0], &vi[0], in_mem.data (), false);
    op.out = gst_cs::convert_image (&vi[1], &vi[1], out_mem.data (), true);
    fail_unless (gpu::convert_scale_resolve (op, &resolved), "%s", what.c_str ());
    const size_t bytes = gpu::convert_scale_lines_bytes (resolved);
    fail_unless (bytes > 0 && bytes % 32 == 0, "%s", what.c_str ());
    /* On the host: 16-byte aligned, as the device's. */
    std::vector<guint64> host (bytes / 8 + 1), from_gpu (bytes / 8 + 1);
    gpu::ConvertScale on_host = resolved;
    gpu::convert_scale_point_lines (&on_host, host.data ());
    fail_unless (reinterpret_cast<std::uintptr_t> (host.data ()) % 16 == 0);
    gpu::convert_scale_fill_lines_on_host (on_host);
    void * table = nullptr;
    fail_unless_equals_int (cudaMalloc (&table, bytes), cudaSuccess);
    fail_unless_equals_int (cudaMemset (table, 0xa5, bytes), cudaSuccess);
    gpu::convert_scale_point_lines (&resolved, table);
    fail_unless_equals_int (gpu::convert_scale_fill_lines (resolved, NULL), cudaSuccess);
    fail_unless_equals_int (
        cudaMemcpy (from_gpu.data (), table, bytes, cudaMemcpyDeviceToHost), cudaSuccess);
    fail_unless_equals_int (cudaFree (table), cudaSuccess);
    for (size_t e = 0; e < bytes / 32; e++)
      fail_unless (
          std::memcmp (reinterpret_cast<const guint8 *> (host.data ()) + 32 * e,
              reinterpret_cast<const guint8 *> (from_gpu.data ()) + 32 * e, 32) == 0,
          "%s: entry %zu of %zu differs from the host's", what.c_str (), e, bytes / 32);
  }
}
GST_END_TEST;

/* The element's frames 0 to 3 of random four-tap cases equal the twin's:
 * frame 0 without the table, frame 1 fills it, 2 and 3 reuse it (and no
 * host wait, check_against_twin). */
GST_START_TEST (test_fixed_taps_lines_match_twin)
{
  std::mt19937 random (29);
  for (int taken = 0; taken < 40; taken++) {
    Case c = next_quad_case (random, std::nullopt);
    c.frames = 4;
    check_against_twin (c);
  }
}
GST_END_TEST;

/* "filled taps table" logged by cudaconvertscale (ConvertLines::attach). */
static std::atomic<int> tables_filled{ 0 };

static void
count_fills (GstDebugCategory * category, GstDebugLevel, const gchar *, const gchar *,
    gint, GObject *, GstDebugMessage * message, gpointer)
{
  if (std::strcmp (gst_debug_category_get_name (category), "csconvertscale") == 0 &&
      std::strstr (gst_debug_message_get (message), "filled taps table"))
    tables_filled++;
}

/* Pushes `n` random NV12 frames of w x h through the harness and pulls
 * them. */
static void
push_pull (GstHarness * h, gint w, gint h_, int n, guint32 seed)
{
  for (int i = 0; i < n; i++) {
    fail_unless_equals_int (
        gst_harness_push (h, testutil::random_buffer ((gsize)w * h_ * 3 / 2, seed + i)),
        GST_FLOW_OK);
    GstBuffer * out = gst_harness_pull (h);
    fail_unless (out != NULL);
    gst_buffer_unref (out);
  }
}

/* The table is filled once per description, on its second frame: 8
 * frames of one caps, one fill; new output caps, another; caps
 * renegotiated to the same description (the memo cleared), none; another
 * method, one. */
GST_START_TEST (test_lines_filled_once_per_description)
{
  tables_filled = 0;
  /* The test environment's GST_DEBUG leaves INFO off (its *:1 wins). */
  gst_debug_set_threshold_for_name ("csconvertscale", GST_LEVEL_INFO);
  gst_debug_add_log_function (count_fills, NULL, NULL);
  GstHarness * h = testutil::harness_parse_ours (
      "cudastreamsupload ! cudastreamsconvertscale name=cs method=bicubic ! "
      "cudastreamsdownload");
  gst_harness_set_src_caps_str (
      h, "video/x-raw,format=NV12,width=320,height=180,framerate=30/1");
  gst_harness_set_sink_caps_str (h, "video/x-raw,format=RGBA,width=128,height=72");
  push_pull (h, 320, 180, 1, 1);
  fail_unless_equals_int (tables_filled.load (), 0); /* the first frame: none */
  push_pull (h, 320, 180, 7, 2);
  fail_unless_equals_int (tables_filled.load (), 1);
  /* Another output size: another table. */
  gst_harness_set_sink_caps_str (h, "video/x-raw,format=RGBA,width=192,height=108");
  fail_unless (gst_harness_push_upstream_event (h, gst_event_new_reconfigure ()));
  push_pull (h, 320, 180, 4, 10);
  fail_unless_equals_int (tables_filled.load (), 2);
  /* New input caps of the same description (the framerate): the table
   * holds it already. ConvertLines compares descriptions as bytes,
   * padding included; a description made afresh had the same bytes in
   * 200 of 200 tries (GCC 12, -O2, dirtied stack), so a fill here is a
   * defect to look at field by field, not noise. */
  gst_harness_set_src_caps_str (
      h, "video/x-raw,format=NV12,width=320,height=180,framerate=25/1");
  push_pull (h, 320, 180, 4, 20);
  fail_unless_equals_int (tables_filled.load (), 2);
  /* Another method (area by 1.67: four taps too), the same size of
   * table: filled again. */
  GstElement * cs = gst_bin_get_by_name (GST_BIN (h->element), "cs");
  g_object_set (cs, "method", 3 /* area */, NULL);
  gst_object_unref (cs);
  push_pull (h, 320, 180, 4, 30);
  fail_unless_equals_int (tables_filled.load (), 3);
  gst_harness_teardown (h);
  gst_debug_remove_log_function (count_fills);
  gst_debug_unset_threshold_for_name ("csconvertscale");
}
GST_END_TEST;

/* --- allocation failures --------------------------------------------- */

/* While set, cudaMalloc calls of at least this many bytes fail, as on a
 * device that is out of memory: the element's output frames, larger than
 * anything else the test allocates meanwhile. */
static std::atomic<size_t> fail_mallocs_from{ 0 };

/* This process's cudaMalloc (the test binary's definition comes first for
 * the library and the plugin too), passing on to the runtime's. */
extern "C" cudaError_t
cudaMalloc (void ** ptr, size_t size)
{
  using Malloc = cudaError_t (*) (void **, size_t);
  static const Malloc next = reinterpret_cast<Malloc> (dlsym (RTLD_NEXT, "cudaMalloc"));
  const size_t from = fail_mallocs_from.load ();
  if (from && size >= from) {
    *ptr = nullptr;
    return cudaErrorMemoryAllocation;
  }
  return next (ptr, size);
}

/* Downstream holds every frame (a harness does until they are pulled), so
 * the output pool, active with its first frames, allocates more; when the
 * device has no memory left the element says so in an error, instead of a
 * flow error with nothing on the bus. */
GST_START_TEST (test_allocation_failure_said)
{
  GstHarness * h =
      testutil::harness_parse_ours ("cudastreamsupload ! cudastreamsconvertscale");
  GstBus * bus = testutil::watch_bus (h->element);
  gst_harness_set_src_caps_str (
      h, "video/x-raw,format=GRAY8,width=16,height=16,framerate=30/1");
  gst_harness_set_sink_caps_str (
      h, "video/x-raw(" GST_CAPS_FEATURE_MEMORY_CS "),format=RGBA,width=64,height=64");
  fail_unless_equals_int (
      gst_harness_push (h, testutil::random_buffer (16 * 16, 1)), GST_FLOW_OK);
  fail_mallocs_from = 64 * 64 * 4;
  GstFlowReturn flow = GST_FLOW_OK;
  for (guint32 i = 2; i < 12 && flow == GST_FLOW_OK; i++)
    flow = gst_harness_push (h, testutil::random_buffer (16 * 16, i));
  fail_mallocs_from = 0;
  fail_unless_equals_int (flow, GST_FLOW_ERROR);
  const std::string errors = testutil::pop_messages (bus, GST_MESSAGE_ERROR);
  fail_unless (errors.find ("Cannot allocate") != std::string::npos &&
                   errors.find ("cudaMalloc") != std::string::npos,
      "no error saying the allocation failed; errors: %s", errors.c_str ());
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
}
GST_END_TEST;

static Suite *
convertscale_gpu_suite (void)
{
  Suite * s = suite_create ("convertscale_gpu");
  TCase * tc = tcase_create ("general");
  tcase_set_timeout (tc, 600);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_formats_match_twin);
  tcase_add_test (tc, test_orientations_match_twin);
  tcase_add_test (tc, test_turned_planes_match_twin);
  tcase_add_test (tc, test_turned_fixed_point_match_twin);
  tcase_add_test (tc, test_turned_two_taps_match_twin);
  tcase_add_test (tc, test_edges_match_twin);
  tcase_add_test (tc, test_tap_tiles_match_twin);
  tcase_add_test (tc, test_odd_16bit_layout_matches_twin);
  tcase_add_test (tc, test_decoder_frames_take_fixed_point);
  tcase_add_test (tc, test_area_by_two_in_fixed_point);
  tcase_add_test (tc, test_wide_samples_in_fixed_point);
  tcase_add_test (tc, test_bicubic_overshoot_clamped);
  tcase_add_test (tc, test_bicubic_overshoot_clamped_10_bit);
  tcase_add_test (tc, test_fixed_taps_match_twin);
  tcase_add_test (tc, test_quad_lines_match_host);
  tcase_add_test (tc, test_fixed_taps_lines_match_twin);
  tcase_add_test (tc, test_lines_filled_once_per_description);
  tcase_add_test (tc, test_yuv_resampled_by_planes);
  tcase_add_test (tc, test_crop_fused);
  tcase_add_test (tc, test_conversions_near_videoconvert);
  tcase_add_test (tc, test_scaling_near_videoconvertscale);
  tcase_add_test (tc, test_orientations_equal_videoflip);
  tcase_add_test (tc, test_passthrough);
  tcase_add_test (tc, test_videoscale_sizes);
  tcase_add_test (tc, test_negotiation_as_videoscale);
  tcase_add_test (tc, test_pixel_aspect_ratio_alone);
  tcase_add_test (tc, test_bad_properties);
  tcase_add_test (tc, test_bad_caps);
  tcase_add_test (tc, test_direction_while_playing);
  tcase_add_test (tc, test_direction_changes_keep_caps);
  tcase_add_test (tc, test_direction_from_tag);
  tcase_add_test (tc, test_direction_change_during_negotiation);
  tcase_add_test (tc, test_documented_examples);
  tcase_add_test (tc, test_impossible_caps_said);
  tcase_add_test (tc, test_impossible_caps_while_playing_said);
  tcase_add_test (tc, test_allocation_failure_said);
  tcase_add_test (tc, test_pool_reuse_beside_download);
  return s;
}

TESTUTIL_GPU_CHECK_MAIN (convertscale_gpu);

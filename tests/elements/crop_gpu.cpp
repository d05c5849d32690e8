/* SPDX-License-Identifier: LGPL-2.1-or-later */
// On a GPU: cudacrop gives exactly CPU videocrop's pixels on random content,
// for every format, zero-copy where downstream reads crop metas or video
// metas (same device memory, same event) and packed otherwise; honours an upstream crop
// meta and the automatic mode; renegotiates on live property changes; never
// waits on the host; and turns impossible crops into clear errors.
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "gstcudastreams.h"
#include "testutil.h"

using testutil::Captured;

struct Crop {
  gint l, r, t, b;
};

/* How the crop reaches cudadownload: as a crop meta (cudadownload takes
 * them), as plane offsets (a downstream that takes video metas only), or as
 * a packed copy (one that takes neither). */
enum class Path { CROP_META, OFFSETS, PACKED };

struct Case {
  const char * format;
  gint w, h;
  Crop crop;
  Path path = Path::CROP_META;
  gint frames = 30;
  bool crop_meta = false; /* add one at (mx, my) to cudacrop's input */
  guint mx = 0, my = 0;
  const char * out_size = NULL; /* "width=..,height=.." after the crop (automatic mode) */
  gint auto_left = 0;           /* what an automatic left resolves to */
};

static bool
is_semi_planar_16 (const char * format)
{
  return !strcmp (format, "P010_10LE") || !strcmp (format, "P016_LE");
}

/* One plane of luma beside chroma of half the width: YUY2, UYVY, v216,
 * Y210 ... */
static bool
is_packed_422 (const char * format)
{
  const GstVideoFormatInfo * f =
      gst_video_format_get_info (gst_video_format_from_string (format));
  return GST_VIDEO_FORMAT_INFO_N_PLANES (f) == 1 &&
         GST_VIDEO_FORMAT_INFO_N_COMPONENTS (f) >= 3 &&
         GST_VIDEO_FORMAT_INFO_W_SUB (f, 0) == 0 &&
         GST_VIDEO_FORMAT_INFO_W_SUB (f, 1) == 1;
}

static const char *
path_name (Path path)
{
  switch (path) {
    case Path::CROP_META:
      return "crop meta";
    case Path::OFFSETS:
      return "offsets";
    default:
      return "packed";
  }
}

/* The case, for messages: "NV12 64x48 l3 r5 t1 b2 packed with a crop meta". */
static std::string
describe (const Case & c)
{
  gchar * text = g_strdup_printf ("%s %dx%d l%d r%d t%d b%d %s%s", c.format, c.w, c.h,
      c.crop.l, c.crop.r, c.crop.t, c.crop.b, path_name (c.path),
      c.crop_meta ? " with a crop meta" : "");
  std::string s = text;
  g_free (text);
  return s;
}

/* --- probes ----------------------------------------------------------- */

/* cudacrop (named "crop") of `pipeline` takes `path`. */
static void
force_path (GstElement * pipeline, Path path)
{
  if (path == Path::CROP_META)
    return; /* what cudadownload takes anyway */
  testutil::hide_crop_metas (pipeline, "crop", path == Path::PACKED);
}

/* The device memory and event of each buffer passing a pad. */
struct Seen {
  std::vector<guintptr> memory;
  std::vector<guintptr> event;
};

static GstPadProbeReturn
record_memory (GstPad *, GstPadProbeInfo * info, gpointer user)
{
  auto * seen = static_cast<Seen *> (user);
  GstBuffer * buf = GST_PAD_PROBE_INFO_BUFFER (info);
  GstMemory * mem = gst_buffer_peek_memory (buf, 0);
  GstCsSyncMeta * meta = gst_buffer_get_cs_sync_meta (buf);
  seen->memory.push_back (
      gst_is_cs_memory (mem) ? (guintptr)gst_cs_memory_get_device_pointer (mem) : 0);
  seen->event.push_back (meta ? (guintptr)meta->event : 0);
  return GST_PAD_PROBE_OK;
}

/* What enters and leaves cudacrop (named "crop"). */
static void
record_crop_memory (GstElement * pipeline, Seen * in, Seen * out)
{
  testutil::add_probe (
      pipeline, "crop", "sink", GST_PAD_PROBE_TYPE_BUFFER, record_memory, in);
  testutil::add_probe (
      pipeline, "crop", "src", GST_PAD_PROBE_TYPE_BUFFER, record_memory, out);
}

struct MetaAdder {
  guint x, y;
};

/* An upstream crop: a GstVideoCropMeta on cudacrop's input. */
static GstPadProbeReturn
add_crop_meta (GstPad *, GstPadProbeInfo * info, gpointer user)
{
  auto * m = static_cast<MetaAdder *> (user);
  GstBuffer * buf = gst_buffer_make_writable (GST_PAD_PROBE_INFO_BUFFER (info));
  GstVideoMeta * vm = gst_buffer_get_video_meta (buf);
  GstVideoCropMeta * cm = gst_buffer_add_video_crop_meta (buf);
  cm->x = m->x;
  cm->y = m->y;
  cm->width = vm ? vm->width - m->x : 1;
  cm->height = vm ? vm->height - m->y : 1;
  GST_PAD_PROBE_INFO_DATA (info) = buf;
  return GST_PAD_PROBE_OK;
}

/* --- one run ---------------------------------------------------------- */

/* Zero-copy: cudacrop's output is its input's memory and event; a copy: a
 * new memory and a new event. */
static void
expect_memory (const Case & c, const Seen & in, const Seen & out, const char * what)
{
  const guint x = (c.crop.l < 0 ? c.auto_left : c.crop.l) + c.mx;
  const bool nothing = !c.crop.l && !c.crop.r && !c.crop.t && !c.crop.b && !c.out_size;
  const bool same = nothing || c.path == Path::CROP_META ||
                    (c.path == Path::OFFSETS && !(is_packed_422 (c.format) && (x & 1)));
  fail_unless (in.memory.size () == out.memory.size (),
      "%s: cudacrop took %zu frames and gave %zu", what, in.memory.size (),
      out.memory.size ());
  for (size_t i = 0; i < in.memory.size (); i++) {
    fail_unless (in.memory[i] && out.memory[i] && out.event[i],
        "%s: frame %zu is not in device memory with an event", what, i);
    if (same) {
      fail_unless (in.memory[i] == out.memory[i] && in.event[i] == out.event[i],
          "%s: frame %zu: expected zero-copy (same memory and event), got a new %s", what,
          i, in.memory[i] != out.memory[i] ? "memory" : "event");
    } else {
      fail_unless (in.memory[i] != out.memory[i],
          "%s: frame %zu: expected a packed copy, got the input memory", what, i);
      fail_unless (in.event[i] != out.event[i],
          "%s: frame %zu: the copy recorded no new event", what, i);
    }
  }
}

/* Row `row` of `frame` unpacked into `px` (GStreamer's AYUV/ARGB, 8 or 16
 * bits a channel), the samples as they are: TRUNCATE_RANGE, as GStreamer
 * fills the low bits of 10-bit samples of some formats differently for
 * the first and second pixel of a pair (Y210 in 1.22). */
static void
unpack_row (GstVideoFrame * frame, guint row, std::vector<guint16> & px)
{
  const GstVideoFormatInfo * f = frame->info.finfo;
  const bool wide =
      GST_VIDEO_FORMAT_INFO_BITS (gst_video_format_get_info (f->unpack_format)) > 8;
  const gint width = GST_VIDEO_FRAME_WIDTH (frame);
  std::vector<guint8> bytes ((gsize)(width + 8) * 8);
  f->unpack_func (f, GST_VIDEO_PACK_FLAG_TRUNCATE_RANGE, bytes.data (), frame->data,
      frame->info.stride, 0, (gint)row, width);
  px.assign ((gsize)width * 4, 0);
  for (gsize i = 0; i < px.size (); i++)
    px[i] = wide ? ((const guint16 *)bytes.data ())[i] : bytes[i];
}

/* Whether `out` is `in` cropped at (`x`, `y`), as GStreamer's unpacking of
 * both reads them: each channel of output pixel (i, r) is the input's at
 * (x + i, y + r), or for a subsampled channel at its sample's (x and y
 * rounded down to the subsampling, as videocrop rounds). Packed 4:2:2 at an
 * odd x leaves the last luma sample of an even-width row unshifted, as
 * videocrop does. For the formats videocrop does not take. */
static void
assert_cropped_as_unpacked (GstBuffer * in, const GstVideoInfo * in_info, guint x,
    guint y, GstBuffer * out, const GstVideoInfo * out_info, const char * what)
{
  GstVideoFrame fi, fo;
  fail_unless (
      gst_video_frame_map (&fi, const_cast<GstVideoInfo *> (in_info), in, GST_MAP_READ));
  fail_unless (gst_video_frame_map (
      &fo, const_cast<GstVideoInfo *> (out_info), out, GST_MAP_READ));
  const GstVideoFormatInfo * f = in_info->finfo;
  /* unpacked channel k: alpha, then components 0 to 2 */
  guint ws[4] = {}, hs[4] = {};
  for (guint k = 0; k < 4; k++) {
    const guint comp = k == 0 ? 3 : k - 1;
    if (comp < GST_VIDEO_FORMAT_INFO_N_COMPONENTS (f)) {
      ws[k] = GST_VIDEO_FORMAT_INFO_W_SUB (f, comp);
      hs[k] = GST_VIDEO_FORMAT_INFO_H_SUB (f, comp);
    }
  }
  const guint w = (guint)out_info->width, h = (guint)out_info->height;
  const bool unshifted_last =
      is_packed_422 (GST_VIDEO_INFO_NAME (in_info)) && (x & 1) && !(w & 1);
  std::vector<guint16> o, s;
  for (guint r = 0; r < h; r++) {
    unpack_row (&fo, r, o);
    for (guint k = 0; k < 4; k++) {
      const guint x0 = (x >> ws[k]) << ws[k], y0 = (y >> hs[k]) << hs[k];
      unpack_row (&fi, y0 + r, s);
      for (guint i = 0; i < w; i++) {
        if (k == 1 && unshifted_last && i == w - 1)
          continue;
        /* fail () on a mismatch only: fail_unless marks a point (a write to
         * check's pipe) per sample, which was most of this test's time. */
        if (o[i * 4 + k] != s[(x0 + i) * 4 + k])
          fail ("%s: %s pixel (%u, %u) channel %u is %u, the input's at (%u, %u) %u",
              what, GST_VIDEO_INFO_NAME (in_info), i, r, k, o[i * 4 + k], x0 + i, y0 + r,
              s[(x0 + i) * 4 + k]);
      }
    }
  }
  gst_video_frame_unmap (&fi);
  gst_video_frame_unmap (&fo);
}

/* cudacrop beside CPU videocrop (the formats it does not take: beside the
 * input as GStreamer unpacks it) on the same random frames: the same
 * pixels, the memory the path promises, no host wait. */
static void
check_case (const Case & c)
{
  const std::string what = describe (c);
  const bool cpu_reference = !testutil::videocrop_takes (c.format);
  /* the reference crops what cudacrop crops: left/top plus the crop meta */
  const Crop ref = { (gint)(c.crop.l + c.mx), (gint)(c.crop.r - c.mx),
    (gint)(c.crop.t + c.my), (gint)(c.crop.b - c.my) };
  gchar * size =
      c.out_size ? g_strdup_printf (" ! video/x-raw,%s", c.out_size) : g_strdup ("");
  gchar * dsize =
      c.out_size
          ? g_strdup_printf (" ! video/x-raw(memory:CUDAStreamsMemory),%s", c.out_size)
          : g_strdup ("");
  gchar * reference =
      cpu_reference ? NULL
                    : g_strdup_printf ("videocrop left=%d right=%d top=%d bottom=%d%s",
                          ref.l, ref.r, ref.t, ref.b, size);
  gchar * chain = g_strdup_printf ("cudaupload name=up ! cudacrop name=crop left=%d "
                                   "right=%d top=%d bottom=%d%s ! cudadownload",
      c.crop.l, c.crop.r, c.crop.t, c.crop.b, dsize);
  Captured in, expected, out;
  GstElement * pipeline = testutil::parse_beside_reference (
      c.format, c.w, c.h, c.frames, reference, chain, &expected, &out);
  g_free (chain);
  g_free (reference);
  g_free (size);
  g_free (dsize);
  if (cpu_reference)
    testutil::capture_pad (pipeline, "up", "sink", &in);
  MetaAdder adder = { c.mx, c.my };
  if (c.crop_meta)
    testutil::add_probe (
        pipeline, "crop", "sink", GST_PAD_PROBE_TYPE_BUFFER, add_crop_meta, &adder);
  Seen seen_in, seen_out;
  record_crop_memory (pipeline, &seen_in, &seen_out);
  force_path (pipeline, c.path);

  testutil::run_to_eos (pipeline, what.c_str ());
  if (cpu_reference) {
    fail_unless (in.buffers.size () == out.buffers.size ());
    for (size_t i = 0; i < in.buffers.size (); i++)
      assert_cropped_as_unpacked (in.buffers[i], &in.infos[i], ref.l, ref.t,
          out.buffers[i], &out.infos[i], what.c_str ());
  } else {
    testutil::assert_all_cropped_equal (expected, out, what.c_str ());
  }
  fail_unless (out.buffers.size () == (size_t)c.frames, "%s: got %zu frames",
      what.c_str (), out.buffers.size ());
  expect_memory (c, seen_in, seen_out, what.c_str ());
  const guint64 waits = testutil::host_waits (pipeline, "crop");
  fail_unless (waits == 0, "%s: cudacrop waited on the host %" G_GUINT64_FORMAT " times",
      what.c_str (), waits);
  gst_object_unref (pipeline);
}

static void
all_formats (Path path)
{
  for (const char * f : testutil::all_formats) {
    for (auto [w, h] : { std::pair{ 64, 48 }, std::pair{ 63, 47 } }) {
      const Crop crops[] = {
        { 0, 0, 0, 0 }, /* nothing: the input goes on */
        { 3, 5, 1, 2 }, /* odd origin */
        { 2, 4, 6, 8 }, /* even origin */
        { 1, 1, 1, 1 },
        { 3, w - 3 - 1, 5, h - 5 - 1 }, /* 1x1, the smallest for every format */
        { w - 2, 0, h - 2, 0 },         /* 2x2 at the bottom right */
      };
      for (Crop crop : crops) {
        Case c{ f, w, h, crop, path };
        /* More frames than a pool holds: its buffers come back. */
        c.frames = (w == 64) ? 10 : 6;
        check_case (c);
      }
    }
  }
  /* full HD, a centre crop and an odd one */
  for (const char * f : { "NV12", "I420", "RGBA", "YUY2", "P010_10LE", "UYVY", "RGB" }) {
    for (Crop crop : { Crop{ 320, 320, 180, 180 }, Crop{ 101, 37, 33, 9 } }) {
      Case c{ f, 1920, 1080, crop, path };
      /* Four frames: full HD is here for the offsets and pitches of large
       * planes (the small sizes run more frames than a pool holds), and
       * videotestsrc's snow at this size was most of the test's time. */
      c.frames = 4;
      check_case (c);
    }
  }
}

GST_START_TEST (test_exact_zero_copy)
{
  all_formats (Path::CROP_META);
  all_formats (Path::OFFSETS);
}
GST_END_TEST;

GST_START_TEST (test_exact_packed)
{
  all_formats (Path::PACKED);
}
GST_END_TEST;

/* Every raw format GStreamer describes without tiling or complex packing
 * (listed from gst_video_format_get_info: a newer GStreamer's additions
 * are in it), each path, small frames: beside videocrop where it takes the
 * format, else beside the input as GStreamer unpacks it. IYU1 starts at a
 * multiple of 4 (test_iyu1_inside_a_group). */
GST_START_TEST (test_every_format)
{
  /* Four cases a format, not every size, crop and path crossed (a twelfth
   * of the pipelines was most of this suite's time, under ASan minutes):
   * each path, an odd and an even size, an odd and an even origin, and the
   * copying path, the one that touches the format's packing, twice. */
  const Crop odd{ 3, 5, 1, 2 }, even{ 4, 1, 2, 3 };
  struct Sample {
    int w, h;
    Crop crop;
    Path path;
  };
  const Sample samples[] = {
    { 17, 9, odd, Path::CROP_META },
    { 18, 10, even, Path::OFFSETS },
    { 17, 9, even, Path::PACKED },
    { 18, 10, odd, Path::PACKED },
  };
  for (const char * f : testutil::plain_formats ()) {
    for (const Sample & s : samples) {
      if (!strcmp (f, "IYU1") && s.crop.l % 4)
        continue;
      Case c{ f, s.w, s.h, s.crop, s.path };
      c.frames = 2;
      check_case (c);
    }
  }
}
GST_END_TEST;

/* IYU1's 4 pixels share 6 bytes (U Y Y V Y Y): a crop starting inside such
 * a group is refused with a message, not copied from the wrong pixels. */
GST_START_TEST (test_iyu1_inside_a_group)
{
  GstElement * pipeline = gst_parse_launch (
      "videotestsrc num-buffers=1 ! video/x-raw,format=IYU1,width=16,height=8 ! "
      "cudaupload ! cudacrop left=3 ! cudadownload ! fakesink",
      NULL);
  fail_unless (pipeline != NULL);
  const testutil::Outcome outcome = testutil::run_to_end (pipeline);
  fail_unless (!outcome.eos && outcome.error.find ("IYU1") != std::string::npos &&
                   outcome.error.find ("column 3") != std::string::npos,
      "%s", outcome.error.c_str ());
  gst_object_unref (pipeline);
}
GST_END_TEST;

/* A crop meta from upstream: cudacrop crops within the region it marks. */
GST_START_TEST (test_upstream_crop_meta)
{
  for (Path path : { Path::CROP_META, Path::OFFSETS, Path::PACKED }) {
    for (const char * f :
        { "NV12", "I420", "RGBA", "YUY2", "UYVY", "Y42B", "P010_10LE" }) {
      for (auto [mx, my] : { std::pair{ 4u, 2u }, std::pair{ 3u, 1u } }) {
        Case c{ f, 64, 48, Crop{ 3, 5, 1, 3 }, path };
        c.crop_meta = true;
        c.mx = mx;
        c.my = my;
        check_case (c);
      }
    }
  }
}
GST_END_TEST;

/* videocrop on device buffers can only hand its crop on as a crop meta,
 * which cudacrop advertises and honours: the two crops add up. */
struct Chain {
  const char * mine; /* cudacrop's properties */
  Crop total;        /* videocrop's (left=3 top=1) plus ours */
};

GST_START_TEST (test_videocrop_meta_upstream)
{
  /* the second: no crop of our own, the crop meta alone is applied */
  const Chain chains[] = { { "left=2 right=1", { 5, 1, 1, 0 } }, { "", { 3, 0, 1, 0 } } };
  for (Path path : { Path::CROP_META, Path::OFFSETS, Path::PACKED }) {
    for (const char * f : { "NV12", "I420", "RGBA", "YUY2" }) {
      for (const Chain & ch : chains) {
        gchar * what =
            g_strdup_printf ("%s %s, cudacrop %s", f, path_name (path), ch.mine);
        gchar * crop = g_strdup_printf ("left=%d right=%d top=%d bottom=%d", ch.total.l,
            ch.total.r, ch.total.t, ch.total.b);
        gchar * chain = g_strdup_printf (
            "cudaupload ! videocrop left=3 top=1 ! cudacrop name=crop %s ! cudadownload",
            ch.mine);
        Captured expected, out;
        GstElement * pipeline =
            testutil::parse_beside_videocrop (f, 30, crop, chain, &expected, &out);
        g_free (crop);
        g_free (chain);
        Seen seen_in, seen_out;
        record_crop_memory (pipeline, &seen_in, &seen_out);
        force_path (pipeline, path);
        testutil::run_to_eos (pipeline, what);
        testutil::assert_all_cropped_equal (expected, out, what);
        /* the origin is odd: YUY2 is copied unless it goes as a crop meta */
        Case c{ f, 64, 48, ch.total, path };
        expect_memory (c, seen_in, seen_out, what);
        g_free (what);
        gst_object_unref (pipeline);
      }
    }
  }
}
GST_END_TEST;

/* Device buffers shared by a tee: cudacrop may not change their metadata,
 * so it copies; the other branch still sees the whole frame. */
GST_START_TEST (test_tee_of_device_buffers)
{
  for (const char * f : { "NV12", "I420", "YUY2", "RGBA" }) {
    for (const char * crop :
        { "left=4 right=6 top=2 bottom=4", "left=3 right=5 top=1 bottom=2" }) {
      gchar * what = g_strdup_printf ("%s %s", f, crop);
      gchar * chain =
          g_strdup_printf ("cudaupload name=up ! tee name=d "
                           "d. ! queue ! cudadownload ! appsink name=full sync=false "
                           "d. ! queue ! cudacrop name=crop %s ! cudadownload",
              crop);
      Captured in, expected, out, full;
      GstElement * pipeline =
          testutil::parse_beside_videocrop (f, 30, crop, chain, &expected, &out);
      g_free (chain);
      testutil::capture_pad (pipeline, "up", "sink", &in);
      testutil::capture_appsink (pipeline, "full", &full);
      testutil::run_to_eos (pipeline, what);
      testutil::assert_all_cropped_equal (expected, out, what);
      gchar * other = g_strdup_printf ("%s, the uncropped branch", what);
      testutil::assert_all_frames_equal (in, full, other);
      g_free (other);
      g_free (what);
      gst_object_unref (pipeline);
    }
  }
}
GST_END_TEST;

/* -1: the size comes from downstream, split like videocrop splits it. */
GST_START_TEST (test_automatic_crop)
{
  for (Path path : { Path::CROP_META, Path::OFFSETS, Path::PACKED }) {
    for (const char * f : { "NV12", "I420", "RGBA", "YUY2" }) {
      Case c{ f, 64, 48, Crop{ -1, -1, -1, 5 }, path };
      c.out_size = "width=51,height=31"; /* left 6, right 7, top 12 */
      c.auto_left = 6;
      c.frames = 10;
      check_case (c);
      Case d{ f, 64, 48, Crop{ -1, 3, 2, -1 }, path };
      d.out_size = "width=50,height=41"; /* left 11, bottom 5 */
      d.auto_left = 11;
      d.frames = 10;
      check_case (d);
    }
  }
}
GST_END_TEST;

/* videocrop's test_cropping and test_crop_to_1x1: the crops it makes of the
 * sizes around 160x160, fixed and automatic (into 1x1), the 1x1 at the
 * bottom right corner, beside videocrop on the same frames: every format at
 * an odd size, NV12 and YUY2 at all of them. */
GST_START_TEST (test_videocrop_crops)
{
  const std::pair<gint, gint> sizes[] = { { 159, 161 }, { 160, 160 }, { 161, 160 },
    { 160, 161 }, { 161, 161 }, { 159, 160 }, { 160, 159 }, { 159, 159 } };
  for (const char * f : testutil::all_formats) {
    const bool all_sizes = !strcmp (f, "NV12") || !strcmp (f, "YUY2");
    for (const auto & [w, h] : sizes) {
      const Crop fixed[] = { { 0, 0, 0, 0 }, { 1, 0, 0, 0 }, { 0, 1, 0, 0 },
        { 0, 0, 1, 0 }, { 0, 0, 0, 1 }, { 63, 0, 0, 0 }, { 0, 63, 0, 0 }, { 0, 0, 63, 0 },
        { 0, 0, 0, 63 }, { 63, 0, 0, 1 }, { 0, 63, 1, 0 }, { 0, 1, 63, 0 },
        { 1, 0, 0, 63 }, { 32, 0, 0, 128 }, { 0, 32, 128, 0 }, { 0, 128, 32, 0 },
        { 128, 0, 0, 32 }, { 1, 1, 1, 1 }, { 63, 63, 63, 63 }, { 64, 64, 64, 64 },
        { w - 1, 0, h - 1, 0 } };
      const Crop automatic[] = { { -1, -1, -1, -1 }, { 0, -1, -1, -1 }, { -1, 0, -1, -1 },
        { -1, -1, 0, -1 }, { -1, -1, -1, 0 }, { 10, -1, 10, -1 }, { -1, 10, -1, 10 },
        { w - 1, -1, -1, -1 }, { -1, w - 1, -1, -1 }, { -1, -1, h - 1, -1 },
        { -1, -1, -1, h - 1 } };
      for (const Crop & crop : fixed) {
        Case c{ f, w, h, crop };
        c.frames = 1;
        check_case (c);
      }
      /* The CPU reference of P010/P016 takes resolved sides only. */
      for (const Crop & crop : automatic) {
        if (is_semi_planar_16 (f))
          break;
        Case c{ f, w, h, crop };
        c.frames = 1;
        c.out_size = "width=1,height=1";
        c.auto_left = crop.l >= 0 ? crop.l : crop.r >= 0 ? w - 1 - crop.r : (w - 1) / 2;
        check_case (c);
      }
      if (!all_sizes)
        break;
    }
  }
}
GST_END_TEST;

/* videocrop's test_passthrough: nothing to crop, the very buffer goes on
 * (not a copy, not an alias): the same device memory and event, no GPU
 * work; none of it is kept (the leaks tracer says so at exit). */
static GstPadProbeReturn
note_buffer (GstPad *, GstPadProbeInfo * info, gpointer user)
{
  static_cast<std::vector<GstBuffer *> *> (user)->push_back (
      GST_PAD_PROBE_INFO_BUFFER (info));
  return GST_PAD_PROBE_OK;
}

GST_START_TEST (test_passthrough)
{
  GstElement * pipeline = gst_parse_launch (
      "videotestsrc num-buffers=5 ! video/x-raw,format=NV12,width=64,height=48 ! "
      "cudaupload ! cudacrop name=crop ! cudadownload ! fakesink",
      NULL);
  fail_unless (pipeline != NULL);
  std::vector<GstBuffer *> in, out;
  Seen seen_in, seen_out;
  testutil::add_probe (
      pipeline, "crop", "sink", GST_PAD_PROBE_TYPE_BUFFER, note_buffer, &in);
  testutil::add_probe (
      pipeline, "crop", "src", GST_PAD_PROBE_TYPE_BUFFER, note_buffer, &out);
  record_crop_memory (pipeline, &seen_in, &seen_out);
  testutil::run_to_eos (pipeline, "passthrough");
  fail_unless (in.size () == 5 && in == out, "%zu frames in, %zu out, not the same",
      in.size (), out.size ());
  fail_unless (seen_in.memory == seen_out.memory && seen_in.event == seen_out.event);
  fail_unless_equals_int (testutil::host_waits (pipeline, "crop"), 0);
  gst_object_unref (pipeline);
}
GST_END_TEST;

/* --- live property changes -------------------------------------------- */

struct Changer {
  gint count = 0;
};

/* Frame 20 and frame 40 enter the element with new properties set while
 * PLAYING (from its streaming thread, so the frame is known exactly). */
static GstPadProbeReturn
change_crop (GstPad * pad, GstPadProbeInfo *, gpointer user)
{
  auto * ch = static_cast<Changer *> (user);
  GstElement * e = gst_pad_get_parent_element (pad);
  if (ch->count == 20)
    g_object_set (e, "left", 5, "right", 10, "top", 3, "bottom", 0, NULL);
  else if (ch->count == 40)
    g_object_set (e, "left", 0, "right", 0, "top", 0, "bottom", 0, NULL);
  else if (ch->count == 50)
    g_object_set (e, "left", 1, "bottom", 1, NULL);
  ch->count++;
  gst_object_unref (e);
  return GST_PAD_PROBE_OK;
}

GST_START_TEST (test_live_property_change)
{
  for (Path path : { Path::CROP_META, Path::OFFSETS, Path::PACKED }) {
    for (const char * f : { "NV12", "YUY2", "RGBA", "I420" }) {
      gchar * what = g_strdup_printf ("%s %s", f, path_name (path));
      Captured expected, out;
      GstElement * pipeline = testutil::parse_beside_videocrop (f, 60,
          "name=vc left=2 right=2 top=2 bottom=2",
          "cudaupload ! cudacrop name=crop left=2 right=2 top=2 bottom=2 ! cudadownload",
          &expected, &out);
      Changer ref_changer, changer;
      testutil::add_probe (
          pipeline, "vc", "sink", GST_PAD_PROBE_TYPE_BUFFER, change_crop, &ref_changer);
      testutil::add_probe (
          pipeline, "crop", "sink", GST_PAD_PROBE_TYPE_BUFFER, change_crop, &changer);
      force_path (pipeline, path);
      testutil::run_to_eos (pipeline, what);
      testutil::assert_all_cropped_equal (expected, out, what);
      /* the new size from the very frame that follows the change */
      for (size_t i = 0; i < out.infos.size (); i++) {
        gint w = i < 20 ? 60 : i < 40 ? 49 : i < 50 ? 64 : 63;
        gint h = i < 20 ? 44 : i < 40 ? 45 : i < 50 ? 48 : 47;
        fail_unless (out.infos[i].width == w && out.infos[i].height == h,
            "%s frame %zu: %dx%d, expected %dx%d", what, i, out.infos[i].width,
            out.infos[i].height, w, h);
      }
      fail_unless_equals_int (out.infos.size (), 60);
      g_free (what);
      gst_object_unref (pipeline);
    }
  }
}
GST_END_TEST;

/* --- host waits ------------------------------------------------------- */

GST_START_TEST (test_no_host_waits)
{
  const int frames = 120;
  for (Path path : { Path::CROP_META, Path::OFFSETS, Path::PACKED }) {
    for (const char * crop : { "left=320 right=320 top=180 bottom=180",
             "left=101 right=37 top=33 bottom=9" }) {
      /* On the stand-in, whose account of host blocks is compared below, no
       * frames in flight: cudadownload's thread then waits for each copy
       * before the streaming thread goes on, so no thread finds done, while
       * it polls, work that another's wait ran (a counted wait, no block). */
      gchar * desc = g_strdup_printf (
          "videotestsrc num-buffers=%d ! "
          "video/x-raw,format=NV12,width=1920,height=1080,framerate=30/1 ! "
          "cudaupload name=up ! cudacrop name=crop %s ! cudadownload name=down %s ! "
          "fakesink",
          frames, crop, testutil::on_stand_in () ? "max-in-flight=0" : "");
      GstElement * pipeline = gst_parse_launch (desc, NULL);
      g_free (desc);
      force_path (pipeline, path);
      guint64 before = gst_cs_host_waits_total ();
      guint64 blocks_before = testutil::runtime_host_blocks ();
      guint64 at_eos = 0;
      testutil::run_to_eos (pipeline, crop, 120 * GST_SECOND, &at_eos);
      fail_unless_equals_uint64 (testutil::host_waits (pipeline, "crop"), 0);
      fail_unless_equals_uint64 (testutil::host_waits (pipeline, "up"), 0);
      fail_unless_equals_uint64 (testutil::host_waits (pipeline, "down"), frames);
      /* Up to EOS: nothing else in the process waited; the teardown that
       * follows frees the pools (counted too). */
      const guint64 steady = at_eos - before;
      fail_unless (steady >= (guint64)frames && steady <= (guint64)frames + 10,
          "waits up to EOS %" G_GUINT64_FORMAT, steady);
      guint64 total = gst_cs_host_waits_total () - before;
      if (testutil::on_stand_in ()) {
        /* There the runtime counts host blocks too: each must be a counted
         * wait (no hidden stream, device or allocator syncs). */
        guint64 blocks = testutil::runtime_host_blocks () - blocks_before;
        fail_unless (total == blocks,
            "%s: the project counted %" G_GUINT64_FORMAT " host waits, the runtime "
            "saw %" G_GUINT64_FORMAT " host blocks",
            crop, total, blocks);
      }
      gst_object_unref (pipeline);
    }
  }
}
GST_END_TEST;

/* --- bad input -------------------------------------------------------- */

/* Sets a crop on frame 2, while PLAYING. */
static GstPadProbeReturn
crop_everything (GstPad * pad, GstPadProbeInfo *, gpointer user)
{
  auto * ch = static_cast<Changer *> (user);
  if (ch->count++ == 2) {
    GstElement * e = gst_pad_get_parent_element (pad);
    g_object_set (e, "left", 40, "right", 30, NULL);
    gst_object_unref (e);
  }
  return GST_PAD_PROBE_OK;
}

GST_START_TEST (test_nothing_left_is_an_error)
{
  const char * crops[] = { "left=40 right=30", "top=24 bottom=24", "left=64",
    "left=-1 right=64" };
  const char * base =
      "videotestsrc num-buffers=5 ! "
      "video/x-raw,format=NV12,width=64,height=48,framerate=30/1 ! cudaupload ! "
      "cudacrop name=crop %s ! cudadownload ! fakesink";
  for (const char * crop : crops) {
    /* In the description: the link is refused, like videocrop's. */
    gchar * desc = g_strdup_printf (base, crop);
    GError * error = NULL;
    GstElement * pipeline = gst_parse_launch (desc, &error);
    g_free (desc);
    fail_unless (error != NULL && strstr (error->message, "could not link"), "%s: %s",
        crop, error ? error->message : "linked");
    g_clear_error (&error);
    if (pipeline) {
      fail_if (
          testutil::run_to_end (pipeline).eos, "%s: ran to EOS", crop); /* no crash */
      gst_object_unref (pipeline);
    }

    /* Set before PLAYING: negotiation fails, and cudacrop says why. */
    desc = g_strdup_printf (base, "");
    pipeline = gst_parse_launch (desc, NULL);
    g_free (desc);
    GstElement * e = testutil::by_name (pipeline, "crop");
    gchar * args = g_strdup (crop);
    gchar ** kv = g_strsplit_set (args, " =", -1);
    for (int i = 0; kv[i] && kv[i + 1]; i += 2)
      g_object_set (e, kv[i], atoi (kv[i + 1]), NULL);
    g_strfreev (kv);
    g_free (args);
    gst_object_unref (e);
    testutil::Outcome outcome = testutil::run_to_end (pipeline);
    GST_INFO ("%s: error %s, warnings %s", crop, outcome.error.c_str (),
        outcome.warnings.c_str ());
    fail_unless (outcome.error.find ("not-negotiated") != std::string::npos, "%s: %s",
        crop, outcome.error.c_str ());
    fail_unless (outcome.warnings.find ("crop: Crop leaves nothing of the 64x48 input") !=
                     std::string::npos,
        "%s: warnings: %s", crop, outcome.warnings.c_str ());
    gst_object_unref (pipeline);
  }

  /* Set while PLAYING: the next frame cannot be negotiated. (cudadownload
   * keeps no frames in flight, so every frame before the change comes out.) */
  GstElement * pipeline = gst_parse_launch (
      "videotestsrc num-buffers=10 ! "
      "video/x-raw,format=NV12,width=64,height=48,framerate=30/1 ! cudaupload ! "
      "cudacrop name=crop left=2 ! cudadownload max-in-flight=0 ! "
      "appsink name=out sync=false",
      NULL);
  Changer changer;
  testutil::add_probe (
      pipeline, "crop", "sink", GST_PAD_PROBE_TYPE_BUFFER, crop_everything, &changer);
  Captured out;
  testutil::capture_appsink (pipeline, "out", &out);
  testutil::Outcome outcome = testutil::run_to_end (pipeline);
  fail_unless (outcome.error.find ("not-negotiated") != std::string::npos, "%s",
      outcome.error.c_str ());
  fail_unless (outcome.warnings.find ("crop: Crop leaves nothing of the 64x48 input: "
                                      "left 40 + right 30") != std::string::npos,
      "warnings: %s", outcome.warnings.c_str ());
  fail_unless_equals_int (out.buffers.size (), 2);
  gst_object_unref (pipeline);
}
GST_END_TEST;

/* A crop meta that, with left/top, reaches past the frame. */
GST_START_TEST (test_crop_meta_out_of_frame)
{
  GstElement * pipeline = gst_parse_launch (
      "videotestsrc num-buffers=3 ! "
      "video/x-raw,format=NV12,width=64,height=48,framerate=30/1 ! cudaupload ! "
      "cudacrop name=crop left=3 ! cudadownload ! fakesink",
      NULL);
  MetaAdder adder = { 10, 0 };
  testutil::add_probe (
      pipeline, "crop", "sink", GST_PAD_PROBE_TYPE_BUFFER, add_crop_meta, &adder);
  testutil::Outcome outcome = testutil::run_to_end (pipeline);
  fail_unless (
      outcome.error.find ("does not fit in the 64x48 frame") != std::string::npos, "%s",
      outcome.error.c_str ());
  gst_object_unref (pipeline);
}
GST_END_TEST;

/* Caps change mid-stream: the crop follows; one it cannot apply is an
 * error, not a crash. Five random frames of 128x96 then five of 64x48 go
 * into `h`; returns the first flow that was not OK. */
static GstFlowReturn
push_two_sizes (GstHarness * h, const char * format)
{
  GstFlowReturn first = GST_FLOW_OK;
  gint pts = 0;
  for (auto [w, ht] : { std::pair{ 128, 96 }, std::pair{ 64, 48 } }) {
    GstVideoInfo info;
    gst_video_info_set_format (&info, gst_video_format_from_string (format), w, ht);
    info.fps_n = 30;
    GstCaps * caps = gst_video_info_to_caps (&info);
    if (pts == 0) {
      gst_harness_set_src_caps (h, caps); /* with the segment */
    } else {
      /* not gst_harness_set_src_caps: it aborts on refused caps */
      gst_harness_push_event (h, gst_event_new_caps (caps));
      gst_caps_unref (caps);
    }
    for (int i = 0; i < 5; i++) {
      GstBuffer * buf = testutil::random_buffer (info.size, 31 * pts + w);
      GST_BUFFER_PTS (buf) = pts++ * GST_SECOND / 30;
      GstFlowReturn flow = gst_harness_push (h, buf);
      if (first == GST_FLOW_OK)
        first = flow;
    }
  }
  gst_harness_push_event (h, gst_event_new_eos ());
  return first;
}

GST_START_TEST (test_caps_change_mid_stream)
{
  for (const char * f : { "NV12", "YUY2", "I420", "RGB" }) {
    GstHarness * ref = gst_harness_new_parse ("videocrop left=3 right=5 top=1 bottom=2");
    GstHarness * h = testutil::harness_parse_ours (
        "cudaupload ! cudacrop left=3 right=5 top=1 bottom=2 ! cudadownload");
    /* captured as they arrive: the harness's queue does not keep their caps */
    Captured expected, out;
    testutil::capture_pad (ref->sinkpad, &expected);
    testutil::capture_pad (h->sinkpad, &out);
    fail_unless_equals_int (push_two_sizes (ref, f), GST_FLOW_OK);
    fail_unless_equals_int (push_two_sizes (h, f), GST_FLOW_OK);
    testutil::assert_all_cropped_equal (expected, out, f);
    fail_unless_equals_int (out.buffers.size (), 10);
    fail_unless_equals_int (out.infos[9].width, 56);
    gst_harness_teardown (h);
    gst_harness_teardown (ref);
  }
  /* 70 columns of 128 work, of 64 not */
  GstHarness * h = testutil::harness_parse_ours (
      "cudaupload ! cudacrop left=40 right=30 ! cudadownload");
  GstBus * bus = testutil::watch_bus (h->element);
  Captured out;
  testutil::capture_pad (h->sinkpad, &out);
  GstFlowReturn flow = push_two_sizes (h, "NV12");
  fail_if (flow == GST_FLOW_OK);
  std::string warnings = testutil::pop_messages (bus, GST_MESSAGE_WARNING);
  fail_unless (
      warnings.find ("Crop leaves nothing of the 64x48 input") != std::string::npos,
      "%s: warnings: %s", gst_flow_get_name (flow), warnings.c_str ());
  for (size_t i = 0; i < out.buffers.size (); i++)
    fail_unless_equals_int (out.infos[i].width, 58);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
}
GST_END_TEST;

static Suite *
crop_gpu_suite (void)
{
  Suite * s = suite_create ("crop_gpu");
  TCase * tc = tcase_create ("gpu");
  tcase_set_timeout (tc, 600);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_exact_zero_copy);
  tcase_add_test (tc, test_exact_packed);
  tcase_add_test (tc, test_every_format);
  tcase_add_test (tc, test_iyu1_inside_a_group);
  tcase_add_test (tc, test_upstream_crop_meta);
  tcase_add_test (tc, test_videocrop_meta_upstream);
  tcase_add_test (tc, test_tee_of_device_buffers);
  tcase_add_test (tc, test_automatic_crop);
  tcase_add_test (tc, test_videocrop_crops);
  tcase_add_test (tc, test_passthrough);
  tcase_add_test (tc, test_live_property_change);
  tcase_add_test (tc, test_no_host_waits);
  tcase_add_test (tc, test_nothing_left_is_an_error);
  tcase_add_test (tc, test_crop_meta_out_of_frame);
  tcase_add_test (tc, test_caps_change_mid_stream);
  return s;
}

TESTUTIL_GPU_CHECK_MAIN (crop_gpu);

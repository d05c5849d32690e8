/* SPDX-License-Identifier: LGPL-2.1-or-later */
// On a GPU: interlace-mode=alternate (one field a buffer; GStreamer wants the
// format:Interlaced caps feature beside the memory's) through cudaupload,
// cudacrop, cudaconvertscale and cudadownload. Negotiated where
// videoconvertscale negotiates it (with the feature) and refused where it
// refuses it (without the feature, or into progressive caps); each field
// scaled as a picture of half the frame's height, bit for bit the kernel's
// twin run on a progressive picture of the field's size, and near
// videoconvertscale; a crop in field lines, as videocrop crops the buffer it
// is given; the field flags kept by every element.
#include <gst/app/gstappsrc.h>
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "convert_scale.h"
#include "convert/gstcsconvertdesc.hpp"
#include "gstcudastreams.h"
#include "gstcsvideo-private.h"
#include "testutil.h"

using testutil::Captured;
using testutil::Content;
namespace gpu = gst_cs::gpu;

/* --- caps and fields ---------------------------------------------------- */

/* Caps of alternate fields in `memory` ("" for system memory), with the
 * format:Interlaced feature where `feature`; "" for `mode` leaves
 * interlace-mode out (progressive). */
static std::string
caps_of (const char * memory, bool feature, const char * format, gint w, gint h,
    const char * mode = "alternate")
{
  std::string features = memory;
  if (feature)
    features += std::string (*memory ? ", " : "") + GST_CAPS_FEATURE_FORMAT_INTERLACED;
  gchar * s = g_strdup_printf ("video/x-raw%s%s%s,format=%s,width=%d,height=%d,"
                               "framerate=30/1%s%s",
      features.empty () ? "" : "(", features.c_str (), features.empty () ? "" : ")",
      format, w, h, *mode ? ",interlace-mode=" : "", mode);
  std::string out = s;
  g_free (s);
  return out;
}

static GstVideoInfo
info_of (const std::string & caps)
{
  GstCaps * c = gst_caps_from_string (caps.c_str ());
  GstVideoInfo info;
  fail_unless (gst_video_info_from_caps (&info, c), "%s", caps.c_str ());
  gst_caps_unref (c);
  return info;
}

/* Field `i` of a stream: top fields first, then bottom, in turn. */
static void
mark_field (GstBuffer * buf, guint i)
{
  GST_BUFFER_FLAG_SET (buf,
      i % 2 == 0 ? GST_VIDEO_BUFFER_FLAG_TOP_FIELD : GST_VIDEO_BUFFER_FLAG_BOTTOM_FIELD);
}

/* Whether `buf` is marked as field `i` (and as nothing else). */
static bool
is_field (GstBuffer * buf, guint i)
{
  const guint flags = GST_BUFFER_FLAGS (buf) & GST_VIDEO_BUFFER_FLAG_TOP_FIELD;
  return flags == (i % 2 == 0 ? (guint)GST_VIDEO_BUFFER_FLAG_TOP_FIELD
                              : (guint)GST_VIDEO_BUFFER_FLAG_BOTTOM_FIELD);
}

/* `info` (alternate) as the progressive picture one of its fields is: the
 * frame's width, half its height (rounded up), the same planes. */
static GstVideoInfo
field_picture (const GstVideoInfo * info)
{
  GstVideoInfo p = *info;
  p.height = GST_VIDEO_INFO_FIELD_HEIGHT (info);
  p.interlace_mode = GST_VIDEO_INTERLACE_MODE_PROGRESSIVE;
  return p;
}

/* --- negotiation -------------------------------------------------------- */

/* What the harness around `launch` (our elements, one of them named "x")
 * returns for a field pushed with caps `src` when downstream takes `sink`;
 * where it is taken, the caps on x's source pad go into `between`. */
static GstFlowReturn
push_field (const char * launch, const std::string & src, const std::string & sink,
    gchar ** between)
{
  GstHarness * h = testutil::harness_parse_ours (launch);
  gst_harness_set_sink_caps_str (h, sink.c_str ());
  gst_harness_set_src_caps_str (h, src.c_str ());
  /* one field of the size and format of `src`, with or without the feature */
  GstCaps * c = gst_caps_from_string (src.c_str ());
  GstStructure * s = gst_caps_get_structure (c, 0);
  gint w = 1, height = 1;
  gst_structure_get_int (s, "width", &w);
  gst_structure_get_int (s, "height", &height);
  const GstVideoInfo info =
      info_of (caps_of ("", true, gst_structure_get_string (s, "format"), w, height));
  gst_caps_unref (c);
  GstBuffer * buf = testutil::video_frame (&info, Content::RANDOM, 1);
  mark_field (buf, 0);
  const GstFlowReturn ret = gst_harness_push (h, buf);
  if (between) {
    GstElement * x = gst_bin_get_by_name (GST_BIN (h->element), "x");
    fail_unless (x != NULL);
    GstPad * pad = gst_element_get_static_pad (x, "src");
    GstCaps * caps = gst_pad_get_current_caps (pad);
    *between = caps ? gst_caps_to_string (caps) : g_strdup ("");
    gst_clear_caps (&caps);
    gst_object_unref (pad);
    gst_object_unref (x);
  }
  if (ret == GST_FLOW_OK) {
    /* cudadownload keeps frames in flight until the stream ends */
    gst_harness_push_event (h, gst_event_new_eos ());
    GstBuffer * out = gst_harness_pull (h);
    fail_unless (out != NULL && is_field (out, 0), "%s: the field's flags went", launch);
    gst_buffer_unref (out);
  }
  gst_harness_teardown (h);
  return ret;
}

/* GStreamer's own test_negotiate_alternate (videoscale.c, videoconvert.c),
 * for each of our elements: into progressive caps, refused; without the
 * feature, refused; with it on both sides, taken, our device caps between
 * the elements carrying both features. */
GST_START_TEST (test_negotiate_alternate)
{
  const struct {
    const char * launch;
    const char *in_format, *out_format;
    gint in_h, out_h;
  } chains[] = {
    { "cudastreamsupload name=x ! cudastreamsdownload", "RGBA", "RGBA", 2, 2 },
    { "cudastreamsupload ! cudastreamscrop name=x ! cudastreamsdownload", "RGBA", "RGBA",
        2, 2 },
    /* videoscale's: a frame of 1x2 (a field of one line) into 1x1 */
    { "cudastreamsupload ! cudastreamsconvertscale name=x ! cudastreamsdownload", "RGBA",
        "RGBA", 2, 1 },
    /* videoconvert's: a conversion at 1x1 */
    { "cudastreamsupload ! cudastreamsconvertscale name=x ! cudastreamsdownload", "NV12",
        "BGRA", 1, 1 },
  };
  for (const auto & c : chains) {
    const std::string in = caps_of ("", true, c.in_format, 1, c.in_h);
    const std::string out = caps_of ("", true, c.out_format, 1, c.out_h);
    fail_unless_equals_int (push_field (c.launch, in,
                                caps_of ("", false, c.out_format, 1, c.out_h, ""), NULL),
        GST_FLOW_NOT_NEGOTIATED);
    fail_unless_equals_int (
        push_field (c.launch, caps_of ("", false, c.in_format, 1, c.in_h), out, NULL),
        GST_FLOW_NOT_NEGOTIATED);
    gchar * between = NULL;
    const GstFlowReturn ret = push_field (c.launch, in, out, &between);
    fail_unless (ret == GST_FLOW_OK, "%s: %s -> %s: %s", c.launch, in.c_str (),
        out.c_str (), gst_flow_get_name (ret));
    GstCaps * caps = gst_caps_from_string (between);
    fail_unless (caps && !gst_caps_is_empty (caps), "%s: no caps: %s", c.launch, between);
    GstCapsFeatures * f = gst_caps_get_features (caps, 0);
    fail_unless (gst_caps_features_contains (f, GST_CAPS_FEATURE_FORMAT_INTERLACED) &&
                     gst_caps_features_contains (f, GST_CAPS_FEATURE_MEMORY_CS),
        "%s: %s", c.launch, between);
    fail_unless_equals_string (
        gst_structure_get_string (gst_caps_get_structure (caps, 0), "interlace-mode"),
        "alternate");
    gst_caps_unref (caps);
    g_free (between);
  }
}
GST_END_TEST;

/* --- frames ------------------------------------------------------------- */

/* A stream of `frames` fields of `in` caps (system memory, alternate),
 * top and bottom in turn, teed: as they are ("in"), through `chain`
 * ("out"), and through `reference` where given ("ref"). */
static GstElement *
fields_pipeline (const std::string & in, gint frames, Content content,
    const std::string & chain, const char * reference, Captured * got_in, Captured * out,
    Captured * ref)
{
  gchar * ref_branch =
      reference
          ? g_strdup_printf ("t. ! queue ! %s ! appsink name=ref sync=false", reference)
          : g_strdup ("");
  gchar * desc = g_strdup_printf ("appsrc name=src format=time caps=\"%s\" ! tee name=t "
                                  "t. ! queue ! appsink name=in sync=false "
                                  "t. ! queue ! %s ! appsink name=out sync=false %s",
      in.c_str (), chain.c_str (), ref_branch);
  GError * err = NULL;
  GstElement * pipeline = gst_parse_launch (desc, &err);
  fail_unless (pipeline && !err, "%s: %s", desc, err ? err->message : "");
  g_free (desc);
  g_free (ref_branch);
  const GstVideoInfo info = info_of (in);
  testutil::push_frames (
      pipeline, "src", &info, content, 500, frames, GST_SECOND / 60, mark_field);
  testutil::capture_appsink (pipeline, "in", got_in);
  testutil::capture_appsink (pipeline, "out", out);
  if (reference)
    testutil::capture_appsink (pipeline, "ref", ref);
  return pipeline;
}

/* Every captured frame is a field, top and bottom in turn, as they went in. */
static void
expect_fields (const Captured & c, gint frames, const char * what)
{
  fail_unless (c.buffers.size () == (size_t)frames, "%s: %zu frames of %d", what,
      c.buffers.size (), frames);
  for (size_t i = 0; i < c.buffers.size (); i++) {
    fail_unless (is_field (c.buffers[i], (guint)i),
        "%s: frame %zu lost its field flags (0x%x)", what, i,
        GST_BUFFER_FLAGS (c.buffers[i]));
    fail_unless_equals_int (
        GST_VIDEO_INFO_INTERLACE_MODE (&c.infos[i]), GST_VIDEO_INTERLACE_MODE_ALTERNATE);
  }
}

/* What the kernel makes of the field `in` as a progressive picture of the
 * field's size (the kernel's CPU twin, the element's own description of a
 * progressive frame), laid out as a field of `oi`. */
static GstBuffer *
field_twin (GstBuffer * in, const GstVideoInfo * ii, const GstVideoInfo * oi,
    gpu::Filter filter, GstVideoOrientationMethod direction, bool add_borders)
{
  const GstVideoInfo pi = field_picture (ii), po = field_picture (oi);
  GstBuffer * out = gst_buffer_new_allocate (NULL, po.size, NULL);
  gst_buffer_memset (out, 0, 0, po.size);
  GstMapInfo mi, mo;
  fail_unless (gst_buffer_map (in, &mi, GST_MAP_READ));
  fail_unless (gst_buffer_map (out, &mo, GST_MAP_WRITE));
  gst_cs::ConvertSettings settings;
  settings.filter = filter;
  settings.orientation = static_cast<gpu::Orientation> (direction);
  settings.add_borders = add_borders;
  gpu::ConvertScale op;
  gst_cs::describe_convert (&pi, &po, 0, 0, pi.width, pi.height, settings, &op);
  op.in = gst_cs::convert_image (&pi, &pi, mi.data, false);
  op.out = gst_cs::convert_image (&po, &po, mo.data, true);
  fail_unless (gpu::convert_scale_on_host (op));
  gst_buffer_unmap (in, &mi);
  gst_buffer_unmap (out, &mo);
  return out;
}

struct Scale {
  const char * in_format;
  gint in_w, in_h;
  const char * out_format;
  gint out_w, out_h;
  gpu::Filter filter = gpu::Filter::BILINEAR;
  GstVideoOrientationMethod direction = GST_VIDEO_ORIENTATION_IDENTITY;
  const char * out_extra = ""; /* more output caps fields */
  bool letterbox = false; /* borders expected (else none: the frames' ratios agree) */
};

static const char * const method_nicks[] = { "nearest-neighbour", "bilinear", "bicubic",
  "area" };

static std::string
scale_chain (const Scale & s)
{
  GEnumClass * k = (GEnumClass *)g_type_class_ref (GST_TYPE_VIDEO_ORIENTATION_METHOD);
  gchar * chain = g_strdup_printf ("cudastreamsupload ! cudastreamsconvertscale name=cs "
                                   "method=%s video-direction=%s ! %s%s ! "
                                   "cudastreamsdownload",
      method_nicks[(int)s.filter], g_enum_get_value (k, s.direction)->value_nick,
      caps_of (GST_CAPS_FEATURE_MEMORY_CS, true, s.out_format, s.out_w, s.out_h).c_str (),
      s.out_extra);
  g_type_class_unref (k);
  std::string out = chain;
  g_free (chain);
  return out;
}

/* Fields scaled, converted and flipped: each is the twin's picture of the
 * field, not of a frame, and keeps its flags; no host wait. Letterboxed
 * into square pixels, the border is the frame's, in field lines. */
GST_START_TEST (test_fields_scaled_as_pictures)
{
  std::vector<Scale> cases = {
    { "NV12", 64, 48, "RGBA", 40, 30 },
    { "NV12", 64, 48, "NV12", 32, 24 },
    { "I420", 37, 23, "NV12", 20, 17 }, /* odd: fields of 12 and 9 lines */
    { "RGBA", 48, 36, "I420", 64, 50 },
    { "YUY2", 64, 48, "RGBA", 64, 48 },                       /* conversion alone */
    { "RGBA", 64, 48, "RGBP", 64, 64, gpu::Filter::AREA },    /* letterbox, below */
    { "NV12", 64, 48, "BGRx", 30, 20, gpu::Filter::BICUBIC }, /* and nearest, flipped */
    { "P010_10LE", 64, 48, "NV12", 64, 40, gpu::Filter::NEAREST,
        GST_VIDEO_ORIENTATION_HORIZ },
  };
  cases[5].out_extra = ",pixel-aspect-ratio=1/1";
  cases[5].letterbox = true;
  for (const Scale & s : cases) {
    const std::string what = std::string (s.in_format) + " " + std::to_string (s.in_w) +
                             "x" + std::to_string (s.in_h) + " -> " + s.out_format + " " +
                             std::to_string (s.out_w) + "x" + std::to_string (s.out_h);
    const gint frames = 4;
    Captured in, out, unused;
    GstElement * pipeline =
        fields_pipeline (caps_of ("", true, s.in_format, s.in_w, s.in_h), frames,
            Content::RANDOM, scale_chain (s), NULL, &in, &out, &unused);
    testutil::run_to_eos (pipeline, what.c_str ());
    fail_unless_equals_int (testutil::host_waits (pipeline, "cs"), 0);
    expect_fields (out, frames, what.c_str ());
    for (size_t i = 0; i < out.buffers.size (); i++) {
      fail_unless_equals_int (GST_VIDEO_INFO_HEIGHT (&out.infos[i]), s.out_h);
      /* Letterboxed: 64x48 at 1/1 in 64x64 is 48 frame lines between
       * borders of 8, a field's 24 between borders of 4, as the twin puts
       * a 64x24 picture into 64x32. */
      GstBuffer * want = field_twin (
          in.buffers[i], &in.infos[i], &out.infos[i], s.filter, s.direction, s.letterbox);
      const std::string frame = what + ", field " + std::to_string (i);
      testutil::assert_frames_equal (
          want, &out.infos[i], out.buffers[i], &out.infos[i], frame.c_str ());
      gst_buffer_unref (want);
    }
    gst_element_set_state (pipeline, GST_STATE_NULL);
    gst_object_unref (pipeline);
  }
}
GST_END_TEST;

/* Largest difference of codes between two fields, and their PSNR (dB). */
static void
difference (GstBuffer * a, const GstVideoInfo * ia, GstBuffer * b,
    const GstVideoInfo * ib, guint * max, double * psnr)
{
  GstVideoFrame fa, fb;
  fail_unless (
      gst_video_frame_map (&fa, const_cast<GstVideoInfo *> (ia), a, GST_MAP_READ));
  fail_unless (
      gst_video_frame_map (&fb, const_cast<GstVideoInfo *> (ib), b, GST_MAP_READ));
  double sq = 0.0, n = 0.0, top = 0.0;
  *max = 0;
  for (guint c = 0; c < GST_VIDEO_FRAME_N_COMPONENTS (&fa); c++) {
    top = MAX (top, (double)((1u << GST_VIDEO_FRAME_COMP_DEPTH (&fa, c)) - 1));
    for (gint y = 0; y < GST_VIDEO_FRAME_COMP_HEIGHT (&fa, c); y++)
      for (gint x = 0; x < GST_VIDEO_FRAME_COMP_WIDTH (&fa, c); x++) {
        const guint e = (guint)ABS ((gint)testutil::code_of (&fa, c, x, y) -
                                    (gint)testutil::code_of (&fb, c, x, y));
        *max = MAX (*max, e);
        sq += (double)e * e, n += 1.0;
      }
  }
  gst_video_frame_unmap (&fa);
  gst_video_frame_unmap (&fb);
  *psnr = sq > 0.0 ? 10.0 * std::log10 (top * top / (sq / n)) : INFINITY;
}

/* videoconvertscale's conversion of `field` given to it as the progressive
 * picture `pi` (the field's size) into `po`. */
static GstBuffer *
videoconvertscale_of (GstBuffer * field, const GstVideoInfo * pi, const GstVideoInfo * po)
{
  GstHarness * h =
      gst_harness_new_parse ("videoconvertscale dither=none method=bilinear");
  GstCaps * in = gst_video_info_to_caps (pi);
  GstCaps * out = gst_video_info_to_caps (po);
  gst_harness_set_caps (h, in, out);
  GstBuffer * res = gst_harness_push_and_pull (h, gst_buffer_ref (field));
  fail_unless (res != NULL);
  gst_harness_teardown (h);
  return res;
}

/* Beside videoconvertscale on the same fields, as the progressive
 * comparisons of convertscale_gpu: conversions of random fields within 1
 * code, scales of smooth ones at 40 dB or more. Scaled as frames instead of
 * fields, the pictures would be twice as tall: far apart. videoconvertscale
 * takes alternate fields itself where no chroma is resampled; where chroma
 * is (RGBA to NV12, NV12 to RGBA), its converter (the same code in 1.22.9
 * and 1.28.6) takes the path of interleaved frames, whose chroma
 * resamplers it never made for alternate ones: chroma left unfiltered (up
 * to 255 codes from its own progressive result), and with 1.22 scaling
 * NV12 into RGBA fields overran its stack. There it is given the field as
 * the progressive picture it is. */
GST_START_TEST (test_fields_near_videoconvertscale)
{
  GstElementFactory * f = gst_element_factory_find ("videoconvertscale");
  if (!f) {
    g_print ("REFERENCE-MISSING videoconvertscale: comparison left out\n");
    return;
  }
  gst_object_unref (f);
  const struct {
    Scale s;
    Content content;
    bool as_fields; /* videoconvertscale given fields (else pictures of their size) */
  } cases[] = {
    { { "RGBA", 64, 48, "NV12", 64, 48 }, Content::RANDOM, false },
    { { "NV12", 64, 48, "I420", 64, 48 }, Content::RANDOM, true },
    { { "RGBA", 64, 48, "Y444", 64, 48 }, Content::RANDOM, true },
    { { "RGBA", 128, 96, "RGBA", 64, 48 }, Content::SMOOTH, true },
    { { "NV12", 128, 96, "NV12", 64, 48 }, Content::SMOOTH, true },
    { { "NV12", 1280, 720, "RGBA", 640, 360 }, Content::SMOOTH, false },
  };
  for (const auto & c : cases) {
    const Scale & s = c.s;
    const std::string what = std::string (s.in_format) + " -> " + s.out_format + " " +
                             std::to_string (s.out_w) + "x" + std::to_string (s.out_h) +
                             (c.as_fields ? ", fields" : ", pictures");
    const std::string out_caps = caps_of ("", true, s.out_format, s.out_w, s.out_h);
    gchar * reference =
        c.as_fields
            ? g_strdup_printf (
                  "videoconvertscale dither=none method=bilinear ! %s", out_caps.c_str ())
            : NULL;
    Captured in, out, ref;
    GstElement * pipeline =
        fields_pipeline (caps_of ("", true, s.in_format, s.in_w, s.in_h), 2, c.content,
            scale_chain (s), reference, &in, &out, &ref);
    testutil::run_to_eos (pipeline, what.c_str ());
    fail_unless (out.buffers.size () == 2);
    for (size_t i = 0; i < out.buffers.size (); i++) {
      const GstVideoInfo pi = field_picture (&in.infos[i]);
      const GstVideoInfo po = field_picture (&out.infos[i]);
      GstBuffer * want = c.as_fields ? gst_buffer_ref (ref.buffers[i])
                                     : videoconvertscale_of (in.buffers[i], &pi, &po);
      guint max;
      double psnr;
      difference (want, c.as_fields ? &ref.infos[i] : &po, out.buffers[i], &out.infos[i],
          &max, &psnr);
      gst_buffer_unref (want);
      g_print ("FIELD-VS-VIDEOCONVERTSCALE %s: max %u, PSNR %.1f dB\n", what.c_str (),
          max, psnr);
      if (c.content == Content::RANDOM)
        fail_unless (max <= 1, "%s: %u codes from videoconvertscale", what.c_str (), max);
      else
        fail_unless (psnr >= 40.0, "%s: PSNR %.1f dB against videoconvertscale",
            what.c_str (), psnr);
    }
    g_free (reference);
    gst_element_set_state (pipeline, GST_STATE_NULL);
    gst_object_unref (pipeline);
  }
}
GST_END_TEST;

/* Turning a field by a quarter (its lines would become columns) or
 * flipping it upside down (its lines would belong to the other field) is
 * refused with an error saying so; videoconvertscale turns nothing and
 * videoflip takes no alternate fields. */
GST_START_TEST (test_fields_not_turned)
{
  for (auto m : { GST_VIDEO_ORIENTATION_90R, GST_VIDEO_ORIENTATION_VERT,
           GST_VIDEO_ORIENTATION_180, GST_VIDEO_ORIENTATION_UL_LR }) {
    Scale s{ "RGBA", 48, 32, "RGBA", 48, 32 };
    s.direction = m;
    if (m == GST_VIDEO_ORIENTATION_90R || m == GST_VIDEO_ORIENTATION_UL_LR)
      std::swap (s.out_w, s.out_h);
    Captured in, out, unused;
    GstElement * pipeline =
        fields_pipeline (caps_of ("", true, s.in_format, s.in_w, s.in_h), 2,
            Content::RANDOM, scale_chain (s), NULL, &in, &out, &unused);
    testutil::Outcome o = testutil::run_to_end (pipeline);
    fail_unless (!o.eos && o.error.find ("fields of interlace-mode=alternate") !=
                               std::string::npos,
        "direction %d: %s", (int)m, o.error.c_str ());
    gst_object_unref (pipeline);
  }
}
GST_END_TEST;

/* --- cudacrop ----------------------------------------------------------- */

/* CPU videocrop's crop of `field`, given to it as the progressive picture
 * `pi` (the field's size): what videocrop does with the buffer it gets. */
static GstBuffer *
videocrop_of (GstBuffer * field, const GstVideoInfo * pi, gint l, gint r, gint t, gint b)
{
  gchar * launch =
      g_strdup_printf ("videocrop left=%d right=%d top=%d bottom=%d", l, r, t, b);
  GstHarness * h = gst_harness_new_parse (launch);
  g_free (launch);
  GstCaps * caps = gst_video_info_to_caps (pi);
  gst_harness_set_src_caps (h, caps);
  GstBuffer * out = gst_harness_push_and_pull (h, gst_buffer_ref (field));
  fail_unless (out != NULL);
  gst_harness_teardown (h);
  return out;
}

/* The planes of `a` (laid out as `ia`) and `b` (as `ib`) hold the same
 * rows, byte for byte: a progressive picture beside a field of the same
 * size. */
static void
assert_same_planes (GstBuffer * a, const GstVideoInfo * ia, GstBuffer * b,
    const GstVideoInfo * ib, const char * what)
{
  GstVideoFrame fa, fb;
  fail_unless (
      gst_video_frame_map (&fa, const_cast<GstVideoInfo *> (ia), a, GST_MAP_READ));
  fail_unless (
      gst_video_frame_map (&fb, const_cast<GstVideoInfo *> (ib), b, GST_MAP_READ));
  for (guint p = 0; p < GST_VIDEO_FRAME_N_PLANES (&fa); p++) {
    const guint rows = gst_cs_video_plane_rows (ia, p);
    const gsize row = gst_cs_video_plane_row_bytes (ia, p);
    fail_unless_equals_int (rows, gst_cs_video_plane_rows (ib, p));
    for (guint y = 0; y < rows; y++) {
      const guint8 * ra = (const guint8 *)GST_VIDEO_FRAME_PLANE_DATA (&fa, p) +
                          (gsize)y * GST_VIDEO_FRAME_PLANE_STRIDE (&fa, p);
      const guint8 * rb = (const guint8 *)GST_VIDEO_FRAME_PLANE_DATA (&fb, p) +
                          (gsize)y * GST_VIDEO_FRAME_PLANE_STRIDE (&fb, p);
      fail_unless (memcmp (ra, rb, row) == 0, "%s: plane %u row %u differs", what, p, y);
    }
  }
  gst_video_frame_unmap (&fa);
  gst_video_frame_unmap (&fb);
}

/* A crop of alternate fields counts lines of the field, as videocrop counts
 * the lines of the buffer it is given: top=3 removes three lines of every
 * field, so the frame the caps describe is 2 x (top + bottom) shorter. Each
 * field is videocrop's crop of that field, whether the crop goes on as a
 * crop meta (read by cudadownload), as plane offsets or as a packed copy
 * (YUY2 at an odd column: videocrop's luma shift); flags kept. */
GST_START_TEST (test_crop_in_field_lines)
{
  enum { META, OFFSETS, PACKED };
  for (const char * format : { "NV12", "I420", "RGBA", "YUY2" }) {
    for (int path : { META, OFFSETS, PACKED }) {
      const gint w = 64, h = 48, l = 3, r = 5, t = 3, b = 2;
      gchar * what = g_strdup_printf ("%s path %d", format, path);
      gchar * chain = g_strdup_printf ("cudastreamsupload ! cudastreamscrop name=crop "
                                       "left=%d right=%d top=%d bottom=%d ! "
                                       "cudastreamsdownload",
          l, r, t, b);
      Captured in, out, unused;
      GstElement * pipeline = fields_pipeline (caps_of ("", true, format, w, h), 4,
          Content::RANDOM, chain, NULL, &in, &out, &unused);
      if (path != META)
        testutil::hide_crop_metas (pipeline, "crop", path == PACKED);
      testutil::run_to_eos (pipeline, what);
      expect_fields (out, 4, what);
      fail_unless_equals_int (testutil::host_waits (pipeline, "crop"), 0);
      for (size_t i = 0; i < out.buffers.size (); i++) {
        fail_unless_equals_int (GST_VIDEO_INFO_WIDTH (&out.infos[i]), w - l - r);
        fail_unless_equals_int (GST_VIDEO_INFO_HEIGHT (&out.infos[i]), h - 2 * (t + b));
        GstVideoInfo pi = field_picture (&in.infos[i]),
                     po = field_picture (&out.infos[i]);
        GstBuffer * want = videocrop_of (in.buffers[i], &pi, l, r, t, b);
        assert_same_planes (want, &po, out.buffers[i], &out.infos[i], what);
        gst_buffer_unref (want);
      }
      gst_element_set_state (pipeline, GST_STATE_NULL);
      gst_object_unref (pipeline);
      g_free (chain);
      g_free (what);
    }
  }
}
GST_END_TEST;

/* Fields cropped upstream (a crop meta in field lines on the whole field,
 * the caps giving the cropped size, as after videocrop) go into cudaupload,
 * which copies only what the crop marks: the same lines as videocrop's crop
 * of the field, for YUY2 at an odd column too (a copy on the GPU). */
GST_START_TEST (test_crop_meta_into_upload)
{
  for (const char * format : { "NV12", "YUY2" }) {
    const GstVideoInfo whole = info_of (caps_of ("", true, format, 64, 48));
    const std::string caps = caps_of ("", true, format, 56, 38);
    gchar * desc = g_strdup_printf ("appsrc name=src format=time caps=\"%s\" ! "
                                    "cudastreamsupload name=up ! cudastreamsdownload ! "
                                    "appsink name=out sync=false",
        caps.c_str ());
    GstElement * pipeline = gst_parse_launch (desc, NULL);
    fail_unless (pipeline != NULL, "%s", desc);
    g_free (desc);
    std::vector<GstBuffer *> fields;
    GstElement * src = testutil::by_name (pipeline, "src");
    for (guint i = 0; i < 4; i++) {
      GstBuffer * buf = testutil::video_frame (&whole, Content::RANDOM, 900 + i);
      mark_field (buf, i);
      GST_BUFFER_PTS (buf) = i * GST_SECOND / 60;
      gst_buffer_add_video_meta_full (buf, GST_VIDEO_FRAME_FLAG_NONE,
          GST_VIDEO_INFO_FORMAT (&whole), whole.width, whole.height,
          GST_VIDEO_INFO_N_PLANES (&whole), const_cast<gsize *> (whole.offset),
          const_cast<gint *> (whole.stride));
      GstVideoCropMeta * cm = gst_buffer_add_video_crop_meta (buf);
      cm->x = 3, cm->y = 2, cm->width = 56, cm->height = 19;
      fields.push_back (gst_buffer_ref (buf));
      fail_unless (gst_app_src_push_buffer (GST_APP_SRC (src), buf) == GST_FLOW_OK);
    }
    gst_app_src_end_of_stream (GST_APP_SRC (src));
    gst_object_unref (src);
    Captured out;
    testutil::capture_appsink (pipeline, "out", &out);
    testutil::run_to_eos (pipeline, format);
    expect_fields (out, 4, format);
    const GstVideoInfo pi = field_picture (&whole), po = field_picture (&out.infos[0]);
    for (size_t i = 0; i < fields.size (); i++) {
      GstBuffer * plain = gst_buffer_copy_deep (fields[i]);
      gst_buffer_foreach_meta (
          plain,
          [] (GstBuffer *, GstMeta ** meta, gpointer) -> gboolean {
            *meta = NULL; /* videocrop is given the field alone */
            return TRUE;
          },
          NULL);
      GstBuffer * want = videocrop_of (plain, &pi, 3, 5, 2, 3);
      assert_same_planes (want, &po, out.buffers[i], &out.infos[i], format);
      gst_buffer_unref (want);
      gst_buffer_unref (plain);
      gst_buffer_unref (fields[i]);
    }
    gst_object_unref (pipeline);
  }
}
GST_END_TEST;

/* The crop of a field, then the field scaled: cudacrop's crop meta, in
 * field lines, read by cudaconvertscale. */
GST_START_TEST (test_crop_then_scale_fields)
{
  Captured in, out, unused;
  const std::string chain = "cudastreamsupload ! cudastreamscrop left=8 right=8 top=4 "
                            "bottom=2 ! cudastreamsconvertscale name=cs ! " +
                            caps_of (GST_CAPS_FEATURE_MEMORY_CS, true, "RGBA", 24, 18) +
                            " ! cudastreamsdownload";
  GstElement * pipeline = fields_pipeline (caps_of ("", true, "NV12", 64, 48), 4,
      Content::RANDOM, chain, NULL, &in, &out, &unused);
  testutil::run_to_eos (pipeline, "crop then scale");
  expect_fields (out, 4, "crop then scale");
  for (size_t i = 0; i < out.buffers.size (); i++) {
    /* the field's 48x18 region at (8, 4), as a picture of its own */
    const GstVideoInfo pi = field_picture (&in.infos[i]);
    GstVideoInfo cropped;
    gst_video_info_set_format (&cropped, GST_VIDEO_FORMAT_NV12, 48, 18);
    GstBuffer * region = testutil::crop_on_cpu (in.buffers[i], &pi, 8, 4, &cropped);
    GstVideoInfo region_frame = cropped;
    region_frame.height = 36;
    region_frame.interlace_mode = GST_VIDEO_INTERLACE_MODE_ALTERNATE;
    GstBuffer * want = field_twin (region, &region_frame, &out.infos[i],
        gpu::Filter::BILINEAR, GST_VIDEO_ORIENTATION_IDENTITY, true);
    testutil::assert_frames_equal (
        want, &out.infos[i], out.buffers[i], &out.infos[i], "crop then scale");
    gst_buffer_unref (want);
    gst_buffer_unref (region);
  }
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
}
GST_END_TEST;

/* Fields pass cudaconvertscale untouched where the caps are equal: the
 * same buffer, its flags. */
GST_START_TEST (test_fields_pass_through)
{
  Captured in, out, unused;
  const std::string chain = "cudastreamsupload ! cudastreamsconvertscale name=cs ! "
                            "cudastreamscrop name=crop ! cudastreamsdownload";
  GstElement * pipeline = fields_pipeline (caps_of ("", true, "NV12", 64, 48), 4,
      Content::RANDOM, chain, NULL, &in, &out, &unused);
  testutil::run_to_eos (pipeline, "passthrough");
  expect_fields (out, 4, "passthrough");
  testutil::assert_all_frames_equal (in, out, "passthrough");
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
}
GST_END_TEST;

static Suite *
alternate_gpu_suite (void)
{
  Suite * s = suite_create ("alternate_gpu");
  TCase * tc = tcase_create ("general");
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_negotiate_alternate);
  tcase_add_test (tc, test_fields_scaled_as_pictures);
  tcase_add_test (tc, test_fields_near_videoconvertscale);
  tcase_add_test (tc, test_fields_not_turned);
  tcase_add_test (tc, test_crop_in_field_lines);
  tcase_add_test (tc, test_crop_meta_into_upload);
  tcase_add_test (tc, test_crop_then_scale_fields);
  tcase_add_test (tc, test_fields_pass_through);
  return s;
}

TESTUTIL_GPU_CHECK_MAIN (alternate_gpu)

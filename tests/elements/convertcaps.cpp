/* SPDX-License-Identifier: LGPL-2.1-or-later */
// Without a GPU: the caps rules of cudaconvertscale (plugins/gstcsconvertcaps)
// prefer passthrough, keep caps features, and fixate sizes, formats and
// colorimetry as CPU videoconvertscale (1.22) does. Where the rules differ on
// purpose, the test says what videoconvertscale gives instead, so that a
// GStreamer that changes it shows up here.
#include <gst/base/gstbasetransform.h>
#include <gst/check/gstcheck.h>

#include <utility>

#include "convert/gstcsconvertcaps.h"

/* Owns the caps parsed from a string. */
static GstCaps *
caps (const char * s)
{
  GstCaps * c = gst_caps_from_string (s);
  fail_unless (c != NULL, "cannot parse %s", s);
  return c;
}

static void
assert_caps_equal (GstCaps * got, const char * want, const char * what)
{
  GstCaps * w = caps (want);
  gchar * g = gst_caps_to_string (got);
  fail_unless (gst_caps_is_equal (got, w), "%s: got %s, want %s", what, g, want);
  g_free (g);
  gst_caps_unref (w);
}

/* Structure @i of @c, as caps with its features. */
static void
assert_nth_equal (GstCaps * c, guint i, const char * want, const char * what)
{
  GstCaps * nth = gst_caps_copy_nth (c, i);
  assert_caps_equal (nth, want, what);
  gst_caps_unref (nth);
}

/* The converter's formats are GStreamer's, found at run time: every raw
 * format neither tiled nor of complex packing, the palette one (RGB8P)
 * and IYU1 (luma samples in pairs) included; each refusal with its
 * reason. */
GST_START_TEST (test_format_lists)
{
  const GValue * list = gst_cs_convert_formats ();
  guint simple = 0, taken = 0;
  guint n_raw = 0;
  const GstVideoFormat * raw = gst_video_formats_raw (&n_raw);
  for (guint i = 0; i < n_raw; i++) {
    const GstVideoFormat f = raw[i];
    const GstVideoFormatInfo * info = gst_video_format_get_info (f);
    const char * name = GST_VIDEO_FORMAT_INFO_NAME (info);
    bool listed = false;
    for (guint k = 0; k < gst_value_list_get_size (list); k++)
      listed =
          listed ||
          g_strcmp0 (g_value_get_string (gst_value_list_get_value (list, k)), name) == 0;
    const gchar * why = gst_cs_convert_format_refusal (f);
    fail_unless (listed == (why == NULL), "%s: listed %d, refusal %s", name, listed, why);
    if (f == GST_VIDEO_FORMAT_ENCODED || GST_VIDEO_FORMAT_INFO_N_COMPONENTS (info) == 0 ||
        GST_VIDEO_FORMAT_INFO_IS_TILED (info) || GST_VIDEO_FORMAT_INFO_IS_COMPLEX (info))
      continue;
    simple++;
    taken += listed;
    fail_unless (listed, "%s refused: %s", name, why);
  }
  g_print ("%s: %u of %u raw formats neither tiled nor complex taken\n",
      gst_version_string (), taken, simple);
}
GST_END_TEST;

static const char * const NV12_1080 =
    "video/x-raw, format=NV12, width=1920, height=1080, framerate=30/1, "
    "pixel-aspect-ratio=1/1, interlace-mode=progressive, colorimetry=bt709, "
    "chroma-site=mpeg2";

GST_START_TEST (test_transform_order)
{
  GstCaps * in = caps (NV12_1080);
  GstCaps * t = gst_cs_convert_caps_transform (in, NULL);
  fail_unless_equals_int (gst_caps_get_size (t), 3);
  /* passthrough first, then a scale only, then scale and convert */
  GstCaps * first = gst_caps_copy_nth (t, 0);
  fail_unless (gst_caps_is_equal (first, in));
  gst_caps_unref (first);
  assert_nth_equal (t, 1,
      "video/x-raw, format=NV12, width=[1,16384], height=[1,16384], framerate=30/1, "
      "pixel-aspect-ratio=[1/2147483647,2147483647/1], interlace-mode=progressive, "
      "colorimetry=bt709, chroma-site=mpeg2",
      "scale only");
  assert_nth_equal (t, 2,
      "video/x-raw, width=[1,16384], height=[1,16384], framerate=30/1, "
      "pixel-aspect-ratio=[1/2147483647,2147483647/1], interlace-mode=progressive",
      "scale and convert");
  gst_caps_unref (t);

  /* no PAR in: none out */
  GstCaps * nopar = caps ("video/x-raw, format=RGBA, width=64, height=48, framerate=0/1");
  t = gst_cs_convert_caps_transform (nopar, NULL);
  for (guint i = 0; i < gst_caps_get_size (t); i++)
    fail_if (
        gst_structure_has_field (gst_caps_get_structure (t, i), "pixel-aspect-ratio"));
  assert_nth_equal (t, 2, "video/x-raw, width=[1,16384], height=[1,16384], framerate=0/1",
      "without PAR");
  gst_caps_unref (t);
  gst_caps_unref (nopar);

  /* unfixed caps (a template) give no redundant structures: opening the
   * size changes nothing there */
  GstCaps * tmpl = caps (GST_CS_VIDEO_SYSTEM_CAPS);
  t = gst_cs_convert_caps_transform (tmpl, NULL);
  fail_unless_equals_int (gst_caps_get_size (t), 2);
  assert_nth_equal (t, 0, GST_CS_VIDEO_SYSTEM_CAPS, "template");
  assert_nth_equal (t, 1,
      "video/x-raw, width=[1,16384], height=[1,16384], framerate=[0/1,2147483647/1]",
      "template converted");
  gst_caps_unref (t);
  gst_caps_unref (tmpl);

  GstCaps * any = gst_caps_new_any ();
  t = gst_cs_convert_caps_transform (any, NULL);
  fail_unless (gst_caps_is_any (t));
  gst_caps_unref (t);
  gst_caps_unref (any);
  GstCaps * empty = gst_caps_new_empty ();
  t = gst_cs_convert_caps_transform (empty, NULL);
  fail_unless (gst_caps_is_empty (t));
  gst_caps_unref (t);
  gst_caps_unref (empty);
  gst_caps_unref (in);
}
GST_END_TEST;

GST_START_TEST (test_transform_features)
{
  /* device memory first, then system memory: every pass keeps each
   * structure's features, and passthrough in either memory comes first */
  GstCaps * in = caps ("video/x-raw(" GST_CAPS_FEATURE_MEMORY_CS
                       "), format=I420, width=64, height=48, framerate=25/1; "
                       "video/x-raw, format=I420, width=64, height=48, framerate=25/1");
  GstCaps * t = gst_cs_convert_caps_transform (in, NULL);
  fail_unless_equals_int (gst_caps_get_size (t), 6);
  for (guint i = 0; i < 6; i++) {
    GstCapsFeatures * f = gst_caps_get_features (t, i);
    const bool device = gst_caps_features_contains (f, GST_CAPS_FEATURE_MEMORY_CS);
    fail_unless_equals_int (device, i % 2 == 0);
    const GstStructure * s = gst_caps_get_structure (t, i);
    fail_unless_equals_int (gst_structure_has_field (s, "format"), i < 4);
    fail_unless_equals_int (
        gst_value_is_fixed (gst_structure_get_value (s, "width")), i < 2);
    gint n = 0, d = 0;
    fail_unless (gst_structure_get_fraction (s, "framerate", &n, &d));
    fail_unless (n == 25 && d == 1);
  }
  gst_caps_unref (t);
  gst_caps_unref (in);
}
GST_END_TEST;

GST_START_TEST (test_transform_filter)
{
  GstCaps * in = caps (NV12_1080);
  /* in the filter's order: RGBA (a conversion) stays before NV12 */
  GstCaps * filter =
      caps ("video/x-raw, format=RGBA, width=640; video/x-raw, format=NV12");
  GstCaps * t = gst_cs_convert_caps_transform (in, filter);
  fail_unless (gst_caps_get_size (t) >= 2);
  assert_nth_equal (t, 0,
      "video/x-raw, format=RGBA, width=640, height=[1,16384], framerate=30/1, "
      "pixel-aspect-ratio=[1/2147483647,2147483647/1], interlace-mode=progressive",
      "filter first");
  GstCaps * second = gst_caps_copy_nth (t, 1);
  fail_unless (gst_caps_is_equal (second, in));
  gst_caps_unref (second);
  gst_caps_unref (t);
  /* a filter nothing converts to */
  GstCaps * audio = caps ("audio/x-raw");
  t = gst_cs_convert_caps_transform (in, audio);
  fail_unless (gst_caps_is_empty (t));
  gst_caps_unref (t);
  gst_caps_unref (audio);
  gst_caps_unref (filter);
  gst_caps_unref (in);
}
GST_END_TEST;

/* --- fixation, beside videoconvertscale ---------------------------------- */

struct FixateCase {
  const char * in;    /* fixed caps on the `dir` pad */
  const char * other; /* what the other side allows */
  GstPadDirection dir;
  bool rotated;
  const char * want; /* our fixated caps */
  const char * vcs;  /* videoconvertscale's, where it differs on purpose */
};

static GstCaps *
other_side (GstCaps * transformed, const char * other)
{
  GstCaps * o = caps (other);
  GstCaps * out = gst_caps_intersect_full (transformed, o, GST_CAPS_INTERSECT_FIRST);
  gst_caps_unref (transformed);
  gst_caps_unref (o);
  return out;
}

/* @c swapped as a 90 degree turn shows it: width and height, and PAR. */
static GstCaps *
turned (GstCaps * c)
{
  GstCaps * out = gst_caps_copy (c);
  GstStructure * s = gst_caps_get_structure (out, 0);
  gint w, h, n = 1, d = 1;
  gst_structure_get_int (s, "width", &w);
  gst_structure_get_int (s, "height", &h);
  gst_structure_set (s, "width", G_TYPE_INT, h, "height", G_TYPE_INT, w, NULL);
  if (gst_structure_get_fraction (s, "pixel-aspect-ratio", &n, &d))
    gst_structure_set (s, "pixel-aspect-ratio", GST_TYPE_FRACTION, d, n, NULL);
  return out;
}

/* Ours as the element negotiates: our transform, intersected with what the
 * other side allows, then fixated. Then videoconvertscale, through its own
 * vfuncs, on the same input (turned where @c.rotated: it cannot rotate). */
static void
check_fixate (const FixateCase & c)
{
  gchar * what = g_strdup_printf ("%s -> %s (%s%s)", c.in, c.other,
      c.dir == GST_PAD_SINK ? "sink" : "src", c.rotated ? ", rotated" : "");
  GstCaps * in = caps (c.in);
  GstCaps * other = other_side (gst_cs_convert_caps_transform (in, NULL), c.other);
  fail_if (gst_caps_is_empty (other), "%s: nothing allowed", what);
  GstCaps * ours = gst_cs_convert_caps_fixate (c.dir, in, other, c.rotated);
  fail_unless (gst_caps_is_fixed (ours), "%s", what);
  assert_caps_equal (ours, c.want, what);

  GstElement * vcs = gst_element_factory_make ("videoconvertscale", NULL);
  if (vcs) {
    GstBaseTransform * trans = GST_BASE_TRANSFORM (vcs);
    GstBaseTransformClass * klass = GST_BASE_TRANSFORM_GET_CLASS (vcs);
    GstCaps * vin = c.rotated ? turned (in) : gst_caps_ref (in);
    GstCaps * vother =
        other_side (klass->transform_caps (trans, c.dir, vin, NULL), c.other);
    GstCaps * ref = klass->fixate_caps (trans, c.dir, vin, vother);
    gchar * vwhat = g_strdup_printf ("videoconvertscale, %s", what);
    if (c.vcs && gst_caps_is_equal (ref, ours)) {
      /* A newer videoconvertscale no longer differs (1.28 fixed the
       * forgotten width): said, and fine. */
      g_print ("VIDEOCONVERTSCALE-AGREES %s (%s)\n", vwhat, gst_version_string ());
    } else if (c.vcs) {
      assert_caps_equal (ref, c.vcs, vwhat);
    } else {
      gchar * o = gst_caps_to_string (ours);
      gchar * r = gst_caps_to_string (ref);
      fail_unless (gst_caps_is_equal (ours, ref), "%s: ours %s, its %s", vwhat, o, r);
      g_free (r);
      g_free (o);
    }
    g_free (vwhat);
    gst_caps_unref (ref);
    gst_caps_unref (vin);
    gst_object_unref (vcs);
  } else {
    GST_WARNING ("no videoconvertscale: %s not compared", what);
  }
  gst_caps_unref (ours);
  gst_caps_unref (in);
  g_free (what);
}

#define IN_1080 \
  "video/x-raw, format=NV12, width=1920, height=1080, framerate=30/1, " \
  "pixel-aspect-ratio=1/1"
#define OUT_FIELDS(size) "video/x-raw, format=NV12, " size ", framerate=30/1"

GST_START_TEST (test_fixate_size)
{
  const FixateCase cases[] = {
    /* nothing asked: the input's size */
    { IN_1080, "video/x-raw", GST_PAD_SINK, false,
        OUT_FIELDS ("width=1920, height=1080, pixel-aspect-ratio=1/1"), NULL },
    /* one side fixed, square pixels asked: the other keeps the ratio */
    { IN_1080, "video/x-raw, width=640, pixel-aspect-ratio=1/1", GST_PAD_SINK, false,
        OUT_FIELDS ("width=640, height=360, pixel-aspect-ratio=1/1"), NULL },
    { IN_1080, "video/x-raw, height=640, pixel-aspect-ratio=1/1", GST_PAD_SINK, false,
        OUT_FIELDS ("width=1138, height=640, pixel-aspect-ratio=1/1"), NULL },
    /* one side fixed, PAR free: videoscale keeps the other side and
     * changes the PAR (the display aspect ratio is kept) */
    { IN_1080, "video/x-raw, width=640", GST_PAD_SINK, false,
        OUT_FIELDS ("width=640, height=1080, pixel-aspect-ratio=3/1"), NULL },
    { IN_1080, "video/x-raw, height=640", GST_PAD_SINK, false,
        OUT_FIELDS ("width=1920, height=640, pixel-aspect-ratio=16/27"), NULL },
    /* both fixed: the PAR keeps the ratio */
    { IN_1080, "video/x-raw, width=640, height=640", GST_PAD_SINK, false,
        OUT_FIELDS ("width=640, height=640, pixel-aspect-ratio=16/9"), NULL },
    /* bounds: the nearest allowed size at the nearest ratio */
    { IN_1080, "video/x-raw, width=[1,1280], height=[1,720]", GST_PAD_SINK, false,
        OUT_FIELDS ("width=1280, height=720, pixel-aspect-ratio=1/1"), NULL },
    { IN_1080, "video/x-raw, width=[1,1280], pixel-aspect-ratio=1/1", GST_PAD_SINK, false,
        OUT_FIELDS ("width=1280, height=720, pixel-aspect-ratio=1/1"), NULL },
    { IN_1080, "video/x-raw, width=[1,1000], height=[1,1000], pixel-aspect-ratio=1/1",
        GST_PAD_SINK, false,
        OUT_FIELDS ("width=1000, height=563, pixel-aspect-ratio=1/1"), NULL },
    /* non-square input pixels: 1440x1080 at 4/3 shows 16:9 */
    { "video/x-raw, format=NV12, width=1440, height=1080, framerate=30/1, "
      "pixel-aspect-ratio=4/3",
        "video/x-raw, width=1280, pixel-aspect-ratio=1/1", GST_PAD_SINK, false,
        OUT_FIELDS ("width=1280, height=720, pixel-aspect-ratio=1/1"), NULL },
    { "video/x-raw, format=NV12, width=1440, height=1080, framerate=30/1, "
      "pixel-aspect-ratio=4/3",
        "video/x-raw, pixel-aspect-ratio=1/1", GST_PAD_SINK, false,
        OUT_FIELDS ("width=1920, height=1080, pixel-aspect-ratio=1/1"), NULL },
    /* only the PAR fixed, to one that is not 1/1: we keep the display
     * aspect ratio (1440 * 4/3 : 1080 = 16:9); videoconvertscale 1.22
     * multiplies by the PAR instead of dividing (2560x1080 shows 256:81) */
    { IN_1080, "video/x-raw, pixel-aspect-ratio=4/3", GST_PAD_SINK, false,
        OUT_FIELDS ("width=1440, height=1080, pixel-aspect-ratio=4/3"),
        OUT_FIELDS ("width=2560, height=1080, pixel-aspect-ratio=4/3") },
    /* no PAR in: square pixels; one is written only where not 1/1 */
    { "video/x-raw, format=NV12, width=1920, height=1080, framerate=30/1",
        "video/x-raw, width=960", GST_PAD_SINK, false,
        OUT_FIELDS ("width=960, height=1080, pixel-aspect-ratio=2/1"), NULL },
    /* where the kept width needs no PAR, videoconvertscale 1.22 (and 1.24)
     * forgets to set the width and gst_caps_fixate() takes the range's
     * minimum; 1.28's gives ours */
    { "video/x-raw, format=NV12, width=1920, height=1080, framerate=30/1",
        "video/x-raw, height=1080", GST_PAD_SINK, false,
        OUT_FIELDS ("width=1920, height=1080"), OUT_FIELDS ("width=1, height=1080") },
    { "video/x-raw, format=NV12, width=1920, height=1080, framerate=30/1",
        "video/x-raw, width=[1,960]", GST_PAD_SINK, false,
        OUT_FIELDS ("width=960, height=1080, pixel-aspect-ratio=2/1"), NULL },
    /* fixating the sink pad from the source pad: PAR 1/1 where not given */
    { "video/x-raw, format=NV12, width=640, height=360, framerate=30/1",
        "video/x-raw, width=[1,16384], height=[1,16384]", GST_PAD_SRC, false,
        OUT_FIELDS ("width=640, height=360, pixel-aspect-ratio=1/1"), NULL },
    /* rotated by 90 degrees: the input is 1080 wide and 1920 high */
    { IN_1080, "video/x-raw, width=360, pixel-aspect-ratio=1/1", GST_PAD_SINK, true,
        OUT_FIELDS ("width=360, height=640, pixel-aspect-ratio=1/1"), NULL },
    { IN_1080, "video/x-raw, width=360", GST_PAD_SINK, true,
        OUT_FIELDS ("width=360, height=1920, pixel-aspect-ratio=3/1"), NULL },
    { IN_1080, "video/x-raw", GST_PAD_SINK, true,
        OUT_FIELDS ("width=1080, height=1920, pixel-aspect-ratio=1/1"), NULL },
    { "video/x-raw, format=NV12, width=1440, height=1080, framerate=30/1, "
      "pixel-aspect-ratio=4/3",
        "video/x-raw, pixel-aspect-ratio=1/1", GST_PAD_SINK, true,
        OUT_FIELDS ("width=810, height=1440, pixel-aspect-ratio=1/1"), NULL },
  };
  for (const FixateCase & c : cases)
    check_fixate (c);
}
GST_END_TEST;

#define SMALL(format) \
  "video/x-raw, format=" format ", width=320, height=240, framerate=30/1"

GST_START_TEST (test_fixate_format)
{
  const FixateCase cases[] = {
    /* the input's format where allowed */
    { SMALL ("NV12"), "video/x-raw, format={RGBA,BGRx,NV12}", GST_PAD_SINK, false,
        SMALL ("NV12"), NULL },
    /* same family first, then alpha kept (gaining it costs), ... */
    { SMALL ("NV12"), "video/x-raw, format={RGBA,RGBx,GRAY8}", GST_PAD_SINK, false,
        SMALL ("RGBx"), NULL },
    { SMALL ("RGBA"), "video/x-raw, format={RGBx,NV12}", GST_PAD_SINK, false,
        SMALL ("RGBx"), NULL },
    { SMALL ("RGBx"), "video/x-raw, format={NV12,RGBA}", GST_PAD_SINK, false,
        SMALL ("RGBA"), NULL },
    { SMALL ("BGRA"), "video/x-raw, format={RGBP,ARGB}", GST_PAD_SINK, false,
        SMALL ("ARGB"), NULL },
    { SMALL ("RGB"), "video/x-raw, format={NV12,RGBP}", GST_PAD_SINK, false,
        SMALL ("RGBP"), NULL },
    /* depth: a gain costs less than a loss */
    { SMALL ("P010_10LE"), "video/x-raw, format={NV12,P016_LE,RGBA}", GST_PAD_SINK, false,
        SMALL ("P016_LE"), NULL },
    { SMALL ("GRAY8"), "video/x-raw, format={NV12,RGBx,GRAY16_LE}", GST_PAD_SINK, false,
        SMALL ("GRAY16_LE"), NULL },
    /* chroma subsampling: the same, else finer */
    { SMALL ("I420"), "video/x-raw, format={Y444,NV12}", GST_PAD_SINK, false,
        SMALL ("NV12"), NULL },
    { SMALL ("YUY2"), "video/x-raw, format={I420,Y444,Y42B}", GST_PAD_SINK, false,
        SMALL ("Y42B"), NULL },
    { SMALL ("NV12"), "video/x-raw, format={I420,Y444}", GST_PAD_SINK, false,
        SMALL ("I420"), NULL },
    /* the same from the source pad */
    { SMALL ("RGBA"), "video/x-raw, format={NV12,BGRA}", GST_PAD_SRC, false,
        "video/x-raw, format=BGRA, width=320, height=240, framerate=30/1, "
        "pixel-aspect-ratio=1/1",
        NULL },
  };
  for (const FixateCase & c : cases)
    check_fixate (c);
}
GST_END_TEST;

#define CSPACE(format, rest) \
  "video/x-raw, format=" format ", width=320, height=240, framerate=30/1" rest

GST_START_TEST (test_fixate_colorimetry)
{
  const char * nv12 = CSPACE ("NV12", ", colorimetry=bt709, chroma-site=jpeg");
  const FixateCase cases[] = {
    /* passthrough: all of it */
    { nv12, "video/x-raw", GST_PAD_SINK, false, nv12, NULL },
    /* YUV to YUV: the colorimetry; the siting too where the subsampling
     * stays */
    { nv12, "video/x-raw, format=I420", GST_PAD_SINK, false,
        CSPACE ("I420", ", colorimetry=bt709, chroma-site=jpeg"), NULL },
    { nv12, "video/x-raw, format=Y444", GST_PAD_SINK, false,
        CSPACE ("Y444", ", colorimetry=bt709"), NULL },
    /* the other side's choice wins */
    { nv12, "video/x-raw, format=I420, colorimetry=bt601", GST_PAD_SINK, false,
        CSPACE ("I420", ", colorimetry=bt601, chroma-site=jpeg"), NULL },
    /* RGB to RGB */
    { CSPACE ("RGBA", ", colorimetry=sRGB"), "video/x-raw, format=BGRx", GST_PAD_SINK,
        false, CSPACE ("BGRx", ", colorimetry=sRGB"), NULL },
    /* YUV to RGB: the RGB default (no field); videoconvertscale labels the
     * output with the input's primaries and transfer (bt709: 1:1:5:1) */
    { nv12, "video/x-raw, format=RGBA", GST_PAD_SINK, false, CSPACE ("RGBA", ""),
        CSPACE ("RGBA", ", colorimetry=(string)1:1:5:1") },
    /* offered several, the input's is kept; videoconvertscale takes the
     * first */
    { nv12, "video/x-raw, format=I420, colorimetry={bt601,bt709}", GST_PAD_SINK, false,
        CSPACE ("I420", ", colorimetry=bt709, chroma-site=jpeg"),
        CSPACE ("I420", ", colorimetry=bt601, chroma-site=jpeg") },
  };
  for (const FixateCase & c : cases)
    check_fixate (c);
}
GST_END_TEST;

GST_START_TEST (test_fixate_features)
{
  GstCaps * in = caps (SMALL ("NV12"));
  /* the structure that allows the best format, with its features */
  GstCaps * other = caps ("video/x-raw(" GST_CAPS_FEATURE_MEMORY_CS
                          "), format=RGBA, width=[1,16384], height=[1,16384]; "
                          "video/x-raw, format=NV12, width=[1,16384], height=[1,16384]");
  GstCaps * out = gst_cs_convert_caps_fixate (GST_PAD_SINK, in, other, FALSE);
  assert_caps_equal (out, "video/x-raw, format=NV12, width=320, height=240", "system");
  gst_caps_unref (out);
  other = caps ("video/x-raw(" GST_CAPS_FEATURE_MEMORY_CS
                "), format={RGBA,NV12}, width=[1,16384], height=[1,16384]; "
                "video/x-raw, format=NV12, width=[1,16384], height=[1,16384]");
  out = gst_cs_convert_caps_fixate (GST_PAD_SINK, in, other, FALSE);
  assert_caps_equal (out,
      "video/x-raw(" GST_CAPS_FEATURE_MEMORY_CS "), format=NV12, width=320, height=240",
      "device first");
  gst_caps_unref (out);
  /* the element's own negotiation: device memory preferred, passthrough */
  GstCaps * both = gst_cs_caps_any_memory (in, NULL);
  other = gst_cs_convert_caps_transform (both, NULL);
  out = gst_cs_convert_caps_fixate (GST_PAD_SINK, in, other, FALSE);
  assert_caps_equal (out,
      "video/x-raw(" GST_CAPS_FEATURE_MEMORY_CS
      "), format=NV12, width=320, height=240, framerate=30/1",
      "any memory");
  gst_caps_unref (out);
  gst_caps_unref (both);
  /* nothing to fixate */
  out = gst_cs_convert_caps_fixate (GST_PAD_SINK, in, gst_caps_new_empty (), FALSE);
  fail_unless (gst_caps_is_empty (out));
  gst_caps_unref (out);
  gst_caps_unref (in);
}
GST_END_TEST;

/* Why caps downstream accepts cannot be made: the field, the value asked
 * for and what the element makes, from the structure nearest to ours; the
 * memory where no structure of ours has it; nothing where they meet. */
GST_START_TEST (test_explain)
{
  const char * const made =
      "video/x-raw(memory:CUDAStreamsMemory), format=(string)"
      "{ NV12, RGBA }, width=[ 1, 16384 ], height=[ 1, 16384 ]; "
      "video/x-raw(memory:CUDAMemory), format=(string){ NV12, RGBA }, "
      "width=[ 1, 16384 ], height=[ 1, 16384 ]";
  const struct {
    const char * wanted;
    const char * why; /* NULL: none */
  } cases[] = {
    { "video/x-raw(memory:CUDAStreamsMemory), format=NV12, width=20000, height=48",
        "width 20000 (this element makes [ 1, 16384 ])" },
    { "video/x-raw(memory:CUDAStreamsMemory), format=UYVP, width=64, height=0",
        "format UYVP (this element makes NV12, RGBA), "
        "height 0 (this element makes [ 1, 16384 ])" },
    /* the nearest structure: one field apart, not two */
    { "video/x-raw(memory:CUDAStreamsMemory), format=UYVP, width=0; "
      "video/x-raw(memory:CUDAStreamsMemory), format=NV12, width=0",
        "width 0 (this element makes [ 1, 16384 ])" },
    { "video/x-raw, format=NV12, width=64, height=48",
        "video/x-raw memory:SystemMemory (this element makes video/x-raw "
        "memory:CUDAStreamsMemory, memory:CUDAMemory)" },
    { "video/x-raw(memory:CUDAMemory), format=RGBA, width=64", NULL },
    { "EMPTY", NULL },
    { "ANY", NULL },
  };
  GstCaps * possible = caps (made);
  for (const auto & c : cases) {
    GstCaps * wanted = caps (c.wanted);
    gchar * why = gst_cs_convert_caps_explain (wanted, possible);
    fail_unless (g_strcmp0 (why, c.why) == 0, "%s: got \"%s\", want \"%s\"", c.wanted,
        why ? why : "(none)", c.why ? c.why : "(none)");
    g_free (why);
    gst_caps_unref (wanted);
  }
  gst_caps_unref (possible);
}
GST_END_TEST;

static Suite *
convertcaps_suite (void)
{
  Suite * s = suite_create ("convertcaps");
  TCase * tc = tcase_create ("general");
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_format_lists);
  tcase_add_test (tc, test_transform_order);
  tcase_add_test (tc, test_transform_features);
  tcase_add_test (tc, test_transform_filter);
  tcase_add_test (tc, test_fixate_size);
  tcase_add_test (tc, test_fixate_format);
  tcase_add_test (tc, test_fixate_colorimetry);
  tcase_add_test (tc, test_fixate_features);
  tcase_add_test (tc, test_explain);
  return s;
}

GST_CHECK_MAIN (convertcaps);

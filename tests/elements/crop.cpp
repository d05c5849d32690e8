/* SPDX-License-Identifier: LGPL-2.1-or-later */
// Without a GPU: cudacrop registers with videocrop's properties, maps caps
// sizes like videocrop (automatic mode included), refuses crops that leave
// nothing, and its per-plane crop arithmetic (common/gstcscroprect), applied
// on the CPU, gives exactly the bytes CPU videocrop gives.
#include <gst/base/gstbasetransform.h>
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>

#include <climits>
#include <cstring>
#include <vector>

#include "crop/gstcscroprect.h"
#include "base/gstcscaps.h"
#include "gstcsvideo-private.h"
#include "testutil.h"

using testutil::Captured;

static GstElement *
make_crop (void)
{
  return testutil::make_ours ("cudacrop");
}

GST_START_TEST (test_registration)
{
  GstElement * e = make_crop ();
  GstElementFactory * f = gst_element_get_factory (e);
  fail_unless (strstr (gst_element_factory_get_metadata (f, GST_ELEMENT_METADATA_KLASS),
                   "Video") != NULL);
  fail_unless (g_type_is_a (G_OBJECT_TYPE (e), g_type_from_name ("GstCsBaseTransform")));
  fail_unless_equals_string (G_OBJECT_TYPE_NAME (e), "GstCsCrop");
  guint64 waits = 1;
  g_object_get (e, "host-waits", &waits, NULL);
  fail_unless_equals_uint64 (waits, 0);
  gst_object_unref (e);
}
GST_END_TEST;

GST_START_TEST (test_properties)
{
  GstElement * e = make_crop ();
  for (const char * name : { "left", "right", "top", "bottom" }) {
    GParamSpec * p = g_object_class_find_property (G_OBJECT_GET_CLASS (e), name);
    fail_unless (p != NULL && G_IS_PARAM_SPEC_INT (p), "%s", name);
    fail_unless_equals_int (G_PARAM_SPEC_INT (p)->minimum, -1);
    fail_unless_equals_int (G_PARAM_SPEC_INT (p)->maximum, G_MAXINT);
    fail_unless_equals_int (G_PARAM_SPEC_INT (p)->default_value, 0);
    fail_unless ((p->flags & G_PARAM_READWRITE) == G_PARAM_READWRITE);
    fail_unless (p->flags & GST_PARAM_MUTABLE_PLAYING, "%s", name);
    fail_unless (p->flags & GST_PARAM_CONTROLLABLE, "%s", name);
    /* a one-line blurb (the long story is in the property's doc block) */
    const gchar * blurb = g_param_spec_get_blurb (p);
    fail_unless (strlen (blurb) >= 20 && !strchr (blurb, '\n'), "%s: %s", name, blurb);
    gint v = 99;
    g_object_get (e, name, &v, NULL);
    fail_unless_equals_int (v, 0);
    for (gint set : { -1, 7, G_MAXINT, 0 }) {
      g_object_set (e, name, set, NULL);
      g_object_get (e, name, &v, NULL);
      fail_unless_equals_int (v, set);
    }
    /* below -1 (automatic): GLib's warning, the value unchanged */
    g_object_set (e, name, 5, NULL);
    ASSERT_WARNING (g_object_set (e, name, -2, NULL));
    g_object_get (e, name, &v, NULL);
    fail_unless_equals_int (v, 5);
    g_object_set (e, name, 0, NULL);
  }
  gst_object_unref (e);
}
GST_END_TEST;

/* `caps` without the structures in nvcodec's memory (test_nvcodec_caps
 * checks those): the rules below are the same for both memories. */
static GstCaps *
without_nvcodec (GstCaps * caps)
{
  GstCaps * out = gst_caps_new_empty ();
  for (guint i = 0; i < gst_caps_get_size (caps); i++)
    if (!gst_caps_features_contains (
            gst_caps_get_features (caps, i), "memory:CUDAMemory"))
      out = gst_caps_merge (out, gst_caps_copy_nth (caps, i));
  gst_caps_unref (caps);
  return out;
}

GST_START_TEST (test_pad_templates)
{
  GstElement * e = make_crop ();
  for (const char * name : { "sink", "src" }) {
    GstPadTemplate * t =
        gst_element_class_get_pad_template (GST_ELEMENT_GET_CLASS (e), name);
    GstCaps * caps = without_nvcodec (gst_pad_template_get_caps (t));
    fail_unless (gst_caps_get_size (caps) >= 1);
    for (guint i = 0; i < gst_caps_get_size (caps); i++)
      fail_unless (gst_caps_features_contains (
                       gst_caps_get_features (caps, i), GST_CAPS_FEATURE_MEMORY_CS),
          "%s: system memory in template", name);
    /* frames, and alternate fields (format:Interlaced), of every plain
     * format */
    GstCaps * all =
        gst_caps_from_string (GST_CS_VIDEO_DEVICE_CAPS GST_CS_VIDEO_DEVICE_FIELD_CAPS);
    GValue formats = G_VALUE_INIT;
    gst_value_list_init (&formats, 0);
    for (const char * f : testutil::plain_formats ()) {
      GValue v = G_VALUE_INIT;
      g_value_init (&v, G_TYPE_STRING);
      g_value_set_string (&v, f);
      gst_value_list_append_and_take_value (&formats, &v);
    }
    for (guint i = 0; i < gst_caps_get_size (all); i++)
      gst_structure_set_value (gst_caps_get_structure (all, i), "format", &formats);
    g_value_unset (&formats);
    fail_unless (gst_caps_is_equal (caps, all));
    gst_caps_unref (all);
    gst_caps_unref (caps);
  }
  gst_object_unref (e);
}
GST_END_TEST;

#define DEV "video/x-raw(memory:CUDAStreamsMemory),"

static GstCaps *
transform (GstElement * e, GstPadDirection dir, const char * caps_str,
    const char * filter = NULL)
{
  GstCaps * in = gst_caps_from_string (caps_str);
  GstCaps * f = filter ? gst_caps_from_string (filter) : NULL;
  GstCaps * out = GST_BASE_TRANSFORM_GET_CLASS (e)->transform_caps (
      GST_BASE_TRANSFORM (e), dir, in, f);
  gst_caps_unref (in);
  if (f)
    gst_caps_unref (f);
  return without_nvcodec (out);
}

static void
expect_caps (GstElement * e, GstPadDirection dir, const char * in, const char * want,
    const char * filter = NULL)
{
  GstCaps * got = transform (e, dir, in, filter);
  GstCaps * w = gst_caps_from_string (want);
  gchar * gs = gst_caps_to_string (got);
  fail_unless (gst_caps_is_equal (got, w), "%s %s: got %s, want %s",
      dir == GST_PAD_SINK ? "downstream" : "upstream", in, gs, want);
  g_free (gs);
  gst_caps_unref (w);
  gst_caps_unref (got);
}

/* Built with nvcodec interop, either memory in gives both out, ours first
 * (preferred), with the same sizes; nvcodec's only for the formats its
 * memory holds. */
GST_START_TEST (test_nvcodec_caps)
{
  GstElement * e = make_crop ();
  GstPadTemplate * t =
      gst_element_class_get_pad_template (GST_ELEMENT_GET_CLASS (e), "sink");
  GstCaps * tmpl = gst_pad_template_get_caps (t);
  GstCaps * ours = without_nvcodec (gst_caps_ref (tmpl));
  const bool built = gst_caps_get_size (ours) < gst_caps_get_size (tmpl);
  gst_caps_unref (ours);
  gst_caps_unref (tmpl);
  g_object_set (e, "left", 8, NULL);
  for (const char * in : { DEV "format=NV12,width=64,height=48",
           "video/x-raw(memory:CUDAMemory),format=NV12,width=64,height=48" }) {
    GstCaps * c = gst_caps_from_string (in);
    GstCaps * got = GST_BASE_TRANSFORM_GET_CLASS (e)->transform_caps (
        GST_BASE_TRANSFORM (e), GST_PAD_SINK, c, NULL);
    gst_caps_unref (c);
    gchar * gs = gst_caps_to_string (got);
    GstCaps * want = gst_caps_from_string (
        built ? DEV "format=NV12,width=56,height=48; "
                    "video/x-raw(memory:CUDAMemory),format=NV12,width=56,height=48"
              : DEV "format=NV12,width=56,height=48");
    fail_unless (gst_caps_is_strictly_equal (got, want), "%s: got %s", in, gs);
    g_free (gs);
    gst_caps_unref (want);
    gst_caps_unref (got);
  }
  if (built) { /* GstCudaMemory holds no gray frames */
    GstCaps * c = gst_caps_from_string (DEV "format=GRAY8,width=64,height=48");
    GstCaps * got = GST_BASE_TRANSFORM_GET_CLASS (e)->transform_caps (
        GST_BASE_TRANSFORM (e), GST_PAD_SINK, c, NULL);
    fail_unless_equals_int (gst_caps_get_size (got), 1);
    gst_caps_unref (c);
    gst_caps_unref (got);
  }
  gst_object_unref (e);
}
GST_END_TEST;

GST_START_TEST (test_caps_transform)
{
  GstElement * e = make_crop ();
  /* nothing to crop: the caps as they are, also after a crop and back
   * (videocrop's test_caps_transform) */
  const char * caps = DEV "format=I420,width=200,height=100,framerate=1/1";
  expect_caps (e, GST_PAD_SINK, caps, caps);
  expect_caps (e, GST_PAD_SRC, caps, caps);
  g_object_set (e, "left", 1, "right", 3, "top", 5, "bottom", 7, NULL);
  g_object_set (e, "left", 0, "right", 0, "top", 0, "bottom", 0, NULL);
  expect_caps (e, GST_PAD_SINK, caps, caps);
  expect_caps (e, GST_PAD_SRC, caps, caps);
  /* its ranges at the bounds: the top stays open, the bottom stops at 1 */
  g_object_set (e, "left", 1, "right", 3, "top", 5, "bottom", 7, NULL);
  expect_caps (e, GST_PAD_SRC,
      DEV "format=I420,width=[2,2147483647],height=[2,2147483647]",
      DEV "format=I420,width=[6,2147483647],height=[14,2147483647]");
  expect_caps (e, GST_PAD_SINK,
      DEV "format=I420,width=[2,2147483647],height=[2,2147483647]",
      DEV "format=I420,width=[1,2147483643],height=[1,2147483635]");
  /* its lists: where videocrop writes 1 for a size the crop leaves nothing
   * of, that size has no counterpart here */
  expect_caps (e, GST_PAD_SRC, DEV "format=I420,width={2,2147483647},height={5,1000}",
      DEV "format=I420,width={6,2147483647},height={17,1012}");
  expect_caps (e, GST_PAD_SINK, DEV "format=I420,width={2,2147483647},height={5,1000}",
      DEV "format=I420,width={2147483643},height={988}");
  g_object_set (e, "left", 3, "right", 5, "top", 0, "bottom", 0, NULL);
  /* Only the sizes change; the rest and the feature stay. */
  expect_caps (e, GST_PAD_SINK,
      DEV "format=NV12,width=64,height=48,framerate=30/1,pixel-aspect-ratio=1/1",
      DEV "format=NV12,width=56,height=48,framerate=30/1,pixel-aspect-ratio=1/1");
  expect_caps (e, GST_PAD_SRC, DEV "format=NV12,width=56,height=48,framerate=30/1",
      DEV "format=NV12,width=64,height=48,framerate=30/1");
  g_object_set (e, "top", 1, "bottom", 2, NULL);
  expect_caps (e, GST_PAD_SINK, DEV "format=YUY2,width=63,height=47",
      DEV "format=YUY2,width=55,height=44"); /* odd sizes stay odd */
  /* ranges and lists, element by element */
  expect_caps (e, GST_PAD_SINK, DEV "format=RGBA,width=[10,100],height={48,20}",
      DEV "format=RGBA,width=[2,92],height={45,17}");
  expect_caps (e, GST_PAD_SRC, DEV "format=RGBA,width=[10,100],height=[1,16384]",
      DEV "format=RGBA,width=[18,108],height=[4,16387]");
  /* the filter decides */
  expect_caps (e, GST_PAD_SINK, DEV "format=RGBA,width=[10,100],height=48",
      DEV "format=RGBA,width=20,height=45", DEV "format=RGBA,width=20,height=45");
  /* a size the crop leaves nothing of has no output (videocrop would say 1);
   * a range keeps the part that works */
  g_object_set (e, "left", 64, "right", 0, "top", 0, "bottom", 0, NULL);
  expect_caps (e, GST_PAD_SINK, DEV "format=RGBA,width=64,height=48", "EMPTY");
  expect_caps (e, GST_PAD_SINK, DEV "format=RGBA,width=[10,100],height=48",
      DEV "format=RGBA,width=[1,36],height=48");
  expect_caps (e, GST_PAD_SINK, DEV "format=RGBA,width={64,65,66},height=48",
      DEV "format=RGBA,width={1,2},height=48");
  expect_caps (e, GST_PAD_SRC, DEV "format=RGBA,width=1,height=48",
      DEV "format=RGBA,width=65,height=48");
  /* automatic: an open range in the direction the size moves; the other
   * side's fixed crop still counts */
  g_object_set (e, "left", -1, "right", 5, NULL);
  expect_caps (e, GST_PAD_SINK, DEV "format=I420,width=64,height=48",
      DEV "format=I420,width=[1,59],height=48");
  expect_caps (e, GST_PAD_SRC, DEV "format=I420,width=56,height=48",
      DEV "format=I420,width=[61,2147483647],height=48");
  g_object_set (e, "left", -1, "right", -1, "top", -1, "bottom", 5, NULL);
  expect_caps (e, GST_PAD_SINK, DEV "format=I420,width=64,height=48",
      DEV "format=I420,width=[1,64],height=[1,43]");
  expect_caps (e, GST_PAD_SRC, DEV "format=I420,width=51,height=31",
      DEV "format=I420,width=[51,2147483647],height=[36,2147483647]");
  /* no overflow at the top of the range */
  g_object_set (e, "left", G_MAXINT, "right", G_MAXINT, "top", 0, "bottom", 0, NULL);
  expect_caps (e, GST_PAD_SRC, DEV "format=RGBA,width=[1,16384],height=48",
      DEV "format=RGBA,width=2147483647,height=48");
  gst_object_unref (e);
}
GST_END_TEST;

static gboolean
accepts (gint left, gint right, gint top, gint bottom, const char * caps_str)
{
  GstElement * e = make_crop ();
  g_object_set (e, "left", left, "right", right, "top", top, "bottom", bottom, NULL);
  gboolean ok = testutil::sink_accepts (e, caps_str);
  gst_object_unref (e);
  return ok;
}

GST_START_TEST (test_nothing_left_is_refused)
{
  const char * rgba = DEV "format=RGBA,width=64,height=48,framerate=30/1";
  fail_unless (accepts (0, 0, 0, 0, rgba));
  fail_unless (accepts (63, 0, 0, 0, rgba));  /* 1 column left */
  fail_unless (accepts (3, 60, 5, 42, rgba)); /* 1x1 */
  fail_if (accepts (64, 0, 0, 0, rgba));
  fail_if (accepts (40, 30, 0, 0, rgba));
  fail_if (accepts (0, 0, 24, 24, rgba));
  fail_if (accepts (0, 0, 0, 1000, rgba));
  fail_if (accepts (-1, 64, 0, 0, rgba)); /* automatic cannot help */
  fail_if (accepts (G_MAXINT, G_MAXINT, 0, 0, rgba));
  /* device memory only */
  fail_if (
      accepts (1, 0, 0, 0, "video/x-raw,format=RGBA,width=64,height=48,framerate=30/1"));
}
GST_END_TEST;

/* Upstream asking whether 64x48 can be cropped by 70 columns: no, and a
 * warning on the bus says why (negotiation then fails upstream). */
GST_START_TEST (test_nothing_left_warns)
{
  GstElement * e = make_crop ();
  GstBus * bus = testutil::watch_bus (e);
  g_object_set (e, "left", 40, "right", 30, NULL);
  GstPad * sink = gst_element_get_static_pad (e, "sink");
  GstCaps * filter =
      gst_caps_from_string (DEV "format=NV12,width=64,height=48,"
                                "framerate=30/1,multiview-mode={mono,left}");
  for (int i = 0; i < 3; i++) {
    GstCaps * caps = gst_pad_query_caps (sink, filter);
    fail_unless (gst_caps_is_empty (caps));
    gst_caps_unref (caps);
  }
  GstMessage * msg = gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING);
  fail_unless (msg != NULL);
  GError * err = NULL;
  gst_message_parse_warning (msg, &err, NULL);
  fail_unless (strstr (err->message, "Crop leaves nothing of the 64x48 input: left 40 + "
                                     "right 30") != NULL,
      "%s", err->message);
  g_error_free (err);
  gst_message_unref (msg);
  /* once per setting: caps queries repeat */
  fail_unless (gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING) == NULL);
  /* a size that fits: no warning */
  g_object_set (e, "left", 4, NULL);
  GstCaps * caps = gst_pad_query_caps (sink, filter);
  fail_if (gst_caps_is_empty (caps));
  gst_caps_unref (caps);
  fail_unless (gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING) == NULL);
  gst_caps_unref (filter);
  gst_object_unref (sink);
  gst_element_set_bus (e, NULL);
  gst_object_unref (bus);
  gst_object_unref (e);
}
GST_END_TEST;

/* set_caps with the given crop; "" when accepted, else the error posted
 * (or "refused" when none was). */
static std::string
set_caps (gint left, gint right, gint top, gint bottom, const char * in, const char * out,
    gboolean * passthrough = NULL)
{
  GstElement * e = make_crop ();
  GstBus * bus = testutil::watch_bus (e);
  g_object_set (e, "left", left, "right", right, "top", top, "bottom", bottom, NULL);
  GstCaps *ic = gst_caps_from_string (in), *oc = gst_caps_from_string (out);
  gboolean ok =
      GST_BASE_TRANSFORM_GET_CLASS (e)->set_caps (GST_BASE_TRANSFORM (e), ic, oc);
  std::string result;
  if (!ok) {
    result = testutil::pop_messages (bus, GST_MESSAGE_ERROR);
    if (result.empty ())
      result = "refused";
  }
  if (passthrough)
    *passthrough = gst_base_transform_is_passthrough (GST_BASE_TRANSFORM (e));
  gst_caps_unref (ic);
  gst_caps_unref (oc);
  gst_element_set_bus (e, NULL);
  gst_object_unref (bus);
  gst_object_unref (e);
  return result;
}

/* set_caps must accept these caps with this crop. */
static void
expect_set_caps (gint left, gint right, gint top, gint bottom, const char * in,
    const char * out, gboolean * passthrough = NULL)
{
  std::string err = set_caps (left, right, top, bottom, in, out, passthrough);
  fail_unless (err.empty (), "l%d r%d t%d b%d, %s to %s: %s", left, right, top, bottom,
      in, out, err.c_str ());
}

GST_START_TEST (test_set_caps)
{
  const char * in = DEV "format=NV12,width=64,height=48,framerate=30/1";
  gboolean pass = TRUE;
  expect_set_caps (
      3, 5, 1, 2, in, DEV "format=NV12,width=56,height=45,framerate=30/1", &pass);
  fail_if (pass);
  /* no crop is no basetransform passthrough either: an upstream crop meta
   * is still applied (buffers without one go through untouched) */
  expect_set_caps (0, 0, 0, 0, in, in, &pass);
  fail_if (pass);
  /* automatic: the difference split (or taken by the automatic side) */
  expect_set_caps (
      -1, -1, -1, 5, in, DEV "format=NV12,width=51,height=31,framerate=30/1");
  expect_set_caps (-1, -1, -1, -1, in, in);
  /* refused, with a message that says why (the result is kept in a
   * variable: the check macro keeps its pointer) */
  std::string err = set_caps (40, 30, 0, 0, in, DEV "format=NV12,width=1,height=48");
  fail_unless (err.find ("Crop leaves nothing") != std::string::npos, "%s", err.c_str ());
  fail_unless (err.find ("left 40 + right 30") != std::string::npos, "%s", err.c_str ());
  err = set_caps (0, 0, 30, 18, in, DEV "format=NV12,width=64,height=1");
  fail_unless (err.find ("Crop leaves nothing") != std::string::npos, "%s", err.c_str ());
  err = set_caps (-1, 20, 0, 0, in, DEV "format=NV12,width=51,height=48");
  fail_unless (err.find ("Cannot crop a width of 64 to 51") != std::string::npos, "%s",
      err.c_str ());
  err = set_caps (1, 0, 0, 0, in, DEV "format=I420,width=63,height=48");
  fail_unless (!err.empty ());
}
GST_END_TEST;

#define FIELDS "video/x-raw(memory:CUDAStreamsMemory, format:Interlaced),"
#define NV_FIELDS "video/x-raw(memory:CUDAMemory, format:Interlaced),"

/* Alternate fields (one field a buffer): the sides count the field's
 * lines, so the frame's height in the caps moves by twice top + bottom;
 * the format:Interlaced feature stays beside each memory. */
GST_START_TEST (test_alternate_caps)
{
  GstElement * e = make_crop ();
  g_object_set (e, "left", 3, "right", 5, "top", 3, "bottom", 2, NULL);
  expect_caps (e, GST_PAD_SINK,
      FIELDS "format=NV12,width=64,height=48,interlace-mode=alternate",
      FIELDS "format=NV12,width=56,height=38,interlace-mode=alternate");
  expect_caps (e, GST_PAD_SRC,
      FIELDS "format=NV12,width=56,height=37,interlace-mode=alternate",
      FIELDS "format=NV12,width=64,height=47,interlace-mode=alternate");
  expect_caps (e, GST_PAD_SINK,
      FIELDS "format=NV12,width=64,height=[20,48],interlace-mode=alternate",
      FIELDS "format=NV12,width=56,height=[10,38],interlace-mode=alternate");
  /* interleaved fields are frames: their lines are the frame's */
  expect_caps (e, GST_PAD_SINK, DEV "format=NV12,width=64,height=48,interlace-mode=mixed",
      DEV "format=NV12,width=56,height=43,interlace-mode=mixed");
  GstCaps * in = gst_caps_from_string (
      FIELDS "format=NV12,width=64,height=48,interlace-mode=alternate");
  GstCaps * got = GST_BASE_TRANSFORM_GET_CLASS (e)->transform_caps (
      GST_BASE_TRANSFORM (e), GST_PAD_SINK, in, NULL);
  for (guint i = 0; i < gst_caps_get_size (got); i++)
    fail_unless (gst_caps_features_contains (
        gst_caps_get_features (got, i), GST_CAPS_FEATURE_FORMAT_INTERLACED));
  GstCaps * nv = gst_caps_from_string (
      NV_FIELDS "format=NV12,width=56,height=38,interlace-mode=alternate");
  /* in nvcodec's memory too, where built with it */
  const bool built = gst_caps_get_size (got) > 1;
  fail_unless (!built || gst_caps_is_subset (nv, got));
  gst_caps_unref (nv);
  gst_caps_unref (got);
  gst_caps_unref (in);
  gst_object_unref (e);

  /* set_caps: the crop of the field's 24 lines to 19 (caps 48 to 38) */
  const char * fields = FIELDS "format=NV12,width=64,height=48,framerate=30/1,"
                               "interlace-mode=alternate";
  expect_set_caps (3, 5, 3, 2, fields,
      FIELDS "format=NV12,width=56,height=38,framerate=30/1,interlace-mode=alternate");
  expect_set_caps (0, 0, -1, -1, fields,
      FIELDS "format=NV12,width=64,height=40,framerate=30/1,interlace-mode=alternate");
  /* 48 to 43 is a crop of 2.5 field lines */
  std::string err = set_caps (0, 0, 3, 2, fields,
      FIELDS "format=NV12,width=64,height=43,framerate=30/1,interlace-mode=alternate");
  fail_unless (err.find ("Cannot crop a field height of 24 to 22") != std::string::npos,
      "%s", err.c_str ());
  err = set_caps (0, 0, 12, 12, fields,
      FIELDS "format=NV12,width=64,height=1,framerate=30/1,interlace-mode=alternate");
  fail_unless (err.find ("Crop leaves nothing: top 12 + bottom 12 >= field height 24") !=
                   std::string::npos,
      "%s", err.c_str ());
}
GST_END_TEST;

GST_START_TEST (test_offsets_only)
{
  const GstVideoFormatInfo * yuy2 = gst_video_format_get_info (GST_VIDEO_FORMAT_YUY2);
  const GstVideoFormatInfo * uyvy = gst_video_format_get_info (GST_VIDEO_FORMAT_UYVY);
  const GstVideoFormatInfo * nv12 = gst_video_format_get_info (GST_VIDEO_FORMAT_NV12);
  const GstVideoFormatInfo * i420 = gst_video_format_get_info (GST_VIDEO_FORMAT_I420);
  fail_unless (gst_cs_crop_is_offsets_only (yuy2, 0));
  fail_unless (gst_cs_crop_is_offsets_only (yuy2, 2));
  fail_if (gst_cs_crop_is_offsets_only (yuy2, 3));
  fail_if (gst_cs_crop_is_offsets_only (uyvy, 1));
  fail_unless (gst_cs_crop_is_offsets_only (nv12, 3));
  fail_unless (gst_cs_crop_is_offsets_only (i420, 5));
}
GST_END_TEST;

/* P010/P016 (no videocrop reference): NV12's rule with 2-byte samples. */
GST_START_TEST (test_p010_rule)
{
  for (GstVideoFormat f : { GST_VIDEO_FORMAT_P010_10LE, GST_VIDEO_FORMAT_P016_LE }) {
    GstVideoInfo info;
    gst_video_info_set_format (&info, f, 63, 47);
    GstCsCropPlane planes[GST_VIDEO_MAX_PLANES];
    fail_unless (gst_cs_crop_planes (&info, 3, 5, 55, 41, planes));
    fail_unless_equals_uint64 (planes[0].offset, 5 * info.stride[0] + 3 * 2);
    fail_unless_equals_uint64 (planes[0].row_bytes, 55 * 2);
    fail_unless_equals_int (planes[0].rows, 41);
    /* chroma pair 1 (of column 3), chroma row 2 (of row 5) */
    fail_unless_equals_uint64 (planes[1].offset, 2 * info.stride[1] + 1 * 4);
    fail_unless_equals_uint64 (planes[1].row_bytes, 28 * 4); /* 28 pairs for 55 */
    fail_unless_equals_int (planes[1].rows, 21);
    fail_unless_equals_int (planes[1].shift_end, 0);
  }
}
GST_END_TEST;

/* --- the arithmetic against CPU videocrop ----------------------------- */

/* What a GPU copy with these planes produces, done on the CPU. */
static GstBuffer *
apply_on_cpu (GstBuffer * in, const GstVideoInfo * in_info, guint x, guint y,
    const GstVideoInfo * out_info)
{
  GstCsCropPlane planes[GST_VIDEO_MAX_PLANES];
  gst_cs_crop_planes (in_info, x, y, out_info->width, out_info->height, planes);
  GstBuffer * out = gst_buffer_new_allocate (NULL, out_info->size, NULL);
  GstMapInfo im, om;
  gst_buffer_map (in, &im, GST_MAP_READ);
  gst_buffer_map (out, &om, GST_MAP_WRITE);
  memset (om.data, 0, om.size);
  for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES (out_info); p++) {
    const GstCsCropPlane & cp = planes[p];
    for (guint r = 0; r < cp.rows; r++) {
      const guint8 * s =
          im.data + in_info->offset[p] + cp.offset + (gsize)r * in_info->stride[p];
      guint8 * d = om.data + out_info->offset[p] + (gsize)r * out_info->stride[p];
      for (gsize b = 0; b < cp.row_bytes; b++) {
        bool shift =
            b >= cp.shift_first && b < cp.shift_end && ((b - cp.shift_first) & 1) == 0;
        d[b] = s[shift ? b + 2 : b];
      }
    }
  }
  gst_buffer_unmap (in, &im);
  gst_buffer_unmap (out, &om);
  return out;
}

struct Crop {
  gint l, r, t, b;
};

/* CPU videocrop's crop of random frames (through a harness) against
 * apply_on_cpu's, byte for byte. */
static void
check_model_against_videocrop (const char * format, gint w, gint h, Crop c)
{
  gchar * what =
      g_strdup_printf ("%s %dx%d l%d r%d t%d b%d", format, w, h, c.l, c.r, c.t, c.b);
  GstVideoInfo in_info, out_info;
  GstVideoFormat f = gst_video_format_from_string (format);
  gst_video_info_set_format (&in_info, f, w, h);
  gst_video_info_set_format (&out_info, f, w - c.l - c.r, h - c.t - c.b);
  GstHarness * ref = gst_harness_new ("videocrop");
  g_object_set (ref->element, "left", c.l, "right", c.r, "top", c.t, "bottom", c.b, NULL);
  gchar * caps = g_strdup_printf (
      "video/x-raw,format=%s,width=%d,height=%d,framerate=30/1", format, w, h);
  gst_harness_set_src_caps_str (ref, caps);
  g_free (caps);
  std::vector<GstBuffer *> inputs;
  for (int i = 0; i < 3; i++) {
    GstBuffer * buf = testutil::random_buffer (in_info.size, 77 * i + w + h + c.l);
    GST_BUFFER_PTS (buf) = i * GST_SECOND / 30;
    inputs.push_back (gst_buffer_ref (buf));
    fail_unless_equals_int (gst_harness_push (ref, buf), GST_FLOW_OK);
  }
  Captured out;
  testutil::pull_frames (ref, inputs.size (), &out, what);
  fail_unless_equals_int (gst_harness_buffers_received (ref), inputs.size ());
  for (size_t i = 0; i < inputs.size (); i++) {
    GstBuffer * mine = apply_on_cpu (inputs[i], &in_info, c.l, c.t, &out_info);
    gchar * frame = g_strdup_printf ("%s: frame %zu", what, i);
    testutil::assert_cropped_equal (
        out.buffers[i], &out.infos[i], mine, &out_info, frame);
    g_free (frame);
    gst_buffer_unref (mine);
  }
  for (GstBuffer * b : inputs)
    gst_buffer_unref (b);
  gst_harness_teardown (ref);
  g_free (what);
}

GST_START_TEST (test_arithmetic_matches_videocrop)
{
  struct Size {
    gint w, h;
  };
  for (const char * f : testutil::videocrop_formats) {
    for (Size s : { Size{ 64, 48 }, Size{ 63, 47 }, Size{ 33, 17 } }) {
      const Crop crops[] = {
        { 0, 0, 0, 0 }, { 3, 5, 1, 2 }, { 1, 1, 1, 1 }, { 2, 2, 2, 2 }, { 5, 2, 7, 3 },
        { 3, 0, 3, 0 }, { 0, 1, 0, 1 }, { 4, s.w - 4 - 2, 2, s.h - 2 - 2 }, /* 2x2 */
        { 3, s.w - 3 - 1, 5, s.h - 5 - 1 }, /* 1x1 at an odd origin */
        { s.w - 1, 0, s.h - 1, 0 },         /* the last pixel */
        { 0, s.w - 1, 0, s.h - 1 },         /* the first pixel */
      };
      for (Crop c : crops)
        check_model_against_videocrop (f, s.w, s.h, c);
    }
  }
}
GST_END_TEST;

static Suite *
crop_suite (void)
{
  Suite * s = suite_create ("crop");
  TCase * tc = tcase_create ("general");
  tcase_set_timeout (tc, 300);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_registration);
  tcase_add_test (tc, test_properties);
  tcase_add_test (tc, test_pad_templates);
  tcase_add_test (tc, test_caps_transform);
  tcase_add_test (tc, test_nvcodec_caps);
  tcase_add_test (tc, test_nothing_left_is_refused);
  tcase_add_test (tc, test_nothing_left_warns);
  tcase_add_test (tc, test_set_caps);
  tcase_add_test (tc, test_alternate_caps);
  tcase_add_test (tc, test_offsets_only);
  tcase_add_test (tc, test_p010_rule);
  tcase_add_test (tc, test_arithmetic_matches_videocrop);
  return s;
}

GST_CHECK_MAIN (crop);

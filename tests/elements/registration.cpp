/* SPDX-License-Identifier: LGPL-2.1-or-later */
// Without a GPU: the elements register, are fully described, negotiate caps
// and refuse to start with an error a person can act on.
#include <gst/check/gstcheck.h>
#include <gst/base/gstbasetransform.h>

#include <algorithm>
#include <string>
#include <vector>

#include "base/gstcscaps.h"
#include "gstcsvideo-private.h"
#include "testutil.h"

static GstElement *
make (const char * factory)
{
  return testutil::make_ours (factory);
}

GST_START_TEST (test_metadata_and_properties)
{
  for (const char * name : { "cudaupload", "cudadownload" }) {
    GstElement * e = make (name);
    GstElementFactory * f = gst_element_get_factory (e);
    fail_unless (strstr (gst_element_factory_get_metadata (f, GST_ELEMENT_METADATA_KLASS),
                     "Video") != NULL);
    GParamSpec * dev = g_object_class_find_property (G_OBJECT_GET_CLASS (e), "device-id");
    fail_unless (dev != NULL);
    fail_unless_equals_int (G_PARAM_SPEC_INT (dev)->default_value, -1);
    fail_unless (
        g_param_spec_get_blurb (dev) && strlen (g_param_spec_get_blurb (dev)) > 20);
    GParamSpec * waits =
        g_object_class_find_property (G_OBJECT_GET_CLASS (e), "host-waits");
    fail_unless (waits != NULL && !(waits->flags & G_PARAM_WRITABLE));
    guint64 n = 1;
    g_object_get (e, "host-waits", &n, NULL);
    fail_unless_equals_uint64 (n, 0);
    gst_object_unref (e);
  }
  GstElement * down = make ("cudadownload");
  GParamSpec * p =
      g_object_class_find_property (G_OBJECT_GET_CLASS (down), "max-in-flight");
  fail_unless (p != NULL);
  fail_unless_equals_int (G_PARAM_SPEC_INT (p)->default_value, -1); /* auto */
  fail_unless_equals_int (G_PARAM_SPEC_INT (p)->minimum, -1);
  GParamSpec * spin =
      g_object_class_find_property (G_OBJECT_GET_CLASS (down), "spin-wait");
  fail_unless (spin != NULL && !G_PARAM_SPEC_BOOLEAN (spin)->default_value);
  fail_unless (p->flags & GST_PARAM_MUTABLE_PLAYING);
  gst_object_unref (down);
}
GST_END_TEST;

/* Whether a structure of the pad template is in `feature`'s memory (our
 * device memory, nvcodec's), or with want = false, in system memory. */
static bool
template_has (GstElement * e, const char * pad, const char * feature, bool want = true)
{
  GstPadTemplate * t =
      gst_element_class_get_pad_template (GST_ELEMENT_GET_CLASS (e), pad);
  GstCaps * caps = gst_pad_template_get_caps (t);
  bool found = false;
  for (guint i = 0; i < gst_caps_get_size (caps); i++) {
    GstCapsFeatures * f = gst_caps_get_features (caps, i);
    found |= want
                 ? gst_caps_features_contains (f, feature)
                 : gst_caps_features_is_equal (f, GST_CAPS_FEATURES_MEMORY_SYSTEM_MEMORY);
  }
  gst_caps_unref (caps);
  return found;
}

static bool
template_has_feature (GstElement * e, const char * pad, bool device)
{
  return template_has (e, pad, GST_CAPS_FEATURE_MEMORY_CS, device);
}

GST_START_TEST (test_pad_templates)
{
  GstElement *up = make ("cudaupload"), *down = make ("cudadownload");
  fail_unless (template_has_feature (up, "sink", false)); /* system memory in */
  fail_unless (template_has_feature (up, "src", true));
  fail_unless (!template_has_feature (up, "src", false)); /* device only out */
  fail_unless (template_has_feature (down, "sink", true));
  fail_unless (!template_has_feature (down, "src", true)); /* system only out */
  gst_object_unref (up);
  gst_object_unref (down);
}
GST_END_TEST;

/* The formats of the pad template `pad` of `factory`: those of each
 * video/x-raw structure in system memory or ours (not nvcodec's, whose
 * GstCudaMemory allocates fewer), which must all be the same. */
static std::vector<std::string>
template_formats (const char * factory, const char * pad)
{
  GstElementFactory * f = gst_element_factory_find (factory);
  fail_unless (f != NULL, "no %s", factory);
  GstElement * e = gst_element_factory_create (f, NULL);
  GstPadTemplate * t =
      gst_element_class_get_pad_template (GST_ELEMENT_GET_CLASS (e), pad);
  fail_unless (t != NULL, "%s has no %s template", factory, pad);
  GstCaps * caps = gst_pad_template_get_caps (t);
  std::vector<std::string> out;
  bool first = true;
  for (guint i = 0; i < gst_caps_get_size (caps); i++) {
    GstCaps * one = gst_caps_copy_nth (caps, i);
    std::vector<std::string> formats = testutil::caps_formats (one);
    gst_caps_unref (one);
    if (gst_caps_features_contains (
            gst_caps_get_features (caps, i), "memory:CUDAMemory")) {
      /* GstCudaMemory's own 18 (no gray, no AYUV) */
      fail_unless (formats.size () == 18, "%s %s: %zu formats in nvcodec memory", factory,
          pad, formats.size ());
      continue;
    }
    if (formats.empty ())
      continue; /* other/tensors */
    fail_unless (first || formats == out, "%s %s: structure %u differs", factory, pad, i);
    out = formats;
    first = false;
  }
  gst_caps_unref (caps);
  gst_object_unref (e);
  gst_object_unref (f);
  return out;
}

static std::string
joined (const std::vector<std::string> & v)
{
  std::string s;
  for (const std::string & f : v)
    s += (s.empty () ? "" : " ") + f;
  return s;
}

/* Every element that moves or crops frames takes every raw format this
 * GStreamer describes without tiling or complex packing (listed here from
 * gst_video_format_get_info, so a newer GStreamer's additions show up),
 * in every structure of its templates; cudabatch reads its frames as the
 * converter does, so it takes the converter's. */
GST_START_TEST (test_template_formats)
{
  std::vector<std::string> plain;
  for (const char * f : testutil::plain_formats ())
    plain.push_back (f);
  std::sort (plain.begin (), plain.end ());
  g_print ("%zu formats: %s\n", plain.size (), joined (plain).c_str ());
  fail_unless (plain.size () >= 99, "%zu formats", plain.size ());
  const std::pair<const char *, const char *> pads[] = { { "cudastreamsupload", "sink" },
    { "cudastreamsupload", "src" }, { "cudastreamsdownload", "sink" },
    { "cudastreamsdownload", "src" }, { "cudastreamscrop", "sink" },
    { "cudastreamscrop", "src" }, { "cudastreamsipcsink", "sink" },
    { "cudastreamsipcsrc", "src" } };
  for (const auto & [factory, pad] : pads) {
    const std::vector<std::string> got = template_formats (factory, pad);
    fail_unless (got == plain, "%s %s takes %zu formats: %s", factory, pad, got.size (),
        joined (got).c_str ());
  }
  fail_unless (template_formats ("cudastreamsbatch", "sink_%u") ==
               template_formats ("cudastreamsconvertscale", "sink"));
}
GST_END_TEST;

/* Built with GStreamer's CUDA library, cudacrop and cudadownload take
 * nvcodec's memory, and cudaupload and cudacrop make it; ours comes first
 * (preferred). Without it, none of them lists it. */
GST_START_TEST (test_nvcodec_templates)
{
  GstElement *up = make ("cudaupload"), *crop = make ("cudacrop"),
             *down = make ("cudadownload");
  const char * nv = "memory:CUDAMemory";
  const bool built = template_has (crop, "sink", nv);
  g_print ("nvcodec interop: %s\n", built ? "built" : "not built");
  fail_unless_equals_int (template_has (crop, "src", nv), built);
  fail_unless_equals_int (template_has (down, "sink", nv), built);
  fail_unless_equals_int (template_has (up, "src", nv), built);
  fail_unless (!template_has (up, "sink", nv)); /* system memory in only */
  for (GstElement * e : { up, crop }) {
    GstCaps * caps = gst_pad_template_get_caps (
        gst_element_class_get_pad_template (GST_ELEMENT_GET_CLASS (e), "src"));
    fail_unless (gst_caps_features_contains (
        gst_caps_get_features (caps, 0), GST_CAPS_FEATURE_MEMORY_CS));
    gst_caps_unref (caps);
  }
  gst_object_unref (up);
  gst_object_unref (crop);
  gst_object_unref (down);
}
GST_END_TEST;

/* The same elements under names no other plugin registers. */
GST_START_TEST (test_unambiguous_names)
{
  const char * pairs[][2] = { { "cudaupload", "cudastreamsupload" },
    { "cudacrop", "cudastreamscrop" }, { "cudadownload", "cudastreamsdownload" } };
  for (auto & p : pairs) {
    GstElementFactory * a = gst_element_factory_find (p[0]);
    GstElementFactory * b = gst_element_factory_find (p[1]);
    fail_unless (a && b, "%s / %s not registered", p[0], p[1]);
    fail_unless_equals_string (
        gst_plugin_feature_get_plugin_name (GST_PLUGIN_FEATURE (b)), "cudastreams");
    fail_unless (gst_element_factory_get_element_type (a) ==
                 gst_element_factory_get_element_type (b));
    gst_object_unref (a);
    gst_object_unref (b);
  }
}
GST_END_TEST;

static GstCaps *
query_src_caps_for (const char * factory, const char * sink_caps)
{
  GstElement * e = make (factory);
  GstCaps * in = gst_caps_from_string (sink_caps);
  GstCaps * caps = GST_BASE_TRANSFORM_GET_CLASS (e)->transform_caps (
      GST_BASE_TRANSFORM (e), GST_PAD_SINK, in, NULL);
  gst_caps_unref (in);
  gst_object_unref (e);
  return caps;
}

GST_START_TEST (test_caps_transform)
{
  GstCaps * c = query_src_caps_for (
      "cudaupload", "video/x-raw,format=NV12,width=64,height=48,framerate=30/1");
  fail_unless (gst_cs_caps_are_device (c));
  GstStructure * s = gst_caps_get_structure (c, 0);
  fail_unless_equals_string (gst_structure_get_string (s, "format"), "NV12");
  gint w = 0;
  fail_unless (gst_structure_get_int (s, "width", &w) && w == 64);
  gst_caps_unref (c);

  c = query_src_caps_for ("cudadownload",
      "video/x-raw(memory:CUDAStreamsMemory),format=RGBA,width=64,height=48,framerate=30/"
      "1");
  fail_unless (!gst_cs_caps_are_device (c));
  fail_unless (gst_caps_get_size (c) >= 1);
  gst_caps_unref (c);
}
GST_END_TEST;

/* Whether `pad`'s template of `factory` allows `caps`. */
static bool
template_allows (const char * factory, const char * pad, const char * caps)
{
  GstElement * e = make (factory);
  GstCaps * t = gst_pad_template_get_caps (
      gst_element_class_get_pad_template (GST_ELEMENT_GET_CLASS (e), pad));
  GstCaps * c = gst_caps_from_string (caps);
  const bool ok = gst_caps_can_intersect (t, c);
  gst_caps_unref (c);
  gst_caps_unref (t);
  gst_object_unref (e);
  return ok;
}

#define FIELD_CAPS \
  "format=NV12,width=64,height=48,framerate=30/1,interlace-mode=alternate"

/* Alternate fields (interlace-mode=alternate, one field a buffer), which
 * GStreamer describes with the format:Interlaced feature beside the
 * memory's: every element's pads allow them in the memories they allow
 * frames in (nvcodec's too, where built with it), and each caps transform
 * keeps the feature while it moves the memory. */
GST_START_TEST (test_alternate_fields)
{
  const char * sys = "video/x-raw(format:Interlaced)," FIELD_CAPS;
  const char * dev =
      "video/x-raw(memory:CUDAStreamsMemory, format:Interlaced)," FIELD_CAPS;
  const char * nv = "video/x-raw(memory:CUDAMemory, format:Interlaced)," FIELD_CAPS;
  GstElement * crop = make ("cudastreamscrop");
  const bool built = template_has (crop, "sink", "memory:CUDAMemory");
  gst_object_unref (crop);
  const struct {
    const char *factory, *pad, *caps;
    bool allowed;
  } cases[] = {
    { "cudastreamsupload", "sink", sys, true },
    { "cudastreamsupload", "sink", dev, true },
    { "cudastreamsupload", "src", dev, true },
    { "cudastreamsupload", "src", nv, built },
    { "cudastreamsupload", "src", sys, false },
    { "cudastreamscrop", "sink", dev, true },
    { "cudastreamscrop", "src", dev, true },
    { "cudastreamscrop", "sink", nv, built },
    { "cudastreamscrop", "src", nv, built },
    { "cudastreamscrop", "sink", sys, false },
    { "cudastreamsconvertscale", "sink", dev, true },
    { "cudastreamsconvertscale", "src", dev, true },
    { "cudastreamsconvertscale", "sink", nv, built },
    { "cudastreamsconvertscale", "src", nv, built },
    { "cudastreamsdownload", "sink", dev, true },
    { "cudastreamsdownload", "sink", nv, built },
    { "cudastreamsdownload", "sink", sys, true },
    { "cudastreamsdownload", "src", sys, true },
    { "cudastreamsdownload", "src", dev, false },
  };
  for (const auto & c : cases)
    fail_unless (template_allows (c.factory, c.pad, c.caps) == c.allowed, "%s %s: %s %s",
        c.factory, c.pad, c.caps, c.allowed ? "refused" : "allowed");

  const struct {
    const char *factory, *caps, *memory; /* the memory of the first structure out */
  } transforms[] = {
    { "cudastreamsupload", sys, GST_CAPS_FEATURE_MEMORY_CS },
    { "cudastreamscrop", dev, GST_CAPS_FEATURE_MEMORY_CS },
    { "cudastreamsconvertscale", dev, GST_CAPS_FEATURE_MEMORY_CS },
    { "cudastreamsdownload", dev, NULL },
  };
  for (const auto & t : transforms) {
    GstCaps * out = query_src_caps_for (t.factory, t.caps);
    gchar * s = gst_caps_to_string (out);
    fail_unless (gst_caps_get_size (out) >= 1, "%s: %s", t.factory, s);
    for (guint i = 0; i < gst_caps_get_size (out); i++) {
      GstCapsFeatures * f = gst_caps_get_features (out, i);
      fail_unless (gst_caps_features_contains (f, GST_CAPS_FEATURE_FORMAT_INTERLACED) &&
                       gst_caps_features_get_size (f) == (t.memory || i > 0 ? 2u : 1u),
          "%s: %s", t.factory, s);
    }
    if (t.memory)
      fail_unless (
          gst_caps_features_contains (gst_caps_get_features (out, 0), t.memory), "%s", s);
    g_free (s);
    gst_caps_unref (out);
  }
}
GST_END_TEST;

static gboolean
accepts (const char * factory, const char * caps_str)
{
  GstElement * e = make (factory);
  gboolean ok = testutil::sink_accepts (e, caps_str);
  gst_object_unref (e);
  return ok;
}

GST_START_TEST (test_absurd_caps_refused)
{
  fail_unless (accepts (
      "cudaupload", "video/x-raw,format=NV12,width=64,height=48,framerate=30/1"));
  fail_if (
      accepts ("cudaupload", "video/x-raw,format=NV12,width=0,height=48,framerate=30/1"));
  fail_if (accepts (
      "cudaupload", "video/x-raw,format=RGBA,width=100000,height=48,framerate=30/1"));
  fail_if (accepts (
      "cudaupload", "video/x-raw,format=UYVP,width=64,height=48,framerate=30/1"));
  fail_if (accepts ("cudadownload",
      "video/x-raw(memory:CUDAStreamsMemory),format=RGBA,width=64,height=0,framerate=30/"
      "1"));
}
GST_END_TEST;

/* Without a GPU: a clear "No CUDA device" error. With one: a device ordinal
 * past the last gives a clear error too. */
GST_START_TEST (test_start_fails_clearly)
{
  bool gpu = testutil::gpu_available (NULL);
  GstElement * pipeline = gst_parse_launch (
      gpu ? "videotestsrc num-buffers=1 ! cudaupload device-id=999 ! fakesink"
          : "videotestsrc num-buffers=1 ! cudaupload ! cudadownload ! fakesink",
      NULL);
  fail_unless (pipeline != NULL);
  std::string err = testutil::run_to_end (pipeline, 10 * GST_SECOND).error;
  GST_INFO ("error: %s", err.c_str ());
  fail_unless (err.find (gpu ? "CUDA device 999 does not exist"
                             : "No CUDA device available") != std::string::npos,
      "unexpected: %s", err.c_str ());
  gst_object_unref (pipeline);
}
GST_END_TEST;

static Suite *
registration_suite (void)
{
  Suite * s = suite_create ("registration");
  TCase * tc = tcase_create ("general");
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_metadata_and_properties);
  tcase_add_test (tc, test_pad_templates);
  tcase_add_test (tc, test_template_formats);
  tcase_add_test (tc, test_nvcodec_templates);
  tcase_add_test (tc, test_unambiguous_names);
  tcase_add_test (tc, test_caps_transform);
  tcase_add_test (tc, test_alternate_fields);
  tcase_add_test (tc, test_absurd_caps_refused);
  tcase_add_test (tc, test_start_fails_clearly);
  return s;
}

GST_CHECK_MAIN (registration);

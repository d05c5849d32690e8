/* SPDX-License-Identifier: LGPL-2.1-or-later */
// On a GPU (and on the CUDA stand-in): the metas of a frame come out of our
// elements as they come out of GStreamer's CPU elements that do the same to
// the frame (videoconvertscale, videocrop, videoflip), whichever GStreamer
// runs: regions of interest and analytics boxes scaled, moved by a crop,
// turned, or dropped; metas tagged "video" alone or not at all kept; those
// with size, orientation or colour tags that a transform cannot carry
// dropped. cudaupload and cudadownload copy every meta of the picture.
#include <gst/check/gstcheck.h>

#include <algorithm>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>

#include "config.h"
#if HAVE_GST_ANALYTICS_OD
#include <gst/analytics/analytics.h>
#endif

#include "testutil.h"

/* --- the metas -------------------------------------------------------- */

/* Metas of the test, one per set of tags, each with a transform that can
 * only copy (as most metas of applications): a transform of another kind
 * drops them. */
struct TestMetaKind {
  const char * name;
  const gchar * tags[3];
  const GstMetaInfo * info;
};

static TestMetaKind test_metas[] = {
  { "untagged", { NULL }, NULL },
  { "video", { GST_META_TAG_VIDEO_STR, NULL }, NULL },
  { "video+size", { GST_META_TAG_VIDEO_STR, GST_META_TAG_VIDEO_SIZE_STR, NULL }, NULL },
  { "video+orientation",
      { GST_META_TAG_VIDEO_STR, GST_META_TAG_VIDEO_ORIENTATION_STR, NULL }, NULL },
  { "video+colorspace",
      { GST_META_TAG_VIDEO_STR, GST_META_TAG_VIDEO_COLORSPACE_STR, NULL }, NULL },
};

static gboolean
test_meta_init (GstMeta *, gpointer, GstBuffer *)
{
  return TRUE;
}

static gboolean
test_meta_transform (GstBuffer * dest, GstMeta * meta, GstBuffer *, GQuark type, gpointer)
{
  if (!GST_META_TRANSFORM_IS_COPY (type))
    return FALSE;
  return gst_buffer_add_meta (dest, meta->info, NULL) != NULL;
}

static void
register_test_metas ()
{
  for (auto & k : test_metas) {
    if (k.info)
      continue;
    gchar * api_name = g_strdup_printf ("MetasTest_%s_API", k.name);
    gchar * impl_name = g_strdup_printf ("MetasTest_%s", k.name);
    g_strdelimit (api_name, "+", '_');
    g_strdelimit (impl_name, "+", '_');
    GType api = gst_meta_api_type_register (api_name, (const gchar **)k.tags);
    k.info = gst_meta_register (
        api, impl_name, sizeof (GstMeta), test_meta_init, NULL, test_meta_transform);
    g_free (api_name);
    g_free (impl_name);
  }
}

static const char *
test_meta_name (const GstMeta * meta)
{
  for (const auto & k : test_metas)
    if (k.info && meta->info->api == k.info->api)
      return k.name;
  return NULL;
}

/* A box as x,y wxh. */
struct Box {
  gint x, y, w, h;
};

static std::string
box_line (const char * what, const Box & b)
{
  gchar * s = g_strdup_printf ("%s %d,%d %dx%d", what, b.x, b.y, b.w, b.h);
  std::string line (s);
  g_free (s);
  return line;
}

/* `boxes` as regions of interest ("face") and, where GStreamer has them
 * (1.24), analytics object-detection boxes ("car"), plus one meta of each
 * test kind. */
static void
add_metas (GstBuffer * buf, const std::vector<Box> & boxes)
{
  register_test_metas ();
  for (const Box & b : boxes)
    gst_buffer_add_video_region_of_interest_meta (buf, "face", b.x, b.y, b.w, b.h);
#if HAVE_GST_ANALYTICS_OD
  GstAnalyticsRelationMeta * rmeta = gst_buffer_add_analytics_relation_meta (buf);
  for (const Box & b : boxes) {
    GstAnalyticsODMtd od;
    fail_unless (gst_analytics_relation_meta_add_od_mtd (
        rmeta, g_quark_from_static_string ("car"), b.x, b.y, b.w, b.h, 0.5f, &od));
  }
#endif
  for (const auto & k : test_metas)
    gst_buffer_add_meta (buf, k.info, NULL);
}

/* The metas of `buf` we look at, a line each, sorted (every copy of a
 * buffer lists its metas in the opposite order). */
static std::vector<std::string>
describe (GstBuffer * buf)
{
  std::vector<std::string> lines;
  gpointer state = NULL;
  while (GstMeta * meta = gst_buffer_iterate_meta (buf, &state)) {
    if (meta->info->api == GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE) {
      auto * roi = (GstVideoRegionOfInterestMeta *)meta;
      lines.push_back (box_line (g_quark_to_string (roi->roi_type),
          Box{ (gint)roi->x, (gint)roi->y, (gint)roi->w, (gint)roi->h }));
    } else if (meta->info->api == GST_VIDEO_CROP_META_API_TYPE) {
      lines.push_back ("crop meta");
    } else if (const char * name = test_meta_name (meta)) {
      lines.push_back (std::string ("meta ") + name);
    }
  }
#if HAVE_GST_ANALYTICS_OD
  if (auto * rmeta = gst_buffer_get_analytics_relation_meta (buf)) {
    GstAnalyticsODMtd od;
    state = NULL;
    while (gst_analytics_relation_meta_iterate (
        rmeta, &state, gst_analytics_od_mtd_get_mtd_type (), &od)) {
      Box b;
      gfloat conf;
      fail_unless (
          gst_analytics_od_mtd_get_location (&od, &b.x, &b.y, &b.w, &b.h, &conf));
      lines.push_back (
          box_line (g_quark_to_string (gst_analytics_od_mtd_get_obj_type (&od)), b));
    }
  }
#endif
  std::sort (lines.begin (), lines.end ());
  return lines;
}

static std::string
joined (const std::vector<std::string> & lines)
{
  std::string s;
  for (const auto & l : lines)
    s += (s.empty () ? "" : "; ") + l;
  return s.empty () ? "(none)" : s;
}

/* --- running frames through elements ---------------------------------- */

/* Whether the GStreamer that runs transforms metas by matrices: 1.28's
 * videocrop, videoflip and videoconvertscale (crops, turns, borders). */
static bool
matrix_transforms ()
{
  guint major, minor, micro, nano;
  gst_version (&major, &minor, &micro, &nano);
  return major > 1 || minor >= 28;
}

static bool
have_factory (const char * name)
{
  GstElementFactory * f = gst_element_factory_find (name);
  if (f)
    gst_object_unref (f);
  return f != NULL;
}

/* Whether every element of the launch line `launch` exists: GStreamer 1.20
 * has no videoconvertscale (videoconvert and videoscale apart, which treat
 * colour metas otherwise), so there the callers' fixed figures alone stand. */
static bool
have_factories (const char * launch)
{
  gchar ** parts = g_strsplit (launch, "!", -1);
  bool all = true;
  for (gchar ** p = parts; *p && all; ++p) {
    gchar ** words = g_strsplit (g_strstrip (*p), " ", 2);
    all = !words[0] || !*words[0] || have_factory (words[0]);
    g_strfreev (words);
  }
  g_strfreev (parts);
  return all;
}

/* A path of cudacrop's output: what its downstream is told it can read. */
enum class CropPath { AS_IS, OFFSETS, PACKED };

/* What leaves the element named "crop", where there is one. */
static GstPadProbeReturn
remember_crop_output (GstPad *, GstPadProbeInfo * info, gpointer user)
{
  *static_cast<std::vector<std::string> *> (user) =
      describe (GST_PAD_PROBE_INFO_BUFFER (info));
  return GST_PAD_PROBE_OK;
}

/* One frame of `in_caps` with `boxes` and the test metas through the bin
 * `launch` into `out_caps`: the metas that come out. */
static std::vector<std::string>
run_one (const char * launch, const char * in_caps, const char * out_caps,
    const std::vector<Box> & boxes, CropPath path = CropPath::AS_IS,
    std::vector<std::string> * after_crop = nullptr)
{
  GstHarness * h = gst_harness_new_parse (launch);
  gst_harness_set_live (h, FALSE);
  if (GstElement * crop = gst_bin_get_by_name (GST_BIN (h->element), "crop")) {
    GstPad * src = gst_element_get_static_pad (crop, "src");
    if (path != CropPath::AS_IS)
      testutil::hide_crop_metas (src, path == CropPath::PACKED);
    if (after_crop)
      gst_pad_add_probe (
          src, GST_PAD_PROBE_TYPE_BUFFER, remember_crop_output, after_crop, NULL);
    gst_object_unref (src);
    gst_object_unref (crop);
  }
  gst_harness_set_caps_str (h, in_caps, out_caps);
  GstVideoInfo info;
  GstCaps * caps = gst_caps_from_string (in_caps);
  fail_unless (gst_video_info_from_caps (&info, caps));
  gst_caps_unref (caps);
  GstBuffer * in = testutil::video_frame (&info, testutil::Content::RANDOM, 7);
  add_metas (in, boxes);
  fail_unless_equals_int (gst_harness_push (h, in), GST_FLOW_OK);
  /* cudadownload may keep frames in flight until the end of the stream */
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  GstBuffer * out = gst_harness_pull (h);
  fail_unless (out != NULL, "%s: no frame came out", launch);
  std::vector<std::string> lines = describe (out);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
  return lines;
}

/* Fails unless `got` (of `what`) holds every line of `want` and none of
 * `absent`. */
static void
assert_has (const std::vector<std::string> & got, const std::vector<std::string> & want,
    const std::vector<std::string> & absent, const char * what)
{
  for (const auto & w : want)
    fail_unless (std::find (got.begin (), got.end (), w) != got.end (),
        "%s: no \"%s\" among the metas out: %s", what, w.c_str (), joined (got).c_str ());
  for (const auto & a : absent)
    fail_unless (std::find (got.begin (), got.end (), a) == got.end (),
        "%s: \"%s\" among the metas out: %s", what, a.c_str (), joined (got).c_str ());
}

/* Ours (`launch`) against GStreamer's (`reference`, where its elements are
 * there) on one frame: the same metas out. */
static std::vector<std::string>
check_same (const char * launch, const char * reference, const char * in_caps,
    const char * out_caps, const std::vector<Box> & boxes,
    CropPath path = CropPath::AS_IS, std::vector<std::string> * after_crop = nullptr)
{
  std::vector<std::string> ours =
      run_one (launch, in_caps, out_caps, boxes, path, after_crop);
  if (reference && have_factories (reference)) {
    std::vector<std::string> theirs = run_one (reference, in_caps, out_caps, boxes);
    fail_unless (ours == theirs, "%s: metas out %s; %s: %s", launch,
        joined (ours).c_str (), reference, joined (theirs).c_str ());
  }
  return ours;
}

/* The lines of `roi` as regions of interest, and of `od` as analytics
 * boxes where the test has them. */
static std::vector<std::string>
box_lines (const std::vector<Box> & roi, const std::vector<Box> & od)
{
  std::vector<std::string> lines;
  for (const Box & b : roi)
    lines.push_back (box_line ("face", b));
#if HAVE_GST_ANALYTICS_OD
  for (const Box & b : od)
    lines.push_back (box_line ("car", b));
#else
  (void)od;
#endif
  return lines;
}

static std::vector<std::string>
meta_lines (std::initializer_list<const char *> names)
{
  std::vector<std::string> lines;
  for (const char * n : names)
    lines.push_back (std::string ("meta ") + n);
  return lines;
}

static std::vector<std::string>
operator+ (std::vector<std::string> a, const std::vector<std::string> & b)
{
  a.insert (a.end (), b.begin (), b.end ());
  return a;
}

#define CAPS(fmt, w, h) \
  "video/x-raw,format=" fmt ",width=" #w ",height=" #h \
  ",framerate=30/1,pixel-aspect-ratio=1/1"

#define UP "cudastreamsupload ! "
#define DOWN " ! cudastreamsdownload"

/* --- cudaconvertscale ------------------------------------------------- */

/* videoscale's own test: a region of 2x3 at (0,1) of 4x4 is 4x6 at (0,2)
 * of 8x8. Metas tagged "video" alone or not at all stay; one tagged with
 * the size that cannot be scaled goes, and so does a colour one. */
GST_START_TEST (test_scale)
{
  auto got = check_same (UP "cudastreamsconvertscale" DOWN, "videoconvertscale",
      CAPS ("GRAY8", 4, 4), CAPS ("GRAY8", 8, 8), { { 0, 1, 2, 3 } });
  assert_has (got,
      box_lines ({ { 0, 2, 4, 6 } }, { { 0, 2, 4, 6 } }) +
          meta_lines ({ "untagged", "video", "video+orientation" }),
      box_lines ({ { 0, 1, 2, 3 } }, { { 0, 1, 2, 3 } }) +
          meta_lines ({ "video+size", "video+colorspace" }),
      "scale");
}
GST_END_TEST;

/* A new format, the same size: the boxes stay where they are. (The same
 * caps: the frame goes through untouched, every meta with it.) */
GST_START_TEST (test_format_only)
{
  for (const char * out :
      { CAPS ("RGBA", 4, 4), CAPS ("I420", 4, 4), CAPS ("GRAY8", 4, 4) }) {
    auto got = check_same (UP "cudastreamsconvertscale" DOWN, "videoconvertscale",
        CAPS ("GRAY8", 4, 4), out, { { 0, 1, 2, 3 } });
    assert_has (got,
        box_lines ({ { 0, 1, 2, 3 } }, { { 0, 1, 2, 3 } }) +
            meta_lines ({ "untagged", "video", "video+orientation" }),
        out == std::string (CAPS ("GRAY8", 4, 4)) ? std::vector<std::string> ()
                                                  : meta_lines ({ "video+colorspace" }),
        out);
  }
}
GST_END_TEST;

/* Borders: 1.28 puts the box in the picture between them (a matrix);
 * before, GStreamer scales it to the whole frame, and so do we. */
GST_START_TEST (test_letterbox)
{
  auto got = check_same (UP "cudastreamsconvertscale" DOWN, "videoconvertscale",
      CAPS ("GRAY8", 8, 4), CAPS ("GRAY8", 8, 8), { { 1, 1, 3, 1 } });
  const Box b = matrix_transforms () ? Box{ 1, 3, 3, 1 } : Box{ 1, 2, 3, 2 };
  assert_has (got, box_lines ({ b }, { b }), {}, "letterbox");
}
GST_END_TEST;

/* What 1.28's videoflip makes of a box of 3x1 at (1,2) of 8x6, per
 * orientation (its matrices map pixel centres, so a box lands a pixel
 * before where its pixels went in some). */
static const struct {
  const char * nick;
  Box box;
} turned[] = {
  { "90r", { 2, 1, 1, 3 } },
  { "180", { 3, 2, 3, 1 } },
  { "90l", { 2, 3, 1, 3 } },
  { "horiz", { 3, 2, 3, 1 } },
  { "vert", { 1, 2, 3, 1 } },
  { "ul-lr", { 2, 1, 1, 3 } },
  { "ur-ll", { 2, 3, 1, 3 } },
};

/* Turns and flips: as videoflip then videoconvertscale (1.28: the boxes
 * turned; before, dropped with everything tagged other than "video"). */
GST_START_TEST (test_orientations)
{
  const bool flip = have_factory ("videoflip");
  for (const auto & t : turned) {
    const bool swap = g_str_has_prefix (t.nick, "90") || g_str_has_prefix (t.nick, "u");
    gchar * ours =
        g_strdup_printf (UP "cudastreamsconvertscale video-direction=%s" DOWN, t.nick);
    gchar * reference =
        g_strdup_printf ("videoflip video-direction=%s ! videoconvertscale", t.nick);
    auto got = check_same (ours, flip ? reference : NULL, CAPS ("GRAY8", 8, 6),
        swap ? CAPS ("GRAY8", 6, 8) : CAPS ("GRAY8", 8, 6), { { 1, 2, 3, 1 } });
    if (matrix_transforms ())
      assert_has (got,
          box_lines ({ t.box }, { t.box }) + meta_lines ({ "untagged", "video" }),
          meta_lines ({ "video+orientation", "video+size" }), t.nick);
    else
      assert_has (got, meta_lines ({ "untagged", "video" }),
          box_lines ({ { 1, 2, 3, 1 } }, { { 1, 2, 3, 1 } }) +
              meta_lines ({ "video+orientation", "video+size" }),
          t.nick);
    fail_unless (matrix_transforms () || got.size () == 2, "%s: metas out %s", t.nick,
        joined (got).c_str ());
    g_free (ours);
    g_free (reference);
  }
}
GST_END_TEST;

/* Turned and scaled: each box goes through videoflip's transform, then
 * videoconvertscale's, each with its own rounding. A box on the bottom
 * edge of 8x6 turned 90r is at x = 0 in 6x8 (videoflip's -0.5 rounds to
 * 0), then at 0 in 12x16; one matrix for both would put it at -1, out of
 * the frame, and drop it. */
GST_START_TEST (test_turned_and_scaled)
{
  auto got = check_same (UP "cudastreamsconvertscale video-direction=90r" DOWN,
      have_factory ("videoflip") ? "videoflip video-direction=90r ! videoconvertscale"
                                 : NULL,
      CAPS ("GRAY8", 8, 6), CAPS ("GRAY8", 12, 16), { { 1, 4, 3, 2 } });
  if (matrix_transforms ())
    assert_has (got, box_lines ({ { 0, 2, 2, 6 } }, { { 0, 2, 2, 6 } }), {}, "90r, 2x");
  else
    fail_unless (got == meta_lines ({ "untagged", "video" }), "90r, 2x: metas out %s",
        joined (got).c_str ());
}
GST_END_TEST;

/* --- crops ------------------------------------------------------------ */

#define CROP "left=1 right=1 top=2 bottom=1"

/* 8x8 cropped to 6x5 from (1,2): a box inside moves by the offset; one
 * that leaves the frame is clipped or dropped as 1.28's videocrop does;
 * before 1.28 both go, as all but metas tagged "video" alone. */
static const std::vector<Box> crop_boxes = { { 2, 3, 4, 2 }, { 0, 0, 2, 2 } };

static void
assert_cropped (const std::vector<std::string> & got, const char * what)
{
  if (matrix_transforms ())
    assert_has (got,
        box_lines ({ { 1, 1, 4, 2 } }, { { 1, 1, 4, 2 } }) +
            meta_lines ({ "untagged", "video", "video+orientation" }),
        box_lines ({ { 0, 0, 2, 2 } }, {}) + meta_lines ({ "video+size" }), what);
  else
    fail_unless (got == meta_lines ({ "untagged", "video" }), "%s: metas out %s", what,
        joined (got).c_str ());
}

/* cudacrop, on each of its paths: as a crop meta that cudadownload applies
 * (the metas untouched by cudacrop: one transform in all), as moved plane
 * offsets, as a packed copy. */
GST_START_TEST (test_crop)
{
  for (CropPath path : { CropPath::AS_IS, CropPath::OFFSETS, CropPath::PACKED }) {
    std::vector<std::string> after_crop;
    auto got = check_same (UP "cudastreamscrop name=crop " CROP DOWN, "videocrop " CROP,
        CAPS ("GRAY8", 8, 8), CAPS ("GRAY8", 6, 5), crop_boxes, path, &after_crop);
    const char * what = path == CropPath::AS_IS     ? "crop meta"
                        : path == CropPath::OFFSETS ? "plane offsets"
                                                    : "packed";
    assert_cropped (got, what);
    const bool meta_out = std::find (after_crop.begin (), after_crop.end (),
                              "crop meta") != after_crop.end ();
    fail_unless (meta_out == (path == CropPath::AS_IS), "%s: cudacrop's output: %s", what,
        joined (after_crop).c_str ());
    if (path == CropPath::AS_IS) {
      register_test_metas ();
      GstBuffer * in = gst_buffer_new ();
      add_metas (in, crop_boxes);
      auto untouched = describe (in);
      gst_buffer_unref (in);
      untouched.push_back ("crop meta");
      std::sort (untouched.begin (), untouched.end ());
      fail_unless (after_crop == untouched, "cudacrop's crop meta: metas out %s, in %s",
          joined (after_crop).c_str (), joined (untouched).c_str ());
    }
  }
}
GST_END_TEST;

/* videocrop's crop meta into cudaupload, which copies the region it marks:
 * the boxes moved once, as by videocrop alone. */
GST_START_TEST (test_crop_meta_into_upload)
{
  auto got = check_same ("videocrop " CROP " ! " UP "cudastreamsdownload",
      "videocrop " CROP, CAPS ("GRAY8", 8, 8), CAPS ("GRAY8", 6, 5), crop_boxes);
  assert_cropped (got, "videocrop ! cudaupload");
}
GST_END_TEST;

/* cudacrop's crop meta into cudaconvertscale (one kernel): as videocrop and
 * videoconvertscale one after the other, 6x5 scaled to 12x10. */
GST_START_TEST (test_crop_fused)
{
  auto got = check_same (UP "cudastreamscrop " CROP " ! cudastreamsconvertscale" DOWN,
      "videocrop " CROP " ! videoconvertscale", CAPS ("GRAY8", 8, 8),
      CAPS ("GRAY8", 12, 10), crop_boxes);
  if (matrix_transforms ())
    assert_has (got,
        box_lines ({ { 2, 2, 8, 4 } }, { { 2, 2, 8, 4 } }) +
            meta_lines ({ "untagged", "video", "video+orientation" }),
        meta_lines ({ "video+size" }), "fused crop");
  else
    fail_unless (got == meta_lines ({ "untagged", "video" }), "fused crop: metas out %s",
        joined (got).c_str ());
}
GST_END_TEST;

/* --- upload and download ---------------------------------------------- */

/* The same picture in other memory: every meta as it was (as glupload and
 * gldownload keep them). */
static const std::vector<std::string> all_kept =
    box_lines ({ { 0, 1, 2, 3 } }, { { 0, 1, 2, 3 } }) +
    meta_lines (
        { "untagged", "video", "video+size", "video+orientation", "video+colorspace" });

GST_START_TEST (test_upload_download)
{
  auto got = run_one (UP "cudastreamsdownload", CAPS ("NV12", 4, 4), CAPS ("NV12", 4, 4),
      { { 0, 1, 2, 3 } });
  std::vector<std::string> want = all_kept;
  std::sort (want.begin (), want.end ());
  fail_unless (
      got == want, "metas out %s, in %s", joined (got).c_str (), joined (want).c_str ());
}
GST_END_TEST;

/* Frames of another device are copied across first: their metas too. */
GST_START_TEST (test_other_device)
{
  int n = 0;
  if (cudaGetDeviceCount (&n) != cudaSuccess || n < 2)
    return; /* one device: nothing to cross */
  auto got =
      check_same ("cudastreamsupload device-id=0 ! cudastreamsconvertscale device-id=1 ! "
                  "cudastreamsdownload device-id=1",
          "videoconvertscale", CAPS ("GRAY8", 4, 4), CAPS ("GRAY8", 8, 8),
          { { 0, 1, 2, 3 } });
  assert_has (
      got, box_lines ({ { 0, 2, 4, 6 } }, { { 0, 2, 4, 6 } }), {}, "other device");
  got = run_one ("cudastreamsupload device-id=1 ! cudastreamsupload device-id=0 ! "
                 "cudastreamsdownload device-id=0",
      CAPS ("NV12", 4, 4), CAPS ("NV12", 4, 4), { { 0, 1, 2, 3 } });
  std::vector<std::string> want = all_kept;
  std::sort (want.begin (), want.end ());
  fail_unless (got == want, "upload across devices: metas out %s, in %s",
      joined (got).c_str (), joined (want).c_str ());
}
GST_END_TEST;

static Suite *
metas_gpu_suite (void)
{
  Suite * s = suite_create ("metas_gpu");
  TCase * tc = tcase_create ("gpu");
  tcase_set_timeout (tc, 300);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_scale);
  tcase_add_test (tc, test_format_only);
  tcase_add_test (tc, test_letterbox);
  tcase_add_test (tc, test_orientations);
  tcase_add_test (tc, test_turned_and_scaled);
  tcase_add_test (tc, test_crop);
  tcase_add_test (tc, test_crop_meta_into_upload);
  tcase_add_test (tc, test_crop_fused);
  tcase_add_test (tc, test_upload_download);
  tcase_add_test (tc, test_other_device);
  return s;
}

TESTUTIL_GPU_CHECK_MAIN (metas_gpu);

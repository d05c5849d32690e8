/* SPDX-License-Identifier: LGPL-2.1-or-later */
// On a GPU (or the stand-in): cudabatch's tensor slot by slot beside the
// converter's CPU twin (the same letterbox, described by the converter's
// own function) and, for float tensors, the normalisation computed here;
// mixed formats and odd sizes in one batch, NCHW and NHWC, RGB and BGR;
// the batch meta (source, PTS, map back to the frame, empty slots); EOS
// orders (one pad then all, the first then the rest); pads requested and
// released while PLAYING; a stalled live pad times out into partial batches;
// bad settings fail at start with a clear message; no host wait; each
// frame's boxes (region-of-interest metas, object-detection boxes where the
// analytics library is there) in its slot's tensor pixels, numerically;
// GStreamer's analytics metas where the plugin was built with them
// (GstTensorMeta from 1.26, GstAnalyticsBatchMeta from 1.28), none
// elsewhere, the caps the same.
#include "config.h"

#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <gst/check/gstcheck.h>
#if HAVE_GST_ANALYTICS || HAVE_GST_ANALYTICS_OD
#include <gst/analytics/analytics.h>
#endif

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "convert/gstcsconvertcaps.h"
#include "convert/gstcsconvertdesc.hpp"
#include "batch_normalize.h"
#include "convert_scale.h"
#include "gstcudastreams.h"
#include "testutil.h"

namespace gpu = gst_cs::gpu;

struct Source {
  const char * format;
  gint w, h;
};

/* What GStreamer's analytics metas said of a batch, where it had them. */
struct Analytics {
  std::vector<std::string> apis; /* the API of every meta on the batch */
  bool tensor = false;           /* a GstTensorMeta of one tensor */
  std::vector<gsize> dims;
  int data_type = -1, dims_order = -1;
  std::string id;
  bool shares_memory = false; /* its data is the batch's own memory */
  struct Stream {
    guint index = 0;
    std::string id, pad_id; /* its stream id, and the one on our sink pad */
    gint width = 0, height = 0;
    bool has_segment = false;
    GstClockTime pts = GST_CLOCK_TIME_NONE; /* of the buffer naming the frame */
  };
  std::vector<Stream> streams; /* of a GstAnalyticsBatchMeta */
};

/* One batch as it came out: its bytes (read on the host), its slots, its
 * caps and GStreamer's metas. */
struct Batch {
  std::vector<guint8> bytes;
  std::vector<GstCsBatchSlot> slots;
  GstClockTime pts;
  std::string caps;
  Analytics analytics;
  const void * memory = nullptr; /* the tensor's memory, as mapped */
};

static void keep_analytics (GstPad * pad, GstBuffer * buf, Analytics * a);

static GstPadProbeReturn
keep_batch (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  auto * batches = static_cast<std::vector<Batch> *> (data);
  GstBuffer * buf = GST_PAD_PROBE_INFO_BUFFER (info);
  Batch b;
  GstMapInfo map;
  fail_unless (gst_buffer_map (buf, &map, GST_MAP_READ));
  b.bytes.assign (map.data, map.data + map.size);
  b.memory = map.data;
  gst_buffer_unmap (buf, &map);
  GstCsBatchMeta * meta = gst_buffer_get_cs_batch_meta (buf);
  fail_unless (meta != NULL, "a batch without its batch meta");
  fail_unless (gst_buffer_get_cs_sync_meta (buf) != NULL, "a batch without its event");
  b.slots.assign (meta->slots, meta->slots + meta->n_slots);
  b.pts = GST_BUFFER_PTS (buf);
  GstCaps * caps = gst_pad_get_current_caps (pad);
  gchar * str = caps ? gst_caps_to_string (caps) : g_strdup ("");
  b.caps = str;
  g_free (str);
  gst_clear_caps (&caps);
  keep_analytics (pad, buf, &b.analytics);
  batches->push_back (std::move (b));
  return GST_PAD_PROBE_OK;
}

/* "cudabatch `props` ! appsink" fed by one appsrc per source. */
static GstElement *
batch_pipeline (
    const std::vector<Source> & sources, const char * props, bool live = false)
{
  std::string line = std::string ("cudabatch name=cs ") + props +
                     " ! fakesink name=out sync=false async=false";
  for (size_t i = 0; i < sources.size (); i++) {
    GstVideoInfo info =
        testutil::video_info (sources[i].format, sources[i].w, sources[i].h);
    GstCaps * caps = gst_video_info_to_caps (&info);
    gchar * c = gst_caps_to_string (caps);
    gchar * part =
        g_strdup_printf (" appsrc name=s%zu format=time is-live=%s caps=\"%s\" "
                         "! cudaupload ! cs.sink_%zu",
            i, live ? "true" : "false", c, i);
    line += part;
    g_free (part);
    g_free (c);
    gst_caps_unref (caps);
  }
  GError * err = NULL;
  GstElement * pipeline = gst_parse_launch (line.c_str (), &err);
  fail_unless (pipeline && !err, "%s: %s", line.c_str (), err ? err->message : "");
  return pipeline;
}

static void
watch_batches (GstElement * pipeline, std::vector<Batch> * batches)
{
  testutil::add_probe (
      pipeline, "out", "sink", GST_PAD_PROBE_TYPE_BUFFER, keep_batch, batches);
}

/* batch_pipeline's pipeline PLAYING, its batches kept in `batches`. */
static GstElement *
start_batches (const std::vector<Source> & sources, const char * props,
    std::vector<Batch> * batches, bool live = false)
{
  GstElement * pipeline = batch_pipeline (sources, props, live);
  watch_batches (pipeline, batches);
  fail_unless (
      gst_element_set_state (pipeline, GST_STATE_PLAYING) != GST_STATE_CHANGE_FAILURE);
  return pipeline;
}

/* Pushes `frame` as frame `k` of source `i` (the caller keeps its reference). */
static void
push_buffer (GstElement * pipeline, size_t i, GstBuffer * frame, guint k)
{
  GST_BUFFER_PTS (frame) = k * GST_SECOND / 30;
  GST_BUFFER_DURATION (frame) = GST_SECOND / 30;
  gchar * name = g_strdup_printf ("s%zu", i);
  GstElement * src = testutil::by_name (pipeline, name);
  fail_unless_equals_int (
      gst_app_src_push_buffer (GST_APP_SRC (src), gst_buffer_ref (frame)), GST_FLOW_OK);
  gst_object_unref (src);
  g_free (name);
}

/* Pushes frame `k` of source `i` (random content, seeded by both). */
static GstBuffer *
push_frame (GstElement * pipeline, size_t i, const Source & s, guint k)
{
  GstVideoInfo info = testutil::video_info (s.format, s.w, s.h);
  GstBuffer * frame = testutil::random_buffer (info.size, (guint32)(1000 * i + k + 1));
  push_buffer (pipeline, i, frame, k);
  return frame;
}

static void
end_source (GstElement * pipeline, size_t i)
{
  gchar * name = g_strdup_printf ("s%zu", i);
  GstElement * src = testutil::by_name (pipeline, name);
  gst_app_src_end_of_stream (GST_APP_SRC (src));
  gst_object_unref (src);
  g_free (name);
}

/* The tensor settings a case uses. */
struct Tensor {
  gint w = 32, h = 24;
  bool nhwc = false, bgr = false;
  const char * dtype = "uint8";
  bool top_left = false;
  guint border = 0;
  double mean[3] = { 0.485, 0.456, 0.406 };
  double std[3] = { 0.229, 0.224, 0.225 };
};

static std::string
props_of (const Tensor & t, guint batch_size)
{
  gchar * p = g_strdup_printf ("batch-size=%u width=%d height=%d layout=%s "
                               "channel-order=%s dtype=%s letterbox-position=%s "
                               "border-value=%u mean=\"<%g,%g,%g>\" std=\"<%g,%g,%g>\"",
      batch_size, t.w, t.h, t.nhwc ? "nhwc" : "nchw", t.bgr ? "bgr" : "rgb", t.dtype,
      t.top_left ? "top-left" : "center", t.border, t.mean[0], t.mean[1], t.mean[2],
      t.std[0], t.std[1], t.std[2]);
  std::string s = p;
  g_free (p);
  return s;
}

/* The planar RGB picture (3 x h x w codes) the converter's twin makes of
 * `frame` letterboxed into the slot, and the picture's rectangle. */
static std::vector<guint8>
reference_picture (const Source & s, GstBuffer * frame, const Tensor & t, gint rect[4])
{
  GstVideoInfo ii = testutil::video_info (s.format, s.w, s.h), oi;
  gst_video_info_set_format (&oi, GST_VIDEO_FORMAT_RGBP, t.w, t.h);
  GstVideoInfo layout = oi;
  for (guint p = 0; p < 3; p++) {
    GST_VIDEO_INFO_PLANE_STRIDE (&layout, p) = t.w;
    GST_VIDEO_INFO_PLANE_OFFSET (&layout, p) = p * t.w * t.h;
  }
  std::vector<guint8> out ((size_t)3 * t.w * t.h);
  GstVideoFrame fi;
  fail_unless (gst_video_frame_map (&fi, &ii, frame, GST_MAP_READ));
  gst_cs::ConvertSettings settings;
  settings.border_argb = 0xff000000u | (t.border << 16) | (t.border << 8) | t.border;
  gpu::ConvertScale op;
  gst_cs::describe_convert (&ii, &oi, 0, 0, s.w, s.h, settings, &op);
  if (t.top_left)
    op.dst_x = 0, op.dst_y = 0;
  op.in = gst_cs::convert_image (&ii, &fi.info, (guint8 *)fi.map[0].data, false);
  op.out = gst_cs::convert_image (&oi, &layout, out.data (), true);
  fail_unless (gpu::convert_scale_on_host (op));
  gst_video_frame_unmap (&fi);
  rect[0] = op.dst_x, rect[1] = op.dst_y, rect[2] = op.dst_w, rect[3] = op.dst_h;
  return out;
}

static float
half_to_float (guint16 h)
{
  const int e = (h >> 10) & 0x1f, m = h & 0x3ff;
  const float v =
      e == 0 ? std::ldexp ((float)m, -24) : std::ldexp ((float)(m | 0x400), e - 25);
  return (h & 0x8000) ? -v : v;
}

/* Value `idx` of a tensor of `dtype`. */
static double
value_at (const Batch & b, const char * dtype, size_t idx)
{
  if (g_str_equal (dtype, "uint8"))
    return b.bytes[idx];
  if (g_str_equal (dtype, "float16")) {
    guint16 h;
    std::memcpy (&h, &b.bytes[idx * 2], 2);
    return half_to_float (h);
  }
  float f;
  std::memcpy (&f, &b.bytes[idx * 4], 4);
  return f;
}

/* Slot `n` of `b` beside `picture`: uint8 equal to the twin's codes, float
 * within 0.5 code of them once the normalisation is undone. */
static void
check_slot (const Batch & b, guint n, const std::vector<guint8> & picture,
    const Tensor & t, const std::string & what)
{
  const size_t plane = (size_t)t.w * t.h;
  double worst = 0.0;
  const bool codes = g_str_equal (t.dtype, "uint8");
  for (int c = 0; c < 3; c++) {
    const int k = t.bgr ? 2 - c : c; /* tensor channel c is picture channel k */
    for (size_t p = 0; p < plane; p++) {
      const size_t idx =
          t.nhwc ? ((size_t)n * plane + p) * 3 + c : ((size_t)n * 3 + c) * plane + p;
      const double v = value_at (b, t.dtype, idx);
      const double code = codes ? v : (v * t.std[c] + t.mean[c]) * 255.0;
      worst = std::max (worst, std::fabs (code - picture[k * plane + p]));
    }
  }
  const double bound = codes ? 0.0 : 0.5;
  fail_unless (worst <= bound, "%s slot %u: %g codes from the reference (bound %g)",
      what.c_str (), n, worst, bound);
}

/* Every source pushes `frames` frames into one pipeline; each batch is
 * checked slot by slot, with its meta. */
static void
check_batches (const std::vector<Source> & sources, const Tensor & t, guint frames)
{
  const std::string what = props_of (t, 0);
  std::vector<std::vector<GstBuffer *>> pushed (sources.size ());
  std::vector<Batch> batches;
  GstElement * pipeline = start_batches (sources, what.c_str (), &batches);
  for (guint k = 0; k < frames; k++)
    for (size_t i = 0; i < sources.size (); i++)
      pushed[i].push_back (push_frame (pipeline, i, sources[i], k));
  for (size_t i = 0; i < sources.size (); i++)
    end_source (pipeline, i);
  testutil::run_to_eos (pipeline, what.c_str ());
  fail_unless_equals_int (batches.size (), frames);
  fail_unless_equals_int (testutil::host_waits (pipeline, "cs"), 0);
  for (guint k = 0; k < frames; k++) {
    const Batch & b = batches[k];
    fail_unless_equals_int (b.slots.size (), sources.size ());
    fail_unless_equals_uint64 (b.pts, k * GST_SECOND / 30);
    for (guint n = 0; n < sources.size (); n++) {
      const GstCsBatchSlot & slot = b.slots[n];
      fail_if (slot.empty);
      /* pads take turns from the first: slot n is pad n in every batch */
      fail_unless_equals_int (slot.pad_index, n);
      fail_unless_equals_uint64 (slot.pts, k * GST_SECOND / 30);
      const Source & s = sources[slot.pad_index];
      gint rect[4];
      const std::vector<guint8> pic = reference_picture (s, pushed[n][k], t, rect);
      check_slot (b, n, pic, t, what + " " + s.format);
      /* the picture's corners map onto the frame's */
      gdouble x0, y0, x1, y1;
      gst_cs_batch_slot_to_source (&slot, rect[0], rect[1], &x0, &y0);
      gst_cs_batch_slot_to_source (&slot, rect[0] + rect[2], rect[1] + rect[3], &x1, &y1);
      fail_unless (std::fabs (x0) < 1e-9 && std::fabs (y0) < 1e-9 &&
                       std::fabs (x1 - s.w) < 1e-9 && std::fabs (y1 - s.h) < 1e-9,
          "%s: slot %u maps its picture to (%g,%g)-(%g,%g) of a %dx%d frame",
          what.c_str (), n, x0, y0, x1, y1, s.w, s.h);
    }
  }
  for (auto & v : pushed)
    for (GstBuffer * f : v)
      gst_buffer_unref (f);
  gst_object_unref (pipeline);
}

/* What videoconvertscale (bilinear, borders, square pixels) makes of
 * `frame` of source `s` in a slot of `t`: planar RGB codes, 3 x h x w. */
static std::vector<guint8>
videoconvertscale_picture (const Source & s, GstBuffer * frame, const Tensor & t)
{
  GstVideoInfo info = testutil::video_info (s.format, s.w, s.h);
  GstCaps * caps = gst_video_info_to_caps (&info);
  gchar * c = gst_caps_to_string (caps);
  gchar * line = g_strdup_printf (
      "appsrc name=src format=time caps=\"%s\" ! videoconvertscale dither=none "
      "method=bilinear add-borders=true ! video/x-raw,format=RGBP,width=%d,height=%d,"
      "pixel-aspect-ratio=1/1 ! appsink name=sink sync=false",
      c, t.w, t.h);
  GError * err = NULL;
  GstElement * pipeline = gst_parse_launch (line, &err);
  fail_unless (pipeline && !err, "%s: %s", line, err ? err->message : "");
  fail_unless (
      gst_element_set_state (pipeline, GST_STATE_PLAYING) != GST_STATE_CHANGE_FAILURE);
  GstElement * src = testutil::by_name (pipeline, "src");
  GstElement * sink = testutil::by_name (pipeline, "sink");
  fail_unless_equals_int (
      gst_app_src_push_buffer (GST_APP_SRC (src), gst_buffer_ref (frame)), GST_FLOW_OK);
  gst_app_src_end_of_stream (GST_APP_SRC (src));
  GstSample * sample = gst_app_sink_pull_sample (GST_APP_SINK (sink));
  fail_unless (sample != NULL, "%s: no frame", line);
  GstVideoInfo oi;
  fail_unless (gst_video_info_from_caps (&oi, gst_sample_get_caps (sample)));
  GstVideoFrame f;
  fail_unless (
      gst_video_frame_map (&f, &oi, gst_sample_get_buffer (sample), GST_MAP_READ));
  std::vector<guint8> out ((size_t)3 * t.w * t.h);
  for (guint k = 0; k < 3; k++)
    for (gint y = 0; y < t.h; y++)
      for (gint x = 0; x < t.w; x++)
        out[((size_t)k * t.h + y) * t.w + x] = (guint8)testutil::code_of (&f, k, x, y);
  gst_video_frame_unmap (&f);
  gst_sample_unref (sample);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (src);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
  g_free (line);
  g_free (c);
  gst_caps_unref (caps);
  return out;
}

/* Each slot beside videoconvertscale itself (bilinear, the same letterbox,
 * square pixels) on smooth frames, the float slots' normalisation undone:
 * at least 40 dB PSNR, the bound the converter is held to
 * (convertscale_gpu's test_scaling_near_videoconvertscale). Sizes whose
 * pictures fill whole rows and columns of the slot, as both round alike
 * only there. */
GST_START_TEST (test_near_videoconvertscale)
{
  GstElementFactory * factory = gst_element_factory_find ("videoconvertscale");
  if (!factory) {
    g_print ("REFERENCE-MISSING videoconvertscale: not in GStreamer %s, comparison "
             "left out\n",
        gst_version_string ());
    return;
  }
  gst_object_unref (factory);
  /* 2x, 1x (pillarboxed), 1.5625x: large enough that the waves are smooth
   * per sample (in a few dozen samples a chroma plane's steepest slopes
   * reach 40 codes a sample, where any difference of siting shows). */
  const std::vector<Source> sources = { { "NV12", 1280, 720 }, { "I420", 480, 640 },
    { "RGBA", 1000, 625 } };
  for (const char * dtype : { "uint8", "float32" }) {
    Tensor t;
    t.w = t.h = 640;
    t.dtype = dtype;
    const std::string what = props_of (t, 0);
    std::vector<Batch> batches;
    GstElement * pipeline = start_batches (sources, what.c_str (), &batches);
    std::vector<GstBuffer *> frames;
    for (size_t i = 0; i < sources.size (); i++) {
      GstVideoInfo info =
          testutil::video_info (sources[i].format, sources[i].w, sources[i].h);
      frames.push_back (
          testutil::video_frame (&info, testutil::Content::SMOOTH, (guint32)(77 + i)));
      push_buffer (pipeline, i, frames.back (), 0);
      end_source (pipeline, i);
    }
    testutil::run_to_eos (pipeline, what.c_str ());
    fail_unless_equals_int (batches.size (), 1);
    const size_t plane = (size_t)t.w * t.h;
    for (guint n = 0; n < sources.size (); n++) {
      const std::vector<guint8> ref =
          videoconvertscale_picture (sources[n], frames[n], t);
      double sum = 0.0, worst = 0.0;
      for (int c = 0; c < 3; c++)
        for (size_t p = 0; p < plane; p++) {
          const double v = value_at (batches[0], dtype, ((size_t)n * 3 + c) * plane + p);
          const double code =
              g_str_equal (dtype, "uint8") ? v : (v * t.std[c] + t.mean[c]) * 255.0;
          const double d = code - ref[c * plane + p];
          sum += d * d;
          worst = std::max (worst, std::fabs (d));
        }
      const double psnr =
          10.0 * std::log10 (255.0 * 255.0 * 3.0 * plane / std::max (sum, 1e-9));
      g_print ("BATCH-VS-VIDEOCONVERTSCALE %s %s: PSNR %.1f dB, max %.1f codes\n", dtype,
          sources[n].format, psnr, worst);
      fail_unless (psnr >= 40.0,
          "%s slot %u (%s): PSNR %.1f dB against videoconvertscale", what.c_str (), n,
          sources[n].format, psnr);
    }
    for (GstBuffer * f : frames)
      gst_buffer_unref (f);
    gst_object_unref (pipeline);
  }
}
GST_END_TEST;

/* Mixed formats and odd sizes in one batch, wider and taller than the slot. */
static const std::vector<Source> mixed = {
  { "NV12", 64, 48 },
  { "I420", 37, 21 },
  { "RGBA", 50, 80 },
  { "YUY2", 30, 30 },
};

GST_START_TEST (test_uint8_nchw)
{
  Tensor t;
  check_batches (mixed, t, 2);
}
GST_END_TEST;

GST_START_TEST (test_uint8_nhwc_bgr_top_left)
{
  Tensor t;
  t.nhwc = true, t.bgr = true, t.top_left = true, t.border = 114;
  t.w = 31, t.h = 17;
  check_batches (mixed, t, 2);
}
GST_END_TEST;

GST_START_TEST (test_float32_nchw)
{
  Tensor t;
  t.dtype = "float32";
  check_batches (mixed, t, 2);
}
GST_END_TEST;

GST_START_TEST (test_float16_nhwc_bgr)
{
  Tensor t;
  t.dtype = "float16", t.nhwc = true, t.bgr = true, t.border = 114;
  check_batches (mixed, t, 2);
}
GST_END_TEST;

/* How cudabatch wrote its batches (its debug log says, per batch). */
static std::atomic<int> fused_batches{ 0 }, per_frame_batches{ 0 };

static void
count_paths (GstDebugCategory * cat, GstDebugLevel, const gchar *, const gchar *, gint,
    GObject *, GstDebugMessage * message, gpointer)
{
  if (!g_str_equal (gst_debug_category_get_name (cat), "csbatch"))
    return;
  const gchar * m = gst_debug_message_get (message);
  if (strstr (m, "one fused launch"))
    fused_batches++;
  else if (strstr (m, "a launch per frame"))
    per_frame_batches++;
}

/* check_batches, counting the batches of each path into fused / per_frame. */
static void
check_batches_counted (const std::vector<Source> & sources, const Tensor & t,
    guint frames, int * fused, int * per_frame)
{
  gst_debug_set_threshold_for_name ("csbatch", GST_LEVEL_DEBUG);
  fused_batches = 0, per_frame_batches = 0;
  gst_debug_add_log_function (count_paths, NULL, NULL);
  check_batches (sources, t, frames);
  gst_debug_remove_log_function (count_paths);
  gst_debug_unset_threshold_for_name ("csbatch");
  *fused = fused_batches, *per_frame = per_frame_batches;
}

/* The tensor of one batch of `sources` (frame k of each) computed as the
 * two-stage path computes it: the converter's twin into 8-bit pictures,
 * then batch_normalize's twin, with cudabatch's factors. */
static std::vector<guint8>
two_stage_tensor (const std::vector<Source> & sources,
    const std::vector<GstBuffer *> & frames, const Tensor & t)
{
  const size_t picture = (size_t)3 * t.w * t.h;
  std::vector<guint8> pictures;
  for (size_t n = 0; n < sources.size (); n++) {
    gint rect[4];
    const std::vector<guint8> p = reference_picture (sources[n], frames[n], t, rect);
    pictures.insert (pictures.end (), p.begin (), p.end ());
  }
  const bool half = g_str_equal (t.dtype, "float16");
  std::vector<guint8> tensor (sources.size () * picture * (half ? 2 : 4));
  gpu::BatchNormalize op;
  op.src = pictures.data ();
  op.dst = tensor.data ();
  op.batch = (int)sources.size ();
  op.width = t.w, op.height = t.h;
  op.type = half ? gpu::TensorType::FLOAT16 : gpu::TensorType::FLOAT32;
  op.nhwc = t.nhwc, op.bgr = t.bgr;
  for (int c = 0; c < 3; c++) { /* batch_factors */
    op.scale[c] = (float)(1.0 / (255.0 * t.std[c]));
    op.offset[c] = (float)(-t.mean[c] / t.std[c]);
  }
  fail_unless (gpu::batch_normalize_on_host (op));
  return tensor;
}

/* Every format the converter takes, into batches of eight sources of as
 * many formats and sizes (odd ones among them): each slot the twin's
 * picture of its frame. */
GST_START_TEST (test_every_format)
{
  const GValue * formats = gst_cs_convert_formats ();
  const guint n = gst_value_list_get_size (formats);
  Tensor t;
  t.w = 20, t.h = 14;
  for (guint first = 0; first < n; first += 8) {
    std::vector<Source> sources;
    for (guint i = first; i < n && i < first + 8; i++)
      sources.push_back ({ g_value_get_string (gst_value_list_get_value (formats, i)),
          13 + (gint)(i % 5) * 4, 9 + (gint)(i % 3) * 6 });
    check_batches (sources, t, 1);
  }
}
GST_END_TEST;

/* Decoders' frames (NV12 of several sizes, the letterbox on either side):
 * one fused launch a batch, whose tensor is the two-stage one bit for bit
 * (and slot by slot the converter's twin, as check_batches checks). */
GST_START_TEST (test_fused_path)
{
  const std::vector<Source> nv12 = {
    { "NV12", 64, 48 },
    { "NV12", 38, 22 },
    { "NV12", 20, 60 },
  };
  Tensor tensors[4];
  tensors[0].dtype = "float16";
  tensors[1].dtype = "float32", tensors[1].nhwc = true, tensors[1].bgr = true;
  tensors[1].border = 114, tensors[1].w = 31, tensors[1].h = 17;
  tensors[2].top_left = true; /* uint8 */
  tensors[3].nhwc = true, tensors[3].bgr = true, tensors[3].border = 114;
  for (const Tensor & t : tensors) {
    int fused, per_frame;
    check_batches_counted (nv12, t, 2, &fused, &per_frame);
    fail_unless_equals_int (fused, 2);
    fail_unless_equals_int (per_frame, 0);
    if (g_str_equal (t.dtype, "uint8"))
      continue; /* check_batches compared the codes exactly */
    /* bit for bit against the two-stage tensor */
    const std::string what = props_of (t, 0);
    std::vector<GstBuffer *> pushed;
    std::vector<Batch> batches;
    GstElement * pipeline = start_batches (nv12, what.c_str (), &batches);
    for (size_t i = 0; i < nv12.size (); i++)
      pushed.push_back (push_frame (pipeline, i, nv12[i], 0));
    for (size_t i = 0; i < nv12.size (); i++)
      end_source (pipeline, i);
    testutil::run_to_eos (pipeline, what.c_str ());
    fail_unless_equals_int (batches.size (), 1);
    const std::vector<guint8> expected = two_stage_tensor (nv12, pushed, t);
    fail_unless (batches[0].bytes == expected,
        "%s: the fused tensor differs from the "
        "two-stage one",
        what.c_str ());
    for (GstBuffer * f : pushed)
      gst_buffer_unref (f);
    gst_object_unref (pipeline);
  }
  /* NV12 beside I420 (another chroma word), RGBA (not fixed point): the
   * launch per frame. */
  int fused, per_frame;
  Tensor t;
  t.dtype = "float16";
  check_batches_counted (mixed, t, 2, &fused, &per_frame);
  fail_unless_equals_int (fused, 0);
  fail_unless_equals_int (per_frame, 2);
}
GST_END_TEST;

/* batch-size above the pads: the slots left are empty, marked and zeroed. */
GST_START_TEST (test_empty_slots)
{
  const std::vector<Source> two = { { "NV12", 64, 48 }, { "RGBA", 16, 16 } };
  Tensor t;
  t.dtype = "float32";
  std::vector<Batch> batches;
  GstElement * pipeline = start_batches (two, props_of (t, 4).c_str (), &batches);
  for (size_t i = 0; i < two.size (); i++) {
    gst_buffer_unref (push_frame (pipeline, i, two[i], 0));
    end_source (pipeline, i);
  }
  testutil::run_to_eos (pipeline, "empty slots");
  fail_unless_equals_int (batches.size (), 1);
  const Batch & b = batches[0];
  fail_unless_equals_int (b.slots.size (), 4);
  fail_unless_equals_int (b.bytes.size (), 4 * 3 * 32 * 24 * 4);
  fail_if (b.slots[0].empty || b.slots[1].empty);
  fail_unless (b.slots[2].empty && b.slots[3].empty);
  for (size_t i = 2 * 3 * 32 * 24 * 4; i < b.bytes.size (); i++)
    fail_unless (b.bytes[i] == 0, "empty slot byte %zu is %u", i, b.bytes[i]);
  gst_object_unref (pipeline);
}
GST_END_TEST;

/* One pad ends first: it drops out of later batches (batch-size 0 follows
 * the pads still in the stream); the stream ends when every pad has. */
GST_START_TEST (test_eos_one_then_all)
{
  const std::vector<Source> two = { { "NV12", 64, 48 }, { "I420", 32, 24 } };
  Tensor t;
  std::vector<Batch> batches;
  GstElement * pipeline = start_batches (two, props_of (t, 0).c_str (), &batches);
  gst_buffer_unref (push_frame (pipeline, 1, two[1], 0));
  end_source (pipeline, 1);
  for (guint k = 0; k < 3; k++)
    gst_buffer_unref (push_frame (pipeline, 0, two[0], k));
  end_source (pipeline, 0);
  testutil::run_to_eos (pipeline, "eos one then all");
  fail_unless_equals_int (batches.size (), 3);
  fail_unless_equals_int (batches[0].slots.size (), 2);
  for (guint k = 1; k < 3; k++) {
    fail_unless_equals_int (batches[k].slots.size (), 1);
    fail_unless_equals_int (batches[k].slots[0].pad_index, 0);
    fail_unless_equals_int (batches[k].bytes.size (), 3 * 32 * 24);
  }
  gst_object_unref (pipeline);
}
GST_END_TEST;

/* The first pad ends first, and a pad ends right after its last frame:
 * that frame is still batched, the pad drops out of the batches after it
 * (the tensor shrinks with batch-size 0), the stream ends with the last. */
GST_START_TEST (test_eos_first_then_rest)
{
  const std::vector<Source> three = { { "NV12", 64, 48 }, { "I420", 32, 24 },
    { "RGBA", 20, 30 } };
  Tensor t;
  std::vector<Batch> batches;
  GstElement * pipeline = start_batches (three, props_of (t, 0).c_str (), &batches);
  const guint frames[3] = { 1, 3, 4 };
  for (size_t i = 0; i < three.size (); i++) {
    for (guint k = 0; k < frames[i]; k++)
      gst_buffer_unref (push_frame (pipeline, i, three[i], k));
    end_source (pipeline, i);
  }
  testutil::run_to_eos (pipeline, "eos first then rest");
  const std::vector<std::vector<guint>> want = { { 0, 1, 2 }, { 1, 2 }, { 1, 2 }, { 2 } };
  fail_unless_equals_int (batches.size (), want.size ());
  for (size_t k = 0; k < want.size (); k++) {
    const Batch & b = batches[k];
    fail_unless_equals_int (b.slots.size (), want[k].size ());
    fail_unless_equals_int (b.bytes.size (), want[k].size () * 3 * t.w * t.h);
    for (size_t n = 0; n < want[k].size (); n++) {
      fail_if (b.slots[n].empty, "batch %zu slot %zu empty", k, n);
      fail_unless_equals_int (b.slots[n].pad_index, want[k][n]);
      fail_unless_equals_uint64 (b.slots[n].pts, k * GST_SECOND / 30);
    }
  }
  gst_object_unref (pipeline);
}
GST_END_TEST;

/* Counts the batches that reached the sink, as they come. */
static GstPadProbeReturn
count_batch (GstPad *, GstPadProbeInfo *, gpointer data)
{
  static_cast<std::atomic<guint> *> (data)->fetch_add (1);
  return GST_PAD_PROBE_OK;
}

/* Polls `done` for up to 20 s (the streaming threads run on meanwhile). */
template <typename F>
static void
wait_until (F done, const char * what)
{
  for (int i = 0; i < 2000 && !done (); i++)
    g_usleep (10000);
  fail_unless (done (), "waited 20 s for %s", what);
}

/* A frame handed to the aggregator as a buffer of its own (the same memory
 * and metas), so that its end is seen: pooled buffers are never freed. */
static GstPadProbeReturn
watch_frame_end (GstPad *, GstPadProbeInfo * info, gpointer data)
{
  GstBuffer * copy = gst_buffer_copy (GST_PAD_PROBE_INFO_BUFFER (info));
  gst_mini_object_weak_ref (
      GST_MINI_OBJECT (copy),
      [] (gpointer ended, GstMiniObject *) {
        static_cast<std::atomic<bool> *> (ended)->store (true);
      },
      data);
  gst_buffer_unref (GST_PAD_PROBE_INFO_BUFFER (info));
  GST_PAD_PROBE_INFO_DATA (info) = copy;
  return GST_PAD_PROBE_OK;
}

/* "appsrc name=`name` ! cudaupload" for source `s`, added to `pipeline`
 * and linked to cudabatch's new pad `pad` while it plays. */
static void
add_source (GstElement * pipeline, GstElement * cs, const Source & s, const char * name,
    const char * pad)
{
  GstVideoInfo info = testutil::video_info (s.format, s.w, s.h);
  GstCaps * caps = gst_video_info_to_caps (&info);
  gchar * c = gst_caps_to_string (caps);
  gchar * line = g_strdup_printf (
      "appsrc name=%s format=time caps=\"%s\" ! cudaupload name=up_%s", name, c, name);
  GError * err = NULL;
  GstElement * bin = gst_parse_bin_from_description (line, TRUE, &err);
  fail_unless (bin && !err, "%s: %s", line, err ? err->message : "");
  gst_bin_add (GST_BIN (pipeline), bin);
  GstPad * sink = gst_element_request_pad_simple (cs, pad);
  GstPad * src = gst_element_get_static_pad (bin, "src");
  fail_unless (sink != NULL && gst_pad_link (src, sink) == GST_PAD_LINK_OK);
  fail_unless (gst_element_sync_state_with_parent (bin));
  gst_object_unref (src);
  gst_object_unref (sink);
  g_free (line);
  g_free (c);
  gst_caps_unref (caps);
}

/* Pads requested and released while PLAYING: a released pad's queued frame
 * is let go at once (no dangling frame), the released pad is in no later
 * batch, a new pad joins the next one, and its slots are right. */
GST_START_TEST (test_pads_while_playing)
{
  const std::vector<Source> two = { { "NV12", 64, 48 }, { "I420", 32, 24 } };
  const Source added = { "RGBA", 40, 20 };
  Tensor t;
  std::vector<Batch> batches;
  GstElement * pipeline = start_batches (two, props_of (t, 0).c_str (), &batches);
  /* Nothing flows before the first push: the probes see every batch. */
  std::atomic<guint> seen{ 0 };
  std::atomic<bool> queued_ended{ false };
  testutil::add_probe (
      pipeline, "out", "sink", GST_PAD_PROBE_TYPE_BUFFER, count_batch, &seen);
  GstElement * cs = testutil::by_name (pipeline, "cs");
  for (size_t i = 0; i < two.size (); i++)
    gst_buffer_unref (push_frame (pipeline, i, two[i], 0));
  wait_until ([&] { return seen.load () == 1; }, "the first batch");

  /* sink_1's next frame waits in its pad for sink_0's, which never comes
   * before sink_1 is released. */
  GstPad * pad1 = gst_element_get_static_pad (cs, "sink_1");
  GstPad * up1 = gst_pad_get_peer (pad1);
  gst_pad_add_probe (
      up1, GST_PAD_PROBE_TYPE_BUFFER, watch_frame_end, &queued_ended, NULL);
  gst_buffer_unref (push_frame (pipeline, 1, two[1], 1));
  wait_until ([&] { return gst_aggregator_pad_has_buffer (GST_AGGREGATOR_PAD (pad1)); },
      "sink_1's frame in its pad");
  fail_if (queued_ended.load (), "the queued frame ended before its pad was released");
  gst_pad_unlink (up1, pad1);
  gst_element_release_request_pad (cs, pad1);
  gst_object_unref (pad1);
  wait_until (
      [&] { return queued_ended.load (); }, "the released pad's frame to be let go");
  gst_object_unref (up1);

  add_source (pipeline, cs, added, "s2", "sink_2");
  std::vector<GstBuffer *> pushed[2];
  for (guint k = 1; k < 3; k++) {
    pushed[0].push_back (push_frame (pipeline, 0, two[0], k));
    pushed[1].push_back (push_frame (pipeline, 2, added, k));
  }
  end_source (pipeline, 0);
  end_source (pipeline, 2);
  end_source (pipeline, 1); /* its appsrc is still in the pipeline, unlinked */
  testutil::run_to_eos (pipeline, "pads while playing");
  fail_unless_equals_int (batches.size (), 3);
  fail_unless_equals_int (batches[0].slots.size (), 2);
  for (guint k = 1; k < 3; k++) {
    const Batch & b = batches[k];
    fail_unless_equals_int (b.slots.size (), 2);
    fail_unless_equals_int (b.slots[0].pad_index, 0);
    fail_unless_equals_int (b.slots[1].pad_index, 2);
    fail_unless_equals_uint64 (b.slots[1].pts, k * GST_SECOND / 30);
    gint rect[4];
    check_slot (b, 0, reference_picture (two[0], pushed[0][k - 1], t, rect), t, "sink_0");
    check_slot (b, 1, reference_picture (added, pushed[1][k - 1], t, rect), t, "sink_2");
  }
  fail_unless_equals_int (testutil::host_waits (pipeline, "cs"), 0);
  for (auto & v : pushed)
    for (GstBuffer * f : v)
      gst_buffer_unref (f);
  gst_object_unref (cs);
  gst_object_unref (pipeline);
}
GST_END_TEST;

/* A live pad that stalls: after the timeout the batch goes out without it,
 * its slot marked empty, and the stream goes on. */
GST_START_TEST (test_stalled_live_pad)
{
  const std::vector<Source> two = { { "NV12", 64, 48 }, { "RGBA", 16, 16 } };
  Tensor t;
  std::string props = props_of (t, 2) + " batched-push-timeout=20000";
  std::vector<Batch> batches;
  GstElement * pipeline = start_batches (two, props.c_str (), &batches, true);
  /* both at 0, then pad 1 stalls while pad 0 goes on in real time */
  gst_buffer_unref (push_frame (pipeline, 1, two[1], 0));
  for (guint k = 0; k < 6; k++) {
    gst_buffer_unref (push_frame (pipeline, 0, two[0], k));
    g_usleep (G_USEC_PER_SEC / 30);
  }
  g_usleep (G_USEC_PER_SEC / 5);
  end_source (pipeline, 0);
  end_source (pipeline, 1);
  testutil::run_to_eos (pipeline, "stalled live pad");
  fail_unless (batches.size () >= 4, "%zu batches from 6 frames", batches.size ());
  guint partial = 0;
  for (const Batch & b : batches) {
    fail_unless_equals_int (b.slots.size (), 2);
    fail_if (b.slots[0].empty);
    partial += b.slots[1].empty;
  }
  fail_unless (partial >= 3, "%u partial batches of %zu", partial, batches.size ());
  gst_object_unref (pipeline);
}
GST_END_TEST;

/* Settings that cannot make a tensor fail the start, saying why. */
static void
check_refused (const char * line, const char * expected)
{
  GstElement * pipeline = gst_parse_launch (line, NULL);
  fail_unless (pipeline != NULL);
  testutil::Outcome o = testutil::run_to_end (pipeline, 20 * GST_SECOND);
  fail_if (o.eos);
  fail_unless (o.error.find (expected) != std::string::npos, "%s: error \"%s\"", line,
      o.error.c_str ());
  gst_object_unref (pipeline);
}

GST_START_TEST (test_bad_settings)
{
  check_refused ("cudabatch ! fakesink", "no sink pad is linked");
  check_refused ("cudabatch batch-size=65535 width=16384 height=16384 ! fakesink "
                 "videotestsrc num-buffers=1 ! cudaupload ! cudabatch0.sink_0",
      "more than 2^31");
}
GST_END_TEST;

/* Interlaced frames cannot be letterboxed into a slot: refused, saying so. */
GST_START_TEST (test_unbatchable_caps)
{
  GstElement * pipeline = gst_parse_launch (
      "cudabatch name=cs ! fakesink videotestsrc num-buffers=2 ! "
      "video/x-raw,format=NV12,width=64,height=48,interlace-mode=interleaved ! "
      "cudaupload ! cs.sink_0",
      NULL);
  testutil::Outcome o = testutil::run_to_end (pipeline, 20 * GST_SECOND);
  fail_if (o.eos);
  fail_unless (o.warnings.find ("interlaced") != std::string::npos ||
                   o.error.find ("interlaced") != std::string::npos,
      "no reason given: error \"%s\", warnings \"%s\"", o.error.c_str (),
      o.warnings.c_str ());
  gst_object_unref (pipeline);
}
GST_END_TEST;

/* --- the frames' boxes in the tensor ------------------------------------ */

/* One box a batch carries (a GstVideoRegionOfInterestMeta with its
 * GstCsBatchBox parameter). */
struct TensorBox {
  std::string type, source;
  gint id = 0, parent_id = 0;
  guint x = 0, y = 0, w = 0, h = 0;
  guint slot = 0;
  double bx = 0, by = 0, bw = 0, bh = 0;
  bool kept_param = false; /* the frame's own parameter came along */
};

static GstPadProbeReturn
keep_boxes (GstPad *, GstPadProbeInfo * info, gpointer data)
{
  auto * boxes = static_cast<std::vector<std::vector<TensorBox>> *> (data);
  GstBuffer * buf = GST_PAD_PROBE_INFO_BUFFER (info);
  std::vector<TensorBox> out;
  gpointer state = NULL;
  while (GstMeta * m = gst_buffer_iterate_meta_filtered (
             buf, &state, GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE)) {
    auto * roi = reinterpret_cast<GstVideoRegionOfInterestMeta *> (m);
    TensorBox b;
    b.type = g_quark_to_string (roi->roi_type);
    b.id = roi->id, b.parent_id = roi->parent_id;
    b.x = roi->x, b.y = roi->y, b.w = roi->w, b.h = roi->h;
    GstStructure * where =
        gst_video_region_of_interest_meta_get_param (roi, "GstCsBatchBox");
    fail_unless (where != NULL, "a box without its GstCsBatchBox parameter");
    fail_unless (gst_structure_get_uint (where, "slot", &b.slot) &&
                 gst_structure_get_double (where, "x", &b.bx) &&
                 gst_structure_get_double (where, "y", &b.by) &&
                 gst_structure_get_double (where, "width", &b.bw) &&
                 gst_structure_get_double (where, "height", &b.bh));
    b.source = gst_structure_get_string (where, "source");
    b.kept_param = gst_video_region_of_interest_meta_get_param (roi, "detection") != NULL;
    out.push_back (b);
  }
  boxes->push_back (out);
  return GST_PAD_PROBE_OK;
}

/* A box of a frame, and where it must land in a slot of `rect` (the
 * converter's picture rectangle) for a frame of `s`: each corner scaled
 * from the frame onto the picture, clipped to it. */
struct FrameBoxCase {
  gint x, y, w, h;
};

static bool
expected_box (const Source & s, const gint rect[4], const FrameBoxCase & f, double out[4])
{
  const double sx = (double)rect[2] / s.w, sy = (double)rect[3] / s.h;
  double x0 = rect[0] + f.x * sx, y0 = rect[1] + f.y * sy;
  double x1 = rect[0] + (f.x + f.w) * sx, y1 = rect[1] + (f.y + f.h) * sy;
  x0 = std::max (x0, (double)rect[0]), y0 = std::max (y0, (double)rect[1]);
  x1 = std::min (x1, (double)rect[0] + rect[2]),
  y1 = std::min (y1, (double)rect[1] + rect[3]);
  out[0] = x0, out[1] = y0, out[2] = x1 - x0, out[3] = y1 - y0;
  return x1 > x0 && y1 > y0;
}

/* Each slot's frame carries GStreamer's region-of-interest metas (and,
 * built with the analytics library, object-detection boxes); the batch
 * carries each box in its slot's tensor pixels: the exact box in its
 * GstCsBatchBox parameter (slot, x, y, width, height) within 1e-9 of the
 * frame's box scaled onto the slot's picture (the converter's own
 * rectangle, letterbox included) and clipped to it, the meta's own
 * rectangle that box rounded, the type, ids and parameters the frame's.
 * A box wholly outside the frame is left out. */
static void
check_boxes (const Tensor & t)
{
  const std::vector<Source> two = { { "NV12", 64, 48 }, { "RGBA", 50, 80 } };
  const std::vector<FrameBoxCase> cases = { { 10, 6, 20, 12 }, { 0, 0, 7, 5 },
    { 40, 30, 40, 40 } /* clipped */, { 90, 90, 5, 5 } /* outside */ };
  std::vector<std::vector<TensorBox>> boxes;
  std::vector<Batch> batches;
  const std::string props = props_of (t, 3);
  GstElement * pipeline = batch_pipeline (two, props.c_str ());
  watch_batches (pipeline, &batches);
  testutil::add_probe (
      pipeline, "out", "sink", GST_PAD_PROBE_TYPE_BUFFER, keep_boxes, &boxes);
  fail_unless (
      gst_element_set_state (pipeline, GST_STATE_PLAYING) != GST_STATE_CHANGE_FAILURE);
  std::vector<GstBuffer *> frames;
  for (size_t i = 0; i < two.size (); i++) {
    GstVideoInfo info = testutil::video_info (two[i].format, two[i].w, two[i].h);
    GstBuffer * f = testutil::random_buffer (info.size, (guint32)(7 + i));
    for (size_t c = 0; c < cases.size (); c++) {
      GstVideoRegionOfInterestMeta * m = gst_buffer_add_video_region_of_interest_meta (
          f, i ? "car" : "person", cases[c].x, cases[c].y, cases[c].w, cases[c].h);
      m->id = (gint)(10 * i + c);
      m->parent_id = 99;
      gst_video_region_of_interest_meta_add_param (
          m, gst_structure_new ("detection", "score", G_TYPE_DOUBLE, 0.5, NULL));
    }
#if HAVE_GST_ANALYTICS_OD
    GstAnalyticsRelationMeta * rm = gst_buffer_add_analytics_relation_meta (f);
    GstAnalyticsODMtd od;
    fail_unless (gst_analytics_relation_meta_add_od_mtd (
        rm, g_quark_from_static_string ("od"), 10, 6, 20, 12, 0.75f, &od));
#endif
    push_buffer (pipeline, i, f, 0);
    frames.push_back (f);
    end_source (pipeline, i);
  }
  testutil::run_to_eos (pipeline, props.c_str ());
  fail_unless_equals_int (boxes.size (), 1);
  const std::vector<TensorBox> & got = boxes[0];
  size_t want = 0;
  for (size_t i = 0; i < two.size (); i++) {
    gint rect[4];
    reference_picture (two[i], frames[i], t, rect);
    const GstCsBatchSlot & slot = batches[0].slots[i];
    fail_unless_equals_int (slot.pad_index, i);
    auto check = [&] (const FrameBoxCase & f, const char * type, const char * source) {
      double e[4];
      if (!expected_box (two[i], rect, f, e))
        return;
      want++;
      const TensorBox * b = NULL;
      for (const TensorBox & g : got)
        if (g.slot == i && g.type == type && g.source == source &&
            std::fabs (g.bx - e[0]) < 1e-9 && std::fabs (g.by - e[1]) < 1e-9)
          b = &g;
      fail_unless (b != NULL,
          "%s: slot %zu has no %s box at (%g,%g) %gx%g (frame box %d,%d %dx%d)",
          props.c_str (), i, type, e[0], e[1], e[2], e[3], f.x, f.y, f.w, f.h);
      fail_unless (std::fabs (b->bw - e[2]) < 1e-9 && std::fabs (b->bh - e[3]) < 1e-9,
          "slot %zu: box %gx%g, expected %gx%g", i, b->bw, b->bh, e[2], e[3]);
      const double x1 = std::floor (e[0] + e[2] + 0.5),
                   y1 = std::floor (e[1] + e[3] + 0.5);
      fail_unless (b->x == std::floor (e[0] + 0.5) && b->y == std::floor (e[1] + 0.5) &&
                       b->x + b->w == x1 && b->y + b->h == y1,
          "slot %zu: rounded box %u,%u %ux%u of (%g,%g) %gx%g", i, b->x, b->y, b->w, b->h,
          e[0], e[1], e[2], e[3]);
      /* the box maps back onto the frame's through the slot's own map */
      gdouble fx, fy;
      gst_cs_batch_slot_to_source (&slot, b->bx, b->by, &fx, &fy);
      fail_unless (fx >= f.x - 1e-9 && fy >= f.y - 1e-9);
      if (g_str_equal (source, "roi"))
        fail_unless (b->kept_param && b->parent_id == 99 && b->id / 10 == (gint)i);
    };
    for (const FrameBoxCase & f : cases)
      check (f, i ? "car" : "person", "roi");
#if HAVE_GST_ANALYTICS_OD
    check ({ 10, 6, 20, 12 }, "od", "od");
#endif
  }
  fail_unless_equals_int (got.size (), want);
  for (GstBuffer * f : frames)
    gst_buffer_unref (f);
  gst_object_unref (pipeline);
}

GST_START_TEST (test_boxes_centered)
{
  Tensor t;
  check_boxes (t);
}
GST_END_TEST;

GST_START_TEST (test_boxes_top_left_nhwc)
{
  Tensor t;
  t.top_left = true, t.nhwc = true, t.w = 31, t.h = 17;
  check_boxes (t);
}
GST_END_TEST;

/* --- GStreamer's analytics metas -------------------------------------- */

#if HAVE_GST_ANALYTICS_BATCH
/* The stream id on the sink pad of cudabatch (upstream of `pad`) named
 * `pad_name`: what the batch meta should name for that slot. */
static std::string
sink_stream_id (GstPad * pad, GQuark pad_name)
{
  GstPad * src = gst_pad_get_peer (pad);
  GstElement * cs = src ? gst_pad_get_parent_element (src) : NULL;
  GstPad * sink =
      cs ? gst_element_get_static_pad (cs, g_quark_to_string (pad_name)) : NULL;
  GstEvent * start =
      sink ? gst_pad_get_sticky_event (sink, GST_EVENT_STREAM_START, 0) : NULL;
  const gchar * id = NULL;
  if (start)
    gst_event_parse_stream_start (start, &id);
  std::string out = id ? id : "";
  gst_clear_event (&start);
  gst_clear_object (&sink);
  gst_clear_object (&cs);
  gst_clear_object (&src);
  return out;
}

static void
keep_batch_streams (GstPad * pad, GstBuffer * buf, Analytics * a)
{
  GstAnalyticsBatchMeta * bm = gst_buffer_get_analytics_batch_meta (buf);
  GstCsBatchMeta * ours = gst_buffer_get_cs_batch_meta (buf);
  for (gsize i = 0; bm && i < bm->n_streams; i++) {
    GstAnalyticsBatchStream * st = &bm->streams[i];
    Analytics::Stream out;
    out.index = st->index;
    const gchar * id = gst_analytics_batch_stream_get_stream_id (st);
    out.id = id ? id : "";
    if (ours && i < ours->n_slots && !ours->slots[i].empty)
      out.pad_id = sink_stream_id (pad, ours->slots[i].pad_name);
    GstCaps * caps = gst_analytics_batch_stream_get_caps (st);
    if (caps) {
      GstStructure * c = gst_caps_get_structure (caps, 0);
      gst_structure_get_int (c, "width", &out.width);
      gst_structure_get_int (c, "height", &out.height);
    }
    out.has_segment = gst_analytics_batch_stream_get_segment (st) != NULL;
    if (st->n_objects == 1 && GST_IS_BUFFER (st->objects[0]))
      out.pts = GST_BUFFER_PTS (GST_BUFFER_CAST (st->objects[0]));
    a->streams.push_back (out);
  }
}
#endif

static void
keep_analytics (GstPad * pad, GstBuffer * buf, Analytics * a)
{
  gpointer state = NULL;
  while (GstMeta * m = gst_buffer_iterate_meta (buf, &state))
    a->apis.push_back (g_type_name (m->info->api));
#if HAVE_GST_ANALYTICS
  GstTensorMeta * tm = gst_buffer_get_tensor_meta (buf);
  if (tm && tm->num_tensors == 1) {
    const GstTensor * t = gst_tensor_meta_get (tm, 0);
    a->tensor = true;
    a->dims.assign (t->dims, t->dims + t->num_dims);
    a->data_type = t->data_type;
    a->dims_order = t->dims_order;
    a->id = g_quark_to_string (t->id);
    a->shares_memory =
        t->data && gst_buffer_n_memory (t->data) == 1 &&
        gst_buffer_peek_memory (t->data, 0) == gst_buffer_peek_memory (buf, 0);
  }
#endif
#if HAVE_GST_ANALYTICS_BATCH
  keep_batch_streams (pad, buf, a);
#endif
  (void)pad;
}

/* Unused where both metas are there: their checks need no API names. */
[[maybe_unused]] static bool
has_api (const Analytics & a, const char * part)
{
  for (const std::string & api : a.apis)
    if (api.find (part) != std::string::npos)
      return true;
  return false;
}

/* Two sources (8 frames each) into 3 slots of `t`: the caps are NNStreamer's
 * whatever the version; GStreamer's metas describe the tensor as the
 * properties say and name each slot's source where the version has them,
 * and are absent where it has not; the tensors' memory is reused. */
static void
check_analytics (const Tensor & t, const std::vector<gsize> & dims, int data_type)
{
  const std::vector<Source> two = { { "NV12", 64, 48 }, { "RGBA", 16, 16 } };
  std::vector<Batch> batches;
  GstElement * pipeline = start_batches (two, props_of (t, 3).c_str (), &batches);
  const guint frames = 8;
  for (guint k = 0; k < frames; k++)
    for (size_t i = 0; i < two.size (); i++)
      gst_buffer_unref (push_frame (pipeline, i, two[i], k));
  for (size_t i = 0; i < two.size (); i++)
    end_source (pipeline, i);
  testutil::run_to_eos (pipeline, "analytics metas");
  fail_unless_equals_int (batches.size (), frames);
  /* Each batch went back to its pool once the sink let go: the metas hold
   * no batch alive (a tensor that did kept every batch's memory). */
  std::vector<const void *> memories;
  for (const Batch & b : batches)
    if (std::find (memories.begin (), memories.end (), b.memory) == memories.end ())
      memories.push_back (b.memory);
  fail_unless (memories.size () < frames, "%zu batches in %zu memories: none reused",
      batches.size (), memories.size ());
  gchar * want_caps = g_strdup_printf (
      "other/tensors(" GST_CAPS_FEATURE_MEMORY_CS "), format=(string)static, "
      "num_tensors=(int)1, types=(string)%s, dimensions=(string)%s, "
      "framerate=(fraction)30/1",
      t.dtype, t.nhwc ? "3:32:24:3" : "32:24:3:3");
  GstCaps * want = gst_caps_from_string (want_caps);
  for (guint k = 0; k < batches.size (); k++) {
    const Batch & b = batches[k];
    GstCaps * got = gst_caps_from_string (b.caps.c_str ());
    fail_unless (got && gst_caps_is_equal (got, want), "caps %s, expected %s",
        b.caps.c_str (), want_caps);
    gst_clear_caps (&got);
    const Analytics & a = b.analytics;
#if HAVE_GST_ANALYTICS
    fail_unless (a.tensor, "no GstTensorMeta on %s", gst_version_string ());
    fail_unless (a.dims == dims, "tensor dims %zu: %zu,%zu,%zu,%zu", a.dims.size (),
        a.dims.size () > 0 ? a.dims[0] : 0, a.dims.size () > 1 ? a.dims[1] : 0,
        a.dims.size () > 2 ? a.dims[2] : 0, a.dims.size () > 3 ? a.dims[3] : 0);
    fail_unless_equals_int (a.data_type, data_type);
    fail_unless_equals_int (a.dims_order, GST_TENSOR_DIM_ORDER_ROW_MAJOR);
    fail_unless_equals_string (a.id.c_str (), t.bgr ? "cudabatch-bgr" : "cudabatch-rgb");
    fail_unless (a.shares_memory, "the GstTensor's data is not the batch's memory");
#else
    (void)dims, (void)data_type;
    fail_if (has_api (a, "Tensor"), "a tensor meta without the analytics library");
    if (k == 0)
      g_print ("batch_gpu: GstTensorMeta not checked: the plugin is built without "
               "gstreamer-analytics-1.0 >= 1.26 (%s); checked it is absent\n",
          gst_version_string ());
#endif
#if HAVE_GST_ANALYTICS_BATCH
    fail_unless_equals_int (a.streams.size (), 3);
    for (guint i = 0; i < 3; i++) {
      const Analytics::Stream & st = a.streams[i];
      fail_unless_equals_int (st.index, i);
      if (i == 2) { /* the empty slot names no source */
        fail_unless (
            st.id.empty () && st.width == 0 && !GST_CLOCK_TIME_IS_VALID (st.pts));
        continue;
      }
      fail_if (st.id.empty (), "slot %u names no stream", i);
      fail_unless_equals_string (st.id.c_str (), st.pad_id.c_str ());
      fail_unless (st.width == two[i].w && st.height == two[i].h,
          "slot %u: the caps of a %dx%d stream, not %dx%d", i, st.width, st.height,
          two[i].w, two[i].h);
      fail_unless (st.has_segment, "slot %u: no segment", i);
      fail_unless_equals_uint64 (st.pts, b.slots[i].pts);
    }
    fail_if (a.streams[0].id == a.streams[1].id, "two slots name one stream");
#else
    fail_if (has_api (a, "AnalyticsBatch"), "a batch meta without GStreamer 1.28");
    if (k == 0)
      g_print ("batch_gpu: GstAnalyticsBatchMeta not checked: the plugin is built "
               "without gstreamer-analytics-1.0 >= 1.28 (%s); checked it "
               "is absent\n",
          gst_version_string ());
#endif
  }
  gst_caps_unref (want);
  g_free (want_caps);
  gst_object_unref (pipeline);
}

#if HAVE_GST_ANALYTICS
#define TENSOR_TYPE(name) GST_TENSOR_DATA_TYPE_##name
#else
#define TENSOR_TYPE(name) -1
#endif

GST_START_TEST (test_analytics_float16_nchw)
{
  Tensor t;
  t.dtype = "float16";
  check_analytics (t, { 3, 3, 24, 32 }, TENSOR_TYPE (FLOAT16));
}
GST_END_TEST;

GST_START_TEST (test_analytics_uint8_nhwc_bgr)
{
  Tensor t;
  t.nhwc = true, t.bgr = true;
  check_analytics (t, { 3, 24, 32, 3 }, TENSOR_TYPE (UINT8));
}
GST_END_TEST;

static Suite *
batch_gpu_suite (void)
{
  Suite * s = suite_create ("batch_gpu");
  TCase * tc = tcase_create ("gpu");
  tcase_set_timeout (tc, 600);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_uint8_nchw);
  tcase_add_test (tc, test_uint8_nhwc_bgr_top_left);
  tcase_add_test (tc, test_float32_nchw);
  tcase_add_test (tc, test_float16_nhwc_bgr);
  tcase_add_test (tc, test_every_format);
  tcase_add_test (tc, test_fused_path);
  tcase_add_test (tc, test_near_videoconvertscale);
  tcase_add_test (tc, test_empty_slots);
  tcase_add_test (tc, test_eos_one_then_all);
  tcase_add_test (tc, test_eos_first_then_rest);
  tcase_add_test (tc, test_pads_while_playing);
  tcase_add_test (tc, test_stalled_live_pad);
  tcase_add_test (tc, test_bad_settings);
  tcase_add_test (tc, test_unbatchable_caps);
  tcase_add_test (tc, test_boxes_centered);
  tcase_add_test (tc, test_boxes_top_left_nhwc);
  tcase_add_test (tc, test_analytics_float16_nchw);
  tcase_add_test (tc, test_analytics_uint8_nhwc_bgr);
  return s;
}

TESTUTIL_GPU_CHECK_MAIN (batch_gpu);

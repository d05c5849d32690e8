/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "testutil.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <random>

#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <gst/check/gstcheck.h>
#include <cuda_runtime_api.h>

#include "fakecuda.h"
#include "gstcshostwait-private.h"
#include "gstcspinnedmemory-private.h"
#include "base/gstcscaps.h"
#include "gstcsvideo-private.h"

namespace testutil {

/* --- the GPU ------------------------------------------------------------ */

bool
gpu_available (std::string * why)
{
  int n = 0;
  cudaError_t err = cudaGetDeviceCount (&n);
  if (err != cudaSuccess || n == 0) {
    if (why)
      *why = err != cudaSuccess
                 ? std::string (cudaGetErrorName (err)) + ": " + cudaGetErrorString (err)
                 : "the driver reports no device";
    return false;
  }
  return true;
}

void
require_gpu_or_skip (const char * binary)
{
  std::string why;
  if (!gpu_available (&why)) {
    std::printf ("SKIP %s: no usable CUDA GPU (%s)\n", binary, why.c_str ());
    std::exit (77);
  }
  /* check forks a child per test, and CUDA cannot be used in a child forked
   * after the parent initialised it (the probe above did). */
  g_setenv ("CK_FORK", "no", TRUE);
}

bool
on_stand_in ()
{
  return fakecuda_present ();
}

guint64
runtime_host_blocks ()
{
  return on_stand_in () ? fakecuda_host_blocks_total () : 0;
}

/* --- formats ------------------------------------------------------------ */

const std::vector<const char *> videocrop_formats = { "RGBA", "BGRA", "RGBx", "BGRx",
  "ARGB", "ABGR", "RGB", "BGR", "GRAY8", "GRAY16_LE", "NV12", "NV21", "I420", "YV12",
  "Y42B", "Y444", "YUY2", "UYVY" };
const std::vector<const char *> semi_planar_16_formats = { "P010_10LE", "P016_LE" };

static std::vector<const char *>
concatenated (std::vector<const char *> a, const std::vector<const char *> & b)
{
  a.insert (a.end (), b.begin (), b.end ());
  return a;
}

const std::vector<const char *> all_formats =
    concatenated (videocrop_formats, semi_planar_16_formats);

std::vector<const char *>
plain_formats ()
{
  std::vector<const char *> out;
  GEnumClass * k = (GEnumClass *)g_type_class_ref (GST_TYPE_VIDEO_FORMAT);
  for (guint i = 0; i < k->n_values; i++) {
    const GstVideoFormat f = (GstVideoFormat)k->values[i].value;
    if (f == GST_VIDEO_FORMAT_UNKNOWN || f == GST_VIDEO_FORMAT_ENCODED)
      continue;
    const GstVideoFormatInfo * info = gst_video_format_get_info (f);
    if (!info || GST_VIDEO_FORMAT_INFO_IS_TILED (info))
      continue;
#if GST_CHECK_VERSION(1, 22, 0)
    if (GST_VIDEO_FORMAT_INFO_IS_COMPLEX (info))
      continue;
#else
    if (GST_VIDEO_FORMAT_INFO_PSTRIDE (info, 0) == 0 && f != GST_VIDEO_FORMAT_IYU1)
      continue;
#endif
    out.push_back (gst_video_format_to_string (f));
  }
  g_type_class_unref (k);
  return out;
}

bool
videocrop_takes (const char * format)
{
  GstElementFactory * f = gst_element_factory_find ("videocrop");
  fail_unless (f != NULL, "no videocrop (gst-plugins-good)");
  GstCaps * tmpl = NULL;
  for (const GList * l = gst_element_factory_get_static_pad_templates (f); l;
       l = l->next) {
    GstStaticPadTemplate * t = (GstStaticPadTemplate *)l->data;
    if (t->direction == GST_PAD_SINK)
      tmpl = gst_static_caps_get (&t->static_caps);
  }
  gst_object_unref (f);
  fail_unless (tmpl != NULL);
  /* Its first structure, in system memory: the second takes any memory
   * and format, for passing crop metas on. */
  GstCaps * first = gst_caps_copy_nth (tmpl, 0);
  GstCaps * want =
      gst_caps_new_simple ("video/x-raw", "format", G_TYPE_STRING, format, NULL);
  const bool takes = gst_caps_can_intersect (first, want);
  gst_caps_unref (want);
  gst_caps_unref (first);
  gst_caps_unref (tmpl);
  return takes;
}

std::vector<std::string>
caps_formats (const GstCaps * caps)
{
  std::vector<std::string> out;
  for (guint i = 0; i < gst_caps_get_size (caps); i++) {
    const GstStructure * s = gst_caps_get_structure (caps, i);
    const GValue * v = gst_structure_get_value (s, "format");
    if (!gst_structure_has_name (s, "video/x-raw") || !v)
      continue;
    if (GST_VALUE_HOLDS_LIST (v)) {
      for (guint j = 0; j < gst_value_list_get_size (v); j++)
        out.push_back (g_value_get_string (gst_value_list_get_value (v, j)));
    } else {
      out.push_back (g_value_get_string (v));
    }
  }
  std::sort (out.begin (), out.end ());
  out.erase (std::unique (out.begin (), out.end ()), out.end ());
  return out;
}

/* --- capturing frames --------------------------------------------------- */

Captured::Captured ()
{
  g_mutex_init (&lock);
  gst_video_info_init (&info);
}

Captured::~Captured ()
{
  for (GstBuffer * b : buffers)
    gst_buffer_unref (b);
  g_mutex_clear (&lock);
}

static void
store (Captured * c, GstPad * pad, GstBuffer * buf)
{
  GstCaps * caps = gst_pad_get_current_caps (pad);
  g_mutex_lock (&c->lock);
  if (caps)
    gst_video_info_from_caps (&c->info, caps);
  c->infos.push_back (c->info);
  if (gst_buffer_n_memory (buf) == 1 &&
      gst_is_cs_pinned_memory (gst_buffer_peek_memory (buf, 0)))
    c->pinned++;
  /* A deep copy reads the pixels through a host mapping. */
  c->buffers.push_back (gst_buffer_copy_deep (buf));
  g_mutex_unlock (&c->lock);
  if (caps)
    gst_caps_unref (caps);
}

static GstPadProbeReturn
probe_cb (GstPad * pad, GstPadProbeInfo * info, gpointer user)
{
  store (static_cast<Captured *> (user), pad, GST_PAD_PROBE_INFO_BUFFER (info));
  return GST_PAD_PROBE_OK;
}

void
capture_pad (GstPad * pad, Captured * into)
{
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, probe_cb, into, NULL);
}

void
capture_pad (
    GstElement * pipeline, const char * element, const char * pad, Captured * into)
{
  add_probe (pipeline, element, pad, GST_PAD_PROBE_TYPE_BUFFER, probe_cb, into);
}

void
count_buffers (GstElement * pipeline, const char * element, const char * pad, guint * n)
{
  add_probe (
      pipeline, element, pad, GST_PAD_PROBE_TYPE_BUFFER,
      [] (GstPad *, GstPadProbeInfo *, gpointer count) {
        g_atomic_int_inc (static_cast<guint *> (count));
        return GST_PAD_PROBE_OK;
      },
      n);
}

static GstFlowReturn
new_sample (GstAppSink * sink, gpointer user)
{
  GstSample * s = gst_app_sink_pull_sample (sink);
  auto * c = static_cast<Captured *> (user);
  g_mutex_lock (&c->lock);
  gst_video_info_from_caps (&c->info, gst_sample_get_caps (s));
  c->infos.push_back (c->info);
  c->buffers.push_back (gst_buffer_ref (gst_sample_get_buffer (s)));
  g_mutex_unlock (&c->lock);
  gst_sample_unref (s);
  return GST_FLOW_OK;
}

void
capture_appsink (GstElement * appsink, Captured * into)
{
  GstAppSinkCallbacks cb = {};
  cb.new_sample = new_sample;
  gst_app_sink_set_callbacks (GST_APP_SINK (appsink), &cb, into, NULL);
}

void
capture_appsink (GstElement * pipeline, const char * appsink, Captured * into)
{
  GstElement * sink = by_name (pipeline, appsink);
  fail_unless (sink != NULL, "no appsink %s", appsink);
  capture_appsink (sink, into);
  gst_object_unref (sink);
}

/* --- video frames' codes --------------------------------------------- */

/* Where component `c`'s sample (x, y) of its plane's grid is. GStreamer
 * 1.22 gives P010/P016's V offset in samples (1), not bytes (2). */
static guint8 *
code_at (const GstVideoFrame * f, guint c, gint x, gint y)
{
  gint offset = GST_VIDEO_FORMAT_INFO_POFFSET (f->info.finfo, c);
  if (GST_VIDEO_FRAME_COMP_DEPTH (f, c) > 8 && (offset & 1))
    offset *= 2;
  return (guint8 *)GST_VIDEO_FRAME_PLANE_DATA (f, GST_VIDEO_FRAME_COMP_PLANE (f, c)) +
         offset + (gsize)y * GST_VIDEO_FRAME_COMP_STRIDE (f, c) +
         (gsize)x * GST_VIDEO_FRAME_COMP_PSTRIDE (f, c);
}

guint
code_of (const GstVideoFrame * f, guint c, gint x, gint y)
{
  const guint8 * p = code_at (f, c, x, y);
  if (GST_VIDEO_FRAME_COMP_DEPTH (f, c) <= 8)
    return p[0];
  return (guint)(p[0] | (p[1] << 8)) >> GST_VIDEO_FORMAT_INFO_SHIFT (f->info.finfo, c);
}

static void
set_code (GstVideoFrame * f, guint c, gint x, gint y, guint code)
{
  guint8 * p = code_at (f, c, x, y);
  if (GST_VIDEO_FRAME_COMP_DEPTH (f, c) <= 8) {
    p[0] = (guint8)code;
    return;
  }
  code <<= GST_VIDEO_FORMAT_INFO_SHIFT (f->info.finfo, c);
  p[0] = (guint8)(code & 0xff);
  p[1] = (guint8)(code >> 8);
}

GstVideoInfo
video_info (const char * format, gint w, gint h)
{
  GstVideoInfo info;
  gst_video_info_set_format (&info, gst_video_format_from_string (format), w, h);
  GST_VIDEO_INFO_FPS_N (&info) = 30;
  GST_VIDEO_INFO_FPS_D (&info) = 1;
  return info;
}

void
push_frames (GstElement * pipeline, const char * appsrc, const GstVideoInfo * info,
    Content content, guint32 first_seed, gint frames, GstClockTime duration,
    const std::function<void (GstBuffer *, gint)> & mark)
{
  GstElement * src = by_name (pipeline, appsrc);
  fail_unless (src != NULL, "no appsrc %s", appsrc);
  for (gint i = 0; i < frames; i++) {
    GstBuffer * buf = video_frame (info, content, first_seed + (guint32)i);
    GST_BUFFER_PTS (buf) = i * duration;
    GST_BUFFER_DURATION (buf) = duration;
    if (mark)
      mark (buf, i);
    fail_unless (gst_app_src_push_buffer (GST_APP_SRC (src), buf) == GST_FLOW_OK);
  }
  gst_app_src_end_of_stream (GST_APP_SRC (src));
  gst_object_unref (src);
}

void
wait_until (const std::function<bool ()> & done, const char * what)
{
  for (int i = 0; i < 6000 && !done (); i++)
    g_usleep (10000);
  fail_unless (done (), "waited 60 s for %s", what);
}

void
fill_palette (GstVideoFrame * f, bool smooth, GRand * rand)
{
  guint32 * entries = (guint32 *)GST_VIDEO_FRAME_PLANE_DATA (f, 1);
  for (guint i = 0; i < 256; i++)
    entries[i] = smooth ? 0xff000000u | i << 16 | (255 - i) << 8 | (64 + i / 2)
                        : g_rand_int (rand);
}

GstBuffer *
video_frame (const GstVideoInfo * info, Content content, guint32 seed)
{
  GstBuffer * buf = gst_buffer_new_allocate (NULL, info->size, NULL);
  gst_buffer_memset (buf, 0, 0, info->size);
  GstVideoFrame f;
  fail_unless (
      gst_video_frame_map (&f, const_cast<GstVideoInfo *> (info), buf, GST_MAP_WRITE));
  GRand * rand = g_rand_new_with_seed (seed);
  /* A palette format (RGB8P): its second "component" is the palette, 256
   * colours of 32 bits (random, or a ramp of colours for smooth content);
   * the first is the index, coded as any component. */
  guint n_comps = GST_VIDEO_FRAME_N_COMPONENTS (&f);
  if (GST_VIDEO_FORMAT_INFO_HAS_PALETTE (info->finfo)) {
    fill_palette (&f, content == Content::SMOOTH, rand);
    n_comps = 1;
  }
  for (guint c = 0; c < n_comps; c++) {
    const guint max = (1u << GST_VIDEO_FRAME_COMP_DEPTH (&f, c)) - 1;
    /* Two waves of a few periods per frame, of random direction and phase. */
    double k[2][3];
    for (auto & w : k)
      for (double & v : w)
        v = g_rand_double_range (rand, 0.5, 3.0);
    const gint cw = GST_VIDEO_FRAME_COMP_WIDTH (&f, c),
               ch = GST_VIDEO_FRAME_COMP_HEIGHT (&f, c);
    for (gint y = 0; y < ch; y++)
      for (gint x = 0; x < cw; x++) {
        guint code;
        if (content == Content::RANDOM) {
          code = g_rand_int_range (rand, 0, (gint32)max + 1);
        } else {
          const double u = 6.2832 * x / cw, v = 6.2832 * y / ch;
          const double s = std::sin (k[0][0] * u + k[0][1] * v + k[0][2]) +
                           std::sin (k[1][0] * u - k[1][1] * v + 2.0 * k[1][2]);
          code = (guint)std::lround ((0.5 + 0.22 * s) * max);
        }
        set_code (&f, c, x, y, code);
      }
  }
  g_rand_free (rand);
  gst_video_frame_unmap (&f);
  return buf;
}

GstBuffer *
random_buffer (gsize size, guint32 seed)
{
  GstBuffer * buf = gst_buffer_new_allocate (NULL, size, NULL);
  GstMapInfo map;
  fail_unless (gst_buffer_map (buf, &map, GST_MAP_WRITE));
  fill_random (map.data, map.size, seed);
  gst_buffer_unmap (buf, &map);
  return buf;
}

void
fill_random (guint8 * data, gsize size, guint32 seed)
{
  std::mt19937 rng (seed);
  gsize i = 0;
  for (; i + 4 <= size; i += 4) {
    guint32 v = rng ();
    std::memcpy (data + i, &v, 4);
  }
  for (; i < size; i++)
    data[i] = (guint8)rng ();
}

/* --- elements and harnesses --------------------------------------------- */

static void
expect_ours (GstElement * e)
{
  GstElementFactory * factory = gst_element_get_factory (e);
  GstPlugin * plugin =
      factory ? gst_plugin_feature_get_plugin (GST_PLUGIN_FEATURE (factory)) : NULL;
  fail_unless (plugin != NULL, "%s: no plugin", GST_OBJECT_NAME (e));
  fail_unless (!strcmp (gst_plugin_get_name (plugin), "cudastreams"),
      "%s comes from the plugin %s, not cudastreams", GST_OBJECT_NAME (e),
      gst_plugin_get_name (plugin));
  gst_object_unref (plugin);
}

GstElement *
make_ours (const char * factory)
{
  GstElement * e = gst_element_factory_make (factory, NULL);
  fail_unless (e != NULL, "cannot create %s", factory);
  expect_ours (e);
  return e;
}

GstHarness *
harness_ours (const char * factory)
{
  GstHarness * h = gst_harness_new (factory);
  expect_ours (h->element);
  gst_harness_set_live (h, FALSE);
  return h;
}

GstHarness *
harness_parse_ours (const char * launchline)
{
  GstHarness * h = gst_harness_new_parse (launchline);
  GstIterator * it = gst_bin_iterate_elements (GST_BIN (h->element));
  GValue item = G_VALUE_INIT;
  while (gst_iterator_next (it, &item) == GST_ITERATOR_OK) {
    expect_ours (GST_ELEMENT (g_value_get_object (&item)));
    g_value_reset (&item);
  }
  g_value_unset (&item);
  gst_iterator_free (it);
  gst_harness_set_live (h, FALSE);
  return h;
}

void
pull_frames (GstHarness * h, guint n, Captured * into, const char * what)
{
  for (guint i = 0; i < n; i++) {
    GstBuffer * buf = gst_harness_pull (h);
    fail_unless (buf != NULL, "%s%sframe %u of %u did not come out", what,
        *what ? ": " : "", i, n);
    GstCaps * caps = gst_pad_get_current_caps (h->sinkpad);
    fail_unless (caps != NULL);
    fail_unless (gst_video_info_from_caps (&into->info, caps));
    gst_caps_unref (caps);
    into->infos.push_back (into->info);
    into->buffers.push_back (buf);
  }
}

GstBus *
watch_bus (GstElement * element)
{
  GstBus * bus = gst_bus_new ();
  gst_element_set_bus (element, bus);
  return bus;
}

/* "source: message (debug)" of an ERROR or WARNING message. */
static std::string
describe (GstMessage * msg)
{
  GError * err = NULL;
  gchar * dbg = NULL;
  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR)
    gst_message_parse_error (msg, &err, &dbg);
  else
    gst_message_parse_warning (msg, &err, &dbg);
  std::string text = std::string (GST_OBJECT_NAME (msg->src)) + ": " + err->message +
                     " (" + (dbg ? dbg : "") + ")";
  g_error_free (err);
  g_free (dbg);
  return text;
}

std::string
pop_messages (GstBus * bus, GstMessageType type)
{
  std::string text;
  while (GstMessage * msg = gst_bus_pop_filtered (bus, type)) {
    text += describe (msg) + "\n";
    gst_message_unref (msg);
  }
  return text;
}

/* --- pipelines ---------------------------------------------------------- */

GstElement *
by_name (GstElement * pipeline, const char * name)
{
  return gst_bin_get_by_name (GST_BIN (pipeline), name);
}

guint64
host_waits (GstElement * element)
{
  guint64 waits = G_MAXUINT64;
  g_object_get (element, "host-waits", &waits, NULL);
  return waits;
}

guint64
host_waits (GstElement * pipeline, const char * name)
{
  GstElement * e = by_name (pipeline, name);
  fail_unless (e != NULL, "no element %s", name);
  const guint64 waits = host_waits (e);
  gst_object_unref (e);
  return waits;
}

void
add_probe (GstElement * pipeline, const char * element, const char * pad,
    GstPadProbeType type, GstPadProbeCallback callback, gpointer user_data,
    GDestroyNotify destroy)
{
  GstElement * e = by_name (pipeline, element);
  fail_unless (e != NULL, "no element %s", element);
  GstPad * p = gst_element_get_static_pad (e, pad);
  fail_unless (p != NULL, "%s has no pad %s", element, pad);
  gst_pad_add_probe (p, type, callback, user_data, destroy);
  gst_object_unref (p);
  gst_object_unref (e);
}

static GstPadProbeReturn
strip_crop_metas (GstPad *, GstPadProbeInfo * info, gpointer video_metas_too)
{
  GstQuery * q = GST_PAD_PROBE_INFO_QUERY (info);
  if (GST_QUERY_TYPE (q) != GST_QUERY_ALLOCATION)
    return GST_PAD_PROBE_OK;
  guint idx;
  while (gst_query_find_allocation_meta (q, GST_VIDEO_CROP_META_API_TYPE, &idx))
    gst_query_remove_nth_allocation_meta (q, idx);
  while (video_metas_too &&
         gst_query_find_allocation_meta (q, GST_VIDEO_META_API_TYPE, &idx))
    gst_query_remove_nth_allocation_meta (q, idx);
  return GST_PAD_PROBE_OK;
}

void
hide_crop_metas (GstPad * src, bool video_metas_too)
{
  gst_pad_add_probe (src,
      (GstPadProbeType)(GST_PAD_PROBE_TYPE_QUERY_DOWNSTREAM | GST_PAD_PROBE_TYPE_PULL),
      strip_crop_metas, GINT_TO_POINTER (video_metas_too ? 1 : 0), NULL);
}

void
hide_crop_metas (GstElement * pipeline, const char * element, bool video_metas_too)
{
  GstElement * e = by_name (pipeline, element);
  fail_unless (e != NULL, "no element %s", element);
  GstPad * p = gst_element_get_static_pad (e, "src");
  hide_crop_metas (p, video_metas_too);
  gst_object_unref (p);
  gst_object_unref (e);
}

static GstPadProbeReturn
keep_bytes (GstPad *, GstPadProbeInfo * info, gpointer user)
{
  auto * into = static_cast<std::vector<std::vector<guint8>> *> (user);
  GstBuffer * buf = GST_PAD_PROBE_INFO_BUFFER (info);
  GstMapInfo map;
  fail_unless (gst_buffer_map (buf, &map, GST_MAP_READ));
  into->emplace_back (map.data, map.data + map.size);
  gst_buffer_unmap (buf, &map);
  return GST_PAD_PROBE_OK;
}

void
capture_bytes (GstElement * pipeline, const char * element, const char * pad,
    std::vector<std::vector<guint8>> * into)
{
  add_probe (pipeline, element, pad, GST_PAD_PROBE_TYPE_BUFFER, keep_bytes, into);
}

GstElement *
parse_beside_reference (const char * format, gint w, gint h, gint frames,
    const char * reference, const char * chain, Captured * expected, Captured * out)
{
  gchar * ref = reference
                    ? g_strdup_printf ("%s ! appsink name=ref sync=false", reference)
                    : g_strdup ("fakesink");
  gchar * desc = g_strdup_printf (
      "videotestsrc pattern=snow num-buffers=%d ! "
      "video/x-raw,format=%s,width=%d,height=%d,framerate=30/1 ! tee name=t "
      "t. ! queue ! %s t. ! queue ! %s ! appsink name=out sync=false",
      frames, format, w, h, ref, chain);
  GError * err = NULL;
  GstElement * pipeline = gst_parse_launch (desc, &err);
  fail_unless (pipeline != NULL && err == NULL, "%s: %s", desc, err ? err->message : "");
  g_free (desc);
  g_free (ref);
  if (reference && expected)
    capture_appsink (pipeline, "ref", expected);
  if (out)
    capture_appsink (pipeline, "out", out);
  return pipeline;
}

GstElement *
parse_beside_videocrop (const char * format, gint frames, const char * crop,
    const char * chain, Captured * expected, Captured * out)
{
  gchar * reference = g_strdup_printf ("videocrop %s", crop);
  GstElement * pipeline =
      parse_beside_reference (format, 64, 48, frames, reference, chain, expected, out);
  g_free (reference);
  return pipeline;
}

/* crop_gpu_fake once ended, every check passed, with the leaks tracer
 * finding a queue alive with its pads and a task: all held by one
 * stream-status "enter" message (the queue its owner, its src pad its
 * source, the task its object), refcount 1, with no bus left alive. The
 * message was posted on the pipeline's bus from the queue's new task thread
 * and never read, flushed or freed with the bus. GStreamer up to 1.24 keeps
 * a bus's messages in a GstAtomicQueue (1.25 has a locked GstVecDeque), and
 * its pop leaves a block for the next one once it has read up to the last
 * *published* slot, while a posting thread may still hold a slot reserved
 * in that block but not yet written: the message in it is lost. Many
 * threads post at the start of a run (state changes from this thread and
 * the async-continue pool's, stream-status from each new task thread) while
 * this thread pops, more than the first block holds: on a loaded host, now
 * and then (1 run in about 10 of crop_gpu_fake with two at once). So
 * run_to_end takes each message in the thread that posts it (a sync handler
 * that drops them all), keeps the ones it reads under a lock of its own, and
 * no message of the run goes through the bus's queue. */
namespace {

struct BusHandler {
  GstBusSyncHandler handler;
  gpointer user_data;
};

const char * const bus_handler_key = "testutil-bus-handler";
const GstMessageType kept_types =
    (GstMessageType)(GST_MESSAGE_EOS | GST_MESSAGE_ERROR | GST_MESSAGE_WARNING);

/* What one run_to_end() takes from the bus. Shared with the sync handler,
 * which the bus may still hold in a post under way when the run removes it
 * (the bus drops its reference when that post returns). */
struct BusOutcome {
  std::mutex lock;
  std::condition_variable posted;
  std::deque<GstMessage *> kept; /* EOS, ERROR and WARNING, in order */
  BusHandler test = { NULL, NULL };
  ~BusOutcome ()
  {
    for (GstMessage * m : kept)
      gst_message_unref (m);
  }
};

GstBusSyncReply
keep_outcome (GstBus * bus, GstMessage * msg, gpointer data)
{
  BusOutcome & o = **static_cast<std::shared_ptr<BusOutcome> *> (data);
  if (o.test.handler && o.test.handler (bus, msg, o.test.user_data) == GST_BUS_DROP)
    return GST_BUS_DROP; /* the test's handler took it */
  if (GST_MESSAGE_TYPE (msg) & kept_types) {
    std::lock_guard<std::mutex> hold (o.lock);
    o.kept.push_back (msg);
    o.posted.notify_all ();
  } else {
    gst_message_unref (msg);
  }
  return GST_BUS_DROP;
}

void
free_outcome_ref (gpointer data)
{
  delete static_cast<std::shared_ptr<BusOutcome> *> (data);
}

} // namespace

void
set_bus_handler (GstElement * pipeline, GstBusSyncHandler handler, gpointer user_data)
{
  g_object_set_data_full (G_OBJECT (pipeline), bus_handler_key,
      new BusHandler{ handler, user_data },
      [] (gpointer h) { delete static_cast<BusHandler *> (h); });
}

Outcome
run_to_end (GstElement * pipeline, GstClockTime timeout, guint64 * waits_at_eos)
{
  Outcome result;
  auto outcome = std::make_shared<BusOutcome> ();
  if (auto * h = static_cast<BusHandler *> (
          g_object_get_data (G_OBJECT (pipeline), bus_handler_key)))
    outcome->test = *h;
  GstBus * bus = gst_element_get_bus (pipeline);
  gst_bus_set_sync_handler (
      bus, keep_outcome, new std::shared_ptr<BusOutcome> (outcome), free_outcome_ref);
  /* A pipeline started before (a test that pushes, then ends its sources)
   * may have posted its EOS already: what the bus holds came first. */
  std::deque<GstMessage *> earlier;
  while (GstMessage * msg = gst_bus_pop (bus)) {
    if (GST_MESSAGE_TYPE (msg) & kept_types)
      earlier.push_back (msg);
    else
      gst_message_unref (msg);
  }
  {
    std::lock_guard<std::mutex> hold (outcome->lock);
    outcome->kept.insert (outcome->kept.begin (), earlier.begin (), earlier.end ());
  }
  if (gst_element_set_state (pipeline, GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE)
    result.error = "state change to PLAYING failed";
  const auto deadline =
      std::chrono::steady_clock::now () + std::chrono::nanoseconds (timeout);
  {
    std::unique_lock<std::mutex> lock (outcome->lock);
    for (;;) {
      if (!outcome->posted.wait_until (
              lock, deadline, [&] { return !outcome->kept.empty (); })) {
        result.error = "timed out waiting for EOS";
        break;
      }
      GstMessage * msg = outcome->kept.front ();
      outcome->kept.pop_front ();
      const GstMessageType type = GST_MESSAGE_TYPE (msg);
      if (type == GST_MESSAGE_WARNING)
        result.warnings += describe (msg) + "\n";
      else if (type == GST_MESSAGE_ERROR)
        result.error = "error from " + describe (msg);
      else
        result.eos = result.error.empty ();
      gst_message_unref (msg);
      if (type != GST_MESSAGE_WARNING)
        break;
    }
  }
  if (waits_at_eos)
    *waits_at_eos = gst_cs_host_waits_total ();
  gst_element_set_state (pipeline, GST_STATE_NULL);
  /* What is kept after this goes with the last reference to `outcome`. */
  gst_bus_set_sync_handler (bus, NULL, NULL, NULL);
  gst_object_unref (bus);
  return result;
}

void
run_to_eos (GstElement * pipeline, const char * what, GstClockTime timeout,
    guint64 * waits_at_eos)
{
  Outcome outcome = run_to_end (pipeline, timeout, waits_at_eos);
  fail_unless (outcome.eos, "%s%s%s", what, *what ? ": " : "", outcome.error.c_str ());
}

/* --- references and comparisons ----------------------------------------- */

GstBuffer *
crop_on_cpu (GstBuffer * in, const GstVideoInfo * in_info, guint x, guint y,
    const GstVideoInfo * out_info)
{
  GstVideoFrame f, o;
  GstBuffer * out = gst_buffer_new_allocate (NULL, out_info->size, NULL);
  fail_unless (
      gst_video_frame_map (&f, const_cast<GstVideoInfo *> (in_info), in, GST_MAP_READ));
  fail_unless (gst_video_frame_map (
      &o, const_cast<GstVideoInfo *> (out_info), out, GST_MAP_WRITE));
  for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES (out_info); p++) {
    gint comp[GST_VIDEO_MAX_COMPONENTS];
    gst_video_format_info_component (in_info->finfo, p, comp);
    /* the sample (a chroma pair in a semi-planar plane) covering x and y */
    const gsize from =
        (gsize)(x >> GST_VIDEO_FORMAT_INFO_W_SUB (in_info->finfo, comp[0])) *
        GST_VIDEO_INFO_COMP_PSTRIDE (in_info, comp[0]);
    const guint row0 = y >> GST_VIDEO_FORMAT_INFO_H_SUB (in_info->finfo, comp[0]);
    const gsize row_bytes = gst_cs_video_plane_row_bytes (out_info, p);
    for (guint r = 0; r < gst_cs_video_plane_rows (out_info, p); r++)
      std::memcpy ((guint8 *)GST_VIDEO_FRAME_PLANE_DATA (&o, p) +
                       (gsize)r * GST_VIDEO_FRAME_PLANE_STRIDE (&o, p),
          (const guint8 *)GST_VIDEO_FRAME_PLANE_DATA (&f, p) +
              (gsize)(row0 + r) * GST_VIDEO_FRAME_PLANE_STRIDE (&f, p) + from,
          row_bytes);
  }
  gst_video_frame_unmap (&f);
  gst_video_frame_unmap (&o);
  return out;
}

/* The index of the first byte where rows a and b differ; n when equal. */
static gsize
first_difference (const guint8 * a, const guint8 * b, gsize n)
{
  if (std::memcmp (a, b, n) == 0)
    return n;
  gsize x = 0;
  while (a[x] == b[x])
    x++;
  return x;
}

static void
assert_planes_equal (GstBuffer * a, const GstVideoInfo * ia, GstBuffer * b,
    const GstVideoInfo * ib, bool videocrop_rows, const char * what)
{
  fail_unless (GST_VIDEO_INFO_FORMAT (ia) == GST_VIDEO_INFO_FORMAT (ib) &&
                   ia->width == ib->width && ia->height == ib->height,
      "%s: frame descriptions differ: %s %dx%d vs %s %dx%d", what,
      GST_VIDEO_INFO_NAME (ia), ia->width, ia->height, GST_VIDEO_INFO_NAME (ib),
      ib->width, ib->height);
  GstVideoFrame fa, fb;
  fail_unless (
      gst_video_frame_map (&fa, const_cast<GstVideoInfo *> (ia), a, GST_MAP_READ),
      "%s: cannot map the first frame", what);
  fail_unless (
      gst_video_frame_map (&fb, const_cast<GstVideoInfo *> (ib), b, GST_MAP_READ),
      "%s: cannot map the second frame", what);
  for (guint p = 0; p < GST_VIDEO_FRAME_N_PLANES (&fa); p++) {
    gsize row = gst_cs_video_plane_row_bytes (ia, p);
    if (videocrop_rows && GST_VIDEO_FORMAT_INFO_IS_YUV (ia->finfo) &&
        GST_VIDEO_INFO_N_PLANES (ia) == 1 && GST_VIDEO_INFO_COMP_PSTRIDE (ia, 0) == 2)
      row = 2 * (gsize)ia->width; /* packed 4:2:2 */
    const guint rows = gst_cs_video_plane_rows (ia, p);
    for (guint y = 0; y < rows; y++) {
      const guint8 * ra = (const guint8 *)GST_VIDEO_FRAME_PLANE_DATA (&fa, p) +
                          (gsize)y * GST_VIDEO_FRAME_PLANE_STRIDE (&fa, p);
      const guint8 * rb = (const guint8 *)GST_VIDEO_FRAME_PLANE_DATA (&fb, p) +
                          (gsize)y * GST_VIDEO_FRAME_PLANE_STRIDE (&fb, p);
      const gsize x = first_difference (ra, rb, row);
      fail_unless (x == row, "%s: %s %dx%d: plane %u row %u byte %zu: %u != %u", what,
          GST_VIDEO_INFO_NAME (ia), ia->width, ia->height, p, y, x, ra[x], rb[x]);
    }
  }
  gst_video_frame_unmap (&fa);
  gst_video_frame_unmap (&fb);
}

void
assert_frames_equal (GstBuffer * a, const GstVideoInfo * ia, GstBuffer * b,
    const GstVideoInfo * ib, const char * what)
{
  assert_planes_equal (a, ia, b, ib, false, what);
}

void
assert_cropped_equal (GstBuffer * a, const GstVideoInfo * ia, GstBuffer * b,
    const GstVideoInfo * ib, const char * what)
{
  assert_planes_equal (a, ia, b, ib, true, what);
}

/* Frame by frame, with the caps of each (cropped: videocrop's frames) or of
 * the last. */
static void
assert_lists_equal (Captured & expected, Captured & got, bool cropped, const char * what)
{
  fail_if (expected.buffers.empty (), "%s: no reference frames were captured", what);
  fail_unless (expected.buffers.size () == got.buffers.size (),
      "%s: frame count differs: %zu expected, %zu got", what, expected.buffers.size (),
      got.buffers.size ());
  for (size_t i = 0; i < expected.buffers.size (); i++) {
    gchar * frame = g_strdup_printf ("%s: frame %zu", what, i);
    assert_planes_equal (expected.buffers[i],
        cropped ? &expected.infos[i] : &expected.info, got.buffers[i],
        cropped ? &got.infos[i] : &got.info, cropped, frame);
    g_free (frame);
  }
}

void
assert_all_frames_equal (Captured & expected, Captured & got, const char * what)
{
  assert_lists_equal (expected, got, false, what);
}

void
assert_all_cropped_equal (Captured & expected, Captured & got, const char * what)
{
  assert_lists_equal (expected, got, true, what);
}

bool
sink_accepts (GstElement * element, const char * caps_str)
{
  GstPad * sink = gst_element_get_static_pad (element, "sink");
  GstCaps * caps = gst_caps_from_string (caps_str);
  bool ok = gst_pad_query_accept_caps (sink, caps);
  gst_caps_unref (caps);
  gst_object_unref (sink);
  return ok;
}

} // namespace testutil

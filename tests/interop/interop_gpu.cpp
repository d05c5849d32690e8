/* SPDX-License-Identifier: LGPL-2.1-or-later */
// Our elements beside GStreamer's nvcodec, in one registry (run through
// run_interop.py, once per scan order; INTEROP_ORDER names it):
//  a. cudaupload ! cudacrop ! cudadownload, whichever plugin won each name,
//     pixel-exact against videocrop;
//  b. nvh264dec ! cudacrop ! cudadownload and nvh264dec ! cudastreamscrop !
//     cudastreamsdownload, pixel-exact against openh264dec ! videocrop on the
//     same x264 stream, odd crops, 1080p (three profiles) and 4K; with two
//     GPUs, nvcodec memory of the other device into ours;
//  c. cudastreamsupload ! cudastreamscrop ! nvcodec's cudadownload (where
//     nvcodec holds that name), on one device and, with two GPUs, ours on
//     device 0 into nvcodec's download of device 1; and ours through
//     memory:CUDAMemory;
//  d. one CUcontext in the process: every gst.cuda.context seen wraps the
//     runtime's primary context of device 0;
//  e. host waits per frame of each of our elements, printed, and bounded;
//  f. renegotiation between memory:CUDAStreamsMemory and memory:CUDAMemory
//     while PLAYING, pixel-exact.
#include <gst/check/gstcheck.h>
#include <gst/app/gstappsink.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudamemory.h>
#include <glib/gstdio.h>

#include <cuda.h>
#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstring>
#include <unistd.h>
#include <map>
#include <string>
#include <vector>

#include "testutil.h"

using testutil::Captured;

/* --- registry ------------------------------------------------------------ */

/* The plugin that provides the element factory `name` in this registry, "-"
 * when none does. */
static std::string
feature_plugin (const char * name)
{
  GstPluginFeature * f =
      gst_registry_find_feature (gst_registry_get (), name, GST_TYPE_ELEMENT_FACTORY);
  if (!f)
    return "-";
  const gchar * plugin = gst_plugin_feature_get_plugin_name (f);
  std::string p = plugin ? plugin : "?";
  gst_object_unref (f);
  return p;
}

static std::string
plugin_of (GstElement * e)
{
  GstElementFactory * f = gst_element_get_factory (e);
  const gchar * p =
      f ? gst_plugin_feature_get_plugin_name (GST_PLUGIN_FEATURE (f)) : NULL;
  return p ? p : "?";
}

static bool
is_ours (GstElement * e)
{
  return plugin_of (e) == "cudastreams";
}

static std::string
order ()
{
  const gchar * o = g_getenv ("INTEROP_ORDER");
  return o ? o : "unknown order";
}

/* With nvcodec in the registry, the shared names cudaupload and
 * cudadownload are nvcodec's in either scan order, and stay so whichever
 * plugin loads when (ours leaves a name another plugin holds to it: a
 * plugin loaded later would otherwise take the name over, freeing the
 * factory of elements that exist). run_interop.py found the same. */
static void
check_scan_order ()
{
  const struct {
    const char *name, *env;
  } shared[] = { { "cudaupload", "INTEROP_WINNER_UPLOAD" },
    { "cudadownload", "INTEROP_WINNER_DOWNLOAD" } };
  for (auto & n : shared) {
    g_print (
        "%s: %s is %s's\n", order ().c_str (), n.name, feature_plugin (n.name).c_str ());
    fail_unless (feature_plugin (n.name) == "nvcodec",
        "%s: %s comes from %s, expected nvcodec", order ().c_str (), n.name,
        feature_plugin (n.name).c_str ());
    const gchar * found = g_getenv (n.env);
    fail_unless (!found || g_strcmp0 (found, "nvcodec") == 0,
        "%s: run_interop.py found %s holding %s", order ().c_str (), found, n.name);
  }
  for (const char * name :
      { "cudacrop", "cudastreamsupload", "cudastreamscrop", "cudastreamsdownload" })
    fail_unless (feature_plugin (name) == "cudastreams", "%s comes from %s", name,
        feature_plugin (name).c_str ());
  fail_unless (feature_plugin ("nvh264dec") == "nvcodec");
}

/* --- pipelines ----------------------------------------------------------- */

/* Deep copies: holding the buffers themselves would keep the elements'
 * (possibly bounded) pools empty and stall the stream. */
static GstFlowReturn
copy_sample (GstAppSink * sink, gpointer user)
{
  GstSample * s = gst_app_sink_pull_sample (sink);
  auto * c = static_cast<Captured *> (user);
  g_mutex_lock (&c->lock);
  gst_video_info_from_caps (&c->info, gst_sample_get_caps (s));
  c->infos.push_back (c->info);
  c->buffers.push_back (gst_buffer_copy_deep (gst_sample_get_buffer (s)));
  g_mutex_unlock (&c->lock);
  gst_sample_unref (s);
  return GST_FLOW_OK;
}

static void
capture_copies (GstElement * pipeline, const char * appsink, Captured * into)
{
  GstElement * sink = testutil::by_name (pipeline, appsink);
  fail_unless (sink != NULL, "no appsink %s", appsink);
  GstAppSinkCallbacks cb = {};
  cb.new_sample = copy_sample;
  gst_app_sink_set_callbacks (GST_APP_SINK (sink), &cb, into, NULL);
  gst_object_unref (sink);
}

static GstElement *
parse (const std::string & desc)
{
  GError * err = NULL;
  GstElement * p = gst_parse_launch (desc.c_str (), &err);
  fail_unless (
      p != NULL && err == NULL, "%s: %s", desc.c_str (), err ? err->message : "");
  return p;
}

/* The host-waits of each of our elements in `pipeline` by element name. */
using Waits = std::map<std::string, guint64>;

static Waits
our_waits (GstElement * pipeline)
{
  Waits w;
  GstIterator * it = gst_bin_iterate_recurse (GST_BIN (pipeline));
  GValue v = G_VALUE_INIT;
  while (gst_iterator_next (it, &v) == GST_ITERATOR_OK) {
    GstElement * e = GST_ELEMENT (g_value_get_object (&v));
    if (is_ours (e))
      w[GST_OBJECT_NAME (e)] = testutil::host_waits (e);
    g_value_reset (&v);
  }
  g_value_unset (&v);
  gst_iterator_free (it);
  return w;
}

/* The host waits of our element `name`, failing when it is not one of ours. */
static guint64
waits_of (const Waits & w, const char * name)
{
  auto it = w.find (name);
  fail_unless (it != w.end (), "%s is not one of our elements", name);
  return it->second;
}

/* GStreamer 1.24 and newer: nvcodec memory carries its stream and the flag
 * NEED_SYNC, and nvcodec's elements push without waiting and order their
 * reads by the memory's stream. Our elements then wait for nothing on the
 * host on either side of an nvcodec edge. */
static bool
nvcodec_orders_itself ()
{
  guint major, minor, micro, nano;
  gst_version (&major, &minor, &micro, &nano);
  return major > 1 || minor >= 24;
}

/* GST_CUDA_MEMORY_TRANSFER_NEED_SYNC (1.24), by value, as the plugin reads
 * it whatever headers it was built with. */
static const guint kNeedSync = GST_MEMORY_FLAG_LAST << 2;

/* nvcodec's host waits for frames that reach its elements with NEED_SYNC
 * (1.24+): a frame whose flag the element cleared before its next push was
 * synchronised on the host (gst_cuda_memory_sync, or the synchronous copy
 * of a download). nvcodec counts nothing itself; this is what the flags
 * tell. Keyed by element name. */
struct TheirSyncs {
  GMutex lock;
  std::map<std::string, guint64> count;
  std::map<GstElement *, GstMemory *> arrived;
  TheirSyncs () { g_mutex_init (&lock); }
  ~TheirSyncs ()
  {
    for (auto & a : arrived)
      gst_memory_unref (a.second);
    g_mutex_clear (&lock);
  }
};
static TheirSyncs * their_syncs; /* of the pipeline run() runs */

static GstPadProbeReturn
on_nvcodec_input (GstPad * pad, GstPadProbeInfo * info, gpointer)
{
  GstBuffer * buf = GST_PAD_PROBE_INFO_BUFFER (info);
  GstMemory * mem =
      buf && gst_buffer_n_memory (buf) ? gst_buffer_peek_memory (buf, 0) : NULL;
  if (!mem || !gst_is_cuda_memory (mem) || !GST_MEMORY_FLAG_IS_SET (mem, kNeedSync))
    return GST_PAD_PROBE_OK;
  GstElement * e = GST_PAD_PARENT (pad);
  g_mutex_lock (&their_syncs->lock);
  GstMemory *& slot = their_syncs->arrived[e];
  if (slot)
    gst_memory_unref (slot);
  slot = gst_memory_ref (mem);
  g_mutex_unlock (&their_syncs->lock);
  return GST_PAD_PROBE_OK;
}

static GstPadProbeReturn
on_nvcodec_output (GstPad * pad, GstPadProbeInfo *, gpointer)
{
  GstElement * e = GST_PAD_PARENT (pad);
  g_mutex_lock (&their_syncs->lock);
  auto it = their_syncs->arrived.find (e);
  if (it != their_syncs->arrived.end ()) {
    guint64 & n = their_syncs->count[GST_OBJECT_NAME (e)];
    if (!GST_MEMORY_FLAG_IS_SET (it->second, kNeedSync))
      n++;
    gst_memory_unref (it->second);
    their_syncs->arrived.erase (it);
  }
  g_mutex_unlock (&their_syncs->lock);
  return GST_PAD_PROBE_OK;
}

/* Watches every nvcodec element of `pipeline` with a sink and a src pad. */
static void
watch_nvcodec (GstElement * pipeline)
{
  GstIterator * it = gst_bin_iterate_recurse (GST_BIN (pipeline));
  GValue v = G_VALUE_INIT;
  while (gst_iterator_next (it, &v) == GST_ITERATOR_OK) {
    GstElement * e = GST_ELEMENT (g_value_get_object (&v));
    GstPad * sink = gst_element_get_static_pad (e, "sink");
    GstPad * src = gst_element_get_static_pad (e, "src");
    if (plugin_of (e) == "nvcodec" && sink && src) {
      their_syncs->count[GST_OBJECT_NAME (e)] = 0;
      gst_pad_add_probe (sink, GST_PAD_PROBE_TYPE_BUFFER, on_nvcodec_input, NULL, NULL);
      gst_pad_add_probe (src, GST_PAD_PROBE_TYPE_BUFFER, on_nvcodec_output, NULL, NULL);
    }
    if (sink)
      gst_object_unref (sink);
    if (src)
      gst_object_unref (src);
    g_value_reset (&v);
  }
  g_value_unset (&v);
  gst_iterator_free (it);
}

/* Runs `pipeline` to EOS, failing on an error, and returns our elements'
 * host waits read at EOS (tearing down frees pools, which may wait too).
 * nvcodec's elements' host syncs of NEED_SYNC frames go to `theirs`. */
static Waits
run (GstElement * pipeline, const std::string & what, Waits * theirs = nullptr)
{
  TheirSyncs syncs;
  their_syncs = &syncs;
  watch_nvcodec (pipeline);
  GstBus * bus = gst_element_get_bus (pipeline);
  std::string error, warnings;
  if (gst_element_set_state (pipeline, GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE)
    error = "state change to PLAYING failed";
  while (error.empty ()) {
    GstMessage * msg = gst_bus_timed_pop_filtered (bus, 300 * GST_SECOND,
        (GstMessageType)(GST_MESSAGE_EOS | GST_MESSAGE_ERROR | GST_MESSAGE_WARNING));
    if (!msg) {
      error = "timed out waiting for EOS";
      break;
    }
    const GstMessageType type = GST_MESSAGE_TYPE (msg);
    if (type == GST_MESSAGE_ERROR || type == GST_MESSAGE_WARNING) {
      GError * e = NULL;
      gchar * dbg = NULL;
      if (type == GST_MESSAGE_ERROR)
        gst_message_parse_error (msg, &e, &dbg);
      else
        gst_message_parse_warning (msg, &e, &dbg);
      std::string text = std::string (GST_OBJECT_NAME (msg->src)) + ": " + e->message +
                         " (" + (dbg ? dbg : "") + ")";
      if (type == GST_MESSAGE_ERROR)
        error = text;
      else
        warnings += text + "\n";
      g_error_free (e);
      g_free (dbg);
    }
    gst_message_unref (msg);
    if (type == GST_MESSAGE_EOS)
      break;
  }
  if (!warnings.empty ())
    std::printf ("%s: warnings:\n%s", what.c_str (), warnings.c_str ());
  Waits w = our_waits (pipeline);
  gst_object_unref (bus);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  if (theirs)
    *theirs = syncs.count;
  their_syncs = nullptr;
  fail_unless (
      error.empty (), "%s [%s]: %s", what.c_str (), order ().c_str (), error.c_str ());
  return w;
}

/* "name (factory from plugin)" of each element named in `names`, for
 * messages and the log. */
static std::string
origins (GstElement * pipeline, std::initializer_list<const char *> names)
{
  std::string s;
  for (const char * n : names) {
    GstElement * e = testutil::by_name (pipeline, n);
    fail_unless (e != NULL, "no element %s", n);
    GstElementFactory * f = gst_element_get_factory (e);
    s += std::string (s.empty () ? "" : ", ") + n + "=" +
         gst_plugin_feature_get_name (GST_PLUGIN_FEATURE (f)) + "/" + plugin_of (e);
    gst_object_unref (e);
  }
  return s;
}

/* Prints "label: crop 0.00/frame, download 1.00/frame (nvcodec)": our
 * elements' counts, and for nvcodec's the host syncs of NEED_SYNC frames
 * seen in `theirs` (1.24+; 1.22's nvcodec synchronises after every
 * operation and says nothing). */
static void
print_waits (const std::string & label, const Waits & w,
    std::initializer_list<std::pair<const char *, const char *>> roles, guint frames,
    const Waits & theirs = {})
{
  guint major, minor, micro, nano;
  gst_version (&major, &minor, &micro, &nano);
  std::string line = label + " [" + order () + "]:";
  bool first = true;
  for (auto & r : roles) {
    auto it = w.find (r.first);
    auto t = theirs.find (r.first);
    gchar * fig =
        it != w.end () ? g_strdup_printf ("%.2f/frame", (double)it->second / frames)
        : t != theirs.end ()
            ? g_strdup_printf ("%.2f/frame (nvcodec)", (double)t->second / frames)
            : g_strdup ("n/a (nvcodec)");
    line += std::string (first ? " " : ", ") + r.second + " " + fig;
    g_free (fig);
    first = false;
  }
  std::printf ("HOST-WAITS GStreamer %u.%u.%u %s (%u frames)\n", major, minor, micro,
      line.c_str (), frames);
}

/* --- comparisons --------------------------------------------------------- */

/* Fails unless the visible pixels of the I420 frame `ref` equal those of the
 * NV12 frame `got` (the same samples, chroma interleaved in one plane). */
static void
assert_i420_equals_nv12 (GstBuffer * ref, const GstVideoInfo * ri, GstBuffer * got,
    const GstVideoInfo * gi, const std::string & what)
{
  fail_unless (GST_VIDEO_INFO_FORMAT (ri) == GST_VIDEO_FORMAT_I420 &&
                   GST_VIDEO_INFO_FORMAT (gi) == GST_VIDEO_FORMAT_NV12,
      "%s: expected I420 and NV12, got %s and %s", what.c_str (),
      GST_VIDEO_INFO_NAME (ri), GST_VIDEO_INFO_NAME (gi));
  fail_unless (ri->width == gi->width && ri->height == gi->height,
      "%s: sizes differ: %dx%d (reference) vs %dx%d", what.c_str (), ri->width,
      ri->height, gi->width, gi->height);
  GstVideoFrame r, g;
  fail_unless (
      gst_video_frame_map (&r, const_cast<GstVideoInfo *> (ri), ref, GST_MAP_READ));
  fail_unless (
      gst_video_frame_map (&g, const_cast<GstVideoInfo *> (gi), got, GST_MAP_READ));
  const gint w = ri->width, h = ri->height, cw = (w + 1) / 2, ch = (h + 1) / 2;
  for (gint y = 0; y < h; y++) {
    const guint8 * a = (const guint8 *)GST_VIDEO_FRAME_PLANE_DATA (&r, 0) +
                       (gsize)y * GST_VIDEO_FRAME_PLANE_STRIDE (&r, 0);
    const guint8 * b = (const guint8 *)GST_VIDEO_FRAME_PLANE_DATA (&g, 0) +
                       (gsize)y * GST_VIDEO_FRAME_PLANE_STRIDE (&g, 0);
    gint x = 0;
    while (x < w && a[x] == b[x])
      x++;
    fail_unless (x == w, "%s: luma differs at x=%d y=%d: %u (reference) != %u",
        what.c_str (), x, y, a[x], b[x]);
  }
  for (gint y = 0; y < ch; y++) {
    const guint8 * u = (const guint8 *)GST_VIDEO_FRAME_PLANE_DATA (&r, 1) +
                       (gsize)y * GST_VIDEO_FRAME_PLANE_STRIDE (&r, 1);
    const guint8 * v = (const guint8 *)GST_VIDEO_FRAME_PLANE_DATA (&r, 2) +
                       (gsize)y * GST_VIDEO_FRAME_PLANE_STRIDE (&r, 2);
    const guint8 * uv = (const guint8 *)GST_VIDEO_FRAME_PLANE_DATA (&g, 1) +
                        (gsize)y * GST_VIDEO_FRAME_PLANE_STRIDE (&g, 1);
    /* One check per row: check marks every assertion that passes, which
     * per sample costs minutes at 4K. */
    gint x = 0;
    while (x < cw && u[x] == uv[2 * x] && v[x] == uv[2 * x + 1])
      x++;
    fail_unless (x == cw,
        "%s: chroma differs at x=%d y=%d: U %u V %u (reference) != U %u V %u",
        what.c_str (), x, y, u[x], v[x], uv[2 * x], uv[2 * x + 1]);
  }
  gst_video_frame_unmap (&r);
  gst_video_frame_unmap (&g);
}

static void
assert_all_i420_nv12 (
    Captured & ref, Captured & got, guint min_frames, const std::string & what)
{
  fail_unless (ref.buffers.size () >= min_frames, "%s: %zu reference frames, want >= %u",
      what.c_str (), ref.buffers.size (), min_frames);
  fail_unless (ref.buffers.size () == got.buffers.size (),
      "%s: %zu frames, the reference has %zu", what.c_str (), got.buffers.size (),
      ref.buffers.size ());
  for (size_t i = 0; i < ref.buffers.size (); i++)
    assert_i420_equals_nv12 (ref.buffers[i], &ref.infos[i], got.buffers[i], &got.infos[i],
        what + ": frame " + std::to_string (i));
}

/* --- sources ------------------------------------------------------------- */

struct Crop {
  gint l, r, t, b;
  std::string props () const
  {
    gchar * s = g_strdup_printf ("left=%d right=%d top=%d bottom=%d", l, r, t, b);
    std::string out = s;
    g_free (s);
    return out;
  }
};

/* An H.264 stream made by x264enc, kept in INTEROP_MEDIA_DIR so that the
 * second scan order reuses the first's. A moving zone plate: detail in
 * every pixel and every frame, that x264 and the software decoder handle
 * in seconds (snow at 4K took minutes). */
static std::string
h264_stream (gint w, gint h, const char * profile, gint frames)
{
  const gchar * dir = g_getenv ("INTEROP_MEDIA_DIR");
  std::string base = dir ? dir : g_get_tmp_dir ();
  g_mkdir_with_parents (base.c_str (), 0755);
  gchar * name = g_strdup_printf ("zoneplate-%dx%d-%s-%d.h264", w, h, profile, frames);
  std::string path = base + "/" + name;
  g_free (name);
  if (g_file_test (path.c_str (), G_FILE_TEST_EXISTS))
    return path;
  /* Written under a temporary name and renamed: an interrupted run leaves
   * no truncated stream for the next one. */
  std::string tmp = path + ".part" + std::to_string (getpid ());
  gchar * desc = g_strdup_printf (
      "videotestsrc pattern=zone-plate kx2=20 ky2=20 kt=1 num-buffers=%d ! "
      "video/x-raw,format=I420,width=%d,height=%d,framerate=30/1 ! "
      "x264enc speed-preset=ultrafast key-int-max=30 bitrate=%d ! "
      "video/x-h264,profile=%s ! h264parse ! "
      "video/x-h264,stream-format=byte-stream,alignment=au ! filesink location=%s",
      frames, w, h, w > 1920 ? 20000 : 8000, profile, tmp.c_str ());
  GstElement * p = parse (desc);
  std::string what = std::string ("encoding with x264enc: ") + desc;
  g_free (desc);
  run (p, what);
  gst_object_unref (p);
  fail_unless (
      g_rename (tmp.c_str (), path.c_str ()) == 0, "cannot rename %s", tmp.c_str ());
  return path;
}

/* --- a. upload ! crop ! download, whichever won ------------------------- */

/* Snow frames of NV12 640x480 teed into videocrop and `chain`, compared. */
static void
check_beside_videocrop (const std::string & chain, const Crop & crop, const char * label,
    Waits * waits_out, guint * frames_out, std::initializer_list<const char *> names,
    Waits * theirs = nullptr)
{
  const gint frames = 30;
  gchar * desc = g_strdup_printf (
      "videotestsrc pattern=snow num-buffers=%d ! "
      "video/x-raw,format=NV12,width=640,height=480,framerate=30/1 ! tee name=t "
      "t. ! queue ! videocrop %s ! appsink name=ref sync=false "
      "t. ! queue ! %s ! video/x-raw,format=NV12 ! appsink name=out sync=false",
      frames, crop.props ().c_str (), chain.c_str ());
  GstElement * p = parse (desc);
  g_free (desc);
  const std::string who = origins (p, names);
  const std::string what = std::string (label) + " [" + order () + "; " + who + "]";
  std::printf ("%s\n", what.c_str ());
  Captured ref, out;
  capture_copies (p, "ref", &ref);
  capture_copies (p, "out", &out);
  Waits w = run (p, what, theirs);
  gst_object_unref (p);
  fail_unless (ref.buffers.size () == (guint)frames, "%s: %zu reference frames",
      what.c_str (), ref.buffers.size ());
  testutil::assert_all_frames_equal (ref, out, what.c_str ());
  if (waits_out)
    *waits_out = w;
  if (frames_out)
    *frames_out = frames;
}

GST_START_TEST (test_upload_crop_download)
{
  check_scan_order ();
  Waits w, theirs;
  guint n = 0;
  check_beside_videocrop ("cudaupload name=up ! cudacrop name=crop left=10 ! "
                          "cudadownload name=down",
      Crop{ 10, 0, 0, 0 }, "a. cudaupload ! cudacrop left=10 ! cudadownload", &w, &n,
      { "up", "crop", "down" }, &theirs);
  print_waits ("cudaupload ! cudacrop ! cudadownload NV12 640x480", w,
      { { "up", "upload" }, { "crop", "crop" }, { "down", "download" } }, n, theirs);
  if (w.count ("down"))
    fail_unless (waits_of (w, "down") <= n,
        "our cudadownload waited %" G_GUINT64_FORMAT " times for %u frames",
        waits_of (w, "down"), n);
  /* Between nvcodec's upload and download (1.24+), our crop waits for
   * nothing on the host. */
  if (nvcodec_orders_itself ())
    fail_unless (waits_of (w, "crop") == 0,
        "cudacrop between nvcodec's elements waited %" G_GUINT64_FORMAT " times",
        waits_of (w, "crop"));
}

GST_END_TEST;

/* --- b. nvh264dec into our crop ----------------------------------------- */

/* The start of a decode pipeline: `file` parsed into a tee `t`, and the
 * reference branch (openh264dec ! videocrop CROP into appsink `ref`); the
 * branches under test follow, each from "t.". */
static std::string
reference_branch (const std::string & file, const std::string & crop)
{
  return "filesrc location=" + file +
         " ! h264parse ! video/x-h264,stream-format=byte-stream,alignment=au "
         "! tee name=t t. ! queue ! openh264dec ! videocrop " +
         crop + " ! video/x-raw,format=I420 ! appsink name=ref sync=false ";
}

/* Decodes `file` three ways in one pipeline (openh264dec ! videocrop as the
 * reference; nvh264dec into the names nvcodec may hold; nvh264dec into our
 * unambiguous names), compares, and checks and prints the host waits. */
static void
check_decode (const std::string & file, const char * label, const Crop & crop)
{
  const std::string c = crop.props ();
  const std::string desc =
      reference_branch (file, c) +
      "t. ! queue ! nvh264dec name=dec1 ! cudacrop name=crop1 " + c +
      " ! cudadownload name=down1 ! video/x-raw,format=NV12 ! appsink name=out1 "
      "sync=false "
      "t. ! queue ! nvh264dec name=dec2 ! cudastreamscrop name=crop2 " +
      c +
      " ! cudastreamsdownload name=down2 ! video/x-raw,format=NV12 ! appsink name=out2 "
      "sync=false";
  GstElement * p = parse (desc);
  const std::string who =
      origins (p, { "dec1", "crop1", "down1", "dec2", "crop2", "down2" });
  const std::string what =
      std::string (label) + " " + c + " [" + order () + "; " + who + "]";
  std::printf ("b. %s\n", what.c_str ());
  Captured ref, out1, out2;
  capture_copies (p, "ref", &ref);
  capture_copies (p, "out1", &out1);
  capture_copies (p, "out2", &out2);
  Waits theirs;
  Waits w = run (p, what, &theirs);
  const bool down1_ours = w.count ("down1") > 0;
  gst_object_unref (p);

  assert_all_i420_nv12 (ref, out1, 60, what + ": nvh264dec ! cudacrop ! cudadownload");
  assert_all_i420_nv12 (
      ref, out2, 60, what + ": nvh264dec ! cudastreamscrop ! cudastreamsdownload");

  const guint n = ref.buffers.size ();
  print_waits (std::string ("nvh264dec ! cudacrop ! cudadownload ") + label, w,
      { { "crop1", "crop" }, { "down1", "download" } }, n, theirs);
  print_waits (std::string ("nvh264dec ! cudastreamscrop ! cudastreamsdownload ") + label,
      w, { { "crop2", "crop" }, { "down2", "download" } }, n);
  /* Entering from nvcodec costs no host wait; leaving to nvcodec (its
   * cudadownload does not read our sync meta) at most one per frame. */
  fail_unless (waits_of (w, "crop2") == 0,
      "%s: cudastreamscrop fed by nvh264dec waited %" G_GUINT64_FORMAT " times",
      what.c_str (), waits_of (w, "crop2"));
  /* Into nvcodec's cudadownload: 1.22 reads what it gets at once (one wait
   * per frame in ours); from 1.24 its stream waits for ours on the GPU. */
  const bool none = down1_ours || nvcodec_orders_itself ();
  fail_unless (waits_of (w, "crop1") <= (none ? 0 : n),
      "%s: cudacrop fed by nvh264dec waited %" G_GUINT64_FORMAT " times for %u frames "
      "(downstream %s)",
      what.c_str (), waits_of (w, "crop1"), n,
      down1_ours ? "ours: 0 allowed"
      : none     ? "nvcodec >= 1.24: 0 allowed"
                 : "nvcodec 1.22");
  fail_unless (waits_of (w, "down2") <= n,
      "%s: cudastreamsdownload waited %" G_GUINT64_FORMAT " times for %u frames",
      what.c_str (), waits_of (w, "down2"), n);
  if (down1_ours)
    fail_unless (waits_of (w, "down1") <= n,
        "%s: cudadownload waited %" G_GUINT64_FORMAT " times for %u frames",
        what.c_str (), waits_of (w, "down1"), n);
}

static const Crop odd_crop = { 11, 5, 7, 3 };
/* Odd crops that leave an odd width and height (half a chroma sample). */
static const Crop odd_size_crop = { 3, 4, 1, 2 };

GST_START_TEST (test_nvh264dec_1080p)
{
  check_scan_order ();
  for (const char * profile : { "constrained-baseline", "main", "high" }) {
    const std::string f = h264_stream (1920, 1080, profile, 60);
    check_decode (f, (std::string ("1080p ") + profile).c_str (), odd_crop);
  }
  check_decode (h264_stream (1920, 1080, "high", 60), "1080p high", odd_size_crop);
}

GST_END_TEST;

GST_START_TEST (test_nvh264dec_4k)
{
  check_scan_order ();
  check_decode (h264_stream (3840, 2160, "high", 60), "2160p high", odd_crop);
  check_decode (h264_stream (3840, 2160, "main", 60), "2160p main", odd_size_crop);
}

GST_END_TEST;

/* nvcodec memory of another device (the cross-device policy, on every
 * version): the decoder on one GPU, our crop and download on the other. The
 * frames are copied across, pixel-exact. The crop never waits on the host:
 * 1.22's decoders push finished frames; from 1.24 the crop's stream waits
 * on the GPU for the decoder's, with an event of the decoder's context. The
 * download waits once a frame at most (for its own copy). */
static void
check_decode_other_device (
    const std::string & file, const char * dec, gint ours, const Crop & crop)
{
  const std::string c = crop.props ();
  const std::string dev = " device-id=" + std::to_string (ours);
  const std::string desc = reference_branch (file, c) + "t. ! queue ! " + dec +
                           " name=dec ! cudastreamscrop name=crop" + dev + " " + c +
                           " ! cudastreamsdownload name=down" + dev +
                           " ! video/x-raw,format=NV12 ! appsink name=out sync=false";
  const std::string what = std::string (dec) + " ! cudastreamscrop" + dev +
                           " ! cudastreamsdownload" + dev + " " + c + " [" + order () +
                           "]";
  std::printf ("b. %s\n", what.c_str ());
  GstElement * p = parse (desc);
  Captured ref, out;
  capture_copies (p, "ref", &ref);
  capture_copies (p, "out", &out);
  Waits theirs;
  Waits w = run (p, what, &theirs);
  gst_object_unref (p);
  assert_all_i420_nv12 (ref, out, 60, what);
  const guint n = ref.buffers.size ();
  print_waits (what, w,
      { { "dec", "decoder" }, { "crop", "crop" }, { "down", "download" } }, n, theirs);
  fail_unless (waits_of (w, "crop") == 0,
      "%s: the crop waited %" G_GUINT64_FORMAT " times on the host for %u frames",
      what.c_str (), waits_of (w, "crop"), n);
  fail_unless (waits_of (w, "down") <= n,
      "%s: the download waited %" G_GUINT64_FORMAT " times for %u frames", what.c_str (),
      waits_of (w, "down"), n);
}

GST_START_TEST (test_nvh264dec_other_device)
{
  int devices = 0;
  if (cudaGetDeviceCount (&devices) != cudaSuccess || devices < 2) {
    std::printf (
        "b. nvcodec memory of another device: not run, this machine has %d GPU(s)\n",
        devices);
    return;
  }
  check_scan_order ();
  const std::string f = h264_stream (1920, 1080, "high", 60);
  /* nvcodec names its decoder of the second GPU nvh264device1dec. */
  check_decode_other_device (f, "nvh264dec", 1, odd_crop);
  if (feature_plugin ("nvh264device1dec") != "-")
    check_decode_other_device (f, "nvh264device1dec", 0, odd_crop);
}

GST_END_TEST;

/* --- c. we produce memory:CUDAMemory ------------------------------------ */

/* cudastreamsupload ! cudastreamscrop `ours` (device properties) ! nvcodec's
 * cudadownload `theirs`, beside videocrop: pixel-exact, and the host waits
 * of each side printed and bounded. 1.22: the crop waits once per frame
 * before it hands nvcodec a frame. 1.24+: nvcodec's stream waits for ours
 * on the GPU; its download then waits on the host for its own copy, as
 * ours does. */
static void
check_ours_into_nvcodec_download (
    const std::string & ours, const std::string & theirs_props, const char * label)
{
  const Crop crop = odd_crop;
  Waits w, theirs;
  guint n = 0;
  const std::string chain =
      "cudastreamsupload name=up " + ours + " ! cudastreamscrop name=crop " + ours + " " +
      crop.props () + " ! video/x-raw(memory:CUDAMemory) ! cudadownload name=down " +
      theirs_props;
  const std::string what = std::string ("c. ") + label;
  check_beside_videocrop (
      chain, crop, what.c_str (), &w, &n, { "up", "crop", "down" }, &theirs);
  print_waits (label, w,
      { { "up", "upload" }, { "crop", "crop" }, { "down", "download" } }, n, theirs);
  const guint allowed = nvcodec_orders_itself () ? 0 : n;
  fail_unless (waits_of (w, "up") <= allowed && waits_of (w, "crop") <= allowed,
      "%s: host waits: upload %" G_GUINT64_FORMAT ", crop %" G_GUINT64_FORMAT
      " for %u frames (allowed: %u each)",
      label, waits_of (w, "up"), waits_of (w, "crop"), n, allowed);
  if (nvcodec_orders_itself ())
    fail_unless (theirs["down"] <= n,
        "%s: nvcodec's cudadownload synchronised %" G_GUINT64_FORMAT
        " times for %u frames",
        label, theirs["down"], n);
}

GST_START_TEST (test_ours_into_nvcodec_download)
{
  check_scan_order ();
  if (feature_plugin ("cudadownload") != "nvcodec") {
    std::printf ("c. cudastreamsupload ! cudastreamscrop ! nvcodec's cudadownload: "
                 "not in this order (cudadownload is %s's)\n",
        feature_plugin ("cudadownload").c_str ());
    return;
  }
  check_ours_into_nvcodec_download (
      "", "", "cudastreamsupload ! cudastreamscrop ! cudadownload(nvcodec)");
}

GST_END_TEST;

/* The other way across devices: ours on device 0 hand nvcodec memory to
 * nvcodec's cudadownload of device 1 (with two GPUs), which reads memory of
 * another device's context through that context. */
GST_START_TEST (test_ours_into_nvcodec_other_device)
{
  int devices = 0;
  if (cudaGetDeviceCount (&devices) != cudaSuccess || devices < 2) {
    std::printf ("c. ours on device 0 into nvcodec on device 1: not run, this machine "
                 "has %d GPU(s)\n",
        devices);
    return;
  }
  check_scan_order ();
  check_ours_into_nvcodec_download ("device-id=0", "cuda-device-id=1",
      "cudastreamsupload ! cudastreamscrop (device 0) ! cudadownload(nvcodec, device 1)");
}

GST_END_TEST;

/* Ours on both sides of memory:CUDAMemory (no nvcodec element): runs in
 * both orders, so the CUDAMemory path is exercised in each. */
GST_START_TEST (test_ours_through_cuda_memory)
{
  check_scan_order ();
  const Crop crop = odd_crop;
  Waits w;
  guint n = 0;
  check_beside_videocrop ("cudastreamsupload name=up ! video/x-raw(memory:CUDAMemory) ! "
                          "cudastreamscrop name=crop " +
                              crop.props () +
                              " ! video/x-raw(memory:CUDAMemory) ! "
                              "cudastreamsdownload name=down",
      crop,
      "c. cudastreamsupload ! CUDAMemory ! cudastreamscrop ! CUDAMemory ! "
      "cudastreamsdownload",
      &w, &n, { "up", "crop", "down" });
  print_waits ("cudastreamsupload ! (CUDAMemory) cudastreamscrop ! (CUDAMemory) "
               "cudastreamsdownload",
      w, { { "up", "upload" }, { "crop", "crop" }, { "down", "download" } }, n);
  fail_unless (waits_of (w, "down") <= n,
      "cudastreamsdownload: %" G_GUINT64_FORMAT " host waits for %u frames",
      waits_of (w, "down"), n);
}

GST_END_TEST;

/* --- d. one CUcontext ---------------------------------------------------- */

/* A driver API function through the runtime, so that the test need not link
 * libcuda (absent where there is no driver, where the test must still load
 * and skip). */
template <typename F>
static F
driver_fn (const char * name)
{
  void * fn = nullptr;
  cudaDriverEntryPointQueryResult status;
  if (cudaGetDriverEntryPointByVersion (name, &fn, 12000, cudaEnableDefault, &status) !=
          cudaSuccess ||
      status != cudaDriverEntryPointSuccess)
    return nullptr;
  return reinterpret_cast<F> (fn);
}

static gpointer
primary_context_of_device0 ()
{
  fail_unless (cudaFree (0) == cudaSuccess);
  auto get = driver_fn<CUresult (*) (CUdevice *, int)> ("cuDeviceGet");
  auto retain =
      driver_fn<CUresult (*) (CUcontext *, CUdevice)> ("cuDevicePrimaryCtxRetain");
  auto release = driver_fn<CUresult (*) (CUdevice)> ("cuDevicePrimaryCtxRelease");
  fail_unless (get && retain && release, "driver entry points not found");
  CUdevice dev;
  CUcontext ctx = NULL;
  fail_unless (get (&dev, 0) == CUDA_SUCCESS);
  fail_unless (retain (&ctx, dev) == CUDA_SUCCESS);
  /* The runtime holds its own reference: the handle stays valid. */
  release (dev);
  return ctx;
}

struct Seen {
  GMutex lock;
  std::vector<std::pair<std::string, gpointer>> handles; /* who, CUcontext */
  Seen () { g_mutex_init (&lock); }
  ~Seen () { g_mutex_clear (&lock); }
  void add (const std::string & who, const GstContext * context)
  {
    if (!context ||
        g_strcmp0 (gst_context_get_context_type (context), GST_CUDA_CONTEXT_TYPE) != 0)
      return;
    GstCudaContext * cc = NULL;
    const GstStructure * s = gst_context_get_structure (context);
    if (!gst_structure_get (s, GST_CUDA_CONTEXT_TYPE, GST_TYPE_CUDA_CONTEXT, &cc, NULL) ||
        !cc)
      return;
    g_mutex_lock (&lock);
    handles.emplace_back (who, gst_cuda_context_get_handle (cc));
    g_mutex_unlock (&lock);
    gst_object_unref (cc);
  }
  bool has (const std::string & who)
  {
    for (auto & h : handles)
      if (h.first == who)
        return true;
    return false;
  }
};

static GstBusSyncReply
on_sync_message (GstBus *, GstMessage * msg, gpointer user)
{
  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_HAVE_CONTEXT) {
    GstContext * ctx = NULL;
    gst_message_parse_have_context (msg, &ctx);
    static_cast<Seen *> (user)->add (
        std::string ("have-context from ") + GST_OBJECT_NAME (msg->src), ctx);
    gst_context_unref (ctx);
  }
  return GST_BUS_PASS;
}

/* Asks `pad` for the gst.cuda.context (an unlinked pad cannot forward the
 * query, so the answer is the element's own). */
static bool
query_context (GstPad * pad, const std::string & who, Seen * seen)
{
  GstQuery * q = gst_query_new_context (GST_CUDA_CONTEXT_TYPE);
  bool ok = gst_pad_query (pad, q);
  if (ok) {
    GstContext * ctx = NULL;
    gst_query_parse_context (q, &ctx);
    seen->add (who, ctx);
  }
  gst_query_unref (q);
  return ok;
}

static void
query_element (GstElement * e, const std::string & who, Seen * seen)
{
  for (const char * name : { "src", "sink" }) {
    GstPad * pad = gst_element_get_static_pad (e, name);
    if (pad && query_context (pad, who + "." + name, seen)) {
      gst_object_unref (pad);
      return;
    }
    if (pad)
      gst_object_unref (pad);
  }
}

GST_START_TEST (test_one_cuda_context)
{
  check_scan_order ();
  gpointer primary = primary_context_of_device0 ();
  Seen seen;

  /* A mixed pipeline: nvcodec's decoder into ours, ours into whichever
   * cudadownload won, nvcodec's elements queried and heard on the bus. */
  const std::string file = h264_stream (1920, 1080, "high", 60);
  GstElement * p =
      parse ("filesrc location=" + file +
             " ! h264parse ! nvh264dec name=dec ! cudastreamscrop name=crop "
             "left=2 ! cudastreamsdownload name=down ! fakesink "
             "videotestsrc num-buffers=30 ! "
             "video/x-raw,format=NV12,width=320,height=240 ! "
             "cudastreamsupload name=up ! cudastreamscrop name=crop2 left=2 ! "
             "cudadownload name=down2 ! fakesink");
  GstBus * bus = gst_element_get_bus (p);
  gst_bus_set_sync_handler (bus, on_sync_message, &seen, NULL);
  fail_unless (gst_element_set_state (p, GST_STATE_PAUSED) != GST_STATE_CHANGE_FAILURE);
  fail_unless (
      gst_element_get_state (p, NULL, NULL, 60 * GST_SECOND) == GST_STATE_CHANGE_SUCCESS,
      "the pipeline did not preroll");
  for (const char * n : { "dec", "crop", "down", "up", "crop2", "down2" }) {
    GstElement * e = testutil::by_name (p, n);
    GstContext * ctx = gst_element_get_context (e, GST_CUDA_CONTEXT_TYPE);
    seen.add (std::string (n) + " (set on it)", ctx);
    if (ctx)
      gst_context_unref (ctx);
    /* nvh264dec answers on its source pad before forwarding anything. */
    if (!strcmp (n, "dec"))
      query_element (e, "dec query", &seen);
    gst_object_unref (e);
  }
  gst_bus_set_sync_handler (bus, NULL, NULL, NULL);
  gst_object_unref (bus);
  run (p, "d. one context pipeline");
  gst_object_unref (p);

  /* Each of our elements alone (no neighbour to forward the query to). */
  for (const char * f :
      { "cudastreamsupload", "cudastreamscrop", "cudastreamsdownload" }) {
    GstElement * e = testutil::make_ours (f);
    fail_unless (gst_element_set_state (e, GST_STATE_PAUSED) != GST_STATE_CHANGE_FAILURE);
    query_element (e, std::string (f) + " alone", &seen);
    gst_element_set_state (e, GST_STATE_NULL);
    gst_object_unref (e);
    fail_unless (seen.has (std::string (f) + " alone.src") ||
                     seen.has (std::string (f) + " alone.sink"),
        "%s does not answer a gst.cuda.context query", f);
  }

  bool nvcodec_seen = false;
  for (auto & h : seen.handles) {
    std::printf ("d. [%s] %s: CUcontext %p%s\n", order ().c_str (), h.first.c_str (),
        h.second, h.second == primary ? " (primary context of device 0)" : "");
    if (h.first.find ("dec") != std::string::npos)
      nvcodec_seen = true;
  }
  fail_unless (nvcodec_seen, "nvh264dec's gst.cuda.context was not seen");
  for (auto & h : seen.handles)
    fail_unless (h.second == primary,
        "%s: CUcontext %p is not the runtime's primary context %p of device 0 "
        "(two contexts in one process)",
        h.first.c_str (), h.second, primary);
}

GST_END_TEST;

/* --- f. renegotiation between the two memories --------------------------- */

struct Switch {
  GstElement * filter = nullptr;
  guint frames = 0;
  GMutex lock;
  std::vector<std::string> features; /* of each caps event cudastreamscrop got */
  Switch () { g_mutex_init (&lock); }
  ~Switch () { g_mutex_clear (&lock); }
};

static const char * const memory_caps[] = { "video/x-raw(memory:CUDAStreamsMemory)",
  "video/x-raw(memory:CUDAMemory)" };

/* Every 15 frames entering the upload, the filter after it switches memory. */
static GstPadProbeReturn
switch_memory (GstPad *, GstPadProbeInfo *, gpointer user)
{
  auto * s = static_cast<Switch *> (user);
  const guint n = s->frames++;
  if (n > 0 && n % 15 == 0) {
    GstCaps * caps = gst_caps_from_string (memory_caps[(n / 15) % 2]);
    g_object_set (s->filter, "caps", caps, NULL);
    gst_caps_unref (caps);
  }
  return GST_PAD_PROBE_OK;
}

static GstPadProbeReturn
note_caps (GstPad *, GstPadProbeInfo * info, gpointer user)
{
  GstEvent * ev = GST_PAD_PROBE_INFO_EVENT (info);
  if (GST_EVENT_TYPE (ev) == GST_EVENT_CAPS) {
    GstCaps * caps;
    gst_event_parse_caps (ev, &caps);
    auto * s = static_cast<Switch *> (user);
    gchar * f = gst_caps_features_to_string (gst_caps_get_features (caps, 0));
    g_mutex_lock (&s->lock);
    s->features.push_back (f);
    g_mutex_unlock (&s->lock);
    g_free (f);
  }
  return GST_PAD_PROBE_OK;
}

GST_START_TEST (test_renegotiate_memory)
{
  check_scan_order ();
  const Crop crop = odd_crop;
  const gint frames = 60;
  gchar * desc = g_strdup_printf (
      "videotestsrc pattern=snow num-buffers=%d ! "
      "video/x-raw,format=NV12,width=640,height=480,framerate=30/1 ! tee name=t "
      "t. ! queue ! videocrop %s ! appsink name=ref sync=false "
      "t. ! queue ! cudastreamsupload name=up ! capsfilter name=cf "
      "caps-change-mode=delayed "
      "caps=\"%s\" ! cudastreamscrop name=crop %s ! cudastreamsdownload name=down ! "
      "video/x-raw,format=NV12 ! appsink name=out sync=false",
      frames, crop.props ().c_str (), memory_caps[0], crop.props ().c_str ());
  GstElement * p = parse (desc);
  g_free (desc);
  Switch sw;
  sw.filter = testutil::by_name (p, "cf");
  testutil::add_probe (p, "up", "sink", GST_PAD_PROBE_TYPE_BUFFER, switch_memory, &sw);
  testutil::add_probe (
      p, "crop", "sink", GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM, note_caps, &sw);
  Captured ref, out;
  capture_copies (p, "ref", &ref);
  capture_copies (p, "out", &out);
  const std::string what = "f. renegotiation CUDAStreamsMemory <-> CUDAMemory [" +
                           order () + "; " + origins (p, { "up", "crop", "down" }) + "]";
  Waits w = run (p, what);
  gst_object_unref (sw.filter);
  gst_object_unref (p);

  std::string seq;
  bool streams = false, nv = false;
  for (auto & f : sw.features) {
    seq += f + " ";
    streams |= f == "memory:CUDAStreamsMemory";
    nv |= f == "memory:CUDAMemory";
  }
  std::printf ("%s: cudastreamscrop's input caps: %s\n", what.c_str (), seq.c_str ());
  fail_unless (streams && nv && sw.features.size () >= 3,
      "%s: the memory did not switch both ways: %s", what.c_str (), seq.c_str ());
  fail_unless (ref.buffers.size () == (guint)frames);
  testutil::assert_all_frames_equal (ref, out, what.c_str ());
  print_waits (
      "cudastreamsupload ! (switching memory) cudastreamscrop ! cudastreamsdownload", w,
      { { "up", "upload" }, { "crop", "crop" }, { "down", "download" } }, frames);
}

GST_END_TEST;

static Suite *
interop_suite (void)
{
  Suite * s = suite_create ("interop");
  TCase * tc = tcase_create ("nvcodec");
  tcase_set_timeout (tc, 1800);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_upload_crop_download);
  tcase_add_test (tc, test_ours_through_cuda_memory);
  tcase_add_test (tc, test_ours_into_nvcodec_download);
  tcase_add_test (tc, test_one_cuda_context);
  tcase_add_test (tc, test_nvh264dec_1080p);
  tcase_add_test (tc, test_nvh264dec_4k);
  tcase_add_test (tc, test_nvh264dec_other_device);
  tcase_add_test (tc, test_ours_into_nvcodec_other_device);
  tcase_add_test (tc, test_renegotiate_memory);
  return s;
}

int
main (int argc, char ** argv)
{
  /* run_interop.py asks which plugin provides each element before running:
   * "--list NAME..." prints "FEATURE name plugin" ("-" when missing). */
  if (argc > 1 && !strcmp (argv[1], "--list")) {
    gst_init (NULL, NULL);
    for (int i = 2; i < argc; i++)
      std::printf ("FEATURE %s %s\n", argv[i], feature_plugin (argv[i]).c_str ());
    return 0;
  }
  gst_check_init (&argc, &argv);
  testutil::require_gpu_or_skip ("interop_gpu");
  return gst_check_run_suite (interop_suite (), "interop", __FILE__);
}

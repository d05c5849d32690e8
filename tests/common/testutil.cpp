#include "testutil.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>

#include <gst/app/gstappsink.h>
#include <gst/check/gstcheck.h>
#include <cuda_runtime_api.h>

#include "fakecuda.h"
#include "gstcshostwait.h"
#include "gstcspinnedmemory.h"
#include "gstcsvideo.h"

namespace testutil {

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

GstElement *
make_ours (const char * factory)
{
  GstElement * e = gst_element_factory_make (factory, NULL);
  fail_unless (e != NULL, "cannot create %s", factory);
  GstPlugin * plugin =
      gst_plugin_feature_get_plugin (GST_PLUGIN_FEATURE (gst_element_get_factory (e)));
  fail_unless_equals_string (gst_plugin_get_name (plugin), "cudastreams");
  gst_object_unref (plugin);
  return e;
}

GstElement *
by_name (GstElement * pipeline, const char * name)
{
  return gst_bin_get_by_name (GST_BIN (pipeline), name);
}

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

std::string
run_to_eos (GstElement * pipeline, GstClockTime timeout, guint64 * waits_at_eos)
{
  std::string result;
  if (gst_element_set_state (pipeline, GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE)
    result = "state change to PLAYING failed";
  GstBus * bus = gst_element_get_bus (pipeline);
  GstMessage * msg = gst_bus_timed_pop_filtered (
      bus, timeout, (GstMessageType)(GST_MESSAGE_EOS | GST_MESSAGE_ERROR));
  if (waits_at_eos)
    *waits_at_eos = gst_cs_host_waits_total ();
  if (!msg) {
    result = "timed out waiting for EOS";
  } else if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    GError * err = NULL;
    gchar * dbg = NULL;
    gst_message_parse_error (msg, &err, &dbg);
    result = std::string ("error from ") + GST_OBJECT_NAME (msg->src) + ": " +
             err->message + " (" + (dbg ? dbg : "") + ")";
    g_error_free (err);
    g_free (dbg);
  }
  if (msg)
    gst_message_unref (msg);
  gst_object_unref (bus);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  return result;
}

static std::string
compare_planes (GstBuffer * a, const GstVideoInfo * ia, GstBuffer * b,
    const GstVideoInfo * ib, bool videocrop_rows)
{
  if (GST_VIDEO_INFO_FORMAT (ia) != GST_VIDEO_INFO_FORMAT (ib) ||
      ia->width != ib->width || ia->height != ib->height)
    return std::string ("frame descriptions differ: ") + GST_VIDEO_INFO_NAME (ia) + " " +
           std::to_string (ia->width) + "x" + std::to_string (ia->height) + " vs " +
           GST_VIDEO_INFO_NAME (ib) + " " + std::to_string (ib->width) + "x" +
           std::to_string (ib->height);
  GstVideoFrame fa, fb;
  if (!gst_video_frame_map (&fa, const_cast<GstVideoInfo *> (ia), a, GST_MAP_READ))
    return "cannot map the first frame";
  if (!gst_video_frame_map (&fb, const_cast<GstVideoInfo *> (ib), b, GST_MAP_READ)) {
    gst_video_frame_unmap (&fa);
    return "cannot map the second frame";
  }
  std::string diff;
  for (guint p = 0; p < GST_VIDEO_FRAME_N_PLANES (&fa) && diff.empty (); p++) {
    gsize row = gst_cs_video_plane_row_bytes (ia, p);
    if (videocrop_rows && GST_VIDEO_FORMAT_INFO_IS_YUV (ia->finfo) &&
        GST_VIDEO_INFO_N_PLANES (ia) == 1 && GST_VIDEO_INFO_COMP_PSTRIDE (ia, 0) == 2)
      row = 2 * (gsize)ia->width; /* packed 4:2:2 */
    guint rows = gst_cs_video_plane_rows (ia, p);
    for (guint y = 0; y < rows; y++) {
      const guint8 * ra = (const guint8 *)GST_VIDEO_FRAME_PLANE_DATA (&fa, p) +
                          (gsize)y * GST_VIDEO_FRAME_PLANE_STRIDE (&fa, p);
      const guint8 * rb = (const guint8 *)GST_VIDEO_FRAME_PLANE_DATA (&fb, p) +
                          (gsize)y * GST_VIDEO_FRAME_PLANE_STRIDE (&fb, p);
      if (std::memcmp (ra, rb, row) != 0) {
        gsize x = 0;
        while (ra[x] == rb[x])
          x++;
        char text[160];
        std::snprintf (text, sizeof text, "%s %dx%d: plane %u row %u byte %zu: %u != %u",
            GST_VIDEO_INFO_NAME (ia), ia->width, ia->height, p, y, x, ra[x], rb[x]);
        diff = text;
        break;
      }
    }
  }
  gst_video_frame_unmap (&fa);
  gst_video_frame_unmap (&fb);
  return diff;
}

std::string
compare_frames (
    GstBuffer * a, const GstVideoInfo * ia, GstBuffer * b, const GstVideoInfo * ib)
{
  return compare_planes (a, ia, b, ib, false);
}

std::string
compare_cropped (
    GstBuffer * a, const GstVideoInfo * ia, GstBuffer * b, const GstVideoInfo * ib)
{
  return compare_planes (a, ia, b, ib, true);
}

std::string
compare_all_cropped (Captured & expected, Captured & got)
{
  if (expected.buffers.empty ())
    return "no reference frames were captured";
  if (expected.buffers.size () != got.buffers.size ())
    return "frame count differs: " + std::to_string (expected.buffers.size ()) +
           " expected, " + std::to_string (got.buffers.size ()) + " got";
  for (size_t i = 0; i < expected.buffers.size (); i++) {
    std::string d = compare_cropped (
        expected.buffers[i], &expected.infos[i], got.buffers[i], &got.infos[i]);
    if (!d.empty ())
      return "frame " + std::to_string (i) + ": " + d;
  }
  return "";
}

std::string
compare_all (Captured & expected, Captured & got)
{
  if (expected.buffers.empty ())
    return "no reference frames were captured";
  if (expected.buffers.size () != got.buffers.size ())
    return "frame count differs: " + std::to_string (expected.buffers.size ()) + " in, " +
           std::to_string (got.buffers.size ()) + " out";
  for (size_t i = 0; i < expected.buffers.size (); i++) {
    std::string d =
        compare_frames (expected.buffers[i], &expected.info, got.buffers[i], &got.info);
    if (!d.empty ())
      return "frame " + std::to_string (i) + ": " + d;
  }
  return "";
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

} // namespace testutil

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* An application that shares device frames with gst-cudastreams pipelines,
 * written against the installed header and pkg-config alone, in plain C.
 *
 *   videotestsrc ! cudaupload ! cudacrop ! appsink        (pipeline "in")
 *     -> the application's kernel on the application's stream, into a ring
 *        of its own device buffers
 *   appsrc ! cudadownload ! appsink                       (pipeline "out")
 *
 * Nothing in the application waits for the GPU on the host: it orders its
 * kernel after the frame's producer on the GPU (gst_cs_sync_meta_wait),
 * declares its read (gst_cs_buffer_add_reader) and lets the frame go at
 * once; it hands its own memory to "out" with the event of its kernel
 * (gst_cs_sync_meta_record) and learns, through the memory's notify, when
 * the slot may be written again (gst_cs_memory_new_wrapped_full orders that
 * on its stream, on the GPU). It then checks the pixels against videocrop
 * on the CPU, and that its own calls made no host wait.
 *
 * Each of cudacrop's three ways to crop is run: a real copy (appsink answers
 * no allocation query), plane offsets in a video meta, a crop meta.
 *
 * Exit status: 0 pass, 1 failure, 77 no usable CUDA device. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <gst/video/video.h>
#include <gst/cudastreams/gstcudastreams.h>

#include "invert.h"

#define FRAMES 24
#define WIDTH 160
#define HEIGHT 120
/* Odd on every side: the visible region starts at an odd column and row. */
#define CROP_LEFT 13
#define CROP_RIGHT 22
#define CROP_TOP 7
#define CROP_BOTTOM 5
#define OUT_WIDTH (WIDTH - CROP_LEFT - CROP_RIGHT)
#define OUT_HEIGHT (HEIGHT - CROP_TOP - CROP_BOTTOM)
/* The source and the crop, as both pipelines write them: "%s ! crop %s". */
#define INPUT_CAPS "video/x-raw,format=RGBA,width=%d,height=%d,framerate=30/1"
#define CROP_PROPS "left=%d right=%d top=%d bottom=%d"
#define INPUT_AND_CROP_ARGS WIDTH, HEIGHT, CROP_LEFT, CROP_RIGHT, CROP_TOP, CROP_BOTTOM

/* A slot comes back when its buffer is freed, and cudadownload frees its
 * input as soon as its copy is enqueued (it declares itself a reader), not
 * when the copy is done: the application's stream then waits for the copy on
 * the GPU. So only appsrc's queue and the frame cudadownload is taking hold
 * slots, and "out" drains them on its own threads whatever the application
 * does: appsrc does not block (block=false) and "out"'s appsink is emptied
 * from its streaming thread. Waiting for a slot cannot deadlock with any ring
 * size; three let a kernel write one slot while one is queued and one
 * copied, so the kernel rarely waits on the GPU for a copy. */
#define RING 3
/* Copies cudadownload keeps running before it waits for the oldest: the
 * most it allows. On the CUDA stand-in, where stream work runs only when
 * something waits for it, this leaves the application's kernels unrun while
 * the pipelines' streams move on, so a read the application did not declare
 * (gst_cs_buffer_add_reader) shows as wrong pixels there. */
#define MAX_IN_FLIGHT 16

typedef enum { PATH_COPY, PATH_VIDEO_META, PATH_CROP_META, N_PATHS } Path;
static const char * const path_names[N_PATHS] = { "copy", "video-meta", "crop-meta" };

typedef struct App App;

typedef struct {
  App * app;
  guint index;
} Slot;

struct App {
  gint device;
  cudaStream_t stream;              /* the application's own work */
  cudaStream_t pipeline_streams[2]; /* handed to the elements */
  GstCsStreamPool * pool;

  /* The ring: allocated once; a slot is free again when the pipeline's last
   * buffer of it is freed. */
  guint8 * ring[RING];
  Slot slots[RING];
  gboolean slot_free[RING];
  size_t pitch;
  gsize slot_size;
  GMutex lock;
  GCond freed;

  guint8 * reference[FRAMES]; /* the inverted crop, computed on the CPU */

  /* per path */
  Path path;
  GstElement * down; /* cudadownload of "out" */
  GstAppSrc * appsrc;
  guint pushed, checked;
  guint64 app_waits; /* host waits during the application's own calls */
  gchar * failure;   /* the first one, under lock */
};

static void
fail (App * app, gchar * message)
{
  g_mutex_lock (&app->lock);
  if (!app->failure)
    app->failure = message;
  else
    g_free (message);
  g_mutex_unlock (&app->lock);
}

static gchar *
describe (const char * what, GError * err)
{
  gchar * s = g_strdup_printf ("%s: %s", what, err ? err->message : "failed");
  g_clear_error (&err);
  return s;
}

/* --- the reference, on the CPU ------------------------------------------ */

/* videotestsrc's snow is the same for the same frame number, so a plain
 * pipeline with videocrop gives the frames the GPU path must produce. */
static gboolean
compute_reference (App * app)
{
  gchar * description =
      g_strdup_printf ("videotestsrc pattern=snow num-buffers=%d ! " INPUT_CAPS
                       " ! videocrop " CROP_PROPS " ! appsink name=ref sync=false",
          FRAMES, INPUT_AND_CROP_ARGS);
  GstElement * p = gst_parse_launch (description, NULL);
  g_free (description);
  GstElement * sink = gst_bin_get_by_name (GST_BIN (p), "ref");
  gst_element_set_state (p, GST_STATE_PLAYING);
  guint n = 0;
  GstSample * sample;
  while (n < FRAMES && (sample = gst_app_sink_pull_sample (GST_APP_SINK (sink)))) {
    GstVideoInfo info;
    GstVideoFrame frame;
    if (gst_video_info_from_caps (&info, gst_sample_get_caps (sample)) &&
        gst_video_frame_map (
            &frame, &info, gst_sample_get_buffer (sample), GST_MAP_READ)) {
      app->reference[n] = g_malloc (4 * OUT_WIDTH * OUT_HEIGHT);
      for (guint y = 0; y < OUT_HEIGHT; y++) {
        const guint8 * s = (const guint8 *)GST_VIDEO_FRAME_PLANE_DATA (&frame, 0) +
                           y * GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 0);
        guint8 * d = app->reference[n] + 4 * OUT_WIDTH * y;
        for (guint x = 0; x < 4 * OUT_WIDTH; x++)
          d[x] = (x % 4 == 3) ? s[x] : 255 - s[x];
      }
      gst_video_frame_unmap (&frame);
      n++;
    }
    gst_sample_unref (sample);
  }
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (p);
  return n == FRAMES;
}

/* --- the ring ------------------------------------------------------------ */

/* The notify of a wrapped slot: by now the library has made the
 * application's stream wait (on the GPU) for every read of the slot, so a
 * kernel enqueued on that stream after this may overwrite it. Called on a
 * pipeline's thread; it only hands the slot back. */
static void
slot_released (gpointer data)
{
  Slot * slot = data;
  g_mutex_lock (&slot->app->lock);
  slot->app->slot_free[slot->index] = TRUE;
  g_cond_signal (&slot->app->freed);
  g_mutex_unlock (&slot->app->lock);
}

/* CPU-side bookkeeping only: the slot's GPU readers are ordered on the
 * stream, not waited for here. */
static guint
take_slot (App * app)
{
  g_mutex_lock (&app->lock);
  for (;;) {
    for (guint i = 0; i < RING; i++) {
      if (app->slot_free[i]) {
        app->slot_free[i] = FALSE;
        g_mutex_unlock (&app->lock);
        return i;
      }
    }
    g_cond_wait (&app->freed, &app->lock);
  }
}

/* --- host waits ---------------------------------------------------------- */

/* The process' count moves when any thread waits; during the application's
 * calls cudadownload may wait on its own thread (its counter says so). The
 * rest of "in" runs on the thread that makes the calls, so it cannot. */
typedef struct {
  guint64 total, down;
} Waits;

static guint64
down_waits (App * app)
{
  guint64 n = 0;
  g_object_get (app->down, "host-waits", &n, NULL);
  return n;
}

static Waits
waits_now (App * app)
{
  Waits w;
  w.down = down_waits (app);
  w.total = gst_cs_host_waits_total ();
  return w;
}

static void
account_waits (App * app, Waits before)
{
  const guint64 total = gst_cs_host_waits_total ();
  guint64 down = down_waits (app);
  if (total - before.total > down - before.down) {
    /* cudadownload counts the process' total first, then its own: let a
     * wait counted between our two reads reach its counter too. */
    g_usleep (1000);
    down = down_waits (app);
  }
  if (total - before.total > down - before.down)
    app->app_waits += (total - before.total) - (down - before.down);
}

/* --- "in": the application's kernel on each frame ------------------------ */

/* Where the visible pixels of a frame of "in" lie: a video meta's plane
 * offset and stride (an alias with the crop's own offsets, or a pool's
 * padded rows) or the caps' default layout, then the crop meta's rectangle
 * within it, when cudacrop left the crop to us. */
static gboolean
visible_region (GstBuffer * buf, const GstVideoInfo * info, const guint8 ** pixels,
    size_t * pitch, guint * width, guint * height)
{
  GstMemory * mem =
      gst_buffer_n_memory (buf) == 1 ? gst_buffer_peek_memory (buf, 0) : NULL;
  if (!gst_is_cs_memory (mem))
    return FALSE;
  const GstVideoMeta * vm = gst_buffer_get_video_meta (buf);
  gsize offset = vm ? vm->offset[0] : GST_VIDEO_INFO_PLANE_OFFSET (info, 0);
  *pitch = vm ? (size_t)vm->stride[0] : (size_t)GST_VIDEO_INFO_PLANE_STRIDE (info, 0);
  *width = vm ? vm->width : (guint)GST_VIDEO_INFO_WIDTH (info);
  *height = vm ? vm->height : (guint)GST_VIDEO_INFO_HEIGHT (info);
  const GstVideoCropMeta * cm = gst_buffer_get_video_crop_meta (buf);
  if (cm) {
    offset += cm->y * *pitch + 4 * (gsize)cm->x;
    *width = cm->width;
    *height = cm->height;
  }
  *pixels = gst_cs_memory_get_device_pointer (mem) + offset;
  return TRUE;
}

/* Whether cudacrop cropped the way appsink's allocation answer asked for, so
 * that each run checks the path it names. */
static gboolean
took_path (const App * app, GstBuffer * buf)
{
  const GstVideoMeta * vm = gst_buffer_get_video_meta (buf);
  const gboolean moved = vm && vm->offset[0] != 0;
  const gboolean crop_meta = gst_buffer_get_video_crop_meta (buf) != NULL;
  switch (app->path) {
    case PATH_COPY:
      return !crop_meta && !moved;
    case PATH_VIDEO_META:
      return !crop_meta && moved;
    default:
      return crop_meta;
  }
}

/* The slot's memory as a frame of "out": its own pitch in a video meta, the
 * kernel's event in the sync meta, the application's stream as the one on
 * which the slot is reused after the notify. */
static GstBuffer *
wrap_slot (App * app, guint slot, GstBuffer * in, GError ** err)
{
  GstBuffer * out = gst_buffer_new ();
  gst_buffer_append_memory (
      out, gst_cs_memory_new_wrapped_full (app->device, app->ring[slot], app->slot_size,
               app->stream, &app->slots[slot], slot_released));
  gsize offset[GST_VIDEO_MAX_PLANES] = { 0 };
  gint stride[GST_VIDEO_MAX_PLANES] = { (gint)app->pitch };
  gst_buffer_add_video_meta_full (out, GST_VIDEO_FRAME_FLAG_NONE, GST_VIDEO_FORMAT_RGBA,
      OUT_WIDTH, OUT_HEIGHT, 1, offset, stride);
  GST_BUFFER_PTS (out) = GST_BUFFER_PTS (in);
  GST_BUFFER_DURATION (out) = GST_BUFFER_DURATION (in);
  if (!gst_cs_sync_meta_record (out, app->device, app->stream, err)) {
    gst_buffer_unref (out); /* hands the slot back */
    return NULL;
  }
  return out;
}

/* On "in"'s streaming thread: every element of "in" runs on it, so none of
 * them can wait while the application's calls are counted. */
static GstFlowReturn
on_frame (GstAppSink * sink, gpointer data)
{
  App * app = data;
  GstSample * sample = gst_app_sink_pull_sample (sink);
  if (!sample)
    return GST_FLOW_EOS;
  GstBuffer * buf = gst_sample_get_buffer (sample);
  GstVideoInfo info;
  const guint8 * pixels = NULL;
  size_t pitch = 0;
  guint w = 0, h = 0;
  if (!gst_video_info_from_caps (&info, gst_sample_get_caps (sample)) ||
      !visible_region (buf, &info, &pixels, &pitch, &w, &h) || w != OUT_WIDTH ||
      h != OUT_HEIGHT) {
    fail (app, g_strdup_printf ("frame %u: not a %ux%u RGBA frame in device memory "
                                "(%ux%u)",
                   app->pushed, OUT_WIDTH, OUT_HEIGHT, w, h));
    gst_sample_unref (sample);
    return GST_FLOW_ERROR;
  }
  if (!took_path (app, buf)) {
    fail (app, g_strdup_printf ("frame %u: cudacrop did not crop by %s", app->pushed,
                   path_names[app->path]));
    gst_sample_unref (sample);
    return GST_FLOW_ERROR;
  }
  const guint slot = take_slot (app);

  const Waits before = waits_now (app);
  GError * err = NULL;
  cudaError_t launched = cudaErrorUnknown;
  GstBuffer * out = NULL;
  gboolean ok = gst_cs_sync_meta_wait (buf, app->stream, &err) &&
                (launched = example_invert_rgba (pixels, pitch, app->ring[slot],
                     app->pitch, w, h, app->stream)) == cudaSuccess &&
                gst_cs_buffer_add_reader (buf, app->device, app->stream, &err);
  /* The read is known to the library: the frame may go back upstream now,
   * whatever the kernel's progress. */
  gst_sample_unref (sample);
  if (ok)
    ok = (out = wrap_slot (app, slot, buf, &err)) != NULL;
  if (ok)
    ok = gst_app_src_push_buffer (app->appsrc, out) == GST_FLOW_OK;
  account_waits (app, before);

  if (!ok) {
    if (launched != cudaSuccess && !err)
      fail (app, g_strdup_printf ("the kernel: %s", cudaGetErrorString (launched)));
    else
      fail (app, describe ("frame handed to \"out\"", err));
    if (!out)
      slot_released (&app->slots[slot]);
    return GST_FLOW_ERROR;
  }
  app->pushed++;
  return GST_FLOW_OK;
}

/* --- "out": the downloaded frames ---------------------------------------- */

static GstFlowReturn
on_result (GstAppSink * sink, gpointer data)
{
  App * app = data;
  GstSample * sample = gst_app_sink_pull_sample (sink);
  if (!sample)
    return GST_FLOW_EOS;
  GstVideoInfo info;
  GstVideoFrame frame;
  const guint n = app->checked++;
  if (n >= FRAMES || !gst_video_info_from_caps (&info, gst_sample_get_caps (sample)) ||
      !gst_video_frame_map (
          &frame, &info, gst_sample_get_buffer (sample), GST_MAP_READ)) {
    fail (app, g_strdup_printf ("downloaded frame %u cannot be read", n));
    gst_sample_unref (sample);
    return GST_FLOW_ERROR;
  }
  for (guint y = 0; y < OUT_HEIGHT; y++) {
    const guint8 * got = (const guint8 *)GST_VIDEO_FRAME_PLANE_DATA (&frame, 0) +
                         y * GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 0);
    const guint8 * want = app->reference[n] + 4 * OUT_WIDTH * y;
    for (guint x = 0; x < 4 * OUT_WIDTH; x++) {
      if (got[x] != want[x]) {
        fail (app, g_strdup_printf ("frame %u, pixel (%u, %u), byte %u: got %u, "
                                    "the CPU's inverted crop is %u",
                       n, x / 4, y, x % 4, got[x], want[x]));
        y = OUT_HEIGHT;
        break;
      }
    }
  }
  gst_video_frame_unmap (&frame);
  gst_sample_unref (sample);
  return GST_FLOW_OK;
}

/* --- the pipelines ------------------------------------------------------- */

/* What appsink says in the ALLOCATION query decides how cudacrop crops:
 * nothing (a copy), video metas (plane offsets), crop metas too. */
static GstPadProbeReturn
answer_allocation (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  (void)pad;
  const App * app = data;
  GstQuery * query = GST_PAD_PROBE_INFO_QUERY (info);
  if (GST_QUERY_TYPE (query) != GST_QUERY_ALLOCATION || app->path == PATH_COPY)
    return GST_PAD_PROBE_OK;
  gst_query_add_allocation_meta (query, GST_VIDEO_META_API_TYPE, NULL);
  if (app->path == PATH_CROP_META)
    gst_query_add_allocation_meta (query, GST_VIDEO_CROP_META_API_TYPE, NULL);
  return GST_PAD_PROBE_HANDLED;
}

/* The elements lease their streams from the application's pool. */
static GstElement *
launch (App * app, const char * description)
{
  GError * err = NULL;
  GstElement * p = gst_parse_launch (description, &err);
  if (err) {
    /* a missing element too: the plugin is not where GST_PLUGIN_PATH says */
    g_printerr ("example: %s: %s\n", description, err->message);
    exit (1);
  }
  GstContext * ctx = gst_cs_context_new_stream_pool (app->pool);
  gst_element_set_context (p, ctx);
  gst_context_unref (ctx);
  return p;
}

static GstElement *
child (GstElement * pipeline, const char * name)
{
  GstElement * e = gst_bin_get_by_name (GST_BIN (pipeline), name);
  gst_object_unref (e); /* the pipeline keeps it */
  return e;
}

/* EOS, or the error's message (freed by the caller). */
static gchar *
wait_eos (GstElement * pipeline)
{
  GstBus * bus = gst_element_get_bus (pipeline);
  GstMessage * msg = gst_bus_timed_pop_filtered (
      bus, 120 * GST_SECOND, GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  gchar * problem = NULL;
  if (!msg) {
    problem = g_strdup ("no EOS in 120 s");
  } else if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    GError * err = NULL;
    gst_message_parse_error (msg, &err, NULL);
    problem =
        g_strdup_printf ("%s: %s", GST_OBJECT_NAME (GST_MESSAGE_SRC (msg)), err->message);
    g_error_free (err);
  }
  if (msg)
    gst_message_unref (msg);
  gst_object_unref (bus);
  return problem;
}

static gboolean
run_path (App * app, Path path, guint64 * downloads_waited)
{
  app->path = path;
  app->pushed = app->checked = 0;
  app->app_waits = 0;
  gchar * description = g_strdup_printf (
      "appsrc name=src format=time caps=video/x-raw(%s),format=RGBA,width=%d,height=%d,"
      "framerate=30/1 ! cudadownload name=down max-in-flight=%d ! "
      "appsink name=sink sync=false",
      GST_CAPS_FEATURE_MEMORY_CS, OUT_WIDTH, OUT_HEIGHT, MAX_IN_FLIGHT);
  GstElement * out = launch (app, description);
  g_free (description);
  description = g_strdup_printf ("videotestsrc pattern=snow num-buffers=%d ! " INPUT_CAPS
                                 " ! cudaupload ! cudacrop " CROP_PROPS
                                 " ! appsink name=sink sync=false",
      FRAMES, INPUT_AND_CROP_ARGS);
  GstElement * in = launch (app, description);
  g_free (description);
  app->down = child (out, "down");
  app->appsrc = GST_APP_SRC (child (out, "src"));

  GstAppSinkCallbacks frames = { .new_sample = on_frame };
  gst_app_sink_set_callbacks (GST_APP_SINK (child (in, "sink")), &frames, app, NULL);
  GstAppSinkCallbacks results = { .new_sample = on_result };
  gst_app_sink_set_callbacks (GST_APP_SINK (child (out, "sink")), &results, app, NULL);
  GstPad * pad = gst_element_get_static_pad (child (in, "sink"), "sink");
  gst_pad_add_probe (
      pad, GST_PAD_PROBE_TYPE_QUERY_DOWNSTREAM, answer_allocation, app, NULL);
  gst_object_unref (pad);

  gst_element_set_state (out, GST_STATE_PLAYING);
  gst_element_set_state (in, GST_STATE_PLAYING);
  gchar * problem = wait_eos (in);
  gst_app_src_end_of_stream (app->appsrc);
  if (!problem)
    problem = wait_eos (out);
  *downloads_waited = down_waits (app);
  gst_element_set_state (in, GST_STATE_NULL);
  gst_element_set_state (out, GST_STATE_NULL);
  gst_object_unref (in);
  gst_object_unref (out);
  if (problem)
    fail (app, g_strdup_printf ("%s: %s", path_names[path], problem));
  g_free (problem);
  if (!app->failure && (app->pushed != FRAMES || app->checked != FRAMES))
    fail (app, g_strdup_printf (
                   "%u frames in, %u out, of %u", app->pushed, app->checked, FRAMES));
  if (!app->failure && app->app_waits != 0)
    fail (app,
        g_strdup_printf ("the application's calls made %" G_GUINT64_FORMAT " host waits",
            app->app_waits));
  if (!app->failure && *downloads_waited != FRAMES)
    fail (app, g_strdup_printf ("cudadownload waited %" G_GUINT64_FORMAT " times for %u "
                                "frames",
                   *downloads_waited, FRAMES));
  if (app->failure) {
    g_printerr ("example: %s path: %s\n", path_names[path], app->failure);
    return FALSE;
  }
  return TRUE;
}

/* --- setup --------------------------------------------------------------- */

/* The application's stream at the device's highest priority, the elements'
 * at its lowest: the application's kernel goes first when both are ready. */
static gboolean
setup (App * app)
{
  int least = 0, greatest = 0;
  app->pitch = (4 * OUT_WIDTH + 255) & ~(size_t)255; /* rows as cudaMallocPitch would */
  app->slot_size = app->pitch * OUT_HEIGHT;
  if (cudaSetDevice (app->device) != cudaSuccess ||
      cudaDeviceGetStreamPriorityRange (&least, &greatest) != cudaSuccess ||
      cudaStreamCreateWithPriority (&app->stream, cudaStreamNonBlocking, greatest) !=
          cudaSuccess)
    return FALSE;
  for (guint i = 0; i < G_N_ELEMENTS (app->pipeline_streams); i++) {
    if (cudaStreamCreateWithPriority (
            &app->pipeline_streams[i], cudaStreamNonBlocking, least) != cudaSuccess)
      return FALSE;
  }
  app->pool = gst_cs_stream_pool_new_wrapped (
      app->device, app->pipeline_streams, G_N_ELEMENTS (app->pipeline_streams));
  for (guint i = 0; i < RING; i++) {
    if (cudaMalloc ((void **)&app->ring[i], app->slot_size) != cudaSuccess)
      return FALSE;
    app->slots[i].app = app;
    app->slots[i].index = i;
    app->slot_free[i] = TRUE;
  }
  return app->pool != NULL;
}

static void
teardown (App * app)
{
  /* Every slot is back: the pipelines are gone. */
  for (guint i = 0; i < RING; i++)
    cudaFree (app->ring[i]);
  gst_clear_object (&app->pool);
  for (guint i = 0; i < G_N_ELEMENTS (app->pipeline_streams); i++)
    cudaStreamDestroy (app->pipeline_streams[i]);
  cudaStreamDestroy (app->stream);
  for (guint i = 0; i < FRAMES; i++)
    g_free (app->reference[i]);
  g_free (app->failure);
  g_mutex_clear (&app->lock);
  g_cond_clear (&app->freed);
}

int
main (int argc, char ** argv)
{
  gst_init (&argc, &argv);
  int devices = 0;
  cudaError_t probe = cudaGetDeviceCount (&devices);
  if (probe != cudaSuccess || devices == 0) {
    printf ("SKIP example: no usable CUDA GPU (%s)\n",
        probe != cudaSuccess ? cudaGetErrorString (probe)
                             : "the driver reports no device");
    return 77;
  }
  static App app; /* zeroed */
  g_mutex_init (&app.lock);
  g_cond_init (&app.freed);
  int status = 0;
  if (!setup (&app)) {
    g_printerr ("example: cannot set up the CUDA streams and the ring\n");
    status = 1;
  } else if (!compute_reference (&app)) {
    g_printerr (
        "example: the CPU reference pipeline gave fewer than %u frames\n", FRAMES);
    status = 1;
  }
  guint64 waited[N_PATHS] = { 0 };
  const guint64 total_before = gst_cs_host_waits_total ();
  for (Path p = 0; p < N_PATHS && status == 0; p++) {
    if (!run_path (&app, p, &waited[p]))
      status = 1;
  }
  if (status == 0)
    printf (
        "example: %u frames %ux%u cropped to %ux%u and inverted on the application's "
        "stream, paths copy/video-meta/crop-meta: pixels equal the CPU's, 0 host waits "
        "in the application's calls, cudadownload waited %" G_GUINT64_FORMAT
        "/%" G_GUINT64_FORMAT "/%" G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT
        " in the process with teardowns\n",
        FRAMES, WIDTH, HEIGHT, OUT_WIDTH, OUT_HEIGHT, waited[0], waited[1], waited[2],
        gst_cs_host_waits_total () - total_before);
  teardown (&app);
  return status;
}

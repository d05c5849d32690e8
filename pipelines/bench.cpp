/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gcs-bench: steady-state throughput of one pipeline case.
 *
 *   gcs-bench --format RGBA --width 3840 --height 2160 --source pinned \
 *       --pipeline "cudaupload ! cudadownload max-in-flight=3"
 *
 * builds  gcsbenchsrc ! <pipeline> ! fakesink  and times the buffers that
 * reach the sink, from the first one after the warm-up to the first one after
 * --seconds more. Start-up (registry, CUDA context, pool allocation, the first
 * fill of each frame) falls in the warm-up and is never timed.
 *
 * The source costs next to nothing per frame, so the figures are those of the
 * pipeline under test:
 *  - pinned: frames come from the pool the first downstream element offers in
 *    the ALLOCATION query (cudaupload's pinned pool), each pool buffer is
 *    filled once and pushed again as is, as a producer that writes into the
 *    pool it was offered would (without the writing).
 *  - recurring: a few frames of ordinary malloc'd memory (the default
 *    allocator), filled once and pushed round-robin, each GstMemory wrapped
 *    in a new GstBuffer each time, as an upstream pool of its own hands its
 *    memory out again (so cudaupload may register it). "pageable" is an old
 *    name of it.
 *  - oneshot: every frame a GstMemory never seen before (gst_memory_new_wrapped)
 *    around the next frame of a rotating arena of ordinary memory, filled
 *    once and larger than cudaupload's registration bound, as an
 *    application pushing its own arrays: the memory is always new, the
 *    pages are already touched, so the source costs nothing per frame.
 *
 * Reported (one human line, then one line "RESULT {json}" for scripts):
 *  fps       frames at the sink per second of the timed window
 *  gbps      (in_bytes + out_bytes) * fps / 1e9, where in_bytes is one packed
 *            frame of the source caps (crossed host->device once) and
 *            out_bytes one packed frame of the sink caps when those are system
 *            memory (crossed device->host once), 0 when the sink gets device
 *            memory
 *  cpu_us    user+system CPU time of the whole process (all threads, CUDA's
 *            too) in the window, per frame
 *  waits     gst_cs_host_waits_total() difference per frame, split into the
 *            elements' "host-waits" properties, the source pool's waits and
 *            the rest; null when no element of the project is in the pipeline
 *
 * --cuda-sync blocking makes host waits sleep instead of spin (CUDA's default
 * while cores are idle), to show what spinning costs in CPU time.
 *
 * --wait-gpu, for a sink that gets device memory: the window opens and
 * closes only once the GPU has finished the buffer at hand (a host wait on
 * its event, through the library's counted helper). Without it, a window
 * of device buffers times how fast the CPU enqueues work, which CUDA's
 * launch queue lets run far ahead of the GPU. The two waits are the
 * benchmark's, not the pipeline's: they are left out of cpu_us and waits
 * and reported as bench_waits.
 *
 * It runs either plugin: the pipeline is a plain description, and
 * --expect-plugin checks which plugin the cuda* elements came from (ours and
 * nvcodec's share element names: load both in one process only with our
 * unambiguous names, cudastreams*).
 *
 * --source h264: the pipeline brings its own source (an H.264 stream, e.g.
 * "multifilesrc location=F loop=true ! h264parse ! nvh264dec ! ..."); there
 * is no gcsbenchsrc, --format/--width/--height only label the row, in_bytes
 * is 0. The stream ends when the window has closed (the pipeline is stopped).
 * --source device: the same for a pipeline whose source pushes frames already
 * on the device (e.g. "videotestsrc num-buffers=1 ! ... ! cudaupload !
 * imagefreeze ! ..."), so that a GPU element is timed, not the upload.
 *
 * Every RESULT names the plugin of each element ("elements": factory=plugin,
 * upstream first), so a row says whose element ran.
 *
 * --own-sink: the pipeline ends in a sink of its own named gcs_bench_sink
 * (cudastreamsipcsink: the producer of an IPC row), timed at its sink pad.
 * Buffers that come from cudastreamsipcsrc carry the time their producer
 * sent them (a reference timestamp, timestamp/x-cudastreams-ipc-sent, ns
 * of CLOCK_MONOTONIC, which processes share): the window's latency from
 * that send to the sink here is reported as lat_p50_us, lat_p99_us.
 *
 * --stop-on-usr1: the window closes at the first buffer after SIGUSR1 (or
 * after --seconds): a producer that must outlive its consumers' windows.
 */
#include <sys/resource.h>

#include <dirent.h>
#include <dlfcn.h>
#include <signal.h>
#include <time.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <unordered_set>
#include <vector>

#include <cuda_runtime_api.h>
#include <gst/base/gstbasesrc.h>
#include <gst/gst.h>
#include <gst/video/video.h>

#include "gstcudastreams.h"
#include "gstcspinnedmemory-private.h"

/* ---- the source ---- */

#define GCS_TYPE_BENCH_SRC (gcs_bench_src_get_type ())
G_DECLARE_FINAL_TYPE (GcsBenchSrc, gcs_bench_src, GCS, BENCH_SRC, GstBaseSrc)

struct _GcsBenchSrc {
  GstBaseSrc parent;
  /* set by main() before the pipeline starts */
  GstCaps * caps;
  gboolean pinned;
  gboolean oneshot;
  guint pool_buffers;
  /* streaming thread */
  GstVideoInfo info;
  std::vector<GstBuffer *> * frames;     /* pageable mode */
  std::unordered_set<gpointer> * filled; /* pinned mode: memory written once */
  guint8 * arena;                        /* oneshot mode */
  gsize arena_frames;
  guint64 n;
  guint fills_total;
  gint stop;           /* atomic: return EOS at the next frame */
  gchar * memory_kind; /* where the first frame lived */
};

G_DEFINE_TYPE (GcsBenchSrc, gcs_bench_src, GST_TYPE_BASE_SRC);

static GstStaticPadTemplate bench_src_template = GST_STATIC_PAD_TEMPLATE (
    "src", GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS ("video/x-raw"));

/* Non-uniform content, written once per frame memory: fast enough that
 * filling a pool of 4K frames stays a small part of the warm-up. */
static void
fill_pattern (guint8 * data, gsize size, guint64 seed)
{
  guint64 * w = reinterpret_cast<guint64 *> (data);
  gsize words = size / 8;
  guint64 x = seed * 0x9E3779B97F4A7C15ull + 1;
  for (gsize i = 0; i < words; i++)
    w[i] = (x += 0x9E3779B97F4A7C15ull) ^ (i << 7);
  for (gsize i = words * 8; i < size; i++)
    data[i] = (guint8)(i * 31 + seed);
}

/* Says where frames live: in our pinned pool, in other page-locked memory
 * (another plugin's pool) or in ordinary pageable memory. */
static const gchar *
describe_memory (GstBuffer * buf)
{
  GstMemory * mem = gst_buffer_peek_memory (buf, 0);
  if (gst_is_cs_pinned_memory (mem))
    return "cs-pinned";
  GstMapInfo map;
  if (!gst_memory_map (mem, &map, GST_MAP_READ))
    return "unmappable";
  cudaPointerAttributes attr;
  cudaError_t err = cudaPointerGetAttributes (&attr, map.data);
  gst_memory_unmap (mem, &map);
  if (err != cudaSuccess) {
    (void)cudaGetLastError ();
    return "unknown";
  }
  switch (attr.type) {
    case cudaMemoryTypeHost:
      return "pinned-other";
    case cudaMemoryTypeUnregistered:
      return "pageable";
    default:
      return "device";
  }
}

static GstCaps *
bench_src_get_caps (GstBaseSrc * base, GstCaps * filter)
{
  auto * self = GCS_BENCH_SRC (base);
  if (!self->caps)
    return GST_BASE_SRC_CLASS (gcs_bench_src_parent_class)->get_caps (base, filter);
  return filter ? gst_caps_intersect_full (filter, self->caps, GST_CAPS_INTERSECT_FIRST)
                : gst_caps_ref (self->caps);
}

static gboolean
bench_src_set_caps (GstBaseSrc * base, GstCaps * caps)
{
  auto * self = GCS_BENCH_SRC (base);
  return gst_video_info_from_caps (&self->info, caps);
}

static gboolean
bench_src_decide_allocation (GstBaseSrc * base, GstQuery * query)
{
  auto * self = GCS_BENCH_SRC (base);
  if (!self->pinned)
    return TRUE; /* pageable frames are made by hand */

  GstBufferPool * pool = NULL;
  guint size = self->info.size, min = 0, max = 0;
  if (gst_query_get_n_allocation_pools (query) > 0)
    gst_query_parse_nth_allocation_pool (query, 0, &pool, &size, &min, &max);
  /* Enough frames that the one handed out next has normally finished its
   * upload: a smaller pool makes the producer wait for the copy engine. */
  guint want = MAX (min, self->pool_buffers);
  if (max != 0 && max < want)
    max = want;
  if (!pool) {
    /* Nothing offered (not our cudaupload): a plain video pool, with the
     * allocator downstream asked for, if any. */
    pool = gst_video_buffer_pool_new ();
    gst_query_add_allocation_pool (query, pool, size, want, max);
  } else {
    gst_query_set_nth_allocation_pool (query, 0, pool, size, want, max);
  }
  gst_object_unref (pool);
  return GST_BASE_SRC_CLASS (gcs_bench_src_parent_class)->decide_allocation (base, query);
}

static void
release_frames (GcsBenchSrc * self)
{
  for (GstBuffer * b : *self->frames)
    gst_buffer_unref (b);
  self->frames->clear ();
  self->filled->clear ();
  g_free (self->arena);
  self->arena = NULL;
}

static gboolean
bench_src_start (GstBaseSrc * base)
{
  auto * self = GCS_BENCH_SRC (base);
  self->n = 0;
  self->fills_total = 0;
  g_atomic_int_set (&self->stop, 0);
  return TRUE;
}

static gboolean
bench_src_stop (GstBaseSrc * base)
{
  release_frames (GCS_BENCH_SRC (base));
  return TRUE;
}

#define PAGEABLE_FRAMES 4

static GstFlowReturn
make_pageable (GcsBenchSrc * self, GstBuffer ** out)
{
  if (self->frames->empty ()) {
    for (guint i = 0; i < PAGEABLE_FRAMES; i++) {
      GstBuffer * b = gst_buffer_new_allocate (NULL, self->info.size, NULL);
      if (!b)
        return GST_FLOW_ERROR;
      GstMapInfo map;
      gst_buffer_map (b, &map, GST_MAP_WRITE);
      fill_pattern (map.data, map.size, i);
      gst_buffer_unmap (b, &map);
      self->frames->push_back (b);
      self->fills_total++;
    }
  }
  /* A new buffer around the same memory: costs a GstBuffer, not a frame. */
  GstBuffer * proto = (*self->frames)[self->n % self->frames->size ()];
  *out = gst_buffer_new ();
  gst_buffer_append_memory (*out, gst_buffer_get_memory (proto, 0));
  return GST_FLOW_OK;
}

/* Above cudaupload's default max-registered-bytes (512 MiB), and at least
 * 16 frames, so no memory could recur even if it were registered. */
#define ONESHOT_ARENA_MIN_BYTES (G_GUINT64_CONSTANT (768) << 20)
#define ONESHOT_ARENA_MIN_FRAMES 16

static GstFlowReturn
make_oneshot (GcsBenchSrc * self, GstBuffer ** out)
{
  const gsize frame = self->info.size;
  if (!self->arena) {
    self->arena_frames =
        MAX (ONESHOT_ARENA_MIN_FRAMES, ONESHOT_ARENA_MIN_BYTES / frame + 1);
    self->arena = static_cast<guint8 *> (g_try_malloc (self->arena_frames * frame));
    if (!self->arena)
      return GST_FLOW_ERROR;
    /* Touched once: the pages exist before the timing starts. */
    for (gsize i = 0; i < self->arena_frames; i++)
      fill_pattern (self->arena + i * frame, frame, i);
    self->fills_total += self->arena_frames;
  }
  /* A new memory every frame, one frame of the arena. */
  guint8 * data = self->arena + (self->n % self->arena_frames) * frame;
  *out = gst_buffer_new ();
  gst_buffer_append_memory (*out,
      gst_memory_new_wrapped ((GstMemoryFlags)0, data, frame, 0, frame, NULL, NULL));
  return GST_FLOW_OK;
}

static GstFlowReturn
take_pooled (GcsBenchSrc * self, GstBuffer ** out)
{
  GstFlowReturn ret = GST_BASE_SRC_CLASS (gcs_bench_src_parent_class)
                          ->alloc (GST_BASE_SRC (self), self->n, self->info.size, out);
  if (ret != GST_FLOW_OK)
    return ret;
  GstMemory * mem = gst_buffer_peek_memory (*out, 0);
  GstMapInfo map;
  if (!gst_memory_map (mem, &map, GST_MAP_READ)) {
    gst_clear_buffer (out);
    return GST_FLOW_ERROR;
  }
  gpointer key = map.data;
  gst_memory_unmap (mem, &map);
  /* Write each pool frame once; later rounds push it unchanged. */
  if (self->filled->insert (key).second) {
    if (!gst_buffer_map (*out, &map, GST_MAP_WRITE)) {
      gst_clear_buffer (out);
      return GST_FLOW_ERROR;
    }
    fill_pattern (map.data, map.size, self->fills_total);
    gst_buffer_unmap (*out, &map);
    self->fills_total++;
  }
  return GST_FLOW_OK;
}

static GstFlowReturn
bench_src_create (GstBaseSrc * base, guint64, guint, GstBuffer ** out)
{
  auto * self = GCS_BENCH_SRC (base);
  if (g_atomic_int_get (&self->stop))
    return GST_FLOW_EOS;
  GstFlowReturn ret = self->pinned    ? take_pooled (self, out)
                      : self->oneshot ? make_oneshot (self, out)
                                      : make_pageable (self, out);
  if (ret != GST_FLOW_OK)
    return ret;
  if (!self->memory_kind)
    self->memory_kind = g_strdup (describe_memory (*out));
  if (self->info.fps_n > 0) {
    GST_BUFFER_PTS (*out) =
        gst_util_uint64_scale (self->n, GST_SECOND * self->info.fps_d, self->info.fps_n);
    GST_BUFFER_DURATION (*out) =
        gst_util_uint64_scale (GST_SECOND, self->info.fps_d, self->info.fps_n);
  }
  self->n++;
  return GST_FLOW_OK;
}

static void
bench_src_finalize (GObject * object)
{
  auto * self = GCS_BENCH_SRC (object);
  release_frames (self);
  delete self->frames;
  delete self->filled;
  gst_clear_caps (&self->caps);
  g_free (self->memory_kind);
  G_OBJECT_CLASS (gcs_bench_src_parent_class)->finalize (object);
}

static void
gcs_bench_src_class_init (GcsBenchSrcClass * klass)
{
  GstBaseSrcClass * src_class = GST_BASE_SRC_CLASS (klass);
  G_OBJECT_CLASS (klass)->finalize = bench_src_finalize;
  gst_element_class_add_static_pad_template (
      GST_ELEMENT_CLASS (klass), &bench_src_template);
  gst_element_class_set_static_metadata (GST_ELEMENT_CLASS (klass), "Benchmark source",
      "Source/Video", "Pushes pre-filled raw video frames at no per-frame CPU cost",
      "gst-cudastreams developers");
  src_class->get_caps = bench_src_get_caps;
  src_class->set_caps = bench_src_set_caps;
  src_class->decide_allocation = bench_src_decide_allocation;
  src_class->start = bench_src_start;
  src_class->stop = bench_src_stop;
  src_class->create = bench_src_create;
}

static void
gcs_bench_src_init (GcsBenchSrc * self)
{
  self->frames = new std::vector<GstBuffer *>;
  self->filled = new std::unordered_set<gpointer>;
  self->pool_buffers = 8;
  gst_base_src_set_format (GST_BASE_SRC (self), GST_FORMAT_TIME);
  gst_base_src_set_live (GST_BASE_SRC (self), FALSE);
}

/* ---- the measurement ---- */

struct Snapshot {
  gint64 us = 0;
  gint64 cpu_us = 0;
  guint64 waits_total = 0;
  guint64 pool_waits = 0;
  std::vector<guint64> element_waits;
  std::map<long, std::pair<std::string, guint64>> thread_ns; /* tid: name, CPU ns */
};

struct Measure {
  /* configuration */
  gint64 warm_us = 500000;
  guint64 warm_frames = 30;
  gint64 window_us = 2000000;
  GcsBenchSrc * src = nullptr;
  std::vector<GstElement *> counted; /* elements with "host-waits" */
  bool wait_gpu = false;
  GstCsWaitCounter bench_waits{}; /* the --wait-gpu waits */
  /* streaming thread */
  guint64 frames = 0;
  gint64 first_us = -1;
  bool started = false;
  guint64 start_frame = 0, end_frame = 0;
  gint64 start_us = 0, end_us = 0;
  Snapshot start, end;
  gsize out_bytes = 0;
  std::string gpu_error;          /* a --wait-gpu wait that failed */
  std::vector<double> latency_us; /* in the window: IPC sends to here */
  std::atomic<bool> done{ false };
};

static gint64
process_cpu_us ()
{
  struct rusage ru;
  getrusage (RUSAGE_SELF, &ru);
  return (gint64)ru.ru_utime.tv_sec * 1000000 + ru.ru_utime.tv_usec +
         (gint64)ru.ru_stime.tv_sec * 1000000 + ru.ru_stime.tv_usec;
}

/* Each thread's CPU time so far (the kernel's schedstat: nanoseconds, where
 * getrusage and /proc's stat count 10 ms ticks), by thread id with its
 * name: which of the pipeline's threads the process's CPU time went to
 * (an IPC element's reader or server thread beside the streaming ones). */
static void
thread_cpu_ns (std::map<long, std::pair<std::string, guint64>> * out)
{
  out->clear ();
  DIR * d = opendir ("/proc/self/task");
  if (!d)
    return;
  while (struct dirent * e = readdir (d)) {
    if (e->d_name[0] == '.')
      continue;
    const std::string base = std::string ("/proc/self/task/") + e->d_name;
    gchar *comm = NULL, *sched = NULL;
    if (g_file_get_contents ((base + "/comm").c_str (), &comm, NULL, NULL) &&
        g_file_get_contents ((base + "/schedstat").c_str (), &sched, NULL, NULL))
      (*out)[atol (e->d_name)] = { g_strstrip (comm),
        g_ascii_strtoull (sched, NULL, 10) };
    g_free (comm);
    g_free (sched);
  }
  closedir (d);
}

static guint64
source_pool_waits (GcsBenchSrc * src)
{
  GstBufferPool * pool = gst_base_src_get_buffer_pool (GST_BASE_SRC (src));
  guint64 waits = 0;
  if (pool && GST_IS_CS_PINNED_BUFFER_POOL (pool))
    waits = gst_cs_pinned_buffer_pool_get_host_waits (GST_CS_PINNED_BUFFER_POOL (pool));
  if (pool)
    gst_object_unref (pool);
  return waits;
}

static void
take_snapshot (Measure * m, Snapshot * s)
{
  s->us = g_get_monotonic_time ();
  s->cpu_us = process_cpu_us ();
  thread_cpu_ns (&s->thread_ns);
  s->waits_total = gst_cs_host_waits_total ();
  s->pool_waits = m->src ? source_pool_waits (m->src) : 0;
  s->element_waits.clear ();
  for (GstElement * e : m->counted) {
    guint64 w = 0;
    g_object_get (e, "host-waits", &w, NULL);
    s->element_waits.push_back (w);
  }
}

/* Bytes of a frame leaving the pipeline in system memory, 0 for device. */
static gsize
sink_frame_bytes (GstPad * pad)
{
  GstCaps * caps = gst_pad_get_current_caps (pad);
  if (!caps)
    return 0;
  gsize bytes = 0;
  GstCapsFeatures * f = gst_caps_get_features (caps, 0);
  GstVideoInfo info;
  if ((!f || gst_caps_features_is_equal (f, GST_CAPS_FEATURES_MEMORY_SYSTEM_MEMORY)) &&
      gst_video_info_from_caps (&info, caps))
    bytes = info.size;
  gst_caps_unref (caps);
  return bytes;
}

/* --wait-gpu: blocks until the GPU has finished `buf` (its event). The
 * streaming thread waits here, so nothing new is enqueued meanwhile and the
 * CPU the wait spins is the benchmark's own: the snapshots around it leave
 * it out. Returns the time the GPU was done. */
static gint64
gpu_done_at (Measure * m, GstBuffer * buf)
{
  GError * err = NULL;
  if (buf && !gst_cs_sync_meta_wait_host (buf, &m->bench_waits, &err)) {
    m->gpu_error = std::string ("waiting for the GPU: ") + (err ? err->message : "?");
    g_clear_error (&err);
  }
  return g_get_monotonic_time ();
}

static GstBuffer *
last_buffer (GstPadProbeInfo * info)
{
  if (!(info->type & GST_PAD_PROBE_TYPE_BUFFER_LIST))
    return GST_PAD_PROBE_INFO_BUFFER (info);
  GstBufferList * list = GST_PAD_PROBE_INFO_BUFFER_LIST (info);
  const guint n = gst_buffer_list_length (list);
  return n ? gst_buffer_list_get (list, n - 1) : NULL;
}

/* --stop-on-usr1: set by SIGUSR1. */
static std::atomic<bool> stop_requested{ false };

static void
on_usr1 (int)
{
  stop_requested.store (true);
}

/* How long ago the IPC producer sent `buf`, in us (negative: not sent by
 * one). */
static double
ipc_latency_us (GstBuffer * buf)
{
  static GstCaps * sent = gst_caps_new_empty_simple ("timestamp/x-cudastreams-ipc-sent");
  GstReferenceTimestampMeta * meta =
      buf ? gst_buffer_get_reference_timestamp_meta (buf, sent) : NULL;
  if (!meta)
    return -1;
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  const gint64 now_ns = (gint64)ts.tv_sec * 1000000000 + ts.tv_nsec;
  return (now_ns - (gint64)meta->timestamp) / 1e3;
}

/* pipelines/sampler.c's window, where it is preloaded (LD_PRELOAD): its
 * samples are the timed window's, not the start-up's or the teardown's. */
using SamplerCall = void (*) (void);
static const SamplerCall sampler_start =
    (SamplerCall)dlsym (RTLD_DEFAULT, "gcs_sampler_start");
static const SamplerCall sampler_stop =
    (SamplerCall)dlsym (RTLD_DEFAULT, "gcs_sampler_stop");

static GstPadProbeReturn
on_sink_buffer (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  auto * m = static_cast<Measure *> (user_data);
  if (m->done.load ())
    return GST_PAD_PROBE_OK;
  if (m->started) {
    const double lat = ipc_latency_us (last_buffer (info));
    if (lat >= 0)
      m->latency_us.push_back (lat);
  }
  gint64 now = g_get_monotonic_time ();
  if (info->type & GST_PAD_PROBE_TYPE_BUFFER_LIST)
    m->frames += gst_buffer_list_length (GST_PAD_PROBE_INFO_BUFFER_LIST (info));
  else
    m->frames++;
  if (m->first_us < 0)
    m->first_us = now;
  if (!m->started) {
    if (m->frames >= m->warm_frames && now - m->first_us >= m->warm_us) {
      m->started = true;
      m->start_frame = m->frames;
      m->out_bytes = sink_frame_bytes (pad);
      if (m->wait_gpu)
        gpu_done_at (m, last_buffer (info));
      take_snapshot (m, &m->start);
      m->start_us = m->start.us;
      if (sampler_start)
        sampler_start ();
    }
  } else if (now - m->start_us >= m->window_us || stop_requested.load ()) {
    m->end_frame = m->frames;
    take_snapshot (m, &m->end);
    if (sampler_stop)
      sampler_stop ();
    m->end_us = m->wait_gpu ? gpu_done_at (m, last_buffer (info)) : m->end.us;
    m->done.store (true);
    /* The source ends the stream at its next frame; draining stays untimed.
     * A pipeline's own source is stopped by run() instead. */
    if (m->src)
      g_atomic_int_set (&m->src->stop, 1);
  }
  return GST_PAD_PROBE_OK;
}

/* ---- output ---- */

static std::string
json_string (const gchar * s)
{
  std::string out = "\"";
  for (const gchar * p = s ? s : ""; *p; p++) {
    switch (*p) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      default:
        if ((guchar)*p < 0x20)
          out += ' ';
        else
          out += *p;
    }
  }
  return out + "\"";
}

static std::string
json_number (double v)
{
  if (!std::isfinite (v))
    return "null";
  gchar buf[G_ASCII_DTOSTR_BUF_SIZE];
  return g_ascii_formatd (buf, sizeof (buf), "%.6g", v);
}

struct Options {
  gchar * format = g_strdup ("RGBA");
  gint width = 1920, height = 1080;
  gchar * source = g_strdup ("pinned");
  gchar * pipeline = NULL;
  gdouble seconds = 2.0, warmup = 0.5;
  gint warm_frames = 30, pool_buffers = 8;
  gdouble timeout = 0;
  gchar * expect_plugin = NULL;
  gchar * cuda_sync = NULL;
  gchar ** tags = NULL;
  gboolean wait_gpu = FALSE;
  gboolean own_sink = FALSE;
  gboolean stop_on_usr1 = FALSE;
};

/* How a host wait (cudaEventSynchronize) waits. CUDA's default spins while
 * the process has fewer contexts than cores, so a waiting thread burns a
 * core; "blocking" sleeps until the GPU wakes it. Set for the primary
 * context, before anything uses it: the elements run on that context. */
static bool
apply_cuda_sync (const gchar * mode, std::string * why)
{
  unsigned flags;
  if (!mode || g_strcmp0 (mode, "auto") == 0)
    return true;
  else if (g_strcmp0 (mode, "spin") == 0)
    flags = cudaDeviceScheduleSpin;
  else if (g_strcmp0 (mode, "yield") == 0)
    flags = cudaDeviceScheduleYield;
  else if (g_strcmp0 (mode, "blocking") == 0)
    flags = cudaDeviceScheduleBlockingSync;
  else {
    *why = std::string ("--cuda-sync must be auto, spin, yield or blocking, not ") + mode;
    return false;
  }
  cudaError_t err = cudaSetDeviceFlags (flags);
  if (err != cudaSuccess) {
    *why = std::string ("cudaSetDeviceFlags: ") + cudaGetErrorString (err);
    (void)cudaGetLastError ();
    return false;
  }
  return true;
}

/* The RESULT line: options and tags first, then the figures. */
static void
print_result (const Options & o, const gchar * status, const gchar * reason,
    const std::string & figures)
{
  std::string j = "{";
  if (o.tags) {
    for (gchar ** t = o.tags; *t; t++) {
      gchar ** kv = g_strsplit (*t, "=", 2);
      if (kv[0] && kv[1])
        j += json_string (kv[0]) + ":" + json_string (kv[1]) + ",";
      g_strfreev (kv);
    }
  }
  j += "\"status\":" + json_string (status);
  if (reason)
    j += ",\"reason\":" + json_string (reason);
  j += ",\"format\":" + json_string (o.format) +
       ",\"width\":" + std::to_string (o.width) +
       ",\"height\":" + std::to_string (o.height) +
       ",\"source\":" + json_string (o.source) +
       ",\"pipeline\":" + json_string (o.pipeline);
  j += figures + "}";
  g_print ("RESULT %s\n", j.c_str ());
  /* Scripts read this line from a file: out now, before teardown. */
  fflush (stdout);
}

static std::string
report (const Options & o, Measure & m, GcsBenchSrc * src)
{
  double secs = (m.end_us - m.start_us) / 1e6;
  double frames = (double)(m.end_frame - m.start_frame);
  double fps = frames / secs;
  gsize in_bytes = src ? src->info.size : 0;
  double gbps = (double)(in_bytes + m.out_bytes) * fps / 1e9;
  double cpu_us = (m.end.cpu_us - m.start.cpu_us) / frames;
  bool ours = !m.counted.empty ();
  double waits = (m.end.waits_total - m.start.waits_total) / frames;
  double pool = (m.end.pool_waits - m.start.pool_waits) / frames;

  std::string detail = "{";
  std::string human;
  double accounted = pool;
  for (gsize i = 0; i < m.counted.size (); i++) {
    double w = (m.end.element_waits[i] - m.start.element_waits[i]) / frames;
    accounted += w;
    gchar * name = gst_element_get_name (m.counted[i]);
    detail += json_string (name) + ":" + json_number (w) + ",";
    human += std::string (" ") + name + "=" + std::to_string (w);
    g_free (name);
  }
  detail += "\"source-pool\":" + json_number (pool) +
            ",\"other\":" + json_number (waits - accounted) + "}";

  g_printerr ("%s %dx%d %s: %.1f frames/s, %.2f GB/s, %.1f us CPU/frame, "
              "host waits/frame %s (%s source-pool=%.3f), %.0f frames in %.2f s, "
              "source memory %s\n",
      o.format, o.width, o.height, o.source, fps, gbps, cpu_us,
      ours ? std::to_string (waits).c_str () : "n/a", human.c_str (), pool, frames, secs,
      src && src->memory_kind ? src->memory_kind : "?");

  std::string f;
  f += ",\"fps\":" + json_number (fps) + ",\"gbps\":" + json_number (gbps);
  f += ",\"cpu_us\":" + json_number (cpu_us);
  f += ",\"waits\":" + (ours ? json_number (waits) : std::string ("null"));
  f += ",\"waits_detail\":" + (ours ? detail : std::string ("null"));
  f += ",\"frames\":" + std::to_string (m.end_frame - m.start_frame) +
       ",\"seconds\":" + json_number (secs);
  f += ",\"in_bytes\":" + std::to_string (in_bytes) +
       ",\"out_bytes\":" + std::to_string (m.out_bytes);
  f += ",\"src_mem\":" + json_string (src ? src->memory_kind : "pipeline");
  f += ",\"src_fills\":" + std::to_string (src ? src->fills_total : 0);
  f += ",\"gpu_done\":" + std::string (m.wait_gpu ? "true" : "false") +
       ",\"bench_waits\":" + std::to_string (gst_cs_wait_counter_get (&m.bench_waits));
  /* CPU us a frame by thread name, in the window (a thread that started in
   * it counts from 0). */
  std::map<std::string, double> by_name;
  for (const auto & [tid, t] : m.end.thread_ns) {
    auto was = m.start.thread_ns.find (tid);
    const guint64 before = was != m.start.thread_ns.end () ? was->second.second : 0;
    by_name[t.first] += (double)(t.second - MIN (t.second, before)) / 1000.0 / frames;
  }
  std::string threads = "{";
  for (const auto & [name, us] : by_name)
    if (us >= 0.05)
      threads += (threads.size () > 1 ? "," : "") + json_string (name.c_str ()) + ":" +
                 json_number (us);
  f += ",\"thread_cpu_us\":" + threads + "}";
  if (!m.latency_us.empty ()) {
    std::vector<double> & l = m.latency_us;
    std::sort (l.begin (), l.end ());
    auto at = [&] (double q) {
      return l[std::min (l.size () - 1, (size_t)(q * l.size ()))];
    };
    f += ",\"lat_p50_us\":" + json_number (at (0.5)) +
         ",\"lat_p99_us\":" + json_number (at (0.99)) +
         ",\"lat_n\":" + std::to_string (l.size ());
  }
  return f;
}

/* ---- setup ---- */

/* Elements named cuda* must come from the plugin we mean to measure. */
static bool
check_origin (GstElement * pipeline, const gchar * expected, std::string * why)
{
  bool ok = true;
  GstIterator * it = gst_bin_iterate_recurse (GST_BIN (pipeline));
  GValue v = G_VALUE_INIT;
  while (gst_iterator_next (it, &v) == GST_ITERATOR_OK) {
    GstElement * e = GST_ELEMENT (g_value_get_object (&v));
    GstElementFactory * f = gst_element_get_factory (e);
    const gchar * fname = f ? gst_plugin_feature_get_name (GST_PLUGIN_FEATURE (f)) : "";
    const gchar * plugin =
        f ? gst_plugin_feature_get_plugin_name (GST_PLUGIN_FEATURE (f)) : NULL;
    if (g_str_has_prefix (fname, "cuda") && g_strcmp0 (plugin, expected) != 0) {
      *why = std::string (fname) + " comes from plugin " + (plugin ? plugin : "?") +
             ", not " + expected + " (two plugins with the same element names loaded?)";
      ok = false;
    }
    g_value_reset (&v);
  }
  g_value_unset (&v);
  gst_iterator_free (it);
  return ok;
}

/* "factory=plugin, ..." of the pipeline's elements, upstream first. */
static std::string
element_origins (GstElement * pipeline)
{
  std::vector<std::string> names;
  GstIterator * it = gst_bin_iterate_sorted (GST_BIN (pipeline));
  GValue v = G_VALUE_INIT;
  while (gst_iterator_next (it, &v) == GST_ITERATOR_OK) {
    GstElementFactory * f =
        gst_element_get_factory (GST_ELEMENT (g_value_get_object (&v)));
    if (f) {
      const gchar * plugin = gst_plugin_feature_get_plugin_name (GST_PLUGIN_FEATURE (f));
      names.insert (names.begin (),
          std::string (gst_plugin_feature_get_name (GST_PLUGIN_FEATURE (f))) + "=" +
              (plugin ? plugin : "(application)"));
    }
    g_value_reset (&v);
  }
  g_value_unset (&v);
  gst_iterator_free (it);
  std::string s;
  for (auto & n : names)
    s += (s.empty () ? "" : ", ") + n;
  return s;
}

static void
collect_counted (GstElement * pipeline, std::vector<GstElement *> * out)
{
  GstIterator * it = gst_bin_iterate_sorted (GST_BIN (pipeline));
  GValue v = G_VALUE_INIT;
  while (gst_iterator_next (it, &v) == GST_ITERATOR_OK) {
    GstElement * e = GST_ELEMENT (g_value_get_object (&v));
    GParamSpec * p = g_object_class_find_property (G_OBJECT_GET_CLASS (e), "host-waits");
    if (p && p->value_type == G_TYPE_UINT64)
      out->insert (out->begin (), GST_ELEMENT (gst_object_ref (e))); /* upstream first */
    g_value_reset (&v);
  }
  g_value_unset (&v);
  gst_iterator_free (it);
}

/* Runs the pipeline until the window closed and EOS came back, or an error,
 * or the timeout. Returns "" on success, else why not. */
static std::string
run (GstElement * pipeline, Measure & m, double timeout_s)
{
  std::string err;
  GstBus * bus = gst_element_get_bus (pipeline);
  if (gst_element_set_state (pipeline, GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE) {
    /* The element that failed said why on the bus. */
    err = "the pipeline did not start";
    if (GstMessage * msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR)) {
      GError * e = NULL;
      gst_message_parse_error (msg, &e, NULL);
      err += std::string (": ") + GST_OBJECT_NAME (GST_MESSAGE_SRC (msg)) + ": " +
             e->message;
      g_clear_error (&e);
      gst_message_unref (msg);
    }
  }
  gint64 deadline = g_get_monotonic_time () + (gint64)(timeout_s * 1e6);
  while (err.empty ()) {
    gint64 left = deadline - g_get_monotonic_time ();
    if (left <= 0) {
      err = m.started ? "timeout before the timed window closed"
                      : "timeout before the warm-up ended (" + std::to_string (m.frames) +
                            " frames)";
      break;
    }
    GstMessage * msg = gst_bus_timed_pop_filtered (bus, MIN (left, 200000) * GST_USECOND,
        (GstMessageType)(GST_MESSAGE_EOS | GST_MESSAGE_ERROR));
    if (!msg) {
      /* A source of the pipeline's own never ends: stop once timed. */
      if (!m.src && m.done.load ())
        break;
      continue;
    }
    if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
      GError * e = NULL;
      gchar * dbg = NULL;
      gst_message_parse_error (msg, &e, &dbg);
      err = std::string (GST_OBJECT_NAME (GST_MESSAGE_SRC (msg))) + ": " + e->message;
      g_printerr ("error details: %s\n", dbg ? dbg : "");
      g_clear_error (&e);
      g_free (dbg);
    } else if (!m.done.load ()) {
      err = "end of stream before the timed window closed";
    }
    gst_message_unref (msg);
    if (m.done.load () || !err.empty ())
      break;
  }
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (bus);
  return err;
}

int
main (int argc, char ** argv)
{
  Options o;
  GOptionEntry entries[] = {
    { "pipeline", 'p', 0, G_OPTION_ARG_STRING, &o.pipeline,
        "Elements between the source and fakesink (gst-launch syntax)", "DESC" },
    { "format", 'f', 0, G_OPTION_ARG_STRING, &o.format, "Video format (RGBA)", "FMT" },
    { "width", 0, 0, G_OPTION_ARG_INT, &o.width, "Frame width (1920)", "W" },
    { "height", 0, 0, G_OPTION_ARG_INT, &o.height, "Frame height (1080)", "H" },
    { "source", 's', 0, G_OPTION_ARG_STRING, &o.source,
        "pinned: the pool offered downstream; recurring: a few malloc'd frames again and "
        "again; oneshot: a new memory every frame",
        "KIND" },
    { "seconds", 't', 0, G_OPTION_ARG_DOUBLE, &o.seconds, "Timed window (2.0 s)", "S" },
    { "warmup", 0, 0, G_OPTION_ARG_DOUBLE, &o.warmup, "Untimed start (0.5 s)", "S" },
    { "warmup-frames", 0, 0, G_OPTION_ARG_INT, &o.warm_frames,
        "Untimed frames at least (30)", "N" },
    { "pool-buffers", 0, 0, G_OPTION_ARG_INT, &o.pool_buffers,
        "Frames the pinned source keeps in its pool at least (8)", "N" },
    { "timeout", 0, 0, G_OPTION_ARG_DOUBLE, &o.timeout,
        "Give up after this long (default 4 x (warm-up + window) + 30 s)", "S" },
    { "expect-plugin", 0, 0, G_OPTION_ARG_STRING, &o.expect_plugin,
        "Fail unless the cuda* elements come from this plugin (cudastreams, nvcodec)",
        "NAME" },
    { "cuda-sync", 0, 0, G_OPTION_ARG_STRING, &o.cuda_sync,
        "How host waits wait: auto (CUDA's default), spin, yield or blocking", "MODE" },
    { "wait-gpu", 0, 0, G_OPTION_ARG_NONE, &o.wait_gpu,
        "Open and close the window once the GPU has finished the sink's buffer (its "
        "event): for sinks of device memory",
        NULL },
    { "own-sink", 0, 0, G_OPTION_ARG_NONE, &o.own_sink,
        "The pipeline ends in its own sink, named gcs_bench_sink (no fakesink added)",
        NULL },
    { "stop-on-usr1", 0, 0, G_OPTION_ARG_NONE, &o.stop_on_usr1,
        "Close the window at the first buffer after SIGUSR1", NULL },
    { "tag", 0, 0, G_OPTION_ARG_STRING_ARRAY, &o.tags,
        "KEY=VALUE copied into the RESULT line (repeatable)", "KV" },
    { NULL, 0, 0, G_OPTION_ARG_NONE, NULL, NULL, NULL }
  };
  GOptionContext * ctx =
      g_option_context_new ("- steady-state throughput of a pipeline case");
  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_add_group (ctx, gst_init_get_option_group ());
  GError * error = NULL;
  if (!g_option_context_parse (ctx, &argc, &argv, &error) || !o.pipeline) {
    g_printerr ("%s\n", error ? error->message : "--pipeline is required");
    return 2;
  }
  g_option_context_free (ctx);
  gboolean pinned = g_strcmp0 (o.source, "pinned") == 0;
  gboolean oneshot = g_strcmp0 (o.source, "oneshot") == 0;
  const gboolean own_source =
      g_strcmp0 (o.source, "h264") == 0 || g_strcmp0 (o.source, "device") == 0;
  if (!pinned && !oneshot && !own_source && g_strcmp0 (o.source, "recurring") != 0 &&
      g_strcmp0 (o.source, "pageable") != 0) {
    g_printerr (
        "--source must be pinned, recurring, oneshot, pageable, h264 or device\n");
    return 2;
  }
  std::string why;
  if (!apply_cuda_sync (o.cuda_sync, &why)) {
    g_printerr ("%s\n", why.c_str ());
    print_result (o, "error", why.c_str (), "");
    return 1;
  }
  gst_element_register (NULL, "gcsbenchsrc", GST_RANK_NONE, GCS_TYPE_BENCH_SRC);
  if (o.stop_on_usr1)
    signal (SIGUSR1, on_usr1);

  gchar * desc = g_strdup_printf ("%s%s%s",
      own_source ? "" : "gcsbenchsrc name=gcs_bench_src ! ", o.pipeline,
      o.own_sink ? ""
                 : " ! fakesink name=gcs_bench_sink sync=false enable-last-sample=false");
  GstElement * pipeline = gst_parse_launch (desc, &error);
  g_free (desc);
  if (error) {
    /* An element that is not built yet (cudacrop) is "n/a", not a failure. */
    bool missing = error->domain == GST_PARSE_ERROR &&
                   error->code == GST_PARSE_ERROR_NO_SUCH_ELEMENT;
    g_printerr ("%s\n", error->message);
    print_result (o, missing ? "missing" : "error", error->message, "");
    return missing ? 3 : 1;
  }
  if (o.expect_plugin && !check_origin (pipeline, o.expect_plugin, &why)) {
    g_printerr ("%s\n", why.c_str ());
    print_result (o, "error", why.c_str (), "");
    return 1;
  }

  GstElement * srcel = gst_bin_get_by_name (GST_BIN (pipeline), "gcs_bench_src");
  GcsBenchSrc * src = srcel ? GCS_BENCH_SRC (srcel) : nullptr;
  if (src) {
    src->caps = gst_caps_new_simple ("video/x-raw", "format", G_TYPE_STRING, o.format,
        "width", G_TYPE_INT, o.width, "height", G_TYPE_INT, o.height, "framerate",
        GST_TYPE_FRACTION, 30, 1, NULL);
    src->pinned = pinned;
    src->oneshot = oneshot;
    src->pool_buffers = (guint)MAX (o.pool_buffers, 0);
  }
  const std::string origins = element_origins (pipeline);

  Measure m;
  m.warm_us = (gint64)(o.warmup * 1e6);
  m.warm_frames = (guint64)MAX (o.warm_frames, 1);
  m.window_us = (gint64)(o.seconds * 1e6);
  m.src = src;
  m.wait_gpu = o.wait_gpu;
  collect_counted (pipeline, &m.counted);
  GstElement * sink = gst_bin_get_by_name (GST_BIN (pipeline), "gcs_bench_sink");
  if (!sink) {
    why = "--own-sink: the pipeline has no element named gcs_bench_sink";
    g_printerr ("%s\n", why.c_str ());
    print_result (o, "error", why.c_str (), "");
    return 1;
  }
  GstPad * pad = gst_element_get_static_pad (sink, "sink");
  gst_pad_add_probe (pad,
      (GstPadProbeType)(GST_PAD_PROBE_TYPE_BUFFER | GST_PAD_PROBE_TYPE_BUFFER_LIST),
      on_sink_buffer, &m, NULL);

  double timeout = o.timeout > 0 ? o.timeout : 4 * (o.warmup + o.seconds) + 30;
  std::string err = run (pipeline, m, timeout);
  /* Whatever the window did, the sampler stops before teardown. */
  if (sampler_stop)
    sampler_stop ();
  if (err.empty ())
    err = m.gpu_error;
  int rc = 0;
  if (err.empty ()) {
    print_result (o, "ok", NULL,
        report (o, m, src) + ",\"elements\":" + json_string (origins.c_str ()));
  } else {
    g_printerr ("%s\n", err.c_str ());
    print_result (o, "error", err.c_str (), "");
    rc = 1;
  }

  for (GstElement * e : m.counted)
    gst_object_unref (e);
  gst_object_unref (pad);
  gst_object_unref (sink);
  if (srcel)
    gst_object_unref (srcel);
  gst_object_unref (pipeline);
  return rc;
}

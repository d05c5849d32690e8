/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The GPU's own account of a run, beside the cudastreams tracer's: loaded by
 * the CUDA driver into the traced process (CUDA_INJECTION64_PATH names this
 * library), it asks CUPTI for the start and end of every kernel and copy as
 * the GPU ran them, and at exit writes to GCS_CUPTI_OUT one JSON object:
 * per kernel name the count and the median duration and time from one
 * start to the next, how long any kernel ran at all, and per copy
 * direction the count, the median duration and how long the copies ran
 * within their span. Copies of one frame (one per plane, back to back on
 * one stream) count as one. Same process, same run, same load as the
 * tracer's figures, and no event of ours in between: what
 * scripts/gpu-tracer.sh compares them with (pipelines/tracer_truth.py).
 * With GCS_CUPTI_TIMELINE it also writes every record as it comes, a line
 * each: copies with their hardware channel, kernels, and the runtime calls
 * with their thread (pipelines/timeline_report.py reads them).
 *   CUDA_INJECTION64_PATH=.../libgcs-cupti-truth.so GCS_CUPTI_OUT=t.json cmd */
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include <cupti.h>

namespace {

struct Span {
  unsigned long long start, end;
};

std::mutex lock;
// GCS_CUPTI_TIMELINE names a file: every copy, kernel and runtime call is
// written there as it is read, a line each (pipelines/timeline_report.py).
FILE * timeline = nullptr;
std::map<std::string, std::vector<double>> kernels;            // name -> µs
std::map<std::string, std::vector<unsigned long long>> starts; // name -> ns
std::vector<Span> kernel_spans; // all of them, for the busy time
// [direction][stream]: copies in the order the GPU ran them
std::map<unsigned, std::vector<Span>> copies[2];

constexpr size_t kBufferBytes = 8u << 20;
// Copies of one frame follow each other closer than this (ns).
constexpr unsigned long long kSameFrameGap = 3000;

void CUPTIAPI
buffer_requested (uint8_t ** buffer, size_t * size, size_t * max_records)
{
  *buffer = static_cast<uint8_t *> (std::aligned_alloc (8, kBufferBytes));
  *size = *buffer ? kBufferBytes : 0;
  *max_records = 0;
}

void CUPTIAPI
buffer_completed (CUcontext, uint32_t, uint8_t * buffer, size_t, size_t valid)
{
  std::lock_guard<std::mutex> hold (lock);
  CUpti_Activity * record = nullptr;
  while (cuptiActivityGetNextRecord (buffer, valid, &record) == CUPTI_SUCCESS) {
    if (record->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) {
      auto * k = reinterpret_cast<CUpti_ActivityKernel10 *> (record);
      kernels[k->name ? k->name : "?"].push_back ((k->end - k->start) / 1000.0);
      starts[k->name ? k->name : "?"].push_back (k->start);
      kernel_spans.push_back (Span{ k->start, k->end });
      if (timeline)
        std::fprintf (timeline, "K %u %llu %llu %u %s\n", k->streamId,
            (unsigned long long)k->start, (unsigned long long)k->end, k->correlationId,
            k->name ? k->name : "?");
    } else if (record->kind == CUPTI_ACTIVITY_KIND_MEMCPY) {
      auto * m = reinterpret_cast<CUpti_ActivityMemcpy6 *> (record);
      if (m->copyKind == CUPTI_ACTIVITY_MEMCPY_KIND_HTOD ||
          m->copyKind == CUPTI_ACTIVITY_MEMCPY_KIND_DTOH)
        copies[m->copyKind == CUPTI_ACTIVITY_MEMCPY_KIND_DTOH][m->streamId].push_back (
            Span{ m->start, m->end });
      if (timeline)
        std::fprintf (timeline, "C %s %u %u %llu %llu %llu %u\n",
            m->copyKind == CUPTI_ACTIVITY_MEMCPY_KIND_DTOH   ? "d2h"
            : m->copyKind == CUPTI_ACTIVITY_MEMCPY_KIND_HTOD ? "h2d"
                                                             : "other",
            m->streamId, m->channelID, (unsigned long long)m->start,
            (unsigned long long)m->end, (unsigned long long)m->bytes, m->correlationId);
    } else if (record->kind == CUPTI_ACTIVITY_KIND_RUNTIME && timeline) {
      auto * a = reinterpret_cast<CUpti_ActivityAPI *> (record);
      const char * name = nullptr;
      if (cuptiGetCallbackName (CUPTI_CB_DOMAIN_RUNTIME_API, a->cbid, &name) !=
          CUPTI_SUCCESS)
        name = "?";
      std::fprintf (timeline, "A %u %llu %llu %u %s\n", a->threadId,
          (unsigned long long)a->start, (unsigned long long)a->end, a->correlationId,
          name);
    }
  }
  std::free (buffer);
}

double
median (std::vector<double> v)
{
  if (v.empty ())
    return -1;
  std::sort (v.begin (), v.end ());
  return v[(v.size () - 1) / 2];
}

/* One duration per frame: a stream's copies merged where they follow each
 * other within kSameFrameGap. */
std::vector<double>
frames_of (std::map<unsigned, std::vector<Span>> & streams)
{
  std::vector<double> out;
  for (auto & [stream, spans] : streams) {
    std::sort (spans.begin (), spans.end (),
        [] (const Span & a, const Span & b) { return a.start < b.start; });
    for (size_t i = 0; i < spans.size ();) {
      Span f = spans[i++];
      while (i < spans.size () && spans[i].start < f.end + kSameFrameGap)
        f.end = std::max (f.end, spans[i++].end);
      out.push_back ((f.end - f.start) / 1000.0);
    }
  }
  return out;
}

/* How long any of `spans` ran: overlapping ones count once. Sorts them. */
unsigned long long
union_ns (std::vector<Span> & spans, unsigned long long * last_end)
{
  std::sort (spans.begin (), spans.end (),
      [] (const Span & a, const Span & b) { return a.start < b.start; });
  unsigned long long busy = 0, end = 0;
  for (const Span & c : spans) {
    if (c.end <= end)
      continue;
    busy += c.end - std::max (c.start, end);
    end = c.end;
  }
  *last_end = end;
  return busy;
}

/* How long the copies of one direction ran at all, and the span from the
 * first start to the last end: their ratio says whether the copy engine
 * waited for the host. */
void
copies_busy (
    std::map<unsigned, std::vector<Span>> & streams, double * busy_us, double * span_us)
{
  std::vector<Span> all;
  for (auto & [stream, spans] : streams)
    all.insert (all.end (), spans.begin (), spans.end ());
  unsigned long long end = 0;
  *busy_us = union_ns (all, &end) / 1000.0;
  *span_us = all.empty () ? 0 : (end - all.front ().start) / 1000.0;
}

// The median time from one launch of a kernel to its next, as the GPU
// started them: beside its duration, whether the GPU waited for the host
// between frames (a period longer than the kernel) or not.
double
period_us (std::vector<unsigned long long> v)
{
  std::sort (v.begin (), v.end ());
  std::vector<double> d;
  for (size_t i = 1; i < v.size (); i++)
    d.push_back ((v[i] - v[i - 1]) / 1000.0);
  return median (d);
}

/* How long at least one kernel ran: kernels that overlap (other streams)
 * count once. */
double
kernels_busy_us ()
{
  unsigned long long end = 0;
  return union_ns (kernel_spans, &end) / 1000.0;
}

void
report ()
{
  cuptiActivityFlushAll (1);
  const char * path = std::getenv ("GCS_CUPTI_OUT");
  FILE * f = path ? std::fopen (path, "w") : stderr;
  if (!f)
    return;
  std::lock_guard<std::mutex> hold (lock);
  std::fprintf (f, "{\"kernels\":{");
  bool first = true;
  for (const auto & [name, us] : kernels) {
    std::fprintf (f, "%s\"%s\":{\"n\":%zu,\"p50_us\":%.3f,\"period_p50_us\":%.3f}",
        first ? "" : ",", name.c_str (), us.size (), median (us),
        period_us (starts[name]));
    first = false;
  }
  const char * names[2] = { "h2d", "d2h" };
  std::fprintf (f, "},\"kernels_busy_us\":%.3f", kernels_busy_us ());
  for (int d = 0; d < 2; d++) {
    double busy = 0, span = 0;
    copies_busy (copies[d], &busy, &span);
    const std::vector<double> frames = frames_of (copies[d]);
    std::fprintf (f,
        ",\"%s\":{\"n\":%zu,\"p50_us\":%.3f,\"busy_us\":%.1f,\"span_us\":%.1f}", names[d],
        frames.size (), median (frames), busy, span);
  }
  std::fprintf (f, "}\n");
  if (f != stderr)
    std::fclose (f);
  if (timeline)
    std::fclose (timeline);
  timeline = nullptr;
}

} // namespace

/* Called by the CUDA driver as it initialises, where CUDA_INJECTION64_PATH
 * names this library. */
extern "C" int
InitializeInjection (void)
{
  if (cuptiActivityEnable (CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) != CUPTI_SUCCESS ||
      cuptiActivityEnable (CUPTI_ACTIVITY_KIND_MEMCPY) != CUPTI_SUCCESS ||
      cuptiActivityRegisterCallbacks (buffer_requested, buffer_completed) !=
          CUPTI_SUCCESS) {
    std::fprintf (stderr, "gcs-cupti-truth: CUPTI refused the activity records\n");
    return 0;
  }
  /* The runtime's calls alone: the kernels' launches, which go through
   * the driver once a kernel is known in its context
   * (gpu/driver_launch.h), are not among them. */
  if (const char * path = std::getenv ("GCS_CUPTI_TIMELINE")) {
    timeline = std::fopen (path, "w");
    if (!timeline || cuptiActivityEnable (CUPTI_ACTIVITY_KIND_RUNTIME) != CUPTI_SUCCESS)
      std::fprintf (stderr, "gcs-cupti-truth: no timeline in %s\n", path);
  }
  std::atexit (report);
  return 1;
}

/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "tracer/gstcsgpuframes.hpp"

#include <nvtx3/nvToolsExt.h>

#include "gstcserror-private.h"
#include "gstcshostwait-private.h"
#include "tracer/gstcsstreamgate.hpp"
#include "tracer/gstcstracerecords.hpp"

GST_DEBUG_CATEGORY_EXTERN (gst_cs_tracer_debug);
#define GST_CAT_DEFAULT gst_cs_tracer_debug

namespace gst_cs {

/* Frames read back later than this many behind are given up (with their
 * events) rather than let a stalled stream take memory without bound. */
static constexpr size_t kMaxPending = 4096;

struct GpuFrames::Frame {
  FrameSpanData span; // from close on, without the element's pointers
  std::string element;
  guint64 key = 0; // the element's (TraceStats::key)
  // Before the element's waits, at its work's start and end.
  cudaEvent_t begin = nullptr, start = nullptr, end = nullptr;
  bool started = false, ended = false;
  // Holds the stream from before start until end is enqueued; held () says
  // whether it did (else the span includes the host's launch).
  StreamGate gate;
  // Those that wrote its inputs' events, until read back.
  std::vector<std::shared_ptr<Frame>> producers;
  nvtxRangeId_t range = 0;
  TimingEventPool * pool = nullptr;
  ~Frame ()
  {
    pool->give (span.device, begin);
    pool->give (span.device, start);
    pool->give (span.device, end);
  }
};

namespace {
nvtxDomainHandle_t
nvtx_domain ()
{
  static nvtxDomainHandle_t domain = nvtxDomainCreateA ("cudastreams");
  return domain;
}

std::string
stream_name (int device, cudaStream_t stream)
{
  gchar * s = g_strdup_printf ("%d:%p", device, (void *)stream);
  std::string out = s;
  g_free (s);
  return out;
}

bool
done (cudaEvent_t e)
{
  const cudaError_t state = cudaEventQuery (e);
  if (state == cudaErrorNotReady)
    return false;
  return GST_CS_CHECK (state, NULL);
}

bool
elapsed_us (cudaEvent_t from, cudaEvent_t to, double * us)
{
  float ms = 0;
  if (!GST_CS_CHECK (cudaEventElapsedTime (&ms, from, to), NULL))
    return false;
  *us = 1000.0 * ms;
  return true;
}
} // namespace

GpuFrames::~GpuFrames ()
{
  pending_.clear ();
  writers_.clear ();
  events_.clear ();
}

bool
GpuFrames::open (FrameSpanData & span)
{
  auto f = std::make_shared<Frame> ();
  f->pool = &events_;
  f->span = span;
  GError * err = NULL;
  f->begin = events_.take (span.device, &err);
  f->start = f->begin ? events_.take (span.device, &err) : nullptr;
  f->end = f->start ? events_.take (span.device, &err) : nullptr;
  {
    std::lock_guard<std::mutex> hold (lock_);
    if ((size_t)span.device >= anchors_.size ())
      anchors_.resize (span.device + 1);
    if (f->end && !anchors_[span.device]) {
      auto a = std::make_unique<Anchor> ();
      a->us = gst_util_get_timestamp () / 1000.0;
      a->event = events_.take (span.device, &err);
      if (a->event && GST_CS_CHECK (cudaEventRecord (a->event, span.stream), &err))
        anchors_[span.device] = std::move (a);
    }
  }
  /* begin, then the element's waits for its input (and for its output's
   * readers), then start (work): start - begin is the frame's wait. */
  if (!f->end || !GST_CS_CHECK (cudaEventRecord (f->begin, span.stream), &err)) {
    GST_WARNING_OBJECT (span.element, "frame not traced: %s", err ? err->message : "?");
    g_clear_error (&err);
    return false;
  }
  if (nvtx_) {
    gchar * name = g_strdup_printf ("%s pts %" GST_TIME_FORMAT,
        GST_OBJECT_NAME (span.element), GST_TIME_ARGS (span.pts));
    nvtxEventAttributes_t attr = {};
    attr.version = NVTX_VERSION;
    attr.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    attr.messageType = NVTX_MESSAGE_TYPE_ASCII;
    attr.message.ascii = name;
    f->range = nvtxDomainRangeStartEx (nvtx_domain (), &attr);
    g_free (name);
  }
  f->element = GST_OBJECT_NAME (span.element);
  std::lock_guard<std::mutex> hold (lock_);
  for (const FrameInput & in : span.inputs) {
    auto it = writers_.find (in.event);
    if (it != writers_.end ())
      f->producers.push_back (it->second);
  }
  /* Handed over through the span until close. */
  span.observer_data = new std::shared_ptr<Frame> (std::move (f));
  return true;
}

/* The gate closes before start and opens after end: the GPU runs start,
 * the work and end as one, however long the host takes to enqueue them. */
void
GpuFrames::work (FrameSpanData & span, bool begins)
{
  Frame & f = **static_cast<std::shared_ptr<Frame> *> (span.observer_data);
  if (begins && gate_)
    f.gate = StreamGate::close (span.device, span.stream);
  GError * err = NULL;
  if (GST_CS_CHECK (cudaEventRecord (begins ? f.start : f.end, span.stream), &err)) {
    (begins ? f.started : f.ended) = true;
  } else {
    GST_WARNING_OBJECT (span.element, "frame not traced: %s", err->message);
    g_clear_error (&err);
  }
  if (!begins || !f.started)
    f.gate.open ();
}

void
GpuFrames::close (FrameSpanData & span)
{
  auto * held = static_cast<std::shared_ptr<Frame> *> (span.observer_data);
  std::shared_ptr<Frame> f = std::move (*held);
  delete held;
  f->gate.open (); /* where the element's work never ended */
  if (f->range)
    nvtxDomainRangeEnd (nvtx_domain (), f->range);
  f->span = span;
  /* Read back later, when the element may be gone. */
  f->span.element = nullptr;
  f->span.waits = nullptr;
  /* A frame whose work did not run (an error before it) has no GPU time. */
  if (!f->started || !f->ended)
    return;
  f->key = stats_.key (span.element);
  std::lock_guard<std::mutex> hold (lock_);
  auto last = waits_at_end_.find (f->key);
  if (last != waits_at_end_.end ())
    f->span.host_waits_begin = last->second;
  waits_at_end_[f->key] = span.host_waits_end;
  if (span.output_event)
    writers_[span.output_event] = f;
  Queue & queue = pending_[{ span.device, span.stream }];
  queue.frames.push_back (std::move (f));
  resolve_ready (queue);
  while (queue.frames.size () > kMaxPending) {
    if (!dropped_++)
      GST_WARNING (
          "more than %zu frames not read back: leaving out the oldest", kMaxPending);
    queue.frames.pop_front ();
  }
}

bool
GpuFrames::position (int device, cudaEvent_t e, double * us)
{
  Anchor * a = (size_t)device < anchors_.size () ? anchors_[device].get () : nullptr;
  double d = 0;
  if (!a || !elapsed_us (a->event, e, &d))
    return false;
  *us = a->us + d;
  return true;
}

/* Reads back `f` where its events (and its producers' ends) completed,
 * or waits for them (drain). Called with the lock held. */
bool
GpuFrames::resolve (Frame & f, bool wait)
{
  const int device = f.span.device;
  /* Its own events complete in order on its stream, with the end last;
   * a producer's end (another stream) trails the sync event this frame
   * waited on, so it has completed too where the end has, but for a
   * record or two: asked only where this frame's end is done. A query
   * costs about a microsecond of CPU on the H200 machines (2026-11-27).
   * Producers on another device (another clock: no wait can be read) are
   * left out. */
  auto completed = [wait] (cudaEvent_t e) {
    return wait ? gst_cs_host_wait_event (e, NULL, NULL) : done (e);
  };
  if (!completed (f.end))
    return false;
  for (const std::shared_ptr<Frame> & q : f.producers)
    if (q->span.device == device && !completed (q->end))
      return false;
  double begin = 0, start = 0, end = 0, producer_end = 0;
  if (!position (device, f.begin, &begin) || !position (device, f.end, &end) ||
      !position (device, f.start ? f.start : f.begin, &start))
    return true; /* unreadable: dropped */
  /* The stream waited for every input: its wait ended with the input that
   * completed last (of cudabatch's frames), whose producer the flow comes
   * from. */
  const Frame * p = nullptr;
  for (const std::shared_ptr<Frame> & q : f.producers) {
    double e = 0;
    if (q->span.device == device && position (device, q->end, &e) &&
        (!p || e > producer_end)) {
      p = q.get ();
      producer_end = e;
    }
  }
  /* The producer's end event follows its sync event on its stream: the
   * wait ended with the sync event, which may be a little earlier. */
  producer_end = MIN (producer_end, start);
  const double gpu = end - start, wait_us = start - begin;
  const double cpu = (f.span.cpu_end - f.span.cpu_begin) / 1000.0;
  const guint64 waits = f.span.host_waits_end - f.span.host_waits_begin;
  const std::string stream = stream_name (device, f.span.stream);
  stats_.add_gpu_frame (
      f.key, f.element, stream, gpu, wait_us, cpu, waits, f.gate.held ());
  log_frame_record (f.element.c_str (), gst_util_get_timestamp (), f.span.pts,
      stream.c_str (), (guint64)(gpu * 1000), (guint64)(wait_us * 1000),
      (guint64)(cpu * 1000), waits);
  json_.gpu_span (f.element.c_str (), device, f.span.stream, begin, start, end,
      f.span.pts, p ? p->span.stream : nullptr, producer_end);
  /* Re-anchor after a second: this frame's start is the new anchor. */
  Anchor & a = *anchors_[device];
  if (begin - a.us > 1e6) {
    events_.give (device, a.event);
    a.event = f.begin;
    a.us = begin;
    f.begin = nullptr;
  }
  return true;
}

/* Reads back the frames of one stream's queue that completed, oldest
 * first, up to the first that has not: one or two queries per frame read,
 * however many frames the GPU runs behind. A front still running is asked
 * again only after kAskEvery more frames have come: where the GPU runs
 * behind, asking at every frame cost a query per frame for nothing. */
void
GpuFrames::resolve_ready (Queue & queue)
{
  constexpr size_t kAskEvery = 8;
  if (queue.frames.size () < queue.ask_at)
    return;
  while (!queue.frames.empty ()) {
    if (!resolve (*queue.frames.front (), false)) {
      queue.ask_at = queue.frames.size () + kAskEvery;
      return;
    }
    queue.frames.front ()->producers.clear ();
    queue.frames.pop_front ();
  }
  queue.ask_at = 0;
}

void
GpuFrames::drain ()
{
  std::lock_guard<std::mutex> hold (lock_);
  for (auto & [stream, queue] : pending_)
    for (auto & f : queue.frames)
      resolve (*f, true);
  pending_.clear ();
  writers_.clear ();
  waits_at_end_.clear ();
}

} // namespace gst_cs

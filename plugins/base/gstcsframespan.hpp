/* SPDX-License-Identifier: LGPL-2.1-or-later */
// The hook that lets a tracer time one frame's GPU work in an element
// (internal). Elements open a FrameSpan where they enqueue a frame's work;
// while no tracer observes, that costs one branch at each end and no CUDA
// call; while one does, a frame it does not time costs a count. The tracer
// (plugins/tracer/) records the timing events.
#pragma once

#include <atomic>
#include <vector>

#include <gst/gst.h>
#include <cuda_runtime_api.h>

#include "gstcshostwait.h"

typedef struct _GstCsBaseTransform GstCsBaseTransform;

namespace gst_cs {

// One input of a frame: the event its work waits on.
struct FrameInput {
  cudaEvent_t event = nullptr;   // the event the input carried: its producer's
  cudaStream_t stream = nullptr; // ... recorded on this stream
  int device = -1;               // ... of this device
};

// One frame's pass through an element's per-frame path (cudabatch's: one
// batch).
struct FrameSpanData {
  GstElement * element = nullptr; // not reffed: valid while the span is open
  int device = -1;
  cudaStream_t stream = nullptr;
  GstClockTime pts = GST_CLOCK_TIME_NONE; // the input's; of several, the earliest
  std::vector<FrameInput> inputs;         // those that carry a sync event
  cudaEvent_t output_event =
      nullptr; // the event the output carries: consumers wait on it
  GstClockTime cpu_begin = 0, cpu_end = 0;          // gst_util_get_timestamp ()
  GstCsWaitCounter * waits = nullptr;               // the element's counter
  guint64 host_waits_begin = 0, host_waits_end = 0; // ... at open and close
  gpointer observer_data = nullptr;                 // the observer's, from open to close
};

// Implemented by the tracer. The calls run in the streaming thread, with the
// element's device current, and never block.
class FrameObserver {
public:
  // The frames it times: one in every () per element; the others never
  // reach it.
  guint every () const { return every_.load (std::memory_order_relaxed); }
  // Before the element enqueues anything for the frame: records a start
  // event on the stream. False: this frame is not traced.
  virtual bool open (FrameSpanData & span) = 0;
  // Right before (begins) and after the element's own work for the frame:
  // its waits for its inputs come before, its sync event after.
  virtual void work (FrameSpanData & span, bool begins) = 0;
  // After the frame's work and its event are enqueued.
  virtual void close (FrameSpanData & span) = 0;

  // The CPU side, for every frame. An element starts (READY to PAUSED,
  // before its streaming thread runs): the observer gives a handle for
  // cpu (), or nullptr to time nothing, and learns the pipeline around it.
  virtual gpointer started (GstElement * element) = 0;
  // An element stops (PAUSED to READY, its streaming thread stopped): the
  // last of a pipeline's stopping is where a run's summary is made.
  virtual void stopped (GstElement * element) = 0;
  // CPU time (gst_util_get_timestamp ()) of one pass through the element's
  // per-frame path, its pushes excluded; `pad` names the pass (a
  // transform's sink pad; cudabatch's src pad, as a batch takes a frame of
  // each sink pad).
  virtual void cpu (gpointer handle, GstElement * element, GstPad * pad,
      GstClockTime begin, GstClockTime end) = 0;

protected:
  ~FrameObserver () = default;
  std::atomic<guint> every_{ 1 };
};

// Set while a cudastreams tracer lives, nullptr otherwise.
extern std::atomic<FrameObserver *> frame_observer;

// The CPU side as an element calls it: at start (the handle for
// trace_cpu, nullptr where no tracer observes), at stop (forgets the
// handle), and after each pass of its per-frame path where it has one.
gpointer trace_started (GstElement * element);
void trace_stopped (GstElement * element, gpointer * handle);
void trace_cpu (gpointer handle, GstElement * element, GstPad * pad, GstClockTime begin,
    GstClockTime end);

// What a span reads of its element and frame, and only where a tracer
// observes (so where none does, it costs nothing): the element's device,
// stream, host-wait counter and frame count, and the frame's inputs.
// GstCsBaseTransform's subclasses give theirs through FrameSpan's
// constructor that takes the element; cudabatch gives its own.
class FrameSource {
public:
  virtual GstElement * element () = 0;
  virtual int device () = 0;
  virtual cudaStream_t stream () = 0;
  virtual GstCsWaitCounter * waits () = 0;
  // The frames counted before this one, counting this one: the observer
  // times one in every ().
  virtual guint64 count_frame () = 0;
  // The buffers whose events the frame's work waits on.
  virtual size_t n_inputs () = 0;
  virtual GstBuffer * input (size_t i) = 0;

protected:
  ~FrameSource () = default;
};

// Scope of one frame's work: construct it before the element's GPU waits
// and work for the frame are enqueued, on the thread whose device is the
// element's, and mark its own work with work_begins and work_ends; it
// closes when it goes out of scope. `output` is read then, so it may be a
// variable that is assigned meanwhile.
class FrameSpan {
public:
  FrameSpan (FrameSource & source, GstBuffer * const & output) : output_ (output)
  {
    FrameObserver * observer = frame_observer.load (std::memory_order_acquire);
    if (G_UNLIKELY (observer != nullptr))
      open (source, observer);
  }
  // A GstCsBaseTransform's frame: `input` (nullptr: none) into `output`.
  FrameSpan (GstCsBaseTransform * element, GstBuffer * input, GstBuffer * const & output)
      : output_ (output)
  {
    FrameObserver * observer = frame_observer.load (std::memory_order_acquire);
    if (G_UNLIKELY (observer != nullptr))
      open (element, input, observer);
  }
  ~FrameSpan ()
  {
    if (G_UNLIKELY (data_))
      close ();
  }
  // Around the element's own GPU work for the frame (a kernel, a copy), on
  // its stream: what the tracer times as the element's GPU time.
  void work_begins ()
  {
    if (G_UNLIKELY (data_))
      observer_->work (*data_, true);
  }
  void work_ends ()
  {
    if (G_UNLIKELY (data_))
      observer_->work (*data_, false);
  }
  FrameSpan (const FrameSpan &) = delete;
  FrameSpan & operator= (const FrameSpan &) = delete;

private:
  void open (FrameSource & source, FrameObserver * observer);
  void open (GstCsBaseTransform * element, GstBuffer * input, FrameObserver * observer);
  void close ();

  GstBuffer * const & output_;
  FrameObserver * observer_ = nullptr;
  FrameSpanData * data_ = nullptr;
};

} // namespace gst_cs

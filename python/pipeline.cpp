/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "pipeline.hpp"

#include <algorithm>
#include <chrono>
#include <set>
#include <thread>
#include <vector>

#include <gst/base/base.h>
#include <gst/video/video.h>
#include <gstcudastreams.h>

#include "batch.hpp"
#include "frame.hpp"
#include "push.hpp"
#include "stream_arg.hpp"

namespace py = pybind11;

namespace cspy {

using Clock = std::chrono::steady_clock;

/* How long a blocking call waits before it looks at the bus, the deadline,
 * close() and Ctrl-C again. */
static constexpr GstClockTime kSlice = 100 * GST_MSECOND;
/* The application message close() posts to wake the calls waiting on the
 * bus at once. */
static constexpr const char * kClosedMessage = "cudastreams-closed";
/* No frame for this long while the application holds its bound: stalled. */
static constexpr std::chrono::seconds kStallAfter{ 2 };

static void stop (GstElement * pipeline);

/* Calls of any Pipeline now between releasing the GIL and taking it back:
 * close_all() lets them come back before the interpreter finalises. */
static std::atomic<int> calls_without_gil{ 0 };

namespace {

struct CountedCall {
  CountedCall () { calls_without_gil++; }
  ~CountedCall () { calls_without_gil--; }
};

/* py::gil_scoped_release, counted: the count covers the GIL's release and
 * its taking back (base first in, last out). */
class NoGil : CountedCall {
  py::gil_scoped_release release_;
};

} // namespace

/* Every Pipeline alive, under the GIL. */
static std::set<Pipeline *> &
live_pipelines ()
{
  static auto * all = new std::set<Pipeline *>;
  return *all;
}

Pipeline::Pipeline (
    const std::string & description, py::object streams, int device, int max_held_frames)
    : max_held_ (max_held_frames)
{
  if (max_held_frames < 1)
    throw py::value_error ("max_held_frames must be at least 1");
  GError * err = nullptr;
  GstElement * el = gst_parse_launch (description.c_str (), &err);
  if (err) {
    /* Also a pipeline that parsed with a recoverable error (a missing
     * property): the application asked for something else. */
    CsError e (err->message);
    g_error_free (err);
    if (el)
      gst_object_unref (el);
    throw e;
  }
  if (!GST_IS_PIPELINE (el)) {
    GstElement * p = gst_pipeline_new (nullptr);
    gst_bin_add (GST_BIN (p), el);
    el = p;
  }
  gst_ = std::make_shared<GstObjects> ();
  gst_->pipeline.reset (el);
  gst_->bus.reset (gst_element_get_bus (el));
  if (!streams.is_none ())
    use_streams (el, streams, device);
  bound_appsinks (el);
  live_pipelines ().insert (this);
}

Pipeline::~Pipeline ()
{
  live_pipelines ().erase (this);
  /* Streaming threads may run DLPack deleters that take the GIL, and so may
   * the last unrefs of what the elements still hold. */
  NoGil nogil;
  std::lock_guard<std::mutex> g (state_lock_);
  if (gst_ && !closed_.exchange (true))
    stop (gst_->pipeline.get ());
  gst_.reset ();
}

/* Stops `pipeline` even while the application holds frames: a producer
 * waiting for one of them to come back to its pool would hold its stream
 * lock, and the state change would wait for it forever. Setting the pools
 * flushing wakes such a producer (its pushes fail as flushing, which
 * stopping expects); the pools are not used again, since elements make new
 * ones when they start. */
static void
stop (GstElement * pipeline)
{
  GstIterator * it = gst_bin_iterate_recurse (GST_BIN (pipeline));
  GValue item = G_VALUE_INIT;
  while (gst_iterator_next (it, &item) == GST_ITERATOR_OK) {
    auto * el = GST_ELEMENT (g_value_get_object (&item));
    GstBufferPool * pool = nullptr;
    if (GST_IS_BASE_TRANSFORM (el))
      pool = gst_base_transform_get_buffer_pool (GST_BASE_TRANSFORM (el));
    else if (GST_IS_BASE_SRC (el))
      pool = gst_base_src_get_buffer_pool (GST_BASE_SRC (el));
    if (pool) {
      gst_buffer_pool_set_flushing (pool, TRUE);
      gst_object_unref (pool);
    }
    g_value_reset (&item);
  }
  g_value_unset (&item);
  gst_iterator_free (it);
  gst_element_set_state (pipeline, GST_STATE_NULL);
}

void
Pipeline::use_streams (GstElement * pipeline, py::object streams, int device)
{
  std::vector<cudaStream_t> handles;
  for (py::handle s : streams) {
    handles.push_back (stream_from_object (s, "streams"));
    if (handles.back () == cudaStreamPerThread)
      throw py::value_error (
          "streams: 2 (the per-thread default stream) names another stream on every "
          "thread, and the elements work on threads of their own: give streams "
          "made for the pipeline (torch.cuda.Stream(), cudaStreamCreate)");
  }
  if (handles.empty ())
    throw py::value_error ("streams: give at least one stream, or None");
  std::unique_ptr<GstCsStreamPool, ObjectUnref> pool (
      gst_cs_stream_pool_new_wrapped (device, handles.data (), handles.size ()));
  if (!pool)
    throw CsError ("cannot make a stream pool of the given streams");
  ContextPtr context (gst_cs_context_new_stream_pool (pool.get ()));
  gst_element_set_context (pipeline, context.get ());
}

/* Answers the appsink's ALLOCATION query: the application holds up to
 * max_held_frames buffers, so upstream pools size (and bound) themselves
 * for them. appsink itself answers nothing. Video and crop metas are
 * advertised too: Frame reads both, so producers may pad rows and crops
 * stay zero-copy. */
static GstPadProbeReturn
answer_allocation (GstPad *, GstPadProbeInfo * info, gpointer user_data)
{
  GstQuery * query = GST_PAD_PROBE_INFO_QUERY (info);
  if (GST_QUERY_TYPE (query) != GST_QUERY_ALLOCATION)
    return GST_PAD_PROBE_OK;
  guint held = GPOINTER_TO_UINT (user_data);
  GstCaps * caps = nullptr;
  gst_query_parse_allocation (query, &caps, nullptr);
  GstVideoInfo vinfo;
  /* Tensors (cudabatch) come from the element's own pool: no size here. */
  const bool video =
      caps && gst_caps_get_size (caps) > 0 &&
      g_str_has_prefix (
          gst_structure_get_name (gst_caps_get_structure (caps, 0)), "video/");
  guint size = video && gst_video_info_from_caps (&vinfo, caps) ? vinfo.size : 0;
  gst_query_add_allocation_pool (query, nullptr, size, held, held);
  gst_query_add_allocation_meta (query, GST_VIDEO_META_API_TYPE, nullptr);
  gst_query_add_allocation_meta (query, GST_VIDEO_CROP_META_API_TYPE, nullptr);
  return GST_PAD_PROBE_HANDLED;
}

void
Pipeline::bound_appsinks (GstElement * pipeline)
{
  GstIterator * it = gst_bin_iterate_recurse (GST_BIN (pipeline));
  GValue item = G_VALUE_INIT;
  while (gst_iterator_next (it, &item) == GST_ITERATOR_OK) {
    auto * el = GST_ELEMENT (g_value_get_object (&item));
    if (GST_IS_APP_SINK (el)) {
      PadPtr pad (gst_element_get_static_pad (el, "sink"));
      gst_pad_add_probe (pad.get (), GST_PAD_PROBE_TYPE_QUERY_DOWNSTREAM,
          answer_allocation, GUINT_TO_POINTER ((guint)max_held_), nullptr);
    }
    g_value_reset (&item);
  }
  g_value_unset (&item);
  gst_iterator_free (it);
}

ElementPtr
Pipeline::find_element (
    GstElement * pipeline, py::object name, GType type, const char * kind)
{
  if (!name.is_none ()) {
    std::string n = py::str (name);
    ElementPtr el (gst_bin_get_by_name (GST_BIN (pipeline), n.c_str ()));
    if (!el)
      throw py::value_error ("the pipeline has no element named '" + n + "'");
    if (!G_TYPE_CHECK_INSTANCE_TYPE (el.get (), type))
      throw py::value_error ("element '" + n + "' is not an " + kind + " (it is a " +
                             G_OBJECT_TYPE_NAME (el.get ()) + ")");
    return el;
  }
  std::vector<ElementPtr> found;
  GstIterator * it = gst_bin_iterate_recurse (GST_BIN (pipeline));
  GValue item = G_VALUE_INIT;
  while (gst_iterator_next (it, &item) == GST_ITERATOR_OK) {
    auto * el = GST_ELEMENT (g_value_get_object (&item));
    if (G_TYPE_CHECK_INSTANCE_TYPE (el, type))
      found.emplace_back (GST_ELEMENT (gst_object_ref (el)));
    g_value_reset (&item);
  }
  g_value_unset (&item);
  gst_iterator_free (it);
  if (found.size () == 1)
    return std::move (found[0]);
  if (found.empty ())
    throw py::value_error (std::string ("the pipeline has no ") + kind);
  std::string names;
  for (auto & e : found)
    names += (names.empty () ? "" : ", ") + std::string (GST_ELEMENT_NAME (e.get ()));
  throw py::value_error (
      std::string ("the pipeline has several ") + kind + "s (" + names + "): name one");
}

void
Pipeline::check_open () const
{
  if (closed_)
    throw py::value_error ("the pipeline is closed");
}

void
Pipeline::check_bus (GstClockTime wait_ns)
{
  if (error_)
    throw *error_;
  std::shared_ptr<GstObjects> gst = gst_;
  if (!gst)
    return; /* closed: nothing more comes */
  auto types =
      (GstMessageType)(GST_MESSAGE_ERROR | GST_MESSAGE_EOS | GST_MESSAGE_APPLICATION);
  for (;;) {
    GstMessage * m;
    {
      NoGil nogil;
      bus_waiters_++;
      m = gst_bus_timed_pop_filtered (gst->bus.get (), wait_ns, types);
      bus_waiters_--;
    }
    if (!m)
      return;
    MessagePtr msg (m);
    if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR) {
      error_ = CsError::from_message (m);
      throw *error_;
    }
    /* close()'s wake-up (or another application message, which nothing
     * here reads): the caller looks at closed_ next. Not draining more
     * leaves the other waiters' wake-ups to them. */
    if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_APPLICATION)
      return;
    eos_ = true;
    wait_ns = 0; /* then only what is already there */
  }
}

bool
Pipeline::start_unless_closed ()
{
  if (closed_)
    return false;
  if (started_)
    return true;
  /* Set first: another thread's start() meanwhile returns, and its pull()
   * waits for the state change like any frame. */
  started_ = true;
  std::shared_ptr<GstObjects> gst = gst_;
  GstStateChangeReturn ret;
  {
    NoGil nogil;
    std::lock_guard<std::mutex> g (state_lock_);
    /* close() may have run since: PLAYING now would outlive it. */
    ret = closed_ ? GST_STATE_CHANGE_SUCCESS
                  : gst_element_set_state (gst->pipeline.get (), GST_STATE_PLAYING);
  }
  if (closed_)
    return false;
  if (ret == GST_STATE_CHANGE_FAILURE) {
    check_bus (0);
    throw CsError ("the pipeline could not start (no error on the bus)");
  }
  return true;
}

void
Pipeline::start ()
{
  if (!start_unless_closed ())
    check_open ();
}

static std::optional<Clock::time_point>
deadline_of (const py::object & timeout)
{
  if (timeout.is_none ())
    return std::nullopt;
  double s = timeout.cast<double> ();
  return Clock::now () + std::chrono::duration_cast<Clock::duration> (
                             std::chrono::duration<double> (s < 0 ? 0 : s));
}

/* One wait of a blocking call: kSlice, or less up to the deadline. */
static GstClockTime
slice_until (const std::optional<Clock::time_point> & deadline)
{
  if (!deadline)
    return kSlice;
  auto left =
      std::chrono::duration_cast<std::chrono::nanoseconds> (*deadline - Clock::now ());
  if (left.count () <= 0)
    return 0;
  return std::min<GstClockTime> (kSlice, (GstClockTime)left.count ());
}

static void
check_signals ()
{
  if (PyErr_CheckSignals () != 0)
    throw py::error_already_set ();
}

py::object
Pipeline::pull (py::object sink_name, py::object timeout)
{
  if (closed_)
    return py::none (); /* a closed pipeline has no more frames */
  std::shared_ptr<GstObjects> gst = gst_;
  ElementPtr sink =
      find_element (gst->pipeline.get (), sink_name, GST_TYPE_APP_SINK, "appsink");
  if (!start_unless_closed ())
    return py::none (); /* a closed pipeline has no more frames */
  auto deadline = deadline_of (timeout);
  auto since = Clock::now ();
  for (;;) {
    check_bus (0);
    if (closed_)
      return py::none ();
    const GstClockTime slice = slice_until (deadline);
    const auto pulled_at = Clock::now ();
    GstSample * s;
    bool eos = false;
    {
      /* Both without the GIL: appsink drops and flushes buffers under its
       * lock, and freeing one that wraps a NumPy array takes the GIL. */
      NoGil nogil;
      s = gst_app_sink_try_pull_sample (GST_APP_SINK (sink.get ()), slice);
      if (!s)
        eos = gst_app_sink_is_eos (GST_APP_SINK (sink.get ()));
    }
    if (s && batch_sample (s))
      return py::cast (std::make_shared<Batch> (SamplePtr (s), held_));
    if (s)
      return py::cast (std::make_shared<Frame> (SamplePtr (s), held_));
    if (closed_)
      return py::none ();
    if (eos) {
      /* A source that fails sends EOS after posting its error. */
      check_bus (0);
      return py::none ();
    }
    /* An appsink not started yet (another thread's start() is still
     * changing the state) answers at once: the rest of the slice is spent
     * on the bus, not spinning. */
    auto spent =
        std::chrono::duration_cast<std::chrono::nanoseconds> (Clock::now () - pulled_at);
    if ((GstClockTime)spent.count () < slice)
      check_bus (slice - (GstClockTime)spent.count ());
    check_signals ();
    auto now = Clock::now ();
    if (deadline && now >= *deadline)
      throw Timeout ("no frame from " + std::string (GST_ELEMENT_NAME (sink.get ())) +
                     " within the timeout");
    int held = held_->load ();
    if (now - since >= kStallAfter && held >= max_held_)
      throw CsError (
          "the pipeline is stalled: the application holds " + std::to_string (held) +
          " frames of it (max_held_frames=" + std::to_string (max_held_) +
          "), so its elements have no memory left to produce more; release frames "
          "(frame.release(), drop the tensors made from them) or raise "
          "max_held_frames");
  }
}

void
Pipeline::push (py::handle data, py::object src_name, py::object pts, py::object duration,
    py::object stream)
{
  check_open ();
  std::shared_ptr<GstObjects> gst = gst_;
  ElementPtr src =
      find_element (gst->pipeline.get (), src_name, GST_TYPE_APP_SRC, "appsrc");
  CapsPtr caps (gst_app_src_get_caps (GST_APP_SRC (src.get ())));
  if (!caps)
    throw py::value_error ("appsrc '" + std::string (GST_ELEMENT_NAME (src.get ())) +
                           "' has no caps: set caps=video/x-raw,... on it");
  BufferPtr buffer = buffer_from_dlpack (data, caps.get (), stream);
  if (!pts.is_none ())
    GST_BUFFER_PTS (buffer.get ()) = pts.cast<guint64> ();
  if (!duration.is_none ())
    GST_BUFFER_DURATION (buffer.get ()) = duration.cast<guint64> ();
  start ();
  check_bus (0);
  GstFlowReturn ret;
  {
    NoGil nogil;
    ret = gst_app_src_push_buffer (GST_APP_SRC (src.get ()), buffer.release ());
  }
  /* close() flushed a push waiting for room in the appsrc's queue. */
  check_open ();
  if (ret != GST_FLOW_OK) {
    check_bus (kSlice);
    throw CsError (
        std::string ("push: ") + gst_flow_get_name (ret), GST_ELEMENT_NAME (src.get ()));
  }
}

void
Pipeline::end_of_stream (py::object src_name)
{
  check_open ();
  std::shared_ptr<GstObjects> gst = gst_;
  ElementPtr src =
      find_element (gst->pipeline.get (), src_name, GST_TYPE_APP_SRC, "appsrc");
  start (); /* ValueError when closed meanwhile */
  NoGil nogil;
  gst_app_src_end_of_stream (GST_APP_SRC (src.get ()));
}

void
Pipeline::wait (py::object timeout)
{
  if (!start_unless_closed ())
    return; /* closed: nothing more will come */
  auto deadline = deadline_of (timeout);
  while (!eos_ && !closed_) {
    check_bus (slice_until (deadline));
    if (eos_ || closed_)
      break;
    check_signals ();
    if (deadline && Clock::now () >= *deadline)
      throw Timeout ("no end of stream within the timeout");
  }
}

/* One application message per call waiting on the bus, and one for a call
 * about to: each wakes one of them (a pop takes one message); a call that
 * misses its message finds closed_ after its slice. Posted before the
 * pipeline stops, which sets its bus flushing. */
void
Pipeline::wake_bus_waiters ()
{
  const int n = bus_waiters_.load () + 1;
  for (int i = 0; i < n; i++)
    gst_bus_post (
        gst_->bus.get (), gst_message_new_application (GST_OBJECT (gst_->pipeline.get ()),
                              gst_structure_new_empty (kClosedMessage)));
}

void
Pipeline::close_all ()
{
  /* References, so that none is destroyed while another is closed (close()
   * lets other threads run). */
  std::vector<py::object> all;
  for (Pipeline * p : live_pipelines ())
    all.push_back (py::cast (p, py::return_value_policy::reference));
  for (auto & p : all)
    p.cast<Pipeline &> ().close ();
  /* The calls they woke take the GIL back now, not once finalisation has
   * begun (bounded: exiting must not hang on a call that does not come
   * back). */
  py::gil_scoped_release nogil;
  const auto until = Clock::now () + std::chrono::seconds (2);
  while (calls_without_gil.load () > 0 && Clock::now () < until)
    std::this_thread::sleep_for (std::chrono::milliseconds (1));
}

void
Pipeline::close ()
{
  const bool first = !closed_.exchange (true);
  /* Let go of here: the last call in flight unrefs them. */
  std::shared_ptr<GstObjects> gst;
  if (first) {
    wake_bus_waiters ();
    gst = std::move (gst_);
  } else if (state_lock_.try_lock ()) {
    /* Stopped already: returns without letting go of the GIL (a daemon
     * thread may call this while the interpreter finalises). */
    state_lock_.unlock ();
    return;
  }
  NoGil nogil;
  /* A second close() returns once the first has stopped the pipeline. */
  std::lock_guard<std::mutex> g (state_lock_);
  if (first)
    stop (gst->pipeline.get ());
  /* Without the GIL: what the elements still hold (a pushed array) may be
   * freed now. */
  gst.reset ();
}

} // namespace cspy

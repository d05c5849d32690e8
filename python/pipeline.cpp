/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "pipeline.hpp"

#include <chrono>
#include <vector>

#include <gst/base/base.h>
#include <gst/video/video.h>
#include <gstcudastreams.h>

#include "frame.hpp"
#include "push.hpp"
#include "stream_arg.hpp"

namespace py = pybind11;

namespace cspy {

using Clock = std::chrono::steady_clock;

/* How long a blocking call waits before it looks at the bus, the deadline
 * and Ctrl-C again. */
static constexpr GstClockTime kSlice = 100 * GST_MSECOND;
/* No frame for this long while the application holds its bound: stalled. */
static constexpr std::chrono::seconds kStallAfter{ 2 };

static void stop (GstElement * pipeline);

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
  pipeline_.reset (el);
  bus_.reset (gst_element_get_bus (el));
  if (!streams.is_none ())
    use_streams (streams, device);
  bound_appsinks ();
}

Pipeline::~Pipeline ()
{
  /* Streaming threads may run DLPack deleters that take the GIL. */
  py::gil_scoped_release nogil;
  if (pipeline_)
    stop (pipeline_.get ());
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
Pipeline::use_streams (py::object streams, int device)
{
  std::vector<cudaStream_t> handles;
  for (py::handle s : streams)
    handles.push_back (stream_from_object (s, "streams"));
  if (handles.empty ())
    throw py::value_error ("streams: give at least one stream, or None");
  std::unique_ptr<GstCsStreamPool, ObjectUnref> pool (
      gst_cs_stream_pool_new_wrapped (device, handles.data (), handles.size ()));
  if (!pool)
    throw CsError ("cannot make a stream pool of the given streams");
  ContextPtr context (gst_cs_context_new_stream_pool (pool.get ()));
  gst_element_set_context (pipeline_.get (), context.get ());
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
  guint size = caps && gst_video_info_from_caps (&vinfo, caps) ? vinfo.size : 0;
  gst_query_add_allocation_pool (query, nullptr, size, held, held);
  gst_query_add_allocation_meta (query, GST_VIDEO_META_API_TYPE, nullptr);
  gst_query_add_allocation_meta (query, GST_VIDEO_CROP_META_API_TYPE, nullptr);
  return GST_PAD_PROBE_HANDLED;
}

void
Pipeline::bound_appsinks ()
{
  GstIterator * it = gst_bin_iterate_recurse (GST_BIN (pipeline_.get ()));
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
Pipeline::find_element (py::object name, GType type, const char * kind)
{
  if (!name.is_none ()) {
    std::string n = py::str (name);
    ElementPtr el (gst_bin_get_by_name (GST_BIN (pipeline_.get ()), n.c_str ()));
    if (!el)
      throw py::value_error ("the pipeline has no element named '" + n + "'");
    if (!G_TYPE_CHECK_INSTANCE_TYPE (el.get (), type))
      throw py::value_error ("element '" + n + "' is not an " + kind + " (it is a " +
                             G_OBJECT_TYPE_NAME (el.get ()) + ")");
    return el;
  }
  std::vector<ElementPtr> found;
  GstIterator * it = gst_bin_iterate_recurse (GST_BIN (pipeline_.get ()));
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
  if (!pipeline_)
    throw py::value_error ("the pipeline is closed");
}

void
Pipeline::check_bus (GstClockTime wait_ns)
{
  if (error_)
    throw *error_;
  auto types = (GstMessageType)(GST_MESSAGE_ERROR | GST_MESSAGE_EOS);
  for (;;) {
    GstMessage * m;
    {
      py::gil_scoped_release nogil;
      m = gst_bus_timed_pop_filtered (bus_.get (), wait_ns, types);
    }
    if (!m)
      return;
    MessagePtr msg (m);
    if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR) {
      error_ = CsError::from_message (m);
      throw *error_;
    }
    eos_ = true;
    wait_ns = 0; /* then only what is already there */
  }
}

void
Pipeline::start ()
{
  check_open ();
  if (started_)
    return;
  GstStateChangeReturn ret;
  {
    py::gil_scoped_release nogil;
    ret = gst_element_set_state (pipeline_.get (), GST_STATE_PLAYING);
  }
  started_ = true;
  if (ret == GST_STATE_CHANGE_FAILURE) {
    check_bus (0);
    throw CsError ("the pipeline could not start (no error on the bus)");
  }
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

static void
check_signals ()
{
  if (PyErr_CheckSignals () != 0)
    throw py::error_already_set ();
}

py::object
Pipeline::pull (py::object sink_name, py::object timeout)
{
  check_open ();
  ElementPtr sink = find_element (sink_name, GST_TYPE_APP_SINK, "appsink");
  start ();
  auto deadline = deadline_of (timeout);
  auto since = Clock::now ();
  for (;;) {
    check_bus (0);
    GstSample * s;
    {
      py::gil_scoped_release nogil;
      s = gst_app_sink_try_pull_sample (GST_APP_SINK (sink.get ()), kSlice);
    }
    if (s)
      return py::cast (std::make_shared<Frame> (SamplePtr (s), held_));
    if (gst_app_sink_is_eos (GST_APP_SINK (sink.get ()))) {
      /* A source that fails sends EOS after posting its error. */
      check_bus (0);
      return py::none ();
    }
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
  ElementPtr src = find_element (src_name, GST_TYPE_APP_SRC, "appsrc");
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
    py::gil_scoped_release nogil;
    ret = gst_app_src_push_buffer (GST_APP_SRC (src.get ()), buffer.release ());
  }
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
  ElementPtr src = find_element (src_name, GST_TYPE_APP_SRC, "appsrc");
  start ();
  py::gil_scoped_release nogil;
  gst_app_src_end_of_stream (GST_APP_SRC (src.get ()));
}

void
Pipeline::wait (py::object timeout)
{
  check_open ();
  start ();
  auto deadline = deadline_of (timeout);
  while (!eos_) {
    check_bus (kSlice);
    if (eos_)
      break;
    check_signals ();
    if (deadline && Clock::now () >= *deadline)
      throw Timeout ("no end of stream within the timeout");
  }
}

void
Pipeline::close ()
{
  if (!pipeline_)
    return;
  {
    py::gil_scoped_release nogil;
    stop (pipeline_.get ());
  }
  bus_.reset ();
  pipeline_.reset ();
}

} // namespace cspy

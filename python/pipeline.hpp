/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Pipeline: a parsed GStreamer pipeline driven from Python, with appsinks
 * to pull frames from and appsrcs to push tensors into.
 *
 * Any Python thread may call any method at any time: the GIL guards the
 * members while a call holds it, and a call holds its own reference to the
 * GStreamer objects, so one that released the GIL never finds them gone
 * when close() lets go of them on another thread. close() wakes the calls
 * waiting on other threads: pull() returns None, wait() returns, push()
 * raises ValueError, as they do once the pipeline is closed. */
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <pybind11/pybind11.h>

#include "error.hpp"
#include "handles.hpp"

namespace cspy {

/* The pipeline and its bus; shared by the calls in flight. */
struct GstObjects {
  ElementPtr pipeline;
  BusPtr bus;
};

class Pipeline {
public:
  Pipeline (const std::string & description, pybind11::object streams, int device,
      int max_held_frames);
  ~Pipeline ();
  Pipeline (const Pipeline &) = delete;
  Pipeline & operator= (const Pipeline &) = delete;

  void start ();
  pybind11::object pull (pybind11::object sink, pybind11::object timeout);
  void push (pybind11::handle data, pybind11::object src, pybind11::object pts,
      pybind11::object duration, pybind11::object stream);
  void end_of_stream (pybind11::object src);
  void wait (pybind11::object timeout);
  void close ();
  int held_frames () const { return held_->load (); }

  /* Closes every Pipeline alive: at the interpreter's exit (atexit), while
   * every thread may still take the GIL. A thread waiting in one of them
   * then returns, instead of waking during finalisation, when CPython ends
   * a thread that takes the GIL (through our C++ frames: an abort), and the
   * streaming threads stop before NumPy's deleters could no longer run. */
  static void close_all ();

private:
  /* The appsink/appsrc `name` names, or the only one; ValueError otherwise. */
  ElementPtr find_element (
      GstElement * pipeline, pybind11::object name, GType type, const char * kind);
  /* To PLAYING unless closed; false when closed (before or meanwhile). */
  bool start_unless_closed ();
  /* Wakes the calls waiting on the bus (close()). */
  void wake_bus_waiters ();
  void use_streams (GstElement * pipeline, pybind11::object streams, int device);
  void bound_appsinks (GstElement * pipeline);
  /* Takes the bus's errors and EOS, waiting up to `wait_ns`; throws the
   * first error (again on every later call). Returns early when close()
   * wakes it. */
  void check_bus (GstClockTime wait_ns);
  /* ValueError once closed. */
  void check_open () const;

  /* Until close(); the calls in flight keep their own references. */
  std::shared_ptr<GstObjects> gst_;
  int max_held_;
  std::shared_ptr<std::atomic<int>> held_ = std::make_shared<std::atomic<int>> (0);
  /* Under the GIL. */
  bool started_ = false;
  bool eos_ = false;
  std::optional<CsError> error_;
  /* Read without the GIL too (start() under state_lock_). */
  std::atomic<bool> closed_{ false };
  /* Calls inside a bus wait now, as many as close() wakes. */
  std::atomic<int> bus_waiters_{ 0 };
  /* start() and close() change the state one at a time, so that a start()
   * racing close() never leaves the pipeline playing. Taken without the
   * GIL only. */
  std::mutex state_lock_;
};

} // namespace cspy

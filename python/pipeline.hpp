/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Pipeline: a parsed GStreamer pipeline driven from Python, with appsinks
 * to pull frames from and appsrcs to push tensors into. */
#pragma once

#include <atomic>
#include <memory>
#include <optional>
#include <string>

#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <pybind11/pybind11.h>

#include "error.hpp"
#include "handles.hpp"

namespace cspy {

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

private:
  /* The appsink/appsrc `name` names, or the only one; ValueError otherwise. */
  ElementPtr find_element (pybind11::object name, GType type, const char * kind);
  void use_streams (pybind11::object streams, int device);
  void bound_appsinks ();
  /* Takes the bus's errors and EOS, waiting up to `wait_ns`; throws the
   * first error (again on every later call). */
  void check_bus (GstClockTime wait_ns);
  void check_open () const;

  ElementPtr pipeline_;
  BusPtr bus_;
  int max_held_;
  std::shared_ptr<std::atomic<int>> held_ = std::make_shared<std::atomic<int>> (0);
  bool started_ = false;
  bool eos_ = false;
  std::optional<CsError> error_;
};

} // namespace cspy

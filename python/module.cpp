/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The extension cudastreams._cudastreams: the classes and functions that the
 * package cudastreams (cudastreams/__init__.py) offers. The behaviour is in
 * pipeline.cpp, frame.cpp, batch.cpp, dlpack_export.cpp, push.cpp and
 * registry.cpp; docs/python.md is the user's reference. */
#include <pybind11/pybind11.h>

#include <gst/gst.h>
#include <gstcudastreams.h>

#include "batch.hpp"
#include "config.h"
#include "dlpack_export.hpp"
#include "error.hpp"
#include "frame.hpp"
#include "pipeline.hpp"
#include "registry.hpp"

namespace py = pybind11;
using namespace pybind11::literals;
using cspy::Batch;
using cspy::BatchSlot;
using cspy::Frame;
using cspy::Pipeline;
using cspy::Plane;

GST_DEBUG_CATEGORY (cs_python_debug);

namespace {

/* Pipeline.frames(): pulls until EOS. */
struct FrameIterator {
  py::object pipeline; /* keeps it alive */
  py::object sink, timeout;

  py::object next ()
  {
    py::object f = pipeline.cast<Pipeline &> ().pull (sink, timeout);
    if (f.is_none ())
      throw py::stop_iteration ();
    return f;
  }
};

FrameIterator
iterate (py::object self, py::object sink, py::object timeout)
{
  return FrameIterator{ self, sink, timeout };
}

void
bind_pipeline (py::module_ & m)
{
  py::class_<FrameIterator> (m, "_FrameIterator")
      .def ("__iter__", [] (py::object self) { return self; })
      .def ("__next__", &FrameIterator::next);

  py::class_<Pipeline> (m, "Pipeline",
      "A GStreamer pipeline (gst-launch syntax) with appsinks to pull frames from and "
      "appsrcs to push arrays into.")
      .def (py::init<const std::string &, py::object, int, int> (), "description"_a,
          py::kw_only (), "streams"_a = py::none (), "device"_a = 0,
          "max_held_frames"_a = 8)
      .def ("start", &Pipeline::start)
      .def ("pull", &Pipeline::pull, "sink"_a = py::none (), "timeout"_a = py::none ())
      .def ("frames", &iterate, "sink"_a = py::none (), "timeout"_a = py::none ())
      .def ("batches", &iterate, "sink"_a = py::none (), "timeout"_a = py::none (),
          "frames() under the name a cudabatch appsink's Batches read best by")
      .def ("push", &Pipeline::push, "data"_a, "src"_a = py::none (), py::kw_only (),
          "pts"_a = py::none (), "duration"_a = py::none (), "stream"_a = py::none ())
      .def ("end_of_stream", &Pipeline::end_of_stream, "src"_a = py::none ())
      .def ("wait", &Pipeline::wait, "timeout"_a = py::none ())
      .def ("close", &Pipeline::close)
      .def ("__enter__",
          [] (py::object self) {
            self.cast<Pipeline &> ().start ();
            return self;
          })
      .def ("__exit__", [] (Pipeline & p, py::args) { p.close (); })
      .def_property_readonly ("held_frames", &Pipeline::held_frames);
}

void
bind_frame (py::module_ & m)
{
  py::class_<Plane> (m, "Plane", "One plane of a Frame, exportable with DLPack.")
      .def_property_readonly ("width", [] (const Plane & p) { return p.shape ().width; })
      .def_property_readonly (
          "height", [] (const Plane & p) { return p.shape ().height; })
      .def_property_readonly (
          "channels", [] (const Plane & p) { return p.shape ().channels; })
      .def_property_readonly ("pitch", [] (const Plane & p) { return p.shape ().pitch; })
      .def_property_readonly ("dtype", &Plane::dtype)
      .def (
          "__dlpack__",
          [] (const Plane & p, py::object stream, py::object max_version,
              py::object dl_device, py::object copy) {
            return cspy::plane_dlpack (
                p.frame, p.index, stream, max_version, dl_device, copy);
          },
          py::kw_only (), "stream"_a = py::none (), "max_version"_a = py::none (),
          "dl_device"_a = py::none (), "copy"_a = py::none ())
      .def ("__dlpack_device__",
          [] (const Plane & p) { return cspy::frame_dlpack_device (*p.frame); });

  py::class_<Frame, std::shared_ptr<Frame>> (
      m, "Frame", "One frame pulled from an appsink.")
      .def_property_readonly ("pts", &Frame::pts)
      .def_property_readonly ("duration", &Frame::duration)
      .def_property_readonly (
          "format", [] (const Frame & f) { return f.layout ().format_name (); })
      .def_property_readonly ("width", [] (const Frame & f) { return f.layout ().width; })
      .def_property_readonly (
          "height", [] (const Frame & f) { return f.layout ().height; })
      .def_property_readonly ("crop", &Frame::crop)
      .def_property_readonly ("pitches", &Frame::pitches)
      .def_property_readonly (
          "n_planes", [] (const Frame & f) { return f.layout ().n_planes; })
      .def_property_readonly ("device", &Frame::device)
      .def_property_readonly ("stream", &Frame::stream)
      .def_property_readonly ("planes", &cspy::frame_planes)
      .def ("__dlpack__", &cspy::frame_dlpack, py::kw_only (), "stream"_a = py::none (),
          "max_version"_a = py::none (), "dl_device"_a = py::none (),
          "copy"_a = py::none ())
      .def ("__dlpack_device__", &cspy::frame_dlpack_device)
      .def ("release", &Frame::release);
}

void
bind_batch (py::module_ & m)
{
  py::class_<BatchSlot> (m, "BatchSlot",
      "Where one slot of a Batch came from, and how its coordinates map back.")
      .def_property_readonly ("empty", [] (const BatchSlot & s) { return s.slot.empty; })
      .def_property_readonly ("pad", &BatchSlot::pad_name)
      .def_property_readonly (
          "pad_index", [] (const BatchSlot & s) { return s.slot.pad_index; })
      .def_property_readonly ("pts", &BatchSlot::pts)
      .def_property_readonly (
          "source_width", [] (const BatchSlot & s) { return s.slot.source_width; })
      .def_property_readonly (
          "source_height", [] (const BatchSlot & s) { return s.slot.source_height; })
      .def_property_readonly ("scale", &BatchSlot::scale)
      .def_property_readonly ("offset", &BatchSlot::offset)
      .def ("to_source", &BatchSlot::to_source, "x"_a, "y"_a)
      .def ("box_to_source", &BatchSlot::box_to_source, "x0"_a, "y0"_a, "x1"_a, "y1"_a);

  py::class_<Batch, std::shared_ptr<Batch>> (
      m, "Batch", "One tensor of cudabatch pulled from an appsink, with its slots.")
      .def_property_readonly ("shape", &Batch::shape_tuple)
      .def_property_readonly ("dtype", &Batch::dtype)
      .def_property_readonly ("pts", &Batch::pts)
      .def_property_readonly (
          "device", [] (const Batch & b) { return b.place ().device_object (); })
      .def_property_readonly (
          "stream", [] (const Batch & b) { return b.place ().stream_object (); })
      .def_property_readonly ("slots", &Batch::slots)
      .def ("__len__", [] (const Batch & b) { return b.shape ().shape[0]; })
      .def ("__dlpack__", &cspy::batch_dlpack, py::kw_only (), "stream"_a = py::none (),
          "max_version"_a = py::none (), "dl_device"_a = py::none (),
          "copy"_a = py::none ())
      .def ("__dlpack_device__",
          [] (const Batch & b) { return cspy::dlpack_device (b.place ().device); })
      .def ("release", &Batch::release);
}

} // namespace

PYBIND11_MODULE (_cudastreams, m)
{
  m.doc () = "GStreamer pipelines with CUDA frames, exchanged as DLPack tensors";
  GError * err = nullptr;
  if (!gst_init_check (nullptr, nullptr, &err)) {
    std::string msg = std::string ("cannot initialise GStreamer: ") +
                      (err ? err->message : "unknown error");
    g_clear_error (&err);
    throw std::runtime_error (msg);
  }
  GST_DEBUG_CATEGORY_INIT (cs_python_debug, "cspython", 0, "cudastreams Python module");
  cspy::register_errors (m);
  m.attr ("__version__") = VERSION;
  m.def (
      "host_waits", [] () { return gst_cs_host_waits_total (); },
      "Host waits of the gst-cudastreams library so far (the CPU blocking on the GPU).");
  bind_pipeline (m);
  bind_frame (m);
  bind_batch (m);
  cspy::bind_registry (m);
  /* Before finalisation: see Pipeline::close_all. */
  m.def ("_close_all", &Pipeline::close_all);
  py::module_::import ("atexit").attr ("register") (m.attr ("_close_all"));
}

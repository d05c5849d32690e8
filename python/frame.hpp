/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Frame: one appsink sample seen from Python, and its planes. */
#pragma once

#include <atomic>
#include <memory>

#include <cuda_runtime_api.h>
#include <pybind11/pybind11.h>

#include "handles.hpp"
#include "layout.hpp"

namespace cspy {

/* One buffer of a pipeline held by the application: by a Frame, by the
 * tensors exported from it, or both. The pipeline's count of held frames
 * goes down when the last of them lets go, on whatever thread that is (a
 * DLPack deleter may run without the GIL), so nothing here touches Python. */
class Held {
public:
  /* `held`, or ValueError saying "the `what` was released" once it was. */
  static std::shared_ptr<Held> check (
      const std::shared_ptr<Held> & held, const char * what);

  Held (SamplePtr sample, std::shared_ptr<std::atomic<int>> count);
  ~Held ();
  Held (const Held &) = delete;
  Held & operator= (const Held &) = delete;

  GstBuffer * buffer () const { return gst_sample_get_buffer (sample_.get ()); }

private:
  SamplePtr sample_;
  std::shared_ptr<std::atomic<int>> count_;
};

/* Where a pulled buffer's memory lives and which stream wrote it last: a
 * device (-1 for system memory) and, for device memory, the stream of its
 * sync meta. */
struct BufferPlace {
  int device = -1;
  cudaStream_t stream = nullptr;
  bool has_stream = false;

  explicit BufferPlace (GstBuffer * buffer);
  pybind11::object device_object () const;
  pybind11::object stream_object () const;
};

/* A GStreamer time as Python sees it: an int of nanoseconds, or None. */
pybind11::object clock_time (GstClockTime t);

class Frame {
public:
  /* ValueError when the sample is not raw video. */
  Frame (SamplePtr sample, std::shared_ptr<std::atomic<int>> count);

  pybind11::object pts () const;
  pybind11::object duration () const;
  const FrameLayout & layout () const { return layout_; }
  pybind11::tuple crop () const;
  pybind11::tuple pitches () const;
  pybind11::object device () const;
  pybind11::object stream () const;

  /* The holder, for an export; ValueError once released. */
  std::shared_ptr<Held> held () const;
  void release () { held_.reset (); }

  /* The device the memory lives on, -1 for system memory. */
  int device_id () const { return place_.device; }

private:
  std::shared_ptr<Held> held_;
  FrameLayout layout_;
  GstClockTime pts_ = GST_CLOCK_TIME_NONE, duration_ = GST_CLOCK_TIME_NONE;
  BufferPlace place_;
};

/* One plane of a Frame; exports through the frame's holder. */
struct Plane {
  std::shared_ptr<Frame> frame;
  guint index;

  const PlaneShape & shape () const { return frame->layout ().planes[index]; }
  const char * dtype () const { return shape ().itemsize == 2 ? "uint16" : "uint8"; }
};

/* Frame.__dlpack__ and Frame.planes, with the rules of both. */
pybind11::tuple frame_planes (const std::shared_ptr<Frame> & frame);
pybind11::capsule plane_dlpack (const std::shared_ptr<Frame> & frame, guint plane,
    pybind11::object stream, pybind11::object max_version, pybind11::object dl_device,
    pybind11::object copy);
pybind11::capsule frame_dlpack (const std::shared_ptr<Frame> & frame,
    pybind11::object stream, pybind11::object max_version, pybind11::object dl_device,
    pybind11::object copy);
pybind11::tuple frame_dlpack_device (const Frame & frame);

} // namespace cspy

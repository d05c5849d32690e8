/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "frame.hpp"

#include <string>

#include <gstcudastreams.h>

#include "dlpack_export.hpp"
#include "export_shape.hpp"

namespace py = pybind11;

namespace cspy {

Held::Held (SamplePtr sample, std::shared_ptr<std::atomic<int>> count)
    : sample_ (std::move (sample)), count_ (std::move (count))
{
  count_->fetch_add (1);
}

Held::~Held ()
{
  /* The buffer goes back to its pool first: a producer waiting for one may
   * go on as soon as the count says it may. */
  sample_.reset ();
  count_->fetch_sub (1);
}

BufferPlace::BufferPlace (GstBuffer * buffer)
{
  if (buffer && gst_buffer_n_memory (buffer) > 0) {
    GstMemory * mem = gst_buffer_peek_memory (buffer, 0);
    if (gst_is_cs_memory (mem))
      device = reinterpret_cast<GstCsMemory *> (mem)->device_id;
  }
  if (device >= 0) {
    /* A pooled buffer carries a meta before anything recorded into it. */
    GstCsSyncMeta * meta = gst_buffer_get_cs_sync_meta (buffer);
    if (meta && meta->event) {
      stream = meta->stream;
      has_stream = true;
    }
  }
}

py::object
BufferPlace::device_object () const
{
  return device >= 0 ? py::object (py::int_ (device)) : py::object (py::none ());
}

py::object
BufferPlace::stream_object () const
{
  if (!has_stream)
    return py::none ();
  return py::int_ (reinterpret_cast<uintptr_t> (stream));
}

py::object
clock_time (GstClockTime t)
{
  return GST_CLOCK_TIME_IS_VALID (t) ? py::object (py::int_ (t))
                                     : py::object (py::none ());
}

Frame::Frame (SamplePtr sample, std::shared_ptr<std::atomic<int>> count)
    : place_ (gst_sample_get_buffer (sample.get ()))
{
  GstBuffer * buffer = gst_sample_get_buffer (sample.get ());
  GstCaps * caps = gst_sample_get_caps (sample.get ());
  GstVideoInfo info;
  if (!buffer || !caps || !gst_video_info_from_caps (&info, caps)) {
    gchar * s = caps ? gst_caps_to_string (caps) : g_strdup ("no caps");
    std::string msg = std::string ("the appsink's sample is not raw video (") + s + ")";
    g_free (s);
    throw py::value_error (msg);
  }
  layout_ = frame_layout (buffer, &info);
  pts_ = GST_BUFFER_PTS (buffer);
  duration_ = GST_BUFFER_DURATION (buffer);
  held_ = std::make_shared<Held> (std::move (sample), std::move (count));
}

py::object
Frame::pts () const
{
  return clock_time (pts_);
}

py::object
Frame::duration () const
{
  return clock_time (duration_);
}

py::tuple
Frame::crop () const
{
  return py::make_tuple (layout_.crop_x, layout_.crop_y, layout_.width, layout_.height);
}

py::tuple
Frame::pitches () const
{
  py::tuple t (layout_.n_planes);
  for (guint p = 0; p < layout_.n_planes; p++)
    t[p] = py::int_ (layout_.planes[p].pitch);
  return t;
}

py::object
Frame::device () const
{
  return place_.device_object ();
}

py::object
Frame::stream () const
{
  return place_.stream_object ();
}

std::shared_ptr<Held>
Held::check (const std::shared_ptr<Held> & held, const char * what)
{
  if (!held)
    throw py::value_error (std::string ("the ") + what + " was released");
  return held;
}

std::shared_ptr<Held>
Frame::held () const
{
  return Held::check (held_, "frame");
}

py::tuple
frame_planes (const std::shared_ptr<Frame> & frame)
{
  const FrameLayout & l = frame->layout ();
  if (!l.unsupported.empty ())
    throw py::type_error (l.unsupported);
  py::tuple t (l.n_planes);
  for (guint p = 0; p < l.n_planes; p++)
    t[p] = py::cast (Plane{ frame, p });
  return t;
}

py::capsule
plane_dlpack (const std::shared_ptr<Frame> & frame, guint plane, py::object stream,
    py::object max_version, py::object dl_device, py::object copy)
{
  const FrameLayout & l = frame->layout ();
  if (!l.unsupported.empty ())
    throw py::type_error (l.unsupported);
  ExportRequest req{ stream, max_version, dl_device, copy };
  return export_tensor (
      frame->held (), plane_export_shape (l.planes[plane]), frame->device_id (), req);
}

py::capsule
frame_dlpack (const std::shared_ptr<Frame> & frame, py::object stream,
    py::object max_version, py::object dl_device, py::object copy)
{
  const FrameLayout & l = frame->layout ();
  ExportShape shape;
  std::string why;
  if (!frame_export_shape (l, &shape, &why))
    throw py::type_error (why);
  std::shared_ptr<Held> held = frame->held ();
  /* A map of several memories would merge them into a copy. */
  guint n_memory = gst_buffer_n_memory (held->buffer ());
  if (l.n_planes > 1 && n_memory != 1)
    throw py::type_error (std::string (l.format_name ()) + "'s planes are in " +
                          std::to_string (n_memory) +
                          " memories: they cannot be one tensor; use frame.planes[i]");
  ExportRequest req{ stream, max_version, dl_device, copy };
  return export_tensor (std::move (held), shape, frame->device_id (), req);
}

py::tuple
frame_dlpack_device (const Frame & frame)
{
  return dlpack_device (frame.device_id ());
}

} // namespace cspy

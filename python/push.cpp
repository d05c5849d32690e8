/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "push.hpp"

#include <optional>
#include <string>

#include <gst/video/video.h>
#include <gstcudastreams.h>

#include "dlpack_abi.h"
#include "error.hpp"
#include "gstcsdeviceguard.hpp"
#include "layout.hpp"
#include "stream_arg.hpp"

namespace py = pybind11;

namespace cspy {

/* A consumed producer tensor, of either ABI version; its deleter runs when
 * GStreamer frees the memory, on any thread (producers take the GIL in
 * their deleters themselves when they need it). */
struct Imported {
  dl::DLManagedTensor * unversioned = nullptr;
  dl::DLManagedTensorVersioned * versioned = nullptr;

  const dl::DLTensor & tensor () const
  {
    return versioned ? versioned->dl_tensor : unversioned->dl_tensor;
  }
  static void release (gpointer p)
  {
    auto * self = static_cast<Imported *> (p);
    if (self->versioned && self->versioned->deleter)
      self->versioned->deleter (self->versioned);
    else if (self->unversioned && self->unversioned->deleter)
      self->unversioned->deleter (self->unversioned);
    delete self;
  }
};

/* Holds an Imported until a memory takes it over; gives the tensor back to
 * its producer only once the capsule was consumed (owned). */
struct ImportedPtr {
  Imported * p = nullptr;
  bool owned = false;
  ~ImportedPtr ()
  {
    if (p && owned)
      Imported::release (p);
    else
      delete p;
  }
  Imported * take ()
  {
    Imported * r = p;
    p = nullptr;
    return r;
  }
};

/* data.__dlpack__(), preferring the versioned ABI; producers of DLPack < 1.0
 * (NumPy 1.24) do not take max_version. */
static py::capsule
call_dlpack (py::handle data, py::object stream)
{
  py::object fn = data.attr ("__dlpack__");
  try {
    return fn (
        py::arg ("stream") = stream, py::arg ("max_version") = py::make_tuple (1, 0));
  } catch (py::error_already_set & e) {
    if (!e.matches (PyExc_TypeError))
      throw;
  }
  return fn (py::arg ("stream") = stream);
}

/* Reads the producer's tensor without consuming the capsule: until
 * claim_capsule(), a refused tensor (wrong shape, device, ...) stays the
 * capsule's, whose own destructor gives it back to the producer. */
static void
peek_capsule (py::capsule cap, ImportedPtr * out)
{
  Imported * imp = new Imported;
  out->p = imp;
  PyObject * c = cap.ptr ();
  if (PyCapsule_IsValid (c, dl::kVersionedCapsuleName)) {
    imp->versioned = static_cast<dl::DLManagedTensorVersioned *> (
        PyCapsule_GetPointer (c, dl::kVersionedCapsuleName));
    if (imp->versioned->version.major != dl::kMajorVersion)
      throw py::value_error ("DLPack " + std::to_string (imp->versioned->version.major) +
                             ".x tensors are not supported");
  } else if (PyCapsule_IsValid (c, dl::kCapsuleName)) {
    imp->unversioned =
        static_cast<dl::DLManagedTensor *> (PyCapsule_GetPointer (c, dl::kCapsuleName));
  } else {
    throw py::value_error ("__dlpack__ returned no DLPack capsule");
  }
}

/* Consumes the capsule (the protocol's renaming): from now on the tensor is
 * ours to give back, through Imported::release. */
static void
claim_capsule (py::capsule cap, ImportedPtr * imported)
{
  PyCapsule_SetName (cap.ptr (),
      imported->p->versioned ? dl::kUsedVersionedCapsuleName : dl::kUsedCapsuleName);
  imported->owned = true;
}

/* Messages are built with std::to_string, not iostreams: in a process whose
 * NumPy 2 loaded first (the GPU machine's PyTorch environment), formatting
 * a number through an ostringstream in this module crashed. */
static std::string
shape_string (const dl::DLTensor & t)
{
  std::string s = "(";
  for (int i = 0; i < t.ndim; i++)
    s += (i ? ", " : "") + std::to_string (t.shape[i]);
  s += std::string (t.ndim == 1 ? ",)" : ")") + " uint" + std::to_string (t.dtype.bits);
  if (t.dtype.code != dl::kDLUInt || t.dtype.lanes != 1)
    s += " (type code " + std::to_string (t.dtype.code) + ", lanes " +
         std::to_string (t.dtype.lanes) + ")";
  return s;
}

/* What the caps expect: rows x cols x channels of uint(itemsize*8). */
struct Expected {
  int64_t rows, cols, channels;
  guint itemsize;
  bool multi_plane;

  std::string str () const
  {
    std::string rc = std::to_string (rows) + ", " + std::to_string (cols);
    std::string s = "(" + rc;
    if (!multi_plane)
      s += ", " + std::to_string (channels);
    s += ") uint" + std::to_string (itemsize * 8);
    if (!multi_plane && channels == 1)
      s += " (or (" + rc + "))";
    return s;
  }
};

static Expected
expected_shape (const GstVideoInfo * info)
{
  FrameLayout l = packed_layout (info, 1 << 16);
  if (!l.unsupported.empty ())
    throw py::value_error (
        "cannot push " + std::string (l.format_name ()) + ": " + l.unsupported);
  const PlaneShape & p0 = l.planes[0];
  if (l.n_planes == 1)
    return Expected{ p0.height, p0.width, p0.channels, p0.itemsize, false };
  /* Planes back to back in rows of plane 0's width (NV12: H * 3 / 2 rows). */
  gsize total = 0;
  for (guint p = 0; p < l.n_planes; p++)
    total += (gsize)l.planes[p].pitch * l.planes[p].height;
  return Expected{ (int64_t)(total / (1 << 16)), (int64_t)p0.width * p0.channels, 1,
    p0.itemsize, true };
}

/* The row pitch in bytes of a tensor that matches `exp`; ValueError
 * otherwise, naming both. */
static gint
check_tensor (const dl::DLTensor & t, const Expected & exp, const char * format)
{
  auto fail = [&] (const std::string & why) {
    throw py::value_error (std::string (format) + " frames: expected " + exp.str () +
                           ", got " + shape_string (t) + why);
  };
  if (t.dtype.code != dl::kDLUInt || t.dtype.bits != exp.itemsize * 8 ||
      t.dtype.lanes != 1)
    fail ("");
  bool two_d = t.ndim == 2 && (exp.multi_plane || exp.channels == 1);
  if (!(two_d || (t.ndim == 3 && !exp.multi_plane)))
    fail ("");
  if (t.shape[0] != exp.rows || t.shape[1] != exp.cols ||
      (t.ndim == 3 && t.shape[2] != exp.channels))
    fail ("");
  int64_t inner = t.ndim == 3 ? exp.channels : 1;
  if (t.strides) {
    if ((t.ndim == 3 && t.strides[2] != 1 && exp.channels > 1) ||
        (t.strides[1] != inner && exp.cols > 1))
      fail (": its rows are not contiguous");
    if (t.strides[0] < exp.cols * (t.ndim == 3 ? exp.channels : 1))
      fail (": its rows overlap or run backwards");
    if (exp.multi_plane && t.strides[0] != exp.cols)
      fail (": planes must be back to back, rows unpadded");
    return (gint)(t.strides[0] * exp.itemsize);
  }
  return (gint)(exp.cols * (t.ndim == 3 ? exp.channels : 1) * exp.itemsize);
}

BufferPtr
buffer_from_dlpack (py::handle data, GstCaps * caps, py::handle stream_arg)
{
  GstVideoInfo info;
  if (!caps || !gst_caps_is_fixed (caps) ||
      !gst_structure_has_name (gst_caps_get_structure (caps, 0), "video/x-raw") ||
      !gst_video_info_from_caps (&info, caps))
    throw py::value_error (
        "push needs an appsrc with fixed video/x-raw caps (format, width, "
        "height, framerate)");
  GstCapsFeatures * features = gst_caps_get_features (caps, 0);
  bool device_caps =
      features && gst_caps_features_contains (features, GST_CAPS_FEATURE_MEMORY_CS);

  if (!py::hasattr (data, "__dlpack_device__"))
    throw py::type_error (
        "push takes a DLPack producer (with __dlpack__ and __dlpack_device__)");
  py::tuple dev = data.attr ("__dlpack_device__") ();
  int dev_type = dev[0].cast<int> (), dev_id = dev[1].cast<int> ();
  bool is_cuda = dev_type == dl::kDLCUDA;
  if (!is_cuda && dev_type != dl::kDLCPU)
    throw py::value_error ("push takes CUDA or CPU tensors, got DLPack device type " +
                           std::to_string (dev_type));
  if (is_cuda != device_caps)
    throw py::value_error (std::string ("the appsrc's caps expect ") +
                           (device_caps ? "a CUDA tensor (memory:CUDAStreamsMemory)"
                                        : "a CPU array (system memory)") +
                           ", got a " + (is_cuda ? "CUDA" : "CPU") + " tensor");

  /* The handles 1 and 2 name streams of the current device, for the
   * producer's __dlpack__ as for the event recorded below: the tensor's
   * device is made current for both. */
  std::optional<gst_cs::DeviceGuard> guard;
  if (is_cuda) {
    GError * err = nullptr;
    guard.emplace (dev_id, &err);
    if (!guard->ok ()) {
      CsError e = CsError::from_gerror (err, "cannot use the tensor's device");
      g_clear_error (&err);
      throw e;
    }
  }
  cudaStream_t stream = is_cuda ? producer_stream (stream_arg, data, dev_id) : nullptr;
  py::object stream_obj = py::none ();
  if (is_cuda)
    stream_obj =
        py::int_ (stream == cudaStreamLegacy ? 1 : reinterpret_cast<intptr_t> (stream));
  py::capsule capsule = call_dlpack (data, stream_obj);
  ImportedPtr imported;
  peek_capsule (capsule, &imported);
  const dl::DLTensor & t = imported.p->tensor ();
  if (t.device.device_type != dev_type || t.device.device_id != dev_id)
    throw py::value_error (
        "__dlpack__ gave a tensor of another device than __dlpack_device__");

  Expected exp = expected_shape (&info);
  gint pitch = check_tensor (t, exp, GST_VIDEO_INFO_NAME (&info));
  FrameLayout layout = packed_layout (&info, exp.multi_plane ? pitch : pitch);
  if (!layout.unsupported.empty ())
    throw py::value_error (layout.unsupported);
  /* Up to the end of the last row: the tensor's memory may stop there. */
  const PlaneShape & last = layout.planes[layout.n_planes - 1];
  gsize size = last.offset + (gsize)(last.height - 1) * last.pitch + last.row_bytes ();
  guint8 * ptr = static_cast<guint8 *> (t.data) + t.byte_offset;

  claim_capsule (capsule, &imported);
  GstMemory * mem;
  if (is_cuda)
    mem = gst_cs_memory_new_wrapped_full (
        dev_id, ptr, size, stream, imported.p, Imported::release);
  else
    mem = gst_memory_new_wrapped (
        GST_MEMORY_FLAG_READONLY, ptr, size, 0, size, imported.p, Imported::release);
  if (!mem)
    throw CsError ("cannot wrap the tensor's memory");
  imported.take ();
  BufferPtr buffer (gst_buffer_new ());
  gst_buffer_append_memory (buffer.get (), mem);

  gsize offsets[GST_VIDEO_MAX_PLANES] = {};
  gint strides[GST_VIDEO_MAX_PLANES] = {};
  for (guint p = 0; p < layout.n_planes; p++) {
    offsets[p] = layout.planes[p].offset;
    strides[p] = layout.planes[p].pitch;
  }
  gst_buffer_add_video_meta_full (buffer.get (), GST_VIDEO_FRAME_FLAG_NONE,
      GST_VIDEO_INFO_FORMAT (&info), GST_VIDEO_INFO_WIDTH (&info),
      GST_VIDEO_INFO_HEIGHT (&info), layout.n_planes, offsets, strides);
  if (is_cuda) {
    /* The producer ordered its writes before `stream` in __dlpack__: an
     * event recorded there now says when the pixels are ready. */
    GError * err = nullptr;
    if (!gst_cs_sync_meta_record (buffer.get (), dev_id, stream, &err)) {
      CsError e = CsError::from_gerror (err, "cannot record the tensor's ready event");
      g_clear_error (&err);
      throw e;
    }
  }
  return buffer;
}

} // namespace cspy

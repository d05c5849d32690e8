/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "batch.hpp"

#include "dlpack_export.hpp"

namespace py = pybind11;

namespace cspy {

bool
batch_sample (GstSample * sample)
{
  GstCaps * caps = gst_sample_get_caps (sample);
  return caps && gst_caps_get_size (caps) > 0 &&
         gst_structure_has_name (gst_caps_get_structure (caps, 0), "other/tensors");
}

/* The element type of NNStreamer's `types`, as cudabatch writes them. */
static bool
element_type (const gchar * name, ExportShape * s, const char ** dtype)
{
  static const struct {
    const char * name;
    guint itemsize;
    bool is_float;
  } kTypes[] = { { "uint8", 1, false }, { "float16", 2, true }, { "float32", 4, true } };
  for (const auto & t : kTypes)
    if (g_strcmp0 (name, t.name) == 0) {
      s->itemsize = t.itemsize, s->is_float = t.is_float, *dtype = t.name;
      return true;
    }
  return false;
}

/* One static tensor of four dimensions, innermost first in the caps
 * ("W:H:3:N" for NCHW, "3:W:H:N" for NHWC): outermost first here, packed. */
static bool
tensor_shape (const GstStructure * st, ExportShape * s, const char ** dtype)
{
  gint n_tensors = 0;
  const gchar * dims = gst_structure_get_string (st, "dimensions");
  if (!gst_structure_get_int (st, "num_tensors", &n_tensors) || n_tensors != 1 || !dims ||
      !element_type (gst_structure_get_string (st, "types"), s, dtype))
    return false;
  gchar ** parts = g_strsplit (dims, ":", -1);
  const bool four = g_strv_length (parts) == kMaxExportDims;
  s->ndim = kMaxExportDims;
  for (int i = 0; four && i < kMaxExportDims; i++)
    s->shape[kMaxExportDims - 1 - i] = g_ascii_strtoll (parts[i], nullptr, 10);
  g_strfreev (parts);
  if (!four)
    return false;
  int64_t stride = s->itemsize;
  for (int i = kMaxExportDims - 1; i >= 0; i--) {
    if (s->shape[i] <= 0)
      return false;
    s->byte_strides[i] = stride;
    stride *= s->shape[i];
  }
  return true;
}

static std::vector<BatchSlot>
copy_slots (GstBuffer * buffer)
{
  std::vector<BatchSlot> out;
  const GstCsBatchMeta * meta = gst_buffer_get_cs_batch_meta (buffer);
  for (guint i = 0; meta && i < meta->n_slots; i++) {
    BatchSlot s;
    s.slot = meta->slots[i];
    if (!s.slot.empty && s.slot.pad_name)
      s.pad = g_quark_to_string (s.slot.pad_name);
    out.push_back (std::move (s));
  }
  return out;
}

Batch::Batch (SamplePtr sample, std::shared_ptr<std::atomic<int>> count)
    : place_ (gst_sample_get_buffer (sample.get ()))
{
  GstBuffer * buffer = gst_sample_get_buffer (sample.get ());
  GstCaps * caps = gst_sample_get_caps (sample.get ());
  if (!buffer || !caps || !batch_sample (sample.get ()) ||
      !tensor_shape (gst_caps_get_structure (caps, 0), &shape_, &dtype_)) {
    gchar * s = caps ? gst_caps_to_string (caps) : g_strdup ("no caps");
    std::string msg = std::string ("the appsink's sample is not one tensor of four "
                                   "dimensions of uint8, float16 or float32 (") +
                      s + ")";
    g_free (s);
    throw py::value_error (msg);
  }
  if (gst_buffer_get_size (buffer) < shape_.extent ())
    throw py::value_error ("the batch's memory (" +
                           std::to_string (gst_buffer_get_size (buffer)) +
                           " bytes) is smaller than its caps say (" +
                           std::to_string (shape_.extent ()) + ")");
  pts_ = GST_BUFFER_PTS (buffer);
  slots_ = copy_slots (buffer);
  held_ = std::make_shared<Held> (std::move (sample), std::move (count));
}

py::tuple
Batch::shape_tuple () const
{
  py::tuple t (shape_.ndim);
  for (int i = 0; i < shape_.ndim; i++)
    t[i] = py::int_ (shape_.shape[i]);
  return t;
}

py::tuple
Batch::slots () const
{
  py::tuple t (slots_.size ());
  for (size_t i = 0; i < slots_.size (); i++)
    t[i] = py::cast (slots_[i]);
  return t;
}

std::shared_ptr<Held>
Batch::held () const
{
  return Held::check (held_, "batch");
}

py::capsule
batch_dlpack (const Batch & batch, py::object stream, py::object max_version,
    py::object dl_device, py::object copy)
{
  ExportRequest req{ stream, max_version, dl_device, copy };
  return export_tensor (batch.held (), batch.shape (), batch.place ().device, req);
}

py::object
BatchSlot::pad_name () const
{
  return pad.empty () ? py::object (py::none ()) : py::object (py::str (pad));
}

py::object
BatchSlot::pts () const
{
  return slot.empty ? py::object (py::none ()) : clock_time (slot.pts);
}

py::tuple
BatchSlot::scale () const
{
  return py::make_tuple (slot.scale_x, slot.scale_y);
}

py::tuple
BatchSlot::offset () const
{
  return py::make_tuple (slot.offset_x, slot.offset_y);
}

py::tuple
BatchSlot::to_source (double x, double y) const
{
  gdouble sx, sy;
  gst_cs_batch_slot_to_source (&slot, x, y, &sx, &sy);
  return py::make_tuple (sx, sy);
}

py::tuple
BatchSlot::box_to_source (double x0, double y0, double x1, double y1) const
{
  gdouble a, b, c, d;
  gst_cs_batch_slot_to_source (&slot, x0, y0, &a, &b);
  gst_cs_batch_slot_to_source (&slot, x1, y1, &c, &d);
  return py::make_tuple (a, b, c, d);
}

} // namespace cspy

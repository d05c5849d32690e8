/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "dlpack_export.hpp"

#include <string>
#include <thread>

#include <gstcudastreams.h>

#include "gstcsdeviceguard.hpp"

#include "dlpack_abi.h"
#include "error.hpp"
#include "stream_arg.hpp"

namespace py = pybind11;

namespace cspy {

/* What a capsule owns. Freed by the DLPack deleter, which may run on any
 * thread and without the GIL: plain C++ and GStreamer only. */
struct ExportCtx {
  std::shared_ptr<Held> held;
  int device = -1;
  bool has_reader = false; /* the consumer's reads are ordered on `reader` */
  cudaStream_t reader = nullptr;
  std::thread::id exporter; /* whose cudaStreamPerThread `reader` may be */
  bool mapped = false;
  GstMapInfo map{};
  int64_t shape[kMaxExportDims] = {};
  int64_t strides[kMaxExportDims] = {};
  dl::DLManagedTensor unversioned{};
  dl::DLManagedTensorVersioned versioned{};
};

/* The consumer's reads are enqueued on its stream by now: an event after
 * them keeps the pool from rewriting the memory before they ran. The
 * DLPack handles 1 and 2 name a stream of the current device (2: of the
 * calling thread), so the frame's device is made current. A deleter that
 * runs on another thread than the export cannot reach the exporter's
 * per-thread stream: it records on the device's legacy stream instead,
 * which CUDA orders after all work already enqueued on the device's
 * blocking streams, per-thread default streams included. */
static void
order_release (ExportCtx * ctx)
{
  cudaStream_t reader = ctx->reader;
  if (reader == cudaStreamPerThread && std::this_thread::get_id () != ctx->exporter)
    reader = cudaStreamLegacy;
  GError * err = nullptr;
  gst_cs::DeviceGuard guard (ctx->device, &err);
  if (!guard.ok () ||
      !gst_cs_buffer_add_reader (ctx->held->buffer (), ctx->device, reader, &err)) {
    GST_CAT_ERROR (cs_python_debug,
        "cannot order the release of a tensor after its reads: %s",
        err ? err->message : "unknown error");
    g_clear_error (&err);
  }
}

static void
finish_export (ExportCtx * ctx)
{
  GstBuffer * buffer = ctx->held->buffer ();
  if (ctx->has_reader)
    order_release (ctx);
  if (ctx->mapped)
    gst_buffer_unmap (buffer, &ctx->map);
  delete ctx;
}

static void
delete_unversioned (dl::DLManagedTensor * t)
{
  finish_export (static_cast<ExportCtx *> (t->manager_ctx));
}

static void
delete_versioned (dl::DLManagedTensorVersioned * t)
{
  finish_export (static_cast<ExportCtx *> (t->manager_ctx));
}

/* A consumer renames the capsule when it takes the tensor; only a capsule
 * nobody took still owns it. */
static void
destroy_unversioned_capsule (PyObject * cap)
{
  if (PyCapsule_IsValid (cap, dl::kCapsuleName)) {
    auto * t =
        static_cast<dl::DLManagedTensor *> (PyCapsule_GetPointer (cap, dl::kCapsuleName));
    t->deleter (t);
  }
}

static void
destroy_versioned_capsule (PyObject * cap)
{
  if (PyCapsule_IsValid (cap, dl::kVersionedCapsuleName)) {
    auto * t = static_cast<dl::DLManagedTensorVersioned *> (
        PyCapsule_GetPointer (cap, dl::kVersionedCapsuleName));
    t->deleter (t);
  }
}

py::tuple
dlpack_device (int device)
{
  return device >= 0 ? py::make_tuple (dl::kDLCUDA, device)
                     : py::make_tuple (dl::kDLCPU, 0);
}

static void
check_request (const ExportRequest & req, int device)
{
  if (!req.copy.is_none () && req.copy.cast<bool> ())
    throw py::buffer_error ("cudastreams frames are exported without a copy (copy=True)");
  if (!req.dl_device.is_none () && !req.dl_device.equal (dlpack_device (device)))
    throw py::buffer_error ("the frame is on " +
                            std::string (py::str (dlpack_device (device))) + ", not on " +
                            std::string (py::str (req.dl_device)));
}

static bool
wants_versioned (const py::object & max_version)
{
  if (max_version.is_none ())
    return false;
  py::tuple v = py::reinterpret_borrow<py::object> (max_version);
  return v.size () >= 1 && v[0].cast<long> () >= (long)dl::kMajorVersion;
}

/* CUDA: the consumer's stream waits on the GPU for the frame's event. The
 * consumer (torch.from_dlpack of a cuda:1 frame) may pass 1 or 2 from a
 * thread whose current device is another: those handles mean the stream of
 * the frame's device, which is made current while the wait is enqueued. */
static guint8 *
prepare_device (ExportCtx * ctx, GstBuffer * buffer, const ExportRequest & req)
{
  if (gst_buffer_n_memory (buffer) != 1)
    throw py::buffer_error ("a device frame of several memories cannot be exported");
  if (!(py::isinstance<py::int_> (req.stream) && req.stream.cast<long long> () == -1)) {
    ctx->reader = req.stream.is_none ()
                      ? cudaStreamLegacy
                      : stream_from_object (req.stream, "__dlpack__ stream");
    ctx->exporter = std::this_thread::get_id ();
    GError * err = nullptr;
    gst_cs::DeviceGuard guard (ctx->device, &err);
    if (!guard.ok () || !gst_cs_sync_meta_wait (buffer, ctx->reader, &err)) {
      CsError e = CsError::from_gerror (err, "cannot order the consumer's stream");
      g_clear_error (&err);
      throw e;
    }
    ctx->has_reader = true;
  }
  return gst_cs_memory_get_device_pointer (gst_buffer_peek_memory (buffer, 0));
}

/* System memory: mapped for as long as the tensor lives. */
static guint8 *
prepare_host (ExportCtx * ctx, GstBuffer * buffer, const ExportRequest & req)
{
  if (!req.stream.is_none () &&
      !(py::isinstance<py::int_> (req.stream) && req.stream.cast<long long> () == -1))
    throw py::value_error ("a frame in system memory takes stream=None or -1, not " +
                           std::string (py::str (req.stream)));
  if (!gst_buffer_map (buffer, &ctx->map, GST_MAP_READ))
    throw CsError ("cannot map the frame's memory for reading");
  ctx->mapped = true;
  return ctx->map.data;
}

static void
fill_tensor (dl::DLTensor * t, ExportCtx * ctx, void * data, const ExportShape & shape)
{
  t->data = data;
  t->device = ctx->device >= 0 ? dl::DLDevice{ dl::kDLCUDA, ctx->device }
                               : dl::DLDevice{ dl::kDLCPU, 0 };
  t->ndim = shape.ndim;
  t->dtype = dl::DLDataType{ shape.is_float ? dl::kDLFloat : dl::kDLUInt,
    (uint8_t)(shape.itemsize * 8), 1 };
  t->shape = ctx->shape;
  t->strides = ctx->strides;
  t->byte_offset = 0;
}

py::capsule
export_tensor (std::shared_ptr<Held> held, const ExportShape & shape, int device,
    const ExportRequest & req)
{
  check_request (req, device);
  int64_t strides[kMaxExportDims];
  if (!shape.element_strides (strides))
    throw py::buffer_error (
        "the frame's pitch or plane spacing is not a whole number of elements");
  bool versioned = wants_versioned (req.max_version);
  GstBuffer * buffer = held->buffer ();
  std::unique_ptr<ExportCtx> ctx (new ExportCtx);
  ctx->held = std::move (held);
  ctx->device = device;
  guint8 * base;
  try {
    base = device >= 0 ? prepare_device (ctx.get (), buffer, req)
                       : prepare_host (ctx.get (), buffer, req);
  } catch (...) {
    if (ctx->mapped)
      gst_buffer_unmap (buffer, &ctx->map);
    throw;
  }
  if (ctx->mapped && shape.offset + shape.extent () > ctx->map.size) {
    gst_buffer_unmap (buffer, &ctx->map);
    throw py::buffer_error ("the frame's memory is smaller than its video meta says");
  }
  for (int i = 0; i < shape.ndim; i++) {
    ctx->shape[i] = shape.shape[i];
    ctx->strides[i] = strides[i];
  }
  void * data = base + shape.offset;

  ExportCtx * raw = ctx.release ();
  PyObject * cap;
  if (versioned) {
    dl::DLManagedTensorVersioned * t = &raw->versioned;
    t->version = dl::DLPackVersion{ dl::kMajorVersion, dl::kMinorVersion };
    t->manager_ctx = raw;
    t->deleter = delete_versioned;
    t->flags = raw->mapped ? dl::kFlagReadOnly : 0;
    fill_tensor (&t->dl_tensor, raw, data, shape);
    cap = PyCapsule_New (t, dl::kVersionedCapsuleName, destroy_versioned_capsule);
  } else {
    dl::DLManagedTensor * t = &raw->unversioned;
    t->manager_ctx = raw;
    t->deleter = delete_unversioned;
    fill_tensor (&t->dl_tensor, raw, data, shape);
    cap = PyCapsule_New (t, dl::kCapsuleName, destroy_unversioned_capsule);
  }
  if (!cap) {
    finish_export (raw);
    throw py::error_already_set ();
  }
  return py::reinterpret_steal<py::capsule> (cap);
}

} // namespace cspy

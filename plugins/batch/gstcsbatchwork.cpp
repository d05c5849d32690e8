/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "batch/gstcsbatchwork.hpp"

#include <memory>

#include "base/gstcsframespan.hpp"
#include "base/gstcspeerimport.hpp"
#include "batch_convert.h"
#include "batch/gstcsbatchslot.hpp"
#include "batch_normalize.h"
#include "convert/gstcsconvertdesc.hpp"
#include "gstcsbatchmeta-private.h"
#include "gstcsdeviceguard.hpp"
#include "gstcssyncmeta-private.h"
#include "nvcodec/gstcsnvcodec.hpp"

namespace gst_cs {

/* A frame mapped for our stream, which waits on its event on the GPU; the
 * region it shows. */
struct MappedFrame {
  Region region;
  DeviceMapping map;
};

namespace {

/* The frames a batch reads: its inputs, where each frame of another device
 * is replaced by its copy on the element's device (the cross-device policy,
 * as DeviceInput's), made now on the element's stream into its pad's pool.
 * The copies go back to their pools when this goes, after the batch's event
 * is recorded on them as a read (note_reads). */
class BatchReads {
public:
  BatchReads () = default;
  ~BatchReads ()
  {
    for (GstBuffer * copy : copies_)
      gst_buffer_unref (copy);
  }
  BatchReads (const BatchReads &) = delete;
  BatchReads & operator= (const BatchReads &) = delete;

  bool import (
      ElementDevice & device, const std::vector<BatchInput> & inputs, GError ** error);
  const std::vector<BatchInput> & frames () const { return reads_; }

private:
  std::vector<BatchInput> reads_;
  std::vector<GstBuffer *> copies_;
};

bool
BatchReads::import (
    ElementDevice & device, const std::vector<BatchInput> & inputs, GError ** error)
{
  for (const BatchInput & in : inputs) {
    reads_.push_back (in);
    if (!on_other_device (in.buffer, device.device ()))
      continue;
    if (!import_from_other_device (in.buffer, device.device (), device.stream (),
            *in.imports, device.waits (), &reads_.back ().buffer, error)) {
      g_prefix_error (error, "Slot %u: ", in.slot);
      return false;
    }
    copies_.push_back (reads_.back ().buffer);
  }
  return true;
}

bool
map_frame (
    ElementDevice & device, const BatchInput & in, MappedFrame * f, GError ** error)
{
  return locate_visible (
             in.buffer, in.info, gst_buffer_get_size (in.buffer), &f->region, error) &&
         f->map.map (in.buffer, GST_MAP_READ, device.device (), device.stream (),
             device.waits (), error) &&
         gst_cs_sync_meta_wait (in.buffer, device.stream (), error);
}

/* The convert-scale description of frame `f` into its slot's picture at
 * `picture`, of layout `out`. */
gpu::ConvertScale
describe_frame (const BatchSettings & s, const BatchInput & in, const MappedFrame & f,
    const GstVideoInfo * out, guint8 * picture, GstCsBatchSlot * slot)
{
  gpu::ConvertScale op;
  batch_describe_slot (in.info, f.region, s, out, &op, slot);
  op.in = convert_image (in.info, &f.region.frame, f.map.data (), false);
  op.out = convert_image (out, out, picture, true);
  return op;
}

bool
launch_frame (
    const gpu::ConvertScale & op, guint slot, cudaStream_t stream, GError ** error)
{
  const cudaError_t status = gpu::convert_scale (op, stream);
  if (status == cudaSuccess)
    return true;
  g_set_error (error, GST_CS_ERROR, GST_CS_ERROR_CUDA,
      "Cannot launch the convert-scale kernel for slot %u (%dx%d -> %dx%d at %d,%d): %s",
      slot, op.src_w, op.src_h, op.dst_w, op.dst_h, op.dst_x, op.dst_y,
      cudaGetErrorString (status));
  return false;
}

/* A batch as the tracer's frame: the element's device, stream, counters;
 * every frame's event is an input it waits on. */
class BatchFrame final : public FrameSource {
public:
  BatchFrame (ElementDevice & device, const std::vector<BatchInput> & inputs)
      : device_ (device), inputs_ (inputs)
  {}
  GstElement * element () override { return device_.owner (); }
  int device () override { return device_.device (); }
  cudaStream_t stream () override { return device_.stream (); }
  GstCsWaitCounter * waits () override { return device_.waits (); }
  guint64 count_frame () override { return device_.count_frame (); }
  size_t n_inputs () override { return inputs_.size (); }
  GstBuffer * input (size_t i) override { return inputs_[i].buffer; }

private:
  ElementDevice & device_;
  const std::vector<BatchInput> & inputs_;
};

gpu::BatchNormalize
describe_normalize (
    const BatchSettings & s, guint batch, const guint8 * staging, guint8 * tensor)
{
  gpu::BatchNormalize op;
  op.src = staging;
  op.dst = tensor;
  op.batch = (int)batch;
  op.width = s.width;
  op.height = s.height;
  op.type = s.dtype == GST_CS_BATCH_DTYPE_UINT8     ? gpu::TensorType::UINT8
            : s.dtype == GST_CS_BATCH_DTYPE_FLOAT16 ? gpu::TensorType::FLOAT16
                                                    : gpu::TensorType::FLOAT32;
  op.nhwc = s.layout == GST_CS_BATCH_LAYOUT_NHWC;
  op.bgr = s.order == GST_CS_BATCH_CHANNEL_ORDER_BGR;
  batch_factors (s, op.scale, op.offset);
  return op;
}

} // namespace

/* Every frame is described into an 8-bit planar RGB picture of its slot
 * (the staging's layout). Where one launch can compute them all
 * (gpu::batch_convert_fits: decoders' 8-bit YUV, two taps), it writes the
 * tensor directly; otherwise each frame is converted into its picture
 * (the staging for float tensors, the tensor itself for uint8) and the
 * staging normalised. */
bool
BatchWork::write (ElementDevice & device, const BatchSettings & s, guint batch,
    const std::vector<BatchInput> & inputs, GstBuffer * tensor, FrameSpan & span,
    GError ** error)
{
  cudaStream_t stream = device.stream ();
  DeviceMapping out;
  if (!out.map (
          tensor, GST_MAP_WRITE, device.device (), stream, device.waits (), error) ||
      !gst_cs_buffer_wait_writable (tensor, stream, error))
    return false;
  const GstVideoInfo planar = batch_slot_layout (s, batch_slot_format (s, true));
  const gsize picture_bytes = batch_slot_elements (s);
  GstCsBatchMeta * meta = gst_buffer_get_cs_batch_meta (tensor);
  std::vector<bool> filled (batch, false);
  std::vector<std::unique_ptr<MappedFrame>> frames;
  gpu::BatchConvert * fused = fused_frames_.get ();
  fused->count = 0;
  bool fusable = true;
  pictures_.clear ();
  for (const BatchInput & in : inputs) {
    frames.push_back (std::make_unique<MappedFrame> ());
    if (!map_frame (device, in, frames.back ().get (), error))
      return false;
    meta->slots[in.slot].empty = FALSE;
    filled[in.slot] = true;
    /* The tensor's memory stands for the picture: the fused launch only
     * reads the picture's layout. */
    const gpu::ConvertScale op = describe_frame (s, in, *frames.back (), &planar,
        out.data () + in.slot * picture_bytes, &meta->slots[in.slot]);
    const Region & r = frames.back ()->region;
    pictures_.push_back ({ in.slot, (gint)r.x, (gint)r.y, (gint)r.width, (gint)r.height,
        op.dst_x, op.dst_y, op.dst_w, op.dst_h });
    if (fused->count == gpu::BatchConvert::kMaxFrames) {
      fusable = false;
      continue;
    }
    fused->op[fused->count] = op;
    fused->slot[fused->count++] = (int)in.slot;
  }
  fused->norm = describe_normalize (s, batch, NULL, out.data ());
  fused_ = fusable && !inputs.empty () &&
           gpu::batch_convert_resolve (*fused, fused_launch_.get ());
  if (fused_) {
    span.work_begins ();
    const cudaError_t status = gpu::batch_convert_launch (*fused_launch_, stream);
    if (status != cudaSuccess) {
      g_set_error (error, GST_CS_ERROR, GST_CS_ERROR_CUDA,
          "Cannot launch the fused batch kernel (%d frames, %d x 3 x %d x %d): %s",
          fused->count, batch, s.height, s.width, cudaGetErrorString (status));
      return false;
    }
  } else if (!inputs.empty () && !write_per_frame (device, s, batch, inputs, frames,
                                     out.data (), span, error)) {
    return false;
  }
  const gsize slot_bytes = picture_bytes * batch_element_size (s.dtype);
  for (guint i = 0; i < batch; i++)
    if (!filled[i] && !GST_CS_CHECK (
            cudaMemsetAsync (out.data () + i * slot_bytes, 0, slot_bytes, stream), error))
      return false;
  span.work_ends ();
  return true;
}

/* The general path: a convert-scale launch per frame into its picture
 * (the pooled staging for float tensors, then one normalisation launch;
 * the tensor itself for uint8). */
bool
BatchWork::write_per_frame (ElementDevice & device, const BatchSettings & s, guint batch,
    const std::vector<BatchInput> & inputs,
    const std::vector<std::unique_ptr<MappedFrame>> & frames, guint8 * tensor,
    FrameSpan & span, GError ** error)
{
  cudaStream_t stream = device.stream ();
  const bool floats = s.dtype != GST_CS_BATCH_DTYPE_UINT8;
  const gsize picture_bytes = batch_slot_elements (s);
  GstBuffer * staging = NULL;
  DeviceMapping stage;
  if (floats &&
      (!(staging = staging_.bytes (device.device (), batch * picture_bytes, error)) ||
          !stage.map (
              staging, GST_MAP_WRITE, device.device (), stream, device.waits (), error) ||
          !gst_cs_buffer_wait_writable (staging, stream, error))) {
    gst_clear_buffer (&staging);
    return false;
  }
  guint8 * pictures = floats ? stage.data () : tensor;
  const GstVideoInfo layout = batch_slot_layout (s, batch_slot_format (s, floats));
  span.work_begins (); /* after the staging's wait for its last readers */
  bool ok = true;
  for (size_t i = 0; ok && i < inputs.size (); i++) {
    const BatchInput & in = inputs[i];
    GstCsBatchSlot slot; /* described already */
    ok = launch_frame (describe_frame (s, in, *frames[i], &layout,
                           pictures + in.slot * picture_bytes, &slot),
        in.slot, stream, error);
  }
  if (ok && floats) {
    const gpu::BatchNormalize op = describe_normalize (s, batch, stage.data (), tensor);
    const cudaError_t status = gpu::batch_normalize (op, stream);
    if (status != cudaSuccess) {
      g_set_error (error, GST_CS_ERROR, GST_CS_ERROR_CUDA,
          "Cannot launch the batch normalisation kernel (%d x 3 x %d x %d): %s", op.batch,
          op.height, op.width, cudaGetErrorString (status));
      ok = false;
    }
  }
  /* The staging goes back at once: only our stream writes and reads it, in
   * order. */
  stage.unmap ();
  gst_clear_buffer (&staging);
  return ok;
}

/* `reads` are the frames the batch read: `inputs`, or their copies. */
bool
BatchWork::note_reads (ElementDevice & device, const std::vector<BatchInput> & inputs,
    const std::vector<BatchInput> & reads, GstBuffer * tensor, GError ** error)
{
  GstCsSyncMeta * meta = NULL;
  for (size_t i = 0; i < inputs.size (); i++) {
    /* nvcodec's pool knows nothing of our events: its frame, read in place
     * or by its copy, is kept until our work so far is done. */
    if (is_nvcodec_memory (gst_buffer_peek_memory (inputs[i].buffer, 0)) &&
        !held_.hold (inputs[i].pad, inputs[i].buffer, device.device (), device.stream (),
            device.waits (), error))
      return false;
    /* A copy of another device's frame was recorded as the original's
     * reader when it was made; the copy's pool waits for the batch. */
    GstBuffer * read = reads[i].buffer;
    if (is_nvcodec_memory (gst_buffer_peek_memory (read, 0)))
      continue;
    if (meta)
      gst_cs_sync_meta_add_reader (meta, read);
    else if (!(meta = gst_cs_sync_meta_record_read (
                   tensor, read, device.device (), device.stream (), error)))
      return false;
  }
  /* No frame of ours read: the tensor's event still. */
  return meta || gst_cs_sync_meta_record_read (
                     tensor, NULL, device.device (), device.stream (), error);
}

GstBuffer *
BatchWork::run (ElementDevice & device, const BatchSettings & s, guint batch,
    const std::vector<BatchInput> & inputs, GError ** error)
{
  DeviceGuard guard (device.device (), error);
  if (!guard.ok () || !batch_check_shape (s, batch, error))
    return NULL;
  const gsize elements = batch * batch_slot_elements (s);
  GstBuffer * tensor =
      tensors_.bytes (device.device (), elements * batch_element_size (s.dtype), error);
  if (!tensor)
    return NULL;
  gst_cs_buffer_add_pooled_batch_meta (tensor, batch);
  /* Closes after the tensor's event is recorded (note_reads). */
  BatchFrame source (device, inputs);
  FrameSpan span (source, tensor);
  BatchReads reads;
  const bool ok = reads.import (device, inputs, error) &&
                  write (device, s, batch, reads.frames (), tensor, span, error) &&
                  note_reads (device, inputs, reads.frames (), tensor, error);
  if (!ok)
    gst_clear_buffer (&tensor);
  return tensor;
}

void
BatchWork::release_done (ElementDevice & device)
{
  held_.release_done (device.device ());
}

void
BatchWork::release_pad (guint pad, ElementDevice & device, GstObject * owner)
{
  held_.drain_pad (pad, device.device (), device.waits (), owner);
}

void
BatchWork::release_held (ElementDevice & device, GstObject * owner)
{
  held_.drain (device.device (), device.waits (), owner);
}

void
BatchWork::reset (ElementDevice & device, GstObject * owner)
{
  release_held (device, owner);
  tensors_.reset ();
  staging_.reset ();
}

} // namespace gst_cs

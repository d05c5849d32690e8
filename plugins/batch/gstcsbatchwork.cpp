/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "batch/gstcsbatchwork.hpp"

#include "base/gstcspeerimport.hpp"
#include "batch/gstcsbatchslot.hpp"
#include "batch_normalize.h"
#include "convert/gstcsconvertdesc.hpp"
#include "gstcsbatchmeta.h"
#include "gstcsdeviceguard.hpp"
#include "gstcssyncmeta-private.h"
#include "nvcodec/gstcsnvcodec.hpp"

namespace gst_cs {
namespace {

/* One frame's picture into its slot at `slot_base`. */
bool
convert_into_slot (ElementDevice & device, const BatchSettings & s, const BatchInput & in,
    const GstVideoInfo * out, guint8 * slot_base, GstCsBatchSlot * slot, GError ** error)
{
  if (on_other_device (in.buffer, device.device ())) {
    g_set_error (error, GST_CS_ERROR, GST_CS_ERROR_INVALID,
        "A frame of another CUDA device came to slot %u: cudabatch takes frames of "
        "its own device (device-id %d) only",
        in.slot, device.device ());
    return false;
  }
  Region region;
  if (!locate_visible (
          in.buffer, in.info, gst_buffer_get_size (in.buffer), &region, error))
    return false;
  DeviceMapping map;
  if (!map.map (in.buffer, GST_MAP_READ, device.device (), device.stream (),
          device.waits (), error) ||
      !gst_cs_sync_meta_wait (in.buffer, device.stream (), error))
    return false;
  gpu::ConvertScale op;
  batch_describe_slot (in.info, region, s, out, &op, slot);
  op.in = convert_image (in.info, &region.frame, map.data (), false);
  op.out = convert_image (out, out, slot_base, true);
  const cudaError_t status = gpu::convert_scale (op, device.stream ());
  if (status == cudaSuccess)
    return true;
  g_set_error (error, GST_CS_ERROR, GST_CS_ERROR_CUDA,
      "Cannot launch the convert-scale kernel for slot %u (%dx%d -> %dx%d at %d,%d): %s",
      in.slot, op.src_w, op.src_h, op.dst_w, op.dst_h, op.dst_x, op.dst_y,
      cudaGetErrorString (status));
  return false;
}

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
  op.type = s.dtype == GST_CS_BATCH_DTYPE_FLOAT16 ? gpu::TensorType::FLOAT16
                                                  : gpu::TensorType::FLOAT32;
  op.nhwc = s.layout == GST_CS_BATCH_LAYOUT_NHWC;
  op.bgr = s.order == GST_CS_BATCH_CHANNEL_ORDER_BGR;
  batch_factors (s, op.scale, op.offset);
  return op;
}

} // namespace

bool
BatchWork::write (ElementDevice & device, const BatchSettings & s, guint batch,
    const std::vector<BatchInput> & inputs, GstBuffer * tensor, GstBuffer * staging,
    GError ** error)
{
  cudaStream_t stream = device.stream ();
  DeviceMapping out, stage;
  if (!out.map (
          tensor, GST_MAP_WRITE, device.device (), stream, device.waits (), error) ||
      !gst_cs_buffer_wait_writable (tensor, stream, error))
    return false;
  if (staging && (!stage.map (staging, GST_MAP_WRITE, device.device (), stream,
                      device.waits (), error) ||
                     !gst_cs_buffer_wait_writable (staging, stream, error)))
    return false;
  guint8 * pictures = staging ? stage.data () : out.data ();
  const GstVideoInfo layout =
      batch_slot_layout (s, batch_slot_format (s, staging != NULL));
  const gsize picture_bytes = batch_slot_elements (s);
  GstCsBatchMeta * meta = gst_buffer_get_cs_batch_meta (tensor);
  std::vector<bool> filled (batch, false);
  for (const BatchInput & in : inputs) {
    if (!convert_into_slot (device, s, in, &layout, pictures + in.slot * picture_bytes,
            &meta->slots[in.slot], error))
      return false;
    meta->slots[in.slot].empty = FALSE;
    filled[in.slot] = true;
  }
  if (staging) {
    const gpu::BatchNormalize op =
        describe_normalize (s, batch, stage.data (), out.data ());
    const cudaError_t status = gpu::batch_normalize (op, stream);
    if (status != cudaSuccess) {
      g_set_error (error, GST_CS_ERROR, GST_CS_ERROR_CUDA,
          "Cannot launch the batch normalisation kernel (%d x 3 x %d x %d): %s", op.batch,
          op.height, op.width, cudaGetErrorString (status));
      return false;
    }
  }
  const gsize slot_bytes = picture_bytes * batch_element_size (s.dtype);
  for (guint i = 0; i < batch; i++)
    if (!filled[i] && !GST_CS_CHECK (
            cudaMemsetAsync (out.data () + i * slot_bytes, 0, slot_bytes, stream), error))
      return false;
  return true;
}

bool
BatchWork::note_reads (ElementDevice & device, const std::vector<BatchInput> & inputs,
    GstBuffer * tensor, GError ** error)
{
  GstCsSyncMeta * meta = NULL;
  for (const BatchInput & in : inputs) {
    if (is_nvcodec_memory (gst_buffer_peek_memory (in.buffer, 0))) {
      if (!held_.hold (
              in.buffer, device.device (), device.stream (), device.waits (), error))
        return false;
    } else if (meta) {
      gst_cs_sync_meta_add_reader (meta, in.buffer);
    } else if (!(meta = gst_cs_sync_meta_record_read (
                     tensor, in.buffer, device.device (), device.stream (), error))) {
      return false;
    }
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
  held_.release_done ();
  const gsize elements = batch * batch_slot_elements (s);
  GstBuffer * tensor =
      tensors_.bytes (device.device (), elements * batch_element_size (s.dtype), error);
  if (!tensor)
    return NULL;
  GstBuffer * staging = NULL;
  if (s.dtype != GST_CS_BATCH_DTYPE_UINT8 &&
      !(staging = staging_.bytes (device.device (), elements, error))) {
    gst_buffer_unref (tensor);
    return NULL;
  }
  gst_cs_buffer_add_batch_meta (tensor, batch);
  const bool ok = write (device, s, batch, inputs, tensor, staging, error) &&
                  note_reads (device, inputs, tensor, error);
  /* The staging goes back at once: only our stream writes and reads it, in
   * order. */
  gst_clear_buffer (&staging);
  if (!ok)
    gst_clear_buffer (&tensor);
  return tensor;
}

void
BatchWork::release_held (ElementDevice & device, GstObject * owner)
{
  held_.drain_on (device.device (), device.waits (), owner);
}

void
BatchWork::reset (ElementDevice & device, GstObject * owner)
{
  release_held (device, owner);
  tensors_.reset ();
  staging_.reset ();
}

} // namespace gst_cs

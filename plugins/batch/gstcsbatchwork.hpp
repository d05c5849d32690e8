/* SPDX-License-Identifier: LGPL-2.1-or-later */
// The GPU work of one batch (internal): every frame's picture into its
// slot, the normalisation, one event.
#pragma once

#include <memory>
#include <vector>

#include <gst/video/video.h>

#include "batch_convert.h"

#include "base/gstcsscratchpool.hpp"
#include "batch/gstcsbatchheld.hpp"
#include "batch/gstcsbatchsettings.hpp"
#include "batch/gstcsbatchslot.hpp"
#include "batch/gstcselementdevice.hpp"

namespace gst_cs {

// A frame of sink pad `pad` that goes into slot `slot`, of caps `info`;
// where it is in memory of another CUDA device, it is copied into
// `imports` (its pad's).
struct BatchInput {
  GstBuffer * buffer = nullptr;
  const GstVideoInfo * info = nullptr;
  guint slot = 0;
  ScratchPool * imports = nullptr;
  guint pad = 0;
};

struct MappedFrame;
class FrameSpan;

// Writes batches into pooled device tensors on the element's stream (which
// waits on each frame's event, on the GPU). A frame of another device is
// copied to the element's device first, on that stream (the cross-device
// policy: base/gstcspeerimport.hpp), and the batch reads the copy, which
// goes back to its pool once the batch's event is recorded on it. Where
// every frame is a decoder's 8-bit YUV resampled by two taps
// (gpu::batch_convert_fits), one launch converts, letterboxes and
// normalises them all into the tensor. Otherwise, per slot, the
// convert-scale kernel writes its letterboxed picture: into the tensor
// itself for uint8, else into a pooled 8-bit staging batch that one
// normalisation launch turns into the float tensor. Slots without a frame
// are zeroed. One event, recorded after all of it, goes on the tensor and
// on each frame's memory as a read (so that its pool's next writer waits);
// nvcodec frames, whose pool knows nothing of our events, are kept until
// that event completes (BatchHeld, per pad). Used from the aggregator's
// thread, but for release_pad (a flush, on its pad's thread). A batch is one
// frame for the cudastreams tracer (base/gstcsframespan.hpp): its GPU time
// is the launches and the zeroing of empty slots, after the waits on every
// frame's event; its wait, that for the frame that completed last.
class BatchWork {
public:
  BatchWork ()
      : fused_frames_ (std::make_unique<gpu::BatchConvert> ()),
        fused_launch_ (std::make_unique<gpu::BatchConvert> ())
  {}

  // The tensor of `batch` slots with its sync meta and batch meta (slots
  // with a frame filled in but for their source, the others empty); NULL
  // with `error` set where it cannot be made.
  GstBuffer * run (ElementDevice & device, const BatchSettings & s, guint batch,
      const std::vector<BatchInput> & inputs, GError ** error);

  // Every pass of the aggregator: lets go of the kept frames whose reads
  // have completed, without waiting.
  void release_done (ElementDevice & device);
  // A flush of sink pad `pad`: lets go of its kept frames alone, after
  // their reads (a counted wait); from the flushing thread.
  void release_pad (guint pad, ElementDevice & device, GstObject * owner);
  // At the end of the stream and at stop: lets go of every kept frame (a
  // counted wait), and at stop of the pools' memory.
  void release_held (ElementDevice & device, GstObject * owner);
  void reset (ElementDevice & device, GstObject * owner);
  // Frames kept now.
  guint held () { return held_.size (); }

  // Whether the last batch was written by the one fused launch.
  bool fused () const { return fused_; }
  // Where the last batch's frames went, one per input, in their order.
  const std::vector<SlotPicture> & pictures () const { return pictures_; }

private:
  bool write (ElementDevice & device, const BatchSettings & s, guint batch,
      const std::vector<BatchInput> & inputs, GstBuffer * tensor, FrameSpan & span,
      GError ** error);
  bool write_per_frame (ElementDevice & device, const BatchSettings & s, guint batch,
      const std::vector<BatchInput> & inputs,
      const std::vector<std::unique_ptr<MappedFrame>> & frames, guint8 * tensor,
      FrameSpan & span, GError ** error);
  bool note_reads (ElementDevice & device, const std::vector<BatchInput> & inputs,
      const std::vector<BatchInput> & reads, GstBuffer * tensor, GError ** error);

  ScratchPool tensors_; /* the tensors pushed downstream */
  ScratchPool staging_; /* 8-bit planar pictures of the float tensors */
  BatchHeld held_;      /* nvcodec frames our kernels still read */
  /* The fused launch's description (26 KB) and its resolution, kept from
   * batch to batch: nothing allocated, each frame resolved once. */
  std::unique_ptr<gpu::BatchConvert> fused_frames_, fused_launch_;
  bool fused_ = false;
  std::vector<SlotPicture> pictures_;
};

} // namespace gst_cs

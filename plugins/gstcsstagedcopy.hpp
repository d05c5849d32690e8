/* SPDX-License-Identifier: LGPL-2.1-or-later */
// Uploading pageable memory through pinned staging, copied by several
// threads (internal).
#pragma once

#include <memory>
#include <vector>

#include <gst/gst.h>
#include <cuda_runtime_api.h>

#include "gstcscopyworkers.hpp"
#include "gstcsframe.hpp"

namespace gst_cs {

// CUDA's own copy from pageable memory stages it through one driver thread
// and waits for the stream first. Here the frame is cut into row chunks;
// the workers copy each chunk into pinned staging and enqueue its DMA at
// once, so the CPU copy of one chunk overlaps the DMA of the one before,
// and the caller may let go of the input as soon as copy() returns.
// Staging is a ring of kSlots frames, allocated at the first frame of a
// size (never per frame); a slot is written again only once the event
// recorded after its DMAs has completed: a free query in steady state, a
// counted host wait when the GPU is that far behind.
class StagedCopy {
public:
  StagedCopy ();
  ~StagedCopy ();
  StagedCopy (const StagedCopy &) = delete;
  StagedCopy & operator= (const StagedCopy &) = delete;

  // Threads copying (the caller counted); 0 picks auto_copy_threads().
  void set_threads (guint threads) { threads_ = threads; }

  // Enqueues on `stream` (of `device`, current on the caller) the copy of
  // `geometry`'s planes from host memory `src` to device memory `dst`.
  bool copy (const Planes & src, const Planes & dst, const GstVideoInfo * geometry,
      int device, cudaStream_t stream, GstCsWaitCounter * waits, GError ** error);

  // Waits for the DMAs still reading staging (counted), stops the threads
  // and frees the staging: at stop.
  bool reset (GstCsWaitCounter * waits, GError ** error);

  static constexpr guint kSlots = 3;

private:
  struct Chunk {
    guint plane, row, rows;
    gsize offset; // in the slot
  };
  struct Slot;
  bool prepare (const GstVideoInfo * geometry, GstCsWaitCounter * waits, GError ** error);
  bool release_slots (GstCsWaitCounter * waits, GError ** error);
  bool take_slot (Slot ** slot, GstCsWaitCounter * waits, GError ** error);
  bool copy_chunk (const Chunk & c, guint8 * stage, const Planes & src,
      const Planes & dst, cudaStream_t stream, GError ** error);

  guint threads_ = 0;
  CopyWorkers workers_;
  std::vector<std::unique_ptr<Slot>> slots_;
  guint next_slot_ = 0;
  gsize slot_bytes_ = 0;
  std::vector<Chunk> chunks_;
  gsize row_bytes_[GST_VIDEO_MAX_PLANES] = {};
};

} // namespace gst_cs

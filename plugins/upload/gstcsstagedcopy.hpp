/* SPDX-License-Identifier: LGPL-2.1-or-later */
// Uploading pageable memory through pinned staging, copied by several
// threads (internal).
#pragma once

#include <memory>
#include <vector>

#include <gst/gst.h>
#include <cuda_runtime_api.h>

#include "upload/gstcscopyworkers.hpp"
#include "base/gstcsframe.hpp"
#include "base/gstcsframespan.hpp"

namespace gst_cs {

struct MemoryUnref {
  void operator() (GstMemory * m) const { gst_memory_unref (m); }
};

// A buffer mapped for reading, kept mapped and referenced for as long as
// anyone (the copy threads, after the element has moved on) holds it.
class MappedInput {
public:
  // nullptr when `buffer` cannot be mapped.
  static std::shared_ptr<MappedInput> map (GstBuffer * buffer);
  ~MappedInput ();
  MappedInput (const MappedInput &) = delete;
  MappedInput & operator= (const MappedInput &) = delete;
  guint8 * data () const { return map_.data; }
  gsize size () const { return map_.size; }

private:
  MappedInput () = default;
  GstBuffer * buffer_ = nullptr;
  GstMapInfo map_{};
};

// CUDA's own copy from pageable memory stages it through one driver thread
// and waits for the stream first. Here copy threads write the frame, in row
// chunks, into pinned staging, and the copy engine reads the staging.
//
// Where the driver lets a stream wait on host memory (host_signal_supported),
// the copy is asynchronous: copy() queues the chunks for the threads,
// enqueues a stream wait on a counter they raise chunk by chunk, then the
// DMA, and returns at once; the threads let go of the input when they have
// read it. The element pushes the frame while its pixels are still being
// copied, and the GPU starts the DMA when they are in: the CPU copy of one
// frame overlaps the DMAs and the rest of the pipeline. At most
// kPendingFrames frames wait for the threads; beyond that copy() waits for
// the oldest (CPU work, no CUDA host wait).
//
// Elsewhere copy() returns when the threads have copied every chunk, each
// thread enqueuing each chunk's DMA as soon as it is in.
//
// Staging is a ring of kSlots frames, allocated at the first frame of a size
// (never per frame); a slot is written again only once the event recorded
// after its DMAs has completed: a free query in steady state, a counted
// host wait when the GPU is that far behind.
class StagedCopy {
public:
  StagedCopy ();
  ~StagedCopy ();
  StagedCopy (const StagedCopy &) = delete;
  StagedCopy & operator= (const StagedCopy &) = delete;

  // Threads copying; 0 picks auto_copy_threads().
  void set_threads (guint threads) { threads_ = threads; }

  // Enqueues on `stream` (of `device`, current on the caller) the copy of
  // `geometry`'s planes from host memory `src`, which lies in `input`, to
  // device memory `dst`. `span`'s work begins with the DMAs: after the
  // stream's wait for the copy threads, which is the frame waiting for its
  // input, as a consumer's wait for its producer is.
  bool copy (const std::shared_ptr<MappedInput> & input, const Planes & src,
      const Planes & dst, const GstVideoInfo * geometry, int device, cudaStream_t stream,
      GstCsWaitCounter * waits, FrameSpan & span, GError ** error);

  // Waits (for the CPU, no CUDA host wait) until the copy threads still
  // read the input of at most `most` frames: for an upstream pool that
  // counts its buffers.
  void finish_reading_to (guint most) { workers_.finish_to (most); }

  // Waits for the copy threads, then for the DMAs still reading staging
  // (counted), stops the threads and frees the staging: at stop.
  bool reset (GstCsWaitCounter * waits, GError ** error);

  static constexpr guint kSlots = 4;
  static constexpr guint kPendingFrames = 2;

private:
  struct Chunk {
    guint plane, row, rows;
    gsize offset; // in the slot
  };
  struct Slot;
  struct Layout;
  bool prepare (const GstVideoInfo * geometry, GstCsWaitCounter * waits, GError ** error);
  bool allocate_slots (gsize bytes, GError ** error);
  bool release_slots (GstCsWaitCounter * waits, GError ** error);
  bool take_slot (Slot ** slot, GstCsWaitCounter * waits, GError ** error);
  bool copy_now (Slot * slot, const Planes & src, const Planes & dst, cudaStream_t stream,
      GError ** error);
  bool copy_later (Slot * slot, guint32 target,
      const std::shared_ptr<MappedInput> & input, const Planes & src, const Planes & dst,
      cudaStream_t stream, GError ** error);

  guint threads_ = 0;
  bool async_ = false;
  CopyWorkers workers_;
  std::vector<std::unique_ptr<Slot>> slots_;
  std::unique_ptr<GstMemory, MemoryUnref> counters_;
  guint next_slot_ = 0;
  gsize slot_bytes_ = 0;
  // The chunks of the current geometry: shared with the jobs still queued.
  std::shared_ptr<const Layout> layout_;
  GstVideoInfo layout_geometry_{};
  guint layout_threads_ = 0;
};

} // namespace gst_cs

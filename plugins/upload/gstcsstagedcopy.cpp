/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "upload/gstcsstagedcopy.hpp"

#include <mutex>

#include "gstcserror-private.h"
#include "upload/gstcshostcopy.hpp"
#include "base/gstcshostsignal.hpp"
#include "gstcshostwait-private.h"
#include "gstcspinnedmemory-private.h"
#include "gstcsvideo-private.h"

GST_DEBUG_CATEGORY_STATIC (gst_cs_staged_copy_debug);
#define GST_CAT_DEFAULT gst_cs_staged_copy_debug

namespace gst_cs {

namespace {

/* A chunk small enough that every thread gets several per frame (a 1080p
 * NV12 frame still splits in 12), large enough that what a chunk costs
 * besides its bytes (a DMA to enqueue, a counter to raise) stays small. */
constexpr gsize kMinChunkBytes = 256 * 1024;
constexpr guint kChunksPerThread = 4;
/* The counters of the slots, one per cache line. */
constexpr gsize kCounterStride = 64;

/* Pinned memory of the project's allocator (whose free is counted), mapped
 * once: it maps to its fixed address, so no unmap is needed to keep it. */
guint8 *
pinned_alloc (std::unique_ptr<GstMemory, MemoryUnref> & memory, gsize bytes)
{
  GstAllocator * pinned = gst_cs_pinned_allocator_get ();
  memory.reset (gst_allocator_alloc (pinned, bytes, NULL));
  gst_object_unref (pinned);
  GstMapInfo map;
  if (!memory || !gst_memory_map (memory.get (), &map, GST_MAP_READWRITE))
    return nullptr;
  /* Pinned memory stays where it is for its whole life, so the pointer
   * outlives the mapping; the map info does not: GStreamer 1.28 clears it
   * on unmap. */
  guint8 * data = map.data;
  gst_memory_unmap (memory.get (), &map);
  return data;
}

} // namespace

std::shared_ptr<MappedInput>
MappedInput::map (GstBuffer * buffer)
{
  std::shared_ptr<MappedInput> in (new MappedInput ());
  if (!gst_buffer_map (buffer, &in->map_, GST_MAP_READ))
    return nullptr;
  in->buffer_ = gst_buffer_ref (buffer);
  return in;
}

MappedInput::~MappedInput ()
{
  if (!buffer_)
    return;
  gst_buffer_unmap (buffer_, &map_);
  gst_buffer_unref (buffer_);
}

/* The chunks of one geometry, packed plane after plane in a slot. */
struct StagedCopy::Layout {
  std::vector<Chunk> chunks;
  guint planes = 0;
  gsize row_bytes[GST_VIDEO_MAX_PLANES] = {};
  guint rows[GST_VIDEO_MAX_PLANES] = {};
  gsize plane_offset[GST_VIDEO_MAX_PLANES] = {};
  gsize total = 0;

  /* Copies chunk `c` of `src` into the slot at `stage`. */
  void stage_chunk (const Chunk & c, guint8 * stage, const Planes & src) const
  {
    const gsize row = row_bytes[c.plane];
    const guint8 * from = src.data[c.plane] + (gsize)c.row * src.stride[c.plane];
    guint8 * to = stage + c.offset;
    if (src.stride[c.plane] == row) {
      copy_to_staging (to, from, row * c.rows);
    } else {
      for (guint r = 0; r < c.rows; r++)
        copy_to_staging (to + r * row, from + r * src.stride[c.plane], row);
    }
  }
};

/* One frame of pinned staging, the event after the last DMA that read it
 * and, for asynchronous copies, the counter its copy threads raise (one per
 * chunk) and the value the stream waits for. */
struct StagedCopy::Slot {
  std::unique_ptr<GstMemory, MemoryUnref> memory;
  guint8 * data = nullptr;
  cudaEvent_t event = nullptr;
  bool recorded = false;
  guint32 * counter = nullptr;
  void * counter_device = nullptr;
  guint32 target = 0;
  ~Slot ()
  {
    if (event)
      (void)cudaEventDestroy (event);
  }
};

StagedCopy::StagedCopy () = default;

StagedCopy::~StagedCopy ()
{
  (void)reset (nullptr, nullptr);
}

bool
StagedCopy::release_slots (GstCsWaitCounter * waits, GError ** error)
{
  /* Queued jobs write into the slots: they finish first. */
  workers_.finish ();
  bool ok = true;
  for (auto & s : slots_)
    if (s->recorded && cudaEventQuery (s->event) == cudaErrorNotReady)
      ok = gst_cs_host_wait_event (s->event, waits, ok ? error : nullptr) && ok;
  (void)cudaGetLastError ();
  slots_.clear ();
  counters_.reset ();
  slot_bytes_ = 0;
  next_slot_ = 0;
  return ok;
}

bool
StagedCopy::reset (GstCsWaitCounter * waits, GError ** error)
{
  const bool ok = release_slots (waits, error);
  layout_.reset ();
  layout_threads_ = 0;
  workers_.stop ();
  return ok;
}

bool
StagedCopy::allocate_slots (gsize bytes, GError ** error)
{
  for (guint i = 0; i < kSlots; i++) {
    auto slot = std::make_unique<Slot> ();
    slot->data = pinned_alloc (slot->memory, bytes);
    if (!slot->data) {
      g_set_error (error, GST_CS_ERROR, GST_CS_ERROR_CUDA,
          "Cannot allocate %" G_GSIZE_FORMAT " bytes of pinned staging", bytes);
      slots_.clear ();
      return false;
    }
    if (!GST_CS_CHECK (
            cudaEventCreateWithFlags (&slot->event, cudaEventDisableTiming), error)) {
      slots_.clear ();
      return false;
    }
    slots_.push_back (std::move (slot));
  }
  slot_bytes_ = bytes;
  /* Counters for streams to wait on: where the driver has the wait and the
   * device can reach the pinned page; else the copies are synchronous. */
  async_ = false;
  guint8 * counters = nullptr;
  void * device = nullptr;
  if (host_signal_supported () &&
      (counters = pinned_alloc (counters_, kSlots * kCounterStride)) &&
      cudaHostGetDevicePointer (&device, counters, 0) == cudaSuccess) {
    for (guint i = 0; i < kSlots; i++) {
      slots_[i]->counter = reinterpret_cast<guint32 *> (counters + i * kCounterStride);
      slots_[i]->counter_device = static_cast<guint8 *> (device) + i * kCounterStride;
      *slots_[i]->counter = 0;
    }
    async_ = true;
  }
  (void)cudaGetLastError ();
  GST_DEBUG ("%u staging slots of %" G_GSIZE_FORMAT " bytes, %s copies", kSlots, bytes,
      async_ ? "asynchronous" : "synchronous");
  return true;
}

/* The chunks of `geometry` packed plane after plane, and staging for them. */
bool
StagedCopy::prepare (
    const GstVideoInfo * geometry, GstCsWaitCounter * waits, GError ** error)
{
  static std::once_flag debug_once;
  std::call_once (debug_once, [] {
    GST_DEBUG_CATEGORY_INIT (
        gst_cs_staged_copy_debug, "csstagedcopy", 0, "gst-cudastreams staged upload");
  });
  const guint threads = workers_.threads ();
  if (!layout_ || threads != layout_threads_ ||
      !gst_video_info_is_equal (geometry, &layout_geometry_)) {
    auto layout = std::make_shared<Layout> ();
    layout->planes = GST_VIDEO_INFO_N_PLANES (geometry);
    for (guint p = 0; p < layout->planes; p++) {
      layout->row_bytes[p] = gst_cs_video_plane_row_bytes (geometry, p);
      layout->rows[p] = gst_cs_video_plane_rows (geometry, p);
      layout->total += layout->row_bytes[p] * layout->rows[p];
    }
    const gsize chunk =
        MAX (kMinChunkBytes, layout->total / (threads * kChunksPerThread));
    gsize offset = 0;
    for (guint p = 0; p < layout->planes; p++) {
      const gsize row = layout->row_bytes[p];
      const guint step = (guint)MAX ((gsize)1, chunk / row);
      layout->plane_offset[p] = offset;
      for (guint r = 0; r < layout->rows[p]; r += step) {
        const guint n = MIN (step, layout->rows[p] - r);
        layout->chunks.push_back ({ p, r, n, offset });
        offset += row * n;
      }
    }
    /* Jobs still queued keep the layout they were cut by. */
    layout_ = std::move (layout);
    layout_geometry_ = *geometry;
    layout_threads_ = threads;
  }
  if (layout_->total <= slot_bytes_)
    return true;
  /* A larger frame (new caps): the old slots may still be read. */
  return release_slots (waits, error) && allocate_slots (layout_->total, error);
}

bool
StagedCopy::take_slot (Slot ** slot, GstCsWaitCounter * waits, GError ** error)
{
  Slot * s = slots_[next_slot_].get ();
  next_slot_ = (next_slot_ + 1) % kSlots;
  if (s->recorded) {
    cudaError_t state = cudaEventQuery (s->event);
    if (state == cudaErrorNotReady) {
      GST_LOG ("staging still read by the GPU: waiting");
      if (!gst_cs_host_wait_event (s->event, waits, error))
        return false;
    } else if (!GST_CS_CHECK (state, error)) {
      return false;
    }
  }
  *slot = s;
  return true;
}

/* The threads copy every chunk and enqueue its DMA; back when all are. */
bool
StagedCopy::copy_now (Slot * slot, const Planes & src, const Planes & dst,
    cudaStream_t stream, GError ** error)
{
  const Layout & layout = *layout_;
  std::mutex first_error_lock;
  GError * first_error = nullptr;
  const bool ok = workers_.run ((guint)layout.chunks.size (), [&] (guint i) {
    const Chunk & c = layout.chunks[i];
    const gsize row = layout.row_bytes[c.plane];
    layout.stage_chunk (c, slot->data, src);
    GError * e = nullptr;
    if (GST_CS_CHECK (cudaMemcpy2DAsync (dst.data[c.plane] +
                                             (gsize)c.row * dst.stride[c.plane],
                          dst.stride[c.plane], slot->data + c.offset, row, row, c.rows,
                          cudaMemcpyHostToDevice, stream),
            &e))
      return true;
    std::lock_guard<std::mutex> g (first_error_lock);
    if (!first_error)
      first_error = e;
    else
      g_error_free (e);
    return false;
  });
  if (!ok)
    g_propagate_error (error, first_error);
  return ok;
}

/* The stream already waits for the slot's counter to reach `target`; the
 * threads copy the chunks, raising it, after copy() has returned. */
bool
StagedCopy::copy_later (Slot * slot, guint32 target,
    const std::shared_ptr<MappedInput> & input, const Planes & src, const Planes & dst,
    cudaStream_t stream, GError ** error)
{
  std::shared_ptr<const Layout> layout = layout_;
  slot->target = target;
  guint8 * stage = slot->data;
  guint32 * counter = slot->counter;
  /* Posted whatever happens next: the stream waits for its chunks. */
  workers_.post ((guint)layout->chunks.size (),
      [layout, stage, counter, src] (guint i) {
        layout->stage_chunk (layout->chunks[i], stage, src);
        raise_host_signal (counter);
        return true;
      },
      [held = input] () mutable { held.reset (); }, kPendingFrames);
  for (guint p = 0; p < layout->planes; p++)
    if (!GST_CS_CHECK (cudaMemcpy2DAsync (dst.data[p], dst.stride[p],
                           stage + layout->plane_offset[p], layout->row_bytes[p],
                           layout->row_bytes[p], layout->rows[p],
                           cudaMemcpyHostToDevice, stream),
            error))
      return false;
  return true;
}

bool
StagedCopy::copy (const std::shared_ptr<MappedInput> & input, const Planes & src,
    const Planes & dst, const GstVideoInfo * geometry, int device, cudaStream_t stream,
    GstCsWaitCounter * waits, FrameSpan & span, GError ** error)
{
  workers_.ensure (threads_ ? threads_ : auto_copy_threads (), device);
  if (!prepare (geometry, waits, error))
    return false;
  Slot * slot = nullptr;
  if (!take_slot (&slot, waits, error))
    return false;
  bool ok;
  GError * refused = nullptr;
  const guint32 target = slot->target + (guint32)layout_->chunks.size ();
  if (async_ &&
      stream_wait_host_signal (stream, slot->counter_device, target, &refused)) {
    span.work_begins ();
    ok = copy_later (slot, target, input, src, dst, stream, error);
  } else {
    if (refused) {
      /* The driver has the call but refuses it here (nothing is queued
       * yet): copy synchronously from now on. */
      GST_INFO (
          "no stream wait on host memory (%s): synchronous copies", refused->message);
      g_clear_error (&refused);
      async_ = false;
    }
    /* The threads enqueue each chunk's DMA as it is in: the span holds
     * their copies too. */
    span.work_begins ();
    ok = copy_now (slot, src, dst, stream, error);
  }
  /* Recorded even after a failure: some DMAs may have been enqueued. */
  slot->recorded =
      GST_CS_CHECK (cudaEventRecord (slot->event, stream), ok ? error : nullptr);
  return ok && slot->recorded;
}

} // namespace gst_cs

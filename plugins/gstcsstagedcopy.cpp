/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "gstcsstagedcopy.hpp"

#include <cstring>
#include <mutex>

#include "gstcserror-private.h"
#include "gstcshostwait-private.h"
#include "gstcspinnedmemory-private.h"
#include "gstcsvideo-private.h"

GST_DEBUG_CATEGORY_STATIC (gst_cs_staged_copy_debug);
#define GST_CAT_DEFAULT gst_cs_staged_copy_debug

namespace gst_cs {

namespace {

/* A chunk small enough that every thread gets several per frame (a 1080p
 * NV12 frame still splits in 12), large enough that enqueuing its DMA
 * (a few microseconds) stays small beside copying it. */
constexpr gsize kMinChunkBytes = 256 * 1024;
constexpr guint kChunksPerThread = 4;

struct MemoryUnref {
  void operator() (GstMemory * m) const { gst_memory_unref (m); }
};

} // namespace

/* One frame of pinned staging (from the project's pinned allocator, whose
 * free is counted) and the event after the last DMA that read it. */
struct StagedCopy::Slot {
  std::unique_ptr<GstMemory, MemoryUnref> memory;
  guint8 * data = nullptr;
  cudaEvent_t event = nullptr;
  bool recorded = false;
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
  bool ok = true;
  for (auto & s : slots_)
    if (s->recorded && cudaEventQuery (s->event) == cudaErrorNotReady)
      ok = gst_cs_host_wait_event (s->event, waits, ok ? error : nullptr) && ok;
  (void)cudaGetLastError ();
  slots_.clear ();
  slot_bytes_ = 0;
  next_slot_ = 0;
  return ok;
}

bool
StagedCopy::reset (GstCsWaitCounter * waits, GError ** error)
{
  const bool ok = release_slots (waits, error);
  chunks_.clear ();
  workers_.stop ();
  return ok;
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
  gsize total = 0;
  const guint planes = GST_VIDEO_INFO_N_PLANES (geometry);
  for (guint p = 0; p < planes; p++)
    total += gst_cs_video_plane_row_bytes (geometry, p) *
             (gsize)gst_cs_video_plane_rows (geometry, p);
  const guint threads = workers_.threads ();
  const gsize chunk = MAX (kMinChunkBytes, total / (threads * kChunksPerThread));
  chunks_.clear ();
  gsize offset = 0;
  for (guint p = 0; p < planes; p++) {
    const gsize row = gst_cs_video_plane_row_bytes (geometry, p);
    const guint rows = gst_cs_video_plane_rows (geometry, p);
    const guint step = (guint)MAX ((gsize)1, chunk / row);
    row_bytes_[p] = row;
    for (guint r = 0; r < rows; r += step) {
      const guint n = MIN (step, rows - r);
      chunks_.push_back ({ p, r, n, offset });
      offset += row * n;
    }
  }
  if (total <= slot_bytes_)
    return true;
  /* A larger frame (new caps): the old slots may still be read. */
  if (!release_slots (waits, error))
    return false;
  GstAllocator * pinned = gst_cs_pinned_allocator_get ();
  for (guint i = 0; i < kSlots; i++) {
    auto slot = std::make_unique<Slot> ();
    slot->memory.reset (gst_allocator_alloc (pinned, total, NULL));
    GstMapInfo map;
    if (!slot->memory || !gst_memory_map (slot->memory.get (), &map, GST_MAP_READWRITE)) {
      g_set_error (error, GST_CS_ERROR, GST_CS_ERROR_CUDA,
          "Cannot allocate %" G_GSIZE_FORMAT " bytes of pinned staging", total);
      gst_object_unref (pinned);
      slots_.clear ();
      return false;
    }
    /* Pinned memory maps to its fixed address: no unmap needed to keep it. */
    slot->data = map.data;
    gst_memory_unmap (slot->memory.get (), &map);
    if (!GST_CS_CHECK (
            cudaEventCreateWithFlags (&slot->event, cudaEventDisableTiming), error)) {
      gst_object_unref (pinned);
      slots_.clear ();
      return false;
    }
    slots_.push_back (std::move (slot));
  }
  gst_object_unref (pinned);
  slot_bytes_ = total;
  GST_DEBUG ("%u staging slots of %" G_GSIZE_FORMAT " bytes, %zu chunks", kSlots, total,
      chunks_.size ());
  return true;
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

bool
StagedCopy::copy_chunk (const Chunk & c, guint8 * stage, const Planes & src,
    const Planes & dst, cudaStream_t stream, GError ** error)
{
  const gsize row = row_bytes_[c.plane];
  const guint8 * from = src.data[c.plane] + (gsize)c.row * src.stride[c.plane];
  guint8 * to = stage + c.offset;
  if (src.stride[c.plane] == row) {
    std::memcpy (to, from, row * c.rows);
  } else {
    for (guint r = 0; r < c.rows; r++)
      std::memcpy (to + r * row, from + r * src.stride[c.plane], row);
  }
  return GST_CS_CHECK (
      cudaMemcpy2DAsync (dst.data[c.plane] + (gsize)c.row * dst.stride[c.plane],
          dst.stride[c.plane], to, row, row, c.rows, cudaMemcpyHostToDevice, stream),
      error);
}

bool
StagedCopy::copy (const Planes & src, const Planes & dst, const GstVideoInfo * geometry,
    int device, cudaStream_t stream, GstCsWaitCounter * waits, GError ** error)
{
  workers_.ensure (threads_ ? threads_ : auto_copy_threads (), device);
  if (!prepare (geometry, waits, error))
    return false;
  Slot * slot = nullptr;
  if (!take_slot (&slot, waits, error))
    return false;
  std::mutex first_error_lock;
  GError * first_error = nullptr;
  const bool ok = workers_.run ((guint)chunks_.size (), [&] (guint i) {
    GError * e = nullptr;
    if (copy_chunk (chunks_[i], slot->data, src, dst, stream, &e))
      return true;
    std::lock_guard<std::mutex> g (first_error_lock);
    if (!first_error)
      first_error = e;
    else
      g_error_free (e);
    return false;
  });
  /* Recorded even after a failure: some chunks may have been enqueued. */
  slot->recorded =
      GST_CS_CHECK (cudaEventRecord (slot->event, stream), ok ? error : nullptr);
  if (!ok) {
    g_propagate_error (error, first_error);
    return false;
  }
  return slot->recorded;
}

} // namespace gst_cs

/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "convert/gstcsconvertlines.hpp"

#include <cstring>
#include <type_traits>

#include "convert_scale_addresses.h"
#include "gstcserror-private.h"
#include "gstcsmemory.h"
#include "gstcssyncmeta.h"

#define GST_CAT_DEFAULT category_

namespace gst_cs {

gpu::ConvertScale
ConvertLines::stripped (const gpu::ConvertScale & op)
{
  /* As bytes, padding included: the memo's description keeps its own
   * from one frame to the next, so a description compares equal to
   * itself. */
  gpu::ConvertScale s;
  std::memcpy (static_cast<void *> (&s), &op, sizeof s);
  gpu::each_address (s, [] (auto *& p, bool) { p = nullptr; });
  gpu::convert_scale_point_lines (&s, nullptr);
  return s;
}

void
ConvertLines::reset ()
{
  /* The pool's memory is freed by cudaFree, which waits for the device:
   * no kernel of ours reads it any more. */
  if (table_)
    gst_buffer_unref (table_);
  table_ = nullptr;
  device_table_ = nullptr;
  bytes_ = 0;
  filled_ = false;
  settled_ = false;
  stream_ = nullptr;
  pool_.reset ();
}

bool
ConvertLines::take (gsize bytes, gint device, cudaStream_t stream)
{
  if (table_ && bytes_ == bytes)
    return true;
  /* Another size: the old table back first, so that the pool may free
   * it when it reconfigures (cudaFree, which waits for the device: once
   * per such caps change, as the output pool's own reconfiguring). */
  if (table_)
    gst_buffer_unref (table_);
  table_ = nullptr;
  device_table_ = nullptr;
  filled_ = false;
  GError * err = NULL;
  GstBuffer * buf = pool_.bytes (device, bytes, &err);
  if (buf && !gst_cs_buffer_wait_writable (buf, stream, &err)) {
    gst_buffer_unref (buf);
    buf = nullptr;
  }
  if (!buf) {
    GST_WARNING_OBJECT (owner_,
        "No taps table of %" G_GSIZE_FORMAT " bytes (%s): the kernel computes its taps",
        bytes, err ? err->message : "unknown error");
    g_clear_error (&err);
    pool_.reset ();
    return false;
  }
  table_ = buf;
  bytes_ = bytes;
  device_table_ = gst_cs_memory_get_device_pointer (gst_buffer_peek_memory (buf, 0));
  return true;
}

void
ConvertLines::point (gpu::ConvertScale * op, const void * table)
{
  gpu::convert_scale_point_lines (op, table);
  repointed_ = true;
}

bool
ConvertLines::attach (
    gpu::ConvertScale * op, bool moved, gint device, cudaStream_t stream, GError ** error)
{
  repointed_ = false;
  if (op->fixed.lines_on) {
    if (op->fixed.lines == device_table_)
      return true;
    /* Pointed at a table given back since (reset): never read it. */
    point (op, nullptr);
    settled_ = false;
  }
  if (!moved) {
    /* A description's first frame: it may last no longer. */
    settled_ = false;
    return true;
  }
  if (settled_)
    return true;
  settled_ = true;
  const gsize bytes = gpu::convert_scale_lines_bytes (*op);
  if (bytes == 0 || !take (bytes, device, stream))
    return true;
  const gpu::ConvertScale s = stripped (*op);
  /* The base class leases one stream from start to stop, so the stream
   * orders the table's filling and reads. Another stream could refill it
   * while the first one's kernels still read it: frames run without it
   * then (that would be a change of the rule, to be ordered first). */
  if (filled_ && stream_ != stream) {
    GST_WARNING_OBJECT (owner_, "A new stream: the kernel computes its taps");
    return true;
  }
  const bool same = filled_ && std::memcmp (static_cast<const void *> (&s),
                                   static_cast<const void *> (&held_), sizeof s) == 0;
  point (op, device_table_);
  if (same)
    return true;
  filled_ = false;
  const cudaError_t status = gpu::convert_scale_fill_lines (*op, stream);
  if (status != cudaSuccess) {
    point (op, nullptr);
    g_set_error (error, GST_CS_ERROR, GST_CS_ERROR_CUDA,
        "Cannot launch the taps-table kernel (%" G_GSIZE_FORMAT
        " bytes, %dx%d -> %dx%d): "
        "%s",
        bytes, op->in.width, op->in.height, op->out.width, op->out.height,
        cudaGetErrorString (status));
    return false;
  }
  std::memcpy (static_cast<void *> (&held_), &s, sizeof s);
  stream_ = stream;
  filled_ = true;
  GST_INFO_OBJECT (owner_, "filled taps table, %" G_GSIZE_FORMAT " bytes", bytes);
  return true;
}

} // namespace gst_cs

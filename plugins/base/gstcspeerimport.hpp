/* SPDX-License-Identifier: LGPL-2.1-or-later */
// Frames that arrive in another device's memory (internal to the plugin).
#pragma once

#include <gst/gst.h>
#include <cuda_runtime_api.h>

#include "base/gstcsscratchpool.hpp"
#include "gstcshostwait.h"

namespace gst_cs {

// Whether `buffer` is one block of device memory (ours or nvcodec's) on a device
// other than `device`.
bool on_other_device (GstBuffer * buffer, gint device);

// The policy for frames from another device: copy them across. Copies the
// device memory of `buffer` (see on_other_device) as it is into memory of
// `device` from `pool`, on `stream`, once the producer's event is complete
// (a GPU-side wait; CUDA lets a stream wait on another device's event). The
// copy is a peer copy where the two devices allow it, else CUDA stages it
// through host memory. `*local` gets the same frame on `device`: the same
// layout and metas (video, crop, timestamps), its own sync meta; the
// original's memory gets our copy as a reader. Blocks the CPU only where
// nvcodec's memory of another device is still being written on a stream
// of its own (GStreamer >= 1.24: nvcodec's own sync), counted in `waits`
// (the element's counter).
bool import_from_other_device (GstBuffer * buffer, gint device, cudaStream_t stream,
    ScratchPool & pool, GstCsWaitCounter * waits, GstBuffer ** local, GError ** error);

} // namespace gst_cs

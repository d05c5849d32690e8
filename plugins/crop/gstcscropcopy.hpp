/* SPDX-License-Identifier: LGPL-2.1-or-later */
// Copying a region of a device frame with the plane-copy kernel (internal to
// the plugin).
#pragma once

#include <gst/video/video.h>
#include <cuda_runtime_api.h>

#include "base/gstcsframe.hpp"

namespace gst_cs {

// Enqueues on `stream` one kernel that copies `region` of the frame at device
// address `src` into the packed planes of `dst_layout` at device address
// `dst`, exactly as videocrop copies it (the packed 4:2:2 shift at odd
// columns included). Never blocks.
bool launch_region_copy (const guint8 * src, const Region & region, guint8 * dst,
    const GstVideoInfo * dst_layout, cudaStream_t stream, GError ** error);

} // namespace gst_cs

/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "crop/gstcscropcopy.hpp"

#include "gstcserror-private.h"
#include "plane_copy.h"

namespace gst_cs {

bool
launch_region_copy (const guint8 * src, const Region & region, guint8 * dst,
    const GstVideoInfo * dst_layout, cudaStream_t stream, GError ** error)
{
  gpu::PlaneCopy copies[gpu::kMaxPlanes];
  const GstVideoInfo * frame = &region.frame;
  const guint n = GST_VIDEO_INFO_N_PLANES (frame);
  for (guint p = 0; p < n; p++) {
    const GstCsCropPlane & plane = region.planes[p];
    copies[p].src = src + frame->offset[p] + plane.offset;
    copies[p].src_pitch = frame->stride[p];
    copies[p].dst = dst + dst_layout->offset[p];
    copies[p].dst_pitch = dst_layout->stride[p];
    copies[p].row_bytes = plane.row_bytes;
    copies[p].rows = plane.rows;
    copies[p].shift_first = plane.shift_first;
    copies[p].shift_end = plane.shift_end;
    copies[p].shift_step = plane.shift_step;
  }
  return GST_CS_CHECK (gpu::copy_planes (copies, (int)n, stream), error);
}

} // namespace gst_cs

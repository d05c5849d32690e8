/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* For the stand-in's kernel twins: whether a launch on the current device
 * may touch every byte a picture's components lie in, as a GPU's memory
 * protection would have it (convert_scale_twin.cpp, batch_convert_twin.cpp). */
#pragma once

#include "convert_scale.h"
#include "fakecuda.h"

namespace gst_cs::gpu {

/* Every byte of every row a component of `im` lies in. */
inline bool
twin_may_access_image (const Image & im)
{
  for (const Component & c : im.comp) {
    if (c.plane < 0)
      continue;
    const int w = (im.width + (1 << c.log2_x) - 1) >> c.log2_x;
    const int h = (im.height + (1 << c.log2_y) - 1) >> c.log2_y;
    /* The last sample's place: samples in pairs lie closer (IYU1). */
    const std::size_t last = c.pair_step ? (std::size_t) ((w - 1) >> 1) * c.step +
                                               (std::size_t) ((w - 1) & 1) * c.pair_step
                                         : (std::size_t) (w - 1) * c.step;
    const std::size_t row = last + c.offset + (c.word ? c.word : im.bytes);
    for (int y = 0; y < h; y++)
      if (!fakecuda_kernel_may_access (im.data[c.plane] + y * im.pitch[c.plane], row))
        return false;
  }
  /* A palette's 256 entries of 4 bytes, one a row. */
  return !im.palette || fakecuda_kernel_may_access (im.data[1], 255 * im.pitch[1] + 4);
}

} // namespace gst_cs::gpu

/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "batch_normalize.h"

#include "batch_normalize_pixels.h"

namespace gst_cs::gpu {

bool
batch_normalize_is_valid (const BatchNormalize & op)
{
  if (!op.src || !op.dst || op.batch <= 0 || op.width <= 0 || op.height <= 0)
    return false;
  if (op.type != TensorType::FLOAT16 && op.type != TensorType::FLOAT32)
    return false;
  const unsigned long long elements =
      (unsigned long long)op.batch * 3ull * (unsigned long long)op.width * op.height;
  return op.batch <= 65535 && elements <= (1ull << 31);
}

bool
batch_normalize_on_host (const BatchNormalize & op)
{
  if (!batch_normalize_is_valid (op))
    return false;
  const std::size_t plane = (std::size_t)op.width * op.height;
  for (int n = 0; n < op.batch; n++)
    for (std::size_t p = 0; p < plane; p++) {
      if (op.type == TensorType::FLOAT16)
        batch::normalize_pixel<std::uint16_t> (op, n, p, plane);
      else
        batch::normalize_pixel<float> (op, n, p, plane);
    }
  return true;
}

} // namespace gst_cs::gpu

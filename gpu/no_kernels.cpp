/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The kernels' entry points in a build without kernels (meson option
 * gpu_kernels=false: a build whose tests run on the CUDA stand-in, which
 * has CPU twins of its own). Each fails as a launch would, so an element
 * that reaches one on a real GPU posts an error instead of leaving its
 * output unwritten. */
#include "batch_convert.h"
#include "batch_normalize.h"
#include "convert_scale.h"
#include "plane_copy.h"

namespace gst_cs::gpu {

cudaError_t
copy_planes (const PlaneCopy *, int, cudaStream_t)
{
  return cudaErrorNotSupported;
}

cudaError_t
convert_scale (const ConvertScale &, cudaStream_t)
{
  return cudaErrorNotSupported;
}

cudaError_t
convert_scale_resolved (const ConvertScale &, cudaStream_t, ConvertTicket *)
{
  return cudaErrorNotSupported;
}

cudaError_t
convert_scale_fill_lines (const ConvertScale &, cudaStream_t)
{
  return cudaErrorNotSupported;
}

cudaError_t
batch_normalize (const BatchNormalize &, cudaStream_t)
{
  return cudaErrorNotSupported;
}

cudaError_t
batch_convert_launch (const BatchConvert &, cudaStream_t)
{
  return cudaErrorNotSupported;
}

} // namespace gst_cs::gpu

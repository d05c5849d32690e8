/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "convert_scale.h"

#include "convert_scale_kernels.cuh"
#include "convert_scale_path.h"
#include "driver_launch.h"

namespace gst_cs::gpu {
namespace {

/* The tap-tile instance of F from IB-byte samples into op's output. */
template <Filter F, int IB>
void
tap_tile_into (const ConvertScale & op, kernels::Launch & at)
{
  if (op.out.bytes == 2)
    return kernels::launch_tap_tile<F, IB, 2> (op, at);
  kernels::launch_tap_tile<F, IB, 1> (op, at);
}

/* Launches the kernel instance that computes resolved `op` fastest, of
 * the family that choose_path names. */
void
launch (const ConvertScale & op, kernels::Launch & at)
{
  using namespace kernels;
  const bool wide = op.in.bytes == 2;
  switch (choose_path (op)) {
    case Path::DIRECT:
      return launch_direct (op, at);
    case Path::STAGED:
      return launch_staged (op, at);
    case Path::ONE_SAMPLE:
      return launch_one_sample (op, at);
    case Path::FIXED_POINT:
      return launch_fixed_point (op, at);
    case Path::FIXED_TAPS:
      return launch_fixed_taps (op, at);
    case Path::PLANES:
      return launch_planes (op, at);
    case Path::TWO_TAP:
      if (op.filter == Filter::NEAREST)
        return wide ? launch_two_tap<Filter::NEAREST, 2> (op, at)
                    : launch_two_tap<Filter::NEAREST, 1> (op, at);
      return wide ? launch_two_tap<Filter::BILINEAR, 2> (op, at)
                  : launch_two_tap<Filter::BILINEAR, 1> (op, at);
    case Path::TAP_TILE:
      if (op.filter == Filter::BICUBIC)
        return wide ? tap_tile_into<Filter::BICUBIC, 2> (op, at)
                    : tap_tile_into<Filter::BICUBIC, 1> (op, at);
      return wide ? tap_tile_into<Filter::AREA, 2> (op, at)
                  : tap_tile_into<Filter::AREA, 1> (op, at);
    case Path::TAPS_PER_PIXEL:
      return dispatch_taps_per_pixel (op, [&] (auto f, auto ib, auto ob) {
        launch_taps_per_pixel<decltype (f)::value, decltype (ib)::value,
            decltype (ob)::value> (op, at);
      });
  }
}

} // namespace

cudaError_t
convert_scale (const ConvertScale & op, cudaStream_t stream)
{
  ConvertScale resolved;
  if (!convert_scale_resolve (op, &resolved))
    return cudaErrorInvalidValue;
  return convert_scale_resolved (resolved, stream);
}

cudaError_t
convert_scale_resolved (
    const ConvertScale & resolved, cudaStream_t stream, ConvertTicket * ticket)
{
  kernels::Launch at;
  at.stream = stream;
  at.ticket = ticket;
  at.context = driver::current_context ();
  launch (resolved, at);
  /* The launch's own status (start ()): a launch the driver reported made
   * needs no cudaGetLastError more. */
  return at.status;
}

cudaError_t
convert_scale_fill_lines (const ConvertScale & pointed, cudaStream_t stream)
{
  if (!convert_scale_lines_pointed (pointed))
    return cudaErrorInvalidValue;
  kernels::launch_quad_lines (pointed, stream);
  return cudaGetLastError ();
}

} // namespace gst_cs::gpu

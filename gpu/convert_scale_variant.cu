/* SPDX-License-Identifier: LGPL-2.1-or-later */
// One instance of a resampling family, chosen by the build (gpu/meson.build
// compiles this file once per instance, in parallel): GCS_TWO_TAP_FILTER
// and GCS_SAMPLE_BYTES for the two-tap family, GCS_TAP_TILE_FILTER,
// GCS_SAMPLE_BYTES and GCS_OUT_BYTES for the tap-tile one (bicubic, area
// shrinking; GCS_TAP_TILE_SUMS 1: bicubic's tiles with a table of row
// sums, in a unit of their own; GCS_TAP_TILE_ANY 1: the generic members'
// kernel of such an instance alone, 2: the rest of it), or
// GCS_TAPS_FILTER, GCS_SAMPLE_BYTES and GCS_OUT_BYTES for the
// taps-per-pixel one (area shrinking further; 0 bytes: the generic path,
// any filter).
#define GCS_DEFINE_LAUNCHES
#include "convert_scale_kernels.cuh"

namespace gst_cs::gpu::kernels {

#if defined(GCS_TWO_TAP_FILTER)
template void launch_two_tap<Filter::GCS_TWO_TAP_FILTER, GCS_SAMPLE_BYTES> (
    const ConvertScale & op, Launch & at);
#endif
#if defined(GCS_TAP_TILE_FILTER)
#if !defined(GCS_TAP_TILE_SUMS)
#define GCS_TAP_TILE_SUMS 0
#endif
#if !defined(GCS_TAP_TILE_ANY)
#define GCS_TAP_TILE_ANY 0
#endif
#define GCS_TAP_TILE_OF(...) \
  launch_tap_tile_of<Filter::GCS_TAP_TILE_FILTER, GCS_SAMPLE_BYTES, GCS_OUT_BYTES, \
      GCS_TAP_TILE_SUMS != 0, __VA_ARGS__> (const ConvertScale & op, Launch & at)
#if GCS_TAP_TILE_ANY == 1
/* The generic members' kernel alone (the largest of the instance). */
template bool GCS_TAP_TILE_OF (two_tap::AnyMembers);
#else
#if GCS_TAP_TILE_ANY == 2
/* Instantiated in the unit of GCS_TAP_TILE_ANY 1, not here. */
extern template bool GCS_TAP_TILE_OF (two_tap::AnyMembers);
#endif
#if GCS_TAP_TILE_SUMS
template bool
launch_tap_tile_sums<Filter::GCS_TAP_TILE_FILTER, GCS_SAMPLE_BYTES, GCS_OUT_BYTES, true> (
    const ConvertScale & op, Launch & at);
#else
/* Instantiated in the unit of GCS_TAP_TILE_SUMS 1, not here. */
extern template bool
launch_tap_tile_sums<Filter::GCS_TAP_TILE_FILTER, GCS_SAMPLE_BYTES, GCS_OUT_BYTES, true> (
    const ConvertScale & op, Launch & at);
template void
launch_tap_tile<Filter::GCS_TAP_TILE_FILTER, GCS_SAMPLE_BYTES, GCS_OUT_BYTES> (
    const ConvertScale & op, Launch & at);
#endif
#endif
#endif
#if defined(GCS_TAPS_FILTER)
template void
launch_taps_per_pixel<Filter::GCS_TAPS_FILTER, GCS_SAMPLE_BYTES, GCS_OUT_BYTES> (
    const ConvertScale & op, Launch & at);
#endif

} // namespace gst_cs::gpu::kernels

/* SPDX-License-Identifier: LGPL-2.1-or-later */
// One instance of a resampling family, chosen by the build (gpu/meson.build
// compiles this file once per instance, in parallel): GCS_TWO_TAP_FILTER
// and GCS_SAMPLE_BYTES for the two-tap family, GCS_TAP_TILE_FILTER,
// GCS_SAMPLE_BYTES and GCS_OUT_BYTES for the tap-tile one (bicubic, area
// shrinking; GCS_TAP_TILE_SUMS 1: bicubic's tiles with a table of row
// sums, in a unit of their own), or GCS_TAPS_FILTER, GCS_SAMPLE_BYTES and
// GCS_OUT_BYTES for the taps-per-pixel one (area shrinking further; 0
// bytes: the generic path, any filter).
#define GCS_DEFINE_LAUNCHES
#include "convert_scale_kernels.cuh"

namespace gst_cs::gpu::kernels {

#if defined(GCS_TWO_TAP_FILTER)
template void launch_two_tap<Filter::GCS_TWO_TAP_FILTER, GCS_SAMPLE_BYTES> (
    const ConvertScale & op, Launch & at);
#endif
#if defined(GCS_TAP_TILE_FILTER) && GCS_TAP_TILE_SUMS
template bool
launch_tap_tile_sums<Filter::GCS_TAP_TILE_FILTER, GCS_SAMPLE_BYTES, GCS_OUT_BYTES, true> (
    const ConvertScale & op, Launch & at);
#elif defined(GCS_TAP_TILE_FILTER)
/* Instantiated in the unit of GCS_TAP_TILE_SUMS 1, not here. */
extern template bool
launch_tap_tile_sums<Filter::GCS_TAP_TILE_FILTER, GCS_SAMPLE_BYTES, GCS_OUT_BYTES, true> (
    const ConvertScale & op, Launch & at);
template void
launch_tap_tile<Filter::GCS_TAP_TILE_FILTER, GCS_SAMPLE_BYTES, GCS_OUT_BYTES> (
    const ConvertScale & op, Launch & at);
#endif
#if defined(GCS_TAPS_FILTER)
template void
launch_taps_per_pixel<Filter::GCS_TAPS_FILTER, GCS_SAMPLE_BYTES, GCS_OUT_BYTES> (
    const ConvertScale & op, Launch & at);
#endif

} // namespace gst_cs::gpu::kernels

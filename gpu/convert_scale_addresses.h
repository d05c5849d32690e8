/* SPDX-License-Identifier: LGPL-2.1-or-later */
// Where a resolved description's frames lie: the fields of ConvertScale
// that point into the input or the output frame. The rest describes the
// conversion and is the same for every frame of one pair of caps, which
// is what a kernel compiled for one conversion takes as constants
// (convert_scale_rtc.cpp).
#pragma once

#include "convert_scale.h"

#if defined(__CUDACC__)
#define GCS_ADDRESS_HD __host__ __device__ __forceinline__
#else
#define GCS_ADDRESS_HD inline
#endif

namespace gst_cs::gpu {

// Calls fn (a's field, b's field, input) for every field that points into
// a frame, `input` true for the input's. A field added to ConvertScale that
// points into a frame must be listed here: the size check beside
// convert_scale_move makes whoever adds one look.
template <class A, class B, class Fn>
GCS_ADDRESS_HD void
each_address_pair (A & a, B & b, Fn fn)
{
  for (int k = 0; k < kConvertPlanes; k++) {
    fn (a.in.data[k], b.in.data[k], true);
    fn (a.out.data[k], b.out.data[k], false);
  }
  for (int c = 0; c < 4; c++) {
    fn (a.in.comp[c].base, b.in.comp[c].base, true);
    fn (a.out.comp[c].base, b.out.comp[c].base, false);
  }
  for (int w = 0; w < 2; w++)
    fn (a.in_words[w].base, b.in_words[w].base, true);
  fn (a.fixed.luma, b.fixed.luma, true);
  fn (a.fixed.chroma, b.fixed.chroma, true);
}

// Calls fn (a's field, b's field) for every field that points to memory
// of the description's own, not a frame's (the table of taps, which
// convert_scale_point_lines sets): convert_scale_move leaves them where
// they are, and a kernel compiled for a description takes them from the
// launch as it takes the frames' (take_addresses), so that one compiled
// kernel serves every table.
template <class A, class B, class Fn>
GCS_ADDRESS_HD void
each_table_address_pair (A & a, B & b, Fn fn)
{
  fn (a.fixed.lines, b.fixed.lines);
}

// Calls fn (field, input) for every field of `op` that points into a frame.
template <class Op, class Fn>
GCS_ADDRESS_HD void
each_address (Op & op, Fn fn)
{
  each_address_pair (op, op, [&] (auto & p, auto &, bool input) { fn (p, input); });
}

// `to` with the addresses of `from`, the frames' and the tables': a
// description compiled in (all but its addresses) applied to the memory
// of a launch.
GCS_ADDRESS_HD void
take_addresses (ConvertScale & to, const ConvertScale & from)
{
  each_address_pair (to, from, [] (auto & t, const auto & f, bool) { t = f; });
  each_table_address_pair (to, from, [] (auto & t, const auto & f) { t = f; });
}

} // namespace gst_cs::gpu

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The plain CPU twin: every block in turn, as the per-pixel kernels (the
 * taps-per-pixel path) compute it, and the fixed-point arithmetic without
 * tiles (convert_scale_host_twin.h). */
#include "convert_scale_host_twin.h"

namespace gst_cs::gpu::twin {

/* The twin on a resolved, valid `op`. */
void
plain (const ConvertScale & op)
{
  if (op.fixed.on && op.fixed.taps == 4) {
    fixed_point::dispatch_quad_filter (op, [&] (auto f) {
      fixed_point::dispatch_word (op, [&] (auto word) {
        each_block (op, [&] (int bx, int by) {
          fixed_point::write_quad_twin<decltype (f)::value, decltype (word)::value> (
              op, bx, by);
        });
      });
    });
    return;
  }
  if (op.fixed.on) { /* a block is a pixel where !op.fixed.blocks */
    two_tap::dispatch_filter (op, [&] (auto f) {
      fixed_point::dispatch_word<true, true> (op, [&] (auto word) {
        constexpr Filter F = decltype (f)::value;
        constexpr int Word = decltype (word)::value;
        each_block (op, [&] (int bx, int by) {
          if (op.fixed.blocks)
            fixed_point::write_block_twin<F, Word> (op, bx, by);
          else
            fixed_point::write_pixel<F, Word> (op, bx, by);
        });
      });
    });
    return;
  }
  pixels::dispatch (op, [&] (auto f, auto ib, auto ob) {
    each_block (op, [&] (int bx, int by) {
      pixels::write_block<decltype (f)::value, decltype (ib)::value,
          decltype (ob)::value> (op, bx, by);
    });
  });
}

} // namespace gst_cs::gpu::twin

/* SPDX-License-Identifier: LGPL-2.1-or-later */
// cudaconvertscale's table of taps per output line (internal): the device
// memory a resolved description of the fixed-point kernels of four taps
// points to (gpu::convert_scale_point_lines), filled once per description
// on the element's stream, so that the kernel's tiles copy their taps
// instead of computing them again, each of its ~1,000 tiles (4K -> 1080p).
#pragma once

#include <gst/gst.h>

#include <cuda_runtime_api.h>

#include "base/gstcsscratchpool.hpp"
#include "convert_scale.h"

namespace gst_cs {

class ConvertLines {
public:
  // Logs into `category` (the element's) about `owner`.
  ConvertLines (GstDebugCategory * category, GstObject * owner)
      : category_ (category), owner_ (owner)
  {}
  ~ConvertLines () { reset (); }
  ConvertLines (const ConvertLines &) = delete;
  ConvertLines & operator= (const ConvertLines &) = delete;

  // Points `op` (the memo's, ConvertMemo::resolve) at the table where its
  // kernel reads one, filling it on `stream` first where it holds another
  // description's. Only from a description's second frame (`moved`): a
  // description that lasts one frame (a crop moving every frame) costs no
  // launch more. One branch where `op` has its table already. Memory is
  // taken when a description needs another size of table, and kept; where
  // it cannot be, the frame runs without (a warning). False with `error`
  // set where the filling cannot be launched.
  bool attach (gpu::ConvertScale * op, bool moved, gint device, cudaStream_t stream,
      GError ** error);

  // Whether the last attach () changed `op` (pointed it at the table or off
  // it): a description other than the memo's moves make
  // (ConvertMemo::changed).
  bool repointed () const { return repointed_; }

  // Gives the memory back (at stop; the next frame of a description
  // fills again).
  void reset ();

private:
  // The description the table holds the taps of, addresses and table
  // fields cleared, compared as bytes.
  static gpu::ConvertScale stripped (const gpu::ConvertScale & op);
  // gpu::convert_scale_point_lines, noted (repointed ()).
  void point (gpu::ConvertScale * op, const void * table);
  bool take (gsize bytes, gint device, cudaStream_t stream);

  GstDebugCategory * category_;
  GstObject * owner_;
  ScratchPool pool_;
  GstBuffer * table_ = nullptr; // of pool_, held
  gsize bytes_ = 0;
  void * device_table_ = nullptr;
  bool filled_ = false;      // with the taps of `held_` on `stream_`
  gpu::ConvertScale held_{}; // stripped ()
  cudaStream_t stream_ = nullptr;
  // The description at hand was dealt with (pointed, or left without a
  // table): the memo's next moves keep what was decided.
  bool settled_ = false;
  bool repointed_ = false;
};

} // namespace gst_cs

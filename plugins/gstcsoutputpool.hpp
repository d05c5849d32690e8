/* SPDX-License-Identifier: LGPL-2.1-or-later */
// The pool of frames an element writes into (internal): ours, or nvcodec's
// memory where downstream takes that.
#pragma once

#include <gst/gst.h>

namespace gst_cs {

// A configured pool of `caps` frames of `size` bytes, `min`..`max`, on
// `device`: nvcodec's (from downstream's ALLOCATION `query` where it offers
// one) when `nvcodec`, else ours with video metas. NULL after posting an
// error on `element`.
GstBufferPool * output_pool_new (GstElement * element, gint device, GstCaps * caps,
    guint size, guint min, guint max, GstQuery * query, bool nvcodec);

// Activates `pool` unless it is active; false after posting an error on
// `element` saying why the frames could not be allocated.
bool activate_output_pool (GstElement * element, GstBufferPool * pool);

} // namespace gst_cs

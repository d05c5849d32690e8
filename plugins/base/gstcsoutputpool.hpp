/* SPDX-License-Identifier: LGPL-2.1-or-later */
// The pool of frames an element writes into (internal): ours, or nvcodec's
// memory where downstream takes that.
#pragma once

#include <gst/gst.h>

#include "base/gstcsbasetransform.h"

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

// decide_allocation of an element that writes frames of its own only where
// it cannot pass its input on: a pool (output_pool_new) for the caps of
// downstream's ALLOCATION `query`, on the element's device, of at least
// `min_buffers` and of what downstream holds, bounded only where
// downstream bounds what it holds (plus the one being written). It goes
// first in `query` and into `*pool`, not yet active: the element activates
// it where frames will need it (activate_output_pool). Ours hands frames
// out last-released first where only the element's stream still has the
// frame in flight (gst_cs_buffer_pool_set_writer_stream). False where the
// caps are not raw video or after posting an error.
bool decide_output_pool (GstCsBaseTransform * base, GstQuery * query, guint min_buffers,
    bool nvcodec, GstBufferPool ** pool);

// A frame of `pool` for `trans` to write, the pool activated on first need,
// with the timestamps, flags and metas of `source` that still describe it.
// GST_FLOW_ERROR without a pool, or after posting why it cannot be active or
// could not allocate the frame.
GstFlowReturn acquire_output_frame (GstBaseTransform * trans, GstBufferPool * pool,
    GstBuffer * source, GstBuffer ** outbuf);

} // namespace gst_cs

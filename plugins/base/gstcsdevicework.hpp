/* SPDX-License-Identifier: LGPL-2.1-or-later */
// One frame's GPU work from an input buffer into an output buffer, on the
// element's stream, ordered by the event protocol (internal).
#pragma once

#include <type_traits>

#include "base/gstcsbasetransform.h"

namespace gst_cs {

// Enqueues the work on `stream` reading device memory at `in`, writing at
// `out`; never blocks. False with `error` set when it cannot. A reference
// to the caller's callable, which outlives the call: a std::function
// copied the lambda to the heap, one allocation and free every frame.
class EnqueueWork {
public:
  template <class F,
      class = std::enable_if_t<!std::is_same_v<std::decay_t<F>, EnqueueWork>>>
  EnqueueWork (const F & f)
      : callable_ (&f), call_ ([] (const void * c, guint8 * in, guint8 * out,
                                   cudaStream_t stream, GError ** error) {
          return (*static_cast<const F *> (c)) (in, out, stream, error);
        })
  {}
  bool operator() (guint8 * in, guint8 * out, cudaStream_t stream, GError ** error) const
  {
    return call_ (callable_, in, out, stream, error);
  }

private:
  const void * callable_;
  bool (*call_) (const void *, guint8 *, guint8 *, cudaStream_t, GError **);
};

// Maps `inbuf` and `outbuf` on the element's device, makes its stream wait
// (on the GPU) for the input's producer and for the output memory's
// previous readers, runs `enqueue`, records the output's event, hands the
// output on to nvcodec where it is nvcodec's memory, and registers the read
// of the input with its pool. nvcodec input is not registered: the caller
// holds it until the work is done.
bool run_device_work (GstCsBaseTransform * base, GstBuffer * inbuf, GstBuffer * outbuf,
    const EnqueueWork & enqueue, GError ** error);

} // namespace gst_cs

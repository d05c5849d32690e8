/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "gstcsstreamwait-private.h"

#include "gstcserror-private.h"
#include "gstcsevent.hpp"

/**
 * gst_cs_stream_wait_stream:
 * @device: the CUDA device of @producer
 * @waiter: the stream that must wait, of any device (CUDA lets a stream wait
 *   for another device's event)
 * @producer: a stream of @device whose work so far @waiter must follow
 * @error: where a CUDA failure is described
 *
 * Makes @waiter wait on the GPU for everything enqueued on @producer up to
 * now: a pooled event recorded on @producer, waited on by @waiter. The CPU
 * does not wait. The event goes back to its pool at once: a stream waits
 * for the record that was current when the wait was enqueued, whatever is
 * recorded on the event later.
 *
 * Returns: %TRUE when the wait is enqueued (or @waiter is @producer).
 */
gboolean
gst_cs_stream_wait_stream (
    gint device, cudaStream_t waiter, cudaStream_t producer, GError ** error)
{
  if (waiter == producer)
    return TRUE;
  gst_cs::EventRef event (
      gst_cs::Event::acquire (device, gst_cs::Event::Waiter::GPU, error));
  return event && event->record (producer, error) &&
         GST_CS_CHECK (cudaStreamWaitEvent (waiter, event->handle (), 0), error);
}

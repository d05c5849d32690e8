/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "gstcshostwait-private.h"

#include <atomic>
#include <chrono>

#include "gstcserror-private.h"

namespace {
std::atomic<guint64> total_waits{ 0 };
std::atomic<GstCsHostWaitHook> before_wait{ nullptr };

/* Every host wait passes here before it blocks. */
void
count (GstCsWaitCounter * counter)
{
  if (GstCsHostWaitHook hook = before_wait.load (std::memory_order_acquire))
    hook ();
  total_waits.fetch_add (1, std::memory_order_relaxed);
  if (counter)
    __atomic_fetch_add (&counter->waits, 1, __ATOMIC_RELAXED);
}
} // namespace

/**
 * gst_cs_wait_counter_get:
 * @counter: a counter
 *
 * Returns: the host waits counted in @counter so far
 *
 * Since: 0.1
 */
guint64
gst_cs_wait_counter_get (const GstCsWaitCounter * counter)
{
  g_return_val_if_fail (counter != NULL, 0);
  return __atomic_load_n (&counter->waits, __ATOMIC_RELAXED);
}

/**
 * gst_cs_wait_counter_reset:
 * @counter: a counter
 *
 * Sets @counter back to zero.
 */
void
gst_cs_wait_counter_reset (GstCsWaitCounter * counter)
{
  g_return_if_fail (counter != NULL);
  __atomic_store_n (&counter->waits, 0, __ATOMIC_RELAXED);
}

/* A blocking-sync event puts the waiting thread to sleep, and waking it costs
 * tens of microseconds: a lot for a 1080p frame that moves in 60. Work that
 * is nearly done is cheaper to poll for briefly first. */
static constexpr std::chrono::microseconds kPollBeforeSleep{ 30 };

/**
 * gst_cs_host_wait_event:
 * @event: a recorded CUDA event
 * @counter: (nullable): the owner's counter
 * @error: (out) (optional): the CUDA error
 *
 * Blocks the calling thread until @event completes: it polls for a few
 * microseconds (nearly finished work costs no wake-up), then sleeps until the
 * GPU signals the event where it is blocking-sync (the library's events that
 * end work on host memory are: the waits in the steady state), else waits as
 * the device's schedule flags say (spinning by default). This is how the
 * library waits for a single piece of GPU work.
 *
 * Returns: %TRUE when the event completed without error
 */
gboolean
gst_cs_host_wait_event (cudaEvent_t event, GstCsWaitCounter * counter, GError ** error)
{
  count (counter);
  const auto until = std::chrono::steady_clock::now () + kPollBeforeSleep;
  cudaError_t state;
  while ((state = cudaEventQuery (event)) == cudaErrorNotReady &&
         std::chrono::steady_clock::now () < until) {
  }
  if (state != cudaErrorNotReady)
    return GST_CS_CHECK (state, error);
  return GST_CS_CHECK (cudaEventSynchronize (event), error);
}

/**
 * gst_cs_host_poll_event:
 * @event: a recorded CUDA event
 * @counter: (nullable): the owner's counter
 * @error: (out) (optional): the CUDA error
 *
 * As gst_cs_host_wait_event(), but polls until @event completes: the lowest
 * latency, one core busy for the whole wait.
 *
 * Returns: %TRUE when the event completed without error
 */
gboolean
gst_cs_host_poll_event (cudaEvent_t event, GstCsWaitCounter * counter, GError ** error)
{
  count (counter);
  cudaError_t state;
  while ((state = cudaEventQuery (event)) == cudaErrorNotReady) {
  }
  return GST_CS_CHECK (state, error);
}

/**
 * gst_cs_host_wait_stream:
 * @stream: a CUDA stream
 * @counter: (nullable): the owner's counter
 * @error: (out) (optional): the CUDA error
 *
 * Blocks until all work on @stream completes. Only for slow paths outside
 * the steady state (mapping device memory on the CPU).
 *
 * Returns: %TRUE when the stream's work completed without error
 */
gboolean
gst_cs_host_wait_stream (cudaStream_t stream, GstCsWaitCounter * counter, GError ** error)
{
  count (counter);
  return GST_CS_CHECK (cudaStreamSynchronize (stream), error);
}

/**
 * gst_cs_host_wait_count:
 * @counter: (nullable): the owner's counter
 *
 * Counts one host wait that the caller makes through a CUDA call which blocks
 * the calling thread by itself: freeing device or pinned memory (a
 * device-wide synchronisation), or a copy from or to pageable host memory
 * (CUDA first waits for the stream). Call it right before the blocking call.
 */
void
gst_cs_host_wait_count (GstCsWaitCounter * counter)
{
  count (counter);
}

/**
 * gst_cs_host_wait_set_hook:
 * @hook: (nullable): called right before any host wait blocks, on the
 *   waiting thread; %NULL removes it
 *
 * For the tracer, which holds streams on a word of host memory while it
 * enqueues a timed frame (plugins/tracer/gstcsstreamgate.hpp): a thread
 * that blocks on the GPU might wait for work behind such a gate, so the
 * hook opens every gate first. One hook per process; it must not block.
 */
void
gst_cs_host_wait_set_hook (GstCsHostWaitHook hook)
{
  before_wait.store (hook, std::memory_order_release);
}

/**
 * gst_cs_host_waits_total:
 *
 * Returns: the host waits counted in this process so far: waits on an event
 * or a stream, and calls that block by themselves (freeing memory, copies
 * from or to pageable memory)
 *
 * Since: 0.1
 */
guint64
gst_cs_host_waits_total (void)
{
  return total_waits.load (std::memory_order_relaxed);
}

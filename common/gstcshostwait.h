/* The one place where the CPU blocks on the GPU. */
#pragma once

#include <gst/gst.h>
#include <cuda_runtime_api.h>

#include "gstcsapi.h"

G_BEGIN_DECLS

/**
 * GstCsWaitCounter:
 * @waits: number of host waits made through this counter; read it with
 *   gst_cs_wait_counter_get()
 *
 * A per-owner count of host waits (an element, a pool). Every host-blocking
 * CUDA call of the project goes through gst_cs_host_wait_event() or
 * gst_cs_host_wait_stream(), which increment the owner's counter and a
 * process-wide total, so tests and benchmarks can assert who waited and how
 * often.
 *
 * Since: 0.1
 */
typedef struct {
  guint64 waits;
} GstCsWaitCounter;

GST_CS_API guint64  gst_cs_wait_counter_get  (const GstCsWaitCounter * counter);
GST_CS_API void     gst_cs_wait_counter_reset (GstCsWaitCounter * counter);

/**
 * gst_cs_host_wait_event:
 * @event: a recorded CUDA event
 * @counter: (nullable): the owner's counter
 * @error: (out) (optional): the CUDA error
 *
 * Blocks the calling thread until @event completes: it polls for a few
 * microseconds (nearly finished work costs no wake-up), then sleeps until the
 * GPU signals the event (the project's events are blocking-sync, so no core
 * spins). This is how the project waits for a single piece of GPU work.
 *
 * Since: 0.1
 */
GST_CS_API gboolean gst_cs_host_wait_event   (cudaEvent_t        event,
                                              GstCsWaitCounter * counter,
                                              GError          ** error);

/**
 * gst_cs_host_poll_event:
 * @event: a recorded CUDA event
 * @counter: (nullable): the owner's counter
 * @error: (out) (optional): the CUDA error
 *
 * As gst_cs_host_wait_event(), but polls until @event completes: the lowest
 * latency, one core busy for the whole wait.
 *
 * Since: 0.1
 */
GST_CS_API gboolean gst_cs_host_poll_event   (cudaEvent_t        event,
                                              GstCsWaitCounter * counter,
                                              GError          ** error);

/**
 * gst_cs_host_wait_stream:
 * @stream: a CUDA stream
 * @counter: (nullable): the owner's counter
 * @error: (out) (optional): the CUDA error
 *
 * Blocks until all work on @stream completes. Only for slow paths outside
 * the steady state (mapping device memory on the CPU, draining at stop).
 *
 * Since: 0.1
 */
GST_CS_API gboolean gst_cs_host_wait_stream  (cudaStream_t       stream,
                                              GstCsWaitCounter * counter,
                                              GError          ** error);

/**
 * gst_cs_host_wait_count:
 * @counter: (nullable): the owner's counter
 *
 * Counts one host wait that the caller makes through a CUDA call which blocks
 * the calling thread by itself: freeing device or pinned memory (a
 * device-wide synchronisation), or a copy from or to pageable host memory
 * (CUDA first waits for the stream). Call it right before the blocking call.
 *
 * Since: 0.1
 */
GST_CS_API void     gst_cs_host_wait_count   (GstCsWaitCounter * counter);

/**
 * gst_cs_host_waits_total:
 *
 * Returns: the number of host waits made in this process so far.
 *
 * Since: 0.1
 */
GST_CS_API guint64  gst_cs_host_waits_total  (void);

G_END_DECLS

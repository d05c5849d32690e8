#include "gstcshostwait.h"

#include <atomic>
#include <chrono>

#include "gstcserror.h"

namespace {
std::atomic<guint64> total_waits{ 0 };

void
count (GstCsWaitCounter * counter)
{
  total_waits.fetch_add (1, std::memory_order_relaxed);
  if (counter)
    __atomic_fetch_add (&counter->waits, 1, __ATOMIC_RELAXED);
}
} // namespace

guint64
gst_cs_wait_counter_get (const GstCsWaitCounter * counter)
{
  return __atomic_load_n (&counter->waits, __ATOMIC_RELAXED);
}

void
gst_cs_wait_counter_reset (GstCsWaitCounter * counter)
{
  __atomic_store_n (&counter->waits, 0, __ATOMIC_RELAXED);
}

/* A blocking-sync event puts the waiting thread to sleep, and waking it costs
 * tens of microseconds: a lot for a 1080p frame that moves in 60. Work that
 * is nearly done is cheaper to poll for briefly first. */
static constexpr std::chrono::microseconds kPollBeforeSleep{ 30 };

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

gboolean
gst_cs_host_poll_event (cudaEvent_t event, GstCsWaitCounter * counter, GError ** error)
{
  count (counter);
  cudaError_t state;
  while ((state = cudaEventQuery (event)) == cudaErrorNotReady) {
  }
  return GST_CS_CHECK (state, error);
}

gboolean
gst_cs_host_wait_stream (cudaStream_t stream, GstCsWaitCounter * counter, GError ** error)
{
  count (counter);
  return GST_CS_CHECK (cudaStreamSynchronize (stream), error);
}

void
gst_cs_host_wait_count (GstCsWaitCounter * counter)
{
  count (counter);
}

guint64
gst_cs_host_waits_total (void)
{
  return total_waits.load (std::memory_order_relaxed);
}

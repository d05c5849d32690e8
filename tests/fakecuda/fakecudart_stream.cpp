/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* libfakecudart: streams and events.
 *
 * Streams and events belong to the device current when they are made. The
 * legacy stream does not synchronise implicitly with the other streams of
 * its device here, unlike CUDA's: the project uses non-blocking streams
 * only, and an ordering that relied on the legacy stream would be a bug to
 * show rather than to hide. */
#include "fakecudart.hpp"

#include "fakecuda.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include <cuda.h>

namespace fakecuda {
namespace {

/* cudaDeviceGetStreamPriorityRange: lower numbers are higher priorities. */
constexpr int kLeastPriority = 0;
constexpr int kGreatestPriority = -5;

cudaError_t
create_stream (cudaStream_t * out, unsigned flags, int priority)
{
  if (!out || (flags & ~cudaStreamNonBlocking))
    return cudaErrorInvalidValue;
  if (!valid_device (current_device ()))
    return cudaErrorInvalidDevice;
  /* CUDA clamps a priority outside the range to it. */
  priority = std::min (std::max (priority, kGreatestPriority), kLeastPriority);
  Stream * s = new_stream (current_device (), flags, priority);
  state ().live_streams.insert (s);
  *out = reinterpret_cast<cudaStream_t> (s);
  return cudaSuccess;
}

cudaError_t
create_event (cudaEvent_t * out, unsigned flags)
{
  const unsigned known =
      cudaEventBlockingSync | cudaEventDisableTiming | cudaEventInterprocess;
  if (!out || (flags & ~known) ||
      ((flags & cudaEventInterprocess) && !(flags & cudaEventDisableTiming)))
    return cudaErrorInvalidValue;
  if (!valid_device (current_device ()))
    return cudaErrorInvalidDevice;
  State & st = state ();
  SharedEvent * shared = nullptr;
  if ((flags & cudaEventInterprocess) && !(shared = new_shared_event ()))
    return cudaErrorMemoryAllocation;
  st.events.push_back (std::make_unique<Event> ());
  Event * e = st.events.back ().get ();
  e->device = current_device ();
  e->flags = flags; /* kept: every wait here is the same */
  e->shared = shared;
  st.live_events.insert (e);
  *out = reinterpret_cast<cudaEvent_t> (e);
  return cudaSuccess;
}

/* A caller that keeps polling one record is let through in the end, so a
 * spin-wait terminates; that forced progress blocks the host. */
cudaError_t
query_event (Event & e)
{
  if (record_done (e))
    return cudaSuccess;
  /* Another process's record: asked for (record_done), never forced. */
  if (e.imported)
    return cudaErrorNotReady;
  if (e.polls < state ().polls_before_progress) {
    e.polls++;
    return cudaErrorNotReady;
  }
  count_host_block ("cudaEventQuery (forced progress)");
  run_record (e);
  return cudaSuccess;
}

/* The wait runs when the stream runs (lazily, as all its work): it spins
 * until a CPU thread has raised the counter. A value that never comes is a
 * deadlock on a GPU too: abort with a message rather than hang the test. */
CUresult
stream_wait_value32 (
    CUstream stream, CUdeviceptr addr, cuuint32_t value, unsigned int flags)
{
  /* FAKECUDA_NO_STREAM_MEM_OPS=1: a device that refuses stream memory
   * operations, which says so when one is enqueued. */
  const char * refused = std::getenv ("FAKECUDA_NO_STREAM_MEM_OPS");
  if (refused && *refused && *refused != '0')
    return CUDA_ERROR_NOT_SUPPORTED;
  const cudaError_t err = call ([&] {
    Stream * s = resolve (reinterpret_cast<cudaStream_t> (stream));
    if (!s)
      return cudaErrorInvalidResourceHandle;
    if (flags != CU_STREAM_WAIT_VALUE_GEQ)
      return cudaErrorNotSupported; /* the only kind the project uses */
    auto * word = reinterpret_cast<cuuint32_t *> (addr);
    Where w = classify (word, sizeof *word);
    if (w.kind != MemKind::kPinned || w.overflow)
      return cudaErrorInvalidValue; /* the device could not read it */
    enqueue_work (*s, [word, value] {
      const auto deadline = std::chrono::steady_clock::now () + std::chrono::seconds (20);
      while ((std::int32_t) (__atomic_load_n (word, __ATOMIC_ACQUIRE) - value) < 0) {
        if (std::chrono::steady_clock::now () > deadline) {
          std::fprintf (stderr,
              "fakecuda: cuStreamWaitValue32 waited 20 s for %u at %p: deadlock\n",
              (unsigned)value, (void *)word);
          std::abort ();
        }
        std::this_thread::yield ();
      }
    });
    return cudaSuccess;
  });
  return err == cudaSuccess ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

} // namespace

void *
stream_wait_value32_entry ()
{
  const char * off = std::getenv ("FAKECUDA_NO_STREAM_WAIT_VALUE");
  if (off && *off && *off != '0')
    return nullptr;
  return reinterpret_cast<void *> (&stream_wait_value32);
}

} // namespace fakecuda

using namespace fakecuda;

/* ---- streams ---- */

cudaError_t
cudaStreamCreate (cudaStream_t * pStream)
{
  return call ([&] { return create_stream (pStream, cudaStreamDefault, 0); });
}

cudaError_t
cudaStreamCreateWithFlags (cudaStream_t * pStream, unsigned int flags)
{
  return call ([&] { return create_stream (pStream, flags, 0); });
}

cudaError_t
cudaStreamCreateWithPriority (cudaStream_t * pStream, unsigned int flags, int priority)
{
  return call ([&] { return create_stream (pStream, flags, priority); });
}

cudaError_t
cudaDeviceGetStreamPriorityRange (int * leastPriority, int * greatestPriority)
{
  return call ([&] {
    if (leastPriority)
      *leastPriority = kLeastPriority;
    if (greatestPriority)
      *greatestPriority = kGreatestPriority;
    return cudaSuccess;
  });
}

/* The handle becomes invalid at once; work already queued still runs when
 * something forces it, as CUDA completes it before releasing the stream. */
cudaError_t
cudaStreamDestroy (cudaStream_t stream)
{
  return call ([&] {
    if (!state ().live_streams.erase (stream))
      return cudaErrorInvalidResourceHandle;
    return cudaSuccess;
  });
}

cudaError_t
cudaStreamGetFlags (cudaStream_t hStream, unsigned int * flags)
{
  return call ([&] {
    Stream * s = resolve (hStream);
    if (!s)
      return cudaErrorInvalidResourceHandle;
    if (!flags)
      return cudaErrorInvalidValue;
    *flags = s->flags;
    return cudaSuccess;
  });
}

cudaError_t
cudaStreamGetPriority (cudaStream_t hStream, int * priority)
{
  return call ([&] {
    Stream * s = resolve (hStream);
    if (!s)
      return cudaErrorInvalidResourceHandle;
    if (!priority)
      return cudaErrorInvalidValue;
    *priority = s->priority;
    return cudaSuccess;
  });
}

cudaError_t
cudaStreamGetDevice (cudaStream_t hStream, int * device)
{
  return call ([&] {
    Stream * s = resolve (hStream);
    if (!s)
      return cudaErrorInvalidResourceHandle;
    if (!device)
      return cudaErrorInvalidValue;
    *device = s->device;
    return cudaSuccess;
  });
}

/* Never runs anything: pending work stays pending. */
cudaError_t
cudaStreamQuery (cudaStream_t stream)
{
  return call ([&] {
    Stream * s = resolve (stream);
    if (!s)
      return cudaErrorInvalidResourceHandle;
    return s->queue.empty () ? cudaSuccess : cudaErrorNotReady;
  });
}

cudaError_t
cudaStreamSynchronize (cudaStream_t stream)
{
  return call ([&] {
    Stream * s = resolve (stream);
    if (!s)
      return cudaErrorInvalidResourceHandle;
    count_host_block ("cudaStreamSynchronize");
    run_all (*s);
    return cudaSuccess;
  });
}

namespace {
thread_local unsigned long long stream_waits_of_thread = 0;
} // namespace

unsigned long long
fakecuda_stream_waits_thread (void)
{
  return stream_waits_of_thread;
}

/* The wait is on the event's latest record at the time of the call; an
 * event never recorded makes it a no-op, as in CUDA. */
cudaError_t
cudaStreamWaitEvent (cudaStream_t stream, cudaEvent_t event, unsigned int flags)
{
  stream_waits_of_thread++;
  return call ([&] {
    Stream * s = resolve (stream);
    Event * e = resolve (event);
    if (!s || !e)
      return cudaErrorInvalidResourceHandle;
    if (flags & ~cudaEventWaitExternal)
      return cudaErrorInvalidValue;
    if (e->imported) {
      /* Another process's latest record, run there when this stream
       * reaches the wait (fakecudart_ipc.cpp). */
      Op op;
      op.kind = Op::Kind::kWait;
      op.shared = e->shared;
      op.gen = imported_pending (*e);
      op.owner = e->owner;
      if (op.gen)
        s->queue.push_back (std::move (op));
      return cudaSuccess;
    }
    if (record_done (*e) || e->stream == s)
      return cudaSuccess; /* nothing to wait for, or stream order covers it */
    Op op;
    op.kind = Op::Kind::kWait;
    op.waited = e->stream;
    op.until = e->at;
    s->queue.push_back (std::move (op));
    return cudaSuccess;
  });
}

cudaError_t
cudaDeviceSynchronize (void)
{
  return call ([&] {
    if (!valid_device (current_device ()))
      return cudaErrorInvalidDevice;
    count_host_block ("cudaDeviceSynchronize");
    run_device (current_device ());
    return cudaSuccess;
  });
}

/* ---- events ---- */

cudaError_t
cudaEventCreate (cudaEvent_t * event)
{
  return call ([&] { return create_event (event, cudaEventDefault); });
}

cudaError_t
cudaEventCreateWithFlags (cudaEvent_t * event, unsigned int flags)
{
  return call ([&] { return create_event (event, flags); });
}

cudaError_t
cudaEventDestroy (cudaEvent_t event)
{
  return call ([&] {
    if (!state ().live_events.erase (event))
      return cudaErrorInvalidResourceHandle;
    return cudaSuccess;
  });
}

cudaError_t
cudaEventRecord (cudaEvent_t event, cudaStream_t stream)
{
  return call ([&] {
    Stream * s = resolve (stream);
    Event * e = resolve (event);
    if (!s || !e || e->device != s->device)
      return cudaErrorInvalidResourceHandle;
    if (e->imported)
      return cudaErrorNotSupported; /* only its owner records it here */
    Op op;
    op.kind = Op::Kind::kRecord;
    if (e->shared) {
      op.shared = e->shared;
      op.gen = shared_record (*e);
    }
    if (!(e->flags & cudaEventDisableTiming)) {
      e->ran_at = std::make_shared<double> (std::nan (""));
      op.ran_at = e->ran_at;
    }
    s->queue.push_back (std::move (op));
    e->stream = s;
    e->at = s->end ();
    e->polls = 0;
    return cudaSuccess;
  });
}

cudaError_t
cudaEventQuery (cudaEvent_t event)
{
  return call ([&] {
    Event * e = resolve (event);
    if (!e)
      return cudaErrorInvalidResourceHandle;
    return query_event (*e);
  });
}

/* As CUDA: both timing events recorded on one device, both complete (not
 * ready otherwise, and nothing is run to make them so); negative when `end`
 * ran first. */
cudaError_t
cudaEventElapsedTime (float * ms, cudaEvent_t start, cudaEvent_t end)
{
  return call ([&] {
    Event * a = resolve (start);
    Event * b = resolve (end);
    if (!ms)
      return cudaErrorInvalidValue;
    if (!a || !b || !a->stream || !b->stream || a->device != b->device ||
        (a->flags & cudaEventDisableTiming) || (b->flags & cudaEventDisableTiming))
      return cudaErrorInvalidResourceHandle;
    if (!record_done (*a) || !record_done (*b))
      return cudaErrorNotReady;
    *ms = static_cast<float> (*b->ran_at - *a->ran_at);
    return cudaSuccess;
  });
}

cudaError_t
cudaEventSynchronize (cudaEvent_t event)
{
  Op remote;
  const cudaError_t err = call ([&] {
    Event * e = resolve (event);
    if (!e)
      return cudaErrorInvalidResourceHandle;
    count_host_block ("cudaEventSynchronize");
    if (e->imported) {
      remote.shared = e->shared;
      remote.gen = imported_pending (*e);
      remote.owner = e->owner;
    } else {
      run_record (*e);
    }
    return cudaSuccess;
  });
  /* Another process runs it: waited for without the lock, which that
   * process's requests to this one may need. */
  if (err == cudaSuccess && remote.gen)
    host_wait_remote (remote);
  return err;
}

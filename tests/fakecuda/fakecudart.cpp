/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* libfakecudart: the state of the stand-in, its scheduler (lazy stream
 * work), the per-thread parts of the runtime and the test API of
 * fakecuda.h. The entry points live beside it, one file per area. */
#include "fakecudart.hpp"
#include "fakecuda.h"

#include <pthread.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <utility>

namespace fakecuda {
namespace {

std::atomic<unsigned long long> total_blocks{ 0 };
thread_local unsigned long long thread_blocks = 0;
thread_local cudaError_t last_error = cudaSuccess;
thread_local int device_of_thread = 0;
/* cudaStreamPerThread: one stream per (thread, device), made on first use.
 * It outlives its thread (in State::streams), so work queued on it still
 * runs when forced. */
thread_local std::vector<Stream *> per_thread_streams;

long
env_long (const char * name, long fallback, long min)
{
  const char * v = std::getenv (name);
  if (!v || !*v)
    return fallback;
  char * end = nullptr;
  long n = std::strtol (v, &end, 10);
  return (*end == '\0' && n >= min) ? n : fallback;
}

State *
make_state ()
{
  auto * s = new State;
  /* A fork never copies the lock held by another thread (the service
   * thread of interprocess events runs on its own). The child's thread has
   * another id than the one that took it, so it gets a fresh lock instead
   * (a recursive mutex refuses an unlock by another thread). Work queued
   * before the fork is the parent's to run, on memory the child may share:
   * the child drops it (CUDA gives a forked child no use of the parent's
   * context at all). */
  pthread_atfork ([] { state ().mutex.lock (); }, [] { state ().mutex.unlock (); },
      [] {
        new (&state ().mutex) std::recursive_mutex ();
        for (auto & st : state ().streams) {
          st->ran += st->queue.size (); /* positions stay in order */
          st->queue.clear ();
        }
      });
  s->n_devices = (int)env_long ("FAKECUDA_DEVICES", 1, 0);
  s->polls_before_progress =
      (std::uint64_t)env_long ("FAKECUDA_POLLS_BEFORE_PROGRESS", 100000, 0);
  s->trace = env_long ("FAKECUDA_TRACE", 0, 0) != 0;
  s->device_bytes.assign (s->n_devices, 0);
  s->peer.assign (s->n_devices, std::vector<bool> (s->n_devices, false));
  s->primary.assign (s->n_devices, nullptr);
  for (int d = 0; d < s->n_devices; d++) {
    /* The legacy stream is a handle no one may destroy, hence not "live". */
    s->streams.push_back (std::make_unique<Stream> ());
    s->streams.back ()->device = d;
    s->legacy.push_back (s->streams.back ().get ());
  }
  return s;
}

void
run_op (Op & op)
{
  switch (op.kind) {
    case Op::Kind::kWork:
      op.work ();
      break;
    case Op::Kind::kWait:
      if (op.shared)
        remote_wait (op); /* another process's record */
      else
        run_until (*op.waited, op.until);
      break;
    case Op::Kind::kRecord:
      /* completion is the stream's position passing it; a timing event
       * also notes when that happened */
      if (op.ran_at)
        *op.ran_at = std::chrono::duration<double, std::milli> (
            std::chrono::steady_clock::now ().time_since_epoch ())
                         .count ();
      if (op.shared)
        shared_complete (op.shared, op.gen);
      break;
  }
}

} // namespace

State &
state ()
{
  /* Never destroyed: work may still be queued at exit, and destructors of
   * other libraries may call into the runtime after ours would have run. */
  static State * s = make_state ();
  return *s;
}

cudaError_t
record_error (cudaError_t err)
{
  if (err != cudaSuccess && err != cudaErrorNotReady)
    last_error = err;
  return err;
}

cudaError_t
call (const std::function<cudaError_t ()> & body)
{
  State & st = state ();
  std::lock_guard<std::recursive_mutex> guard (st.mutex);
  if (st.sticky != cudaSuccess)
    return record_error (st.sticky);
  cudaError_t err = body ();
  /* The body may have run a kernel that faulted: that is what it returns,
   * as a synchronising call on a GPU reports the fault it waited for. */
  return record_error (st.sticky != cudaSuccess ? st.sticky : err);
}

std::vector<Context *> &
context_stack ()
{
  thread_local std::vector<Context *> stack;
  return stack;
}

Context *
primary_context (int device)
{
  State & st = state ();
  if (!valid_device (device))
    return nullptr;
  if (!st.primary[device]) {
    st.contexts.push_back (std::make_unique<Context> ());
    st.primary[device] = st.contexts.back ().get ();
    st.primary[device]->device = device;
    st.primary[device]->primary = true;
  }
  return st.primary[device];
}

int
current_device ()
{
  const auto & stack = context_stack ();
  return stack.empty () ? device_of_thread : stack.back ()->device;
}

void
set_current_device (int device)
{
  device_of_thread = device;
  auto & stack = context_stack ();
  if (!stack.empty ())
    stack.back () = primary_context (device);
}

cudaError_t
last_runtime_error ()
{
  return last_error;
}

void
restore_runtime_error (cudaError_t err)
{
  last_error = err;
}

bool
valid_device (int device)
{
  return device >= 0 && device < state ().n_devices;
}

void
count_host_block (const char * call)
{
  thread_blocks++;
  const auto n = total_blocks.fetch_add (1, std::memory_order_relaxed) + 1;
  if (state ().trace)
    std::fprintf (stderr, "fakecuda: host block %llu (%llu on this thread): %s\n", n,
        thread_blocks, call);
}

Stream *
new_stream (int device, unsigned flags, int priority)
{
  State & st = state ();
  st.streams.push_back (std::make_unique<Stream> ());
  Stream * s = st.streams.back ().get ();
  s->device = device;
  s->flags = flags;
  s->priority = priority;
  return s;
}

Stream *
resolve (cudaStream_t handle)
{
  State & st = state ();
  const int device = current_device ();
  if (handle == nullptr || handle == cudaStreamLegacy)
    return valid_device (device) ? st.legacy[device] : nullptr;
  if (handle == cudaStreamPerThread) {
    if (!valid_device (device))
      return nullptr;
    per_thread_streams.resize (st.n_devices, nullptr);
    if (!per_thread_streams[device])
      per_thread_streams[device] = new_stream (device, cudaStreamDefault, 0);
    return per_thread_streams[device];
  }
  if (!st.live_streams.count (handle))
    return nullptr;
  return reinterpret_cast<Stream *> (handle);
}

Event *
resolve (cudaEvent_t handle)
{
  if (!state ().live_events.count (handle))
    return nullptr;
  return reinterpret_cast<Event *> (handle);
}

void
enqueue_work (Stream & s, std::function<void ()> work)
{
  Op op;
  op.kind = Op::Kind::kWork;
  op.work = std::move (work);
  s.queue.push_back (std::move (op));
}

/* Waits only ever point at records enqueued before them, so following them
 * never comes back to an operation being run: there are no cycles, and a
 * nested call on a stream already being run has nothing to do. It must do
 * nothing: the records queued after the operation in progress (a wait
 * that led here) come after it, and the rule below would complete them
 * before it had. (It once did: a consumer's release event completed
 * before the download it follows had read the frame, and the producer
 * wrote the next frame there first.) */
void
run_until (Stream & s, std::uint64_t position)
{
  if (s.running)
    return;
  State & st = state ();
  s.running = true;
  /* Records right after the position reached complete with it, as on a
   * GPU, where a record takes no time: a timing event recorded after an
   * element's event then tells when its work ended. */
  while (!s.queue.empty () && st.sticky == cudaSuccess &&
         (s.ran < position || s.queue.front ().kind == Op::Kind::kRecord)) {
    Op op = std::move (s.queue.front ());
    s.queue.pop_front ();
    run_op (op);
    s.ran++;
  }
  s.running = false;
}

void
run_all (Stream & s)
{
  run_until (s, s.end ());
}

void
run_device (int device)
{
  for (auto & s : state ().streams)
    if (s->device == device)
      run_all (*s);
}

bool
record_done (const Event & e)
{
  if (e.imported)
    return imported_done (e);
  return !e.stream || e.stream->ran >= e.at;
}

void
run_record (const Event & e)
{
  if (e.stream)
    run_until (*e.stream, e.at);
}

} // namespace fakecuda

using namespace fakecuda;

/* ---- the per-thread error state ---- */

cudaError_t
cudaGetLastError (void)
{
  std::lock_guard<std::recursive_mutex> guard (state ().mutex);
  if (state ().sticky != cudaSuccess)
    return state ().sticky;
  return std::exchange (last_error, cudaSuccess);
}

cudaError_t
cudaPeekAtLastError (void)
{
  std::lock_guard<std::recursive_mutex> guard (state ().mutex);
  return state ().sticky != cudaSuccess ? state ().sticky : last_error;
}

/* ---- the test API (fakecuda.h) ---- */

unsigned long long
fakecuda_host_blocks_thread (void)
{
  return thread_blocks;
}

unsigned long long
fakecuda_host_blocks_total (void)
{
  return total_blocks.load (std::memory_order_relaxed);
}

unsigned long long
fakecuda_pending_ops (void)
{
  State & st = state ();
  std::lock_guard<std::recursive_mutex> guard (st.mutex);
  unsigned long long n = 0;
  for (auto & s : st.streams)
    n += s->queue.size ();
  return n;
}

void
fakecuda_run_all (void)
{
  State & st = state ();
  std::lock_guard<std::recursive_mutex> guard (st.mutex);
  for (auto & s : st.streams)
    run_all (*s);
}

namespace {

/* Owns the twin's data: free_data runs when the work is destroyed, that is
 * after it ran, or when it is dropped without running. */
struct LaunchData {
  LaunchData (void * d, void (*f) (void *)) : data (d), free_data (f) {}
  LaunchData (const LaunchData &) = delete;
  LaunchData & operator= (const LaunchData &) = delete;
  void * data;
  void (*free_data) (void *);
  ~LaunchData ()
  {
    if (free_data)
      free_data (data);
  }
};

} // namespace

cudaError_t
fakecuda_launch (
    cudaStream_t stream, void (*fn) (void *), void * data, void (*free_data) (void *))
{
  auto owned = std::make_shared<LaunchData> (data, free_data);
  return call ([&] {
    Stream * s = resolve (stream);
    if (!s || s->device != current_device ())
      return cudaErrorInvalidResourceHandle;
    if (!fn)
      return cudaErrorInvalidValue;
    const int device = s->device;
    enqueue_work (*s, [fn, owned, device] {
      State & st = state ();
      st.launch_device = device;
      fn (owned->data);
      st.launch_device = -1;
    });
    return cudaSuccess;
  });
}

int
fakecuda_kernel_may_access (const void * ptr, size_t bytes)
{
  State & st = state ();
  std::lock_guard<std::recursive_mutex> guard (st.mutex);
  const int device = st.launch_device;
  if (bytes == 0)
    return 1;
  if (!valid_device (device))
    return 0; /* not called from a kernel twin's work */
  Where w = classify (ptr, bytes);
  if (w.kind != MemKind::kDevice || w.overflow)
    return 0;
  return w.device == device || st.peer[device][w.device];
}

void
fakecuda_fault (void)
{
  State & st = state ();
  std::lock_guard<std::recursive_mutex> guard (st.mutex);
  st.sticky = cudaErrorIllegalAddress;
}

/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "tracer/gstcsstreamgate.hpp"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include <gst/gst.h>
#include <pthread.h>

#include "base/gstcshostsignal.hpp"
#include "gstcserror-private.h"
#include "gstcshostwait-private.h"

GST_DEBUG_CATEGORY_STATIC (gst_cs_stream_gate_debug);
#define GST_CAT_DEFAULT gst_cs_stream_gate_debug

namespace gst_cs {
namespace {

/* Gates closed at once: one per streaming thread inside a timed frame is
 * the most a pipeline needs; more wait ungated. */
constexpr int kWords = 256;

/* A word's gate: the word counts the times it was opened; a closed gate
 * waits for the next count. */
struct Word {
  guint32 opened = 0;   // counts the host has raised it to
  bool taken = false;   // by a StreamGate
  bool closed = false;  // until its owner, a host wait or the watchdog opens it
  gint64 closed_at = 0; // g_get_monotonic_time (), µs
};

/* A gate closed longer than this is opened by the watchdog: its owner is
 * stuck in a CUDA call behind a thread that waits for the whole device (a
 * cudaFree of another library, say) while holding the driver's lock, and
 * that thread waits for the gated stream. Without it, such a pipeline hung
 * (H200, 2026-11-27); with it, it loses at most this long once. */
constexpr gint64 kWatchdogUs = 2000;

class Gates {
public:
  // The process' gates (made at the first call, never destroyed: their
  // page of pinned memory outlives every stream that may wait on it).
  static Gates & get ()
  {
    static Gates * gates = [] {
      GST_DEBUG_CATEGORY_INIT (
          gst_cs_stream_gate_debug, "csstreamgate", 0, "stream gates of timed work");
      return new Gates ();
    }();
    return *gates;
  }

  int close (cudaStream_t stream);
  bool open (int slot); // true: held until now
  // Opens every closed gate (before a host wait).
  void open_all ();
  // Opens the gates closed for longer than kWatchdogUs; forever, from a
  // thread of its own started with the first gate.
  [[noreturn]] void watch ();

private:
  bool allocate ();
  void raise (int slot);

  std::mutex lock_;
  std::atomic<int> closed_{ 0 };
  /* The watchdog sleeps here while no gate is closed (watch_idle_), so a
   * traced process that times no frame just then is not woken by it: it
   * used to wake every millisecond, 10 µs of CPU a frame at 1,000 frames a
   * second and 330 at 30 (an H200's host, 2026-12-02). After lock_. */
  std::mutex watch_lock_;
  std::condition_variable watch_wake_;
  bool watch_idle_ = false;
  guint32 * host_ = nullptr;
  guint8 * device_ = nullptr;
  bool failed_ = false;
  std::vector<Word> words_;
};

/* Before any host wait of the process, from any thread. */
void
open_gates_before_wait ()
{
  Gates::get ().open_all ();
}

/* The page of words, once; with the lock held. A first timed frame pays
 * for it: allocating pinned memory synchronises the device once. */
bool
Gates::allocate ()
{
  if (host_ || failed_)
    return host_ != nullptr;
  void *host = nullptr, *device = nullptr;
  GError * err = NULL;
  if (!GST_CS_CHECK (cudaHostAlloc (&host, kWords * sizeof (guint32),
                         cudaHostAllocPortable | cudaHostAllocMapped),
          &err) ||
                     !GST_CS_CHECK (cudaHostGetDevicePointer (&device, host, 0), &err)) {
    GST_WARNING (
        "no stream gates, GPU times will include launch latency: %s", err->message);
    g_clear_error (&err);
    if (host) {
      gst_cs_host_wait_count (NULL); /* a device-wide synchronisation */
      (void)cudaFreeHost (host);
    }
    failed_ = true;
    return false;
  }
  host_ = static_cast<guint32 *> (host);
  device_ = static_cast<guint8 *> (device);
  words_.resize (kWords);
  for (int i = 0; i < kWords; i++)
    __atomic_store_n (&host_[i], 0u, __ATOMIC_RELAXED);
  gst_cs_host_wait_set_hook (open_gates_before_wait);
  std::thread ([this] { watch (); }).detach ();
  return true;
}

/* Asleep while no gate is closed, as nearly always (a gate is closed for
 * the microseconds a timed frame's launch takes, one frame in `every`);
 * woken by a gate's closing, it looks every millisecond until none is. */
void
Gates::watch ()
{
  pthread_setname_np (pthread_self (), "csgate-watch");
  for (;;) {
    {
      std::unique_lock<std::mutex> watch (watch_lock_);
      watch_idle_ = true;
      watch_wake_.wait (
          watch, [this] { return closed_.load (std::memory_order_acquire) > 0; });
      watch_idle_ = false;
    }
    std::this_thread::sleep_for (std::chrono::milliseconds (1));
    if (closed_.load (std::memory_order_acquire) == 0)
      continue;
    const gint64 now = g_get_monotonic_time ();
    std::lock_guard<std::mutex> hold (lock_);
    for (int i = 0; i < (int)words_.size (); i++)
      if (words_[i].closed && now - words_[i].closed_at > kWatchdogUs) {
        GST_INFO ("gate %d closed for %" G_GINT64_FORMAT " us: opened by the watchdog", i,
            now - words_[i].closed_at);
        raise (i);
      }
  }
}

/* The wait is enqueued without the lock: a host wait of another thread
 * meanwhile leaves this gate alone, whose owner is not blocked. */
int
Gates::close (cudaStream_t stream)
{
  int slot = -1;
  guint32 next = 0;
  {
    std::lock_guard<std::mutex> hold (lock_);
    if (!allocate ())
      return -1;
    for (int i = 0; i < kWords && slot < 0; i++)
      if (!words_[i].taken)
        slot = i;
    if (slot < 0)
      return -1;
    words_[slot].taken = true;
    next = words_[slot].opened + 1;
  }
  GError * err = NULL;
  const bool waits =
      stream_wait_host_signal (stream, device_ + slot * sizeof (guint32), next, &err);
  std::lock_guard<std::mutex> hold (lock_);
  if (!waits) {
    GST_WARNING ("stream gate not closed: %s", err->message);
    g_clear_error (&err);
    words_[slot].taken = false;
    return -1;
  }
  words_[slot].closed = true;
  words_[slot].closed_at = g_get_monotonic_time ();
  closed_.fetch_add (1, std::memory_order_release);
  /* watch_idle_ is the watchdog's own to clear: it stays set while the
   * watchdog waits, also after a wake-up that finds the gate already
   * opened by its owner (the predicate false again). Cleared here, such a
   * wake-up left the watchdog asleep with the flag down, so no later gate
   * woke it: 16 streams into cudabatch hung at their first frames, whose
   * owners wait inside their gates for the gated streams (in a first
   * launch's module load, for one; H200, 2026-12-03). */
  std::lock_guard<std::mutex> watch (watch_lock_);
  if (watch_idle_)
    watch_wake_.notify_one ();
  return slot;
}

/* With the lock held. */
void
Gates::raise (int slot)
{
  Word & w = words_[slot];
  /* The launches this thread enqueued are writes to the driver's
   * write-combined command buffers: they must reach the GPU before it can
   * see the gate open, or it would open onto work not yet there. */
  __atomic_thread_fence (__ATOMIC_SEQ_CST);
  raise_host_signal (&host_[slot]);
  w.opened++;
  w.closed = false;
  closed_.fetch_sub (1, std::memory_order_release);
}

bool
Gates::open (int slot)
{
  std::lock_guard<std::mutex> hold (lock_);
  Word & w = words_[slot];
  const bool held = w.closed; /* else a host wait opened it */
  if (w.closed)
    raise (slot);
  w.taken = false;
  return held;
}

void
Gates::open_all ()
{
  if (closed_.load (std::memory_order_acquire) == 0)
    return; /* the common case: one load per host wait */
  std::lock_guard<std::mutex> hold (lock_);
  for (int i = 0; i < (int)words_.size (); i++)
    if (words_[i].closed)
      raise (i);
}

} // namespace

bool
stream_gates_supported (int)
{
  return host_signal_supported ();
}

StreamGate
StreamGate::close (int device, cudaStream_t stream)
{
  StreamGate gate;
  if (stream_gates_supported (device))
    gate.slot_ = Gates::get ().close (stream);
  return gate;
}

void
StreamGate::open ()
{
  if (slot_ < 0)
    return;
  held_ = Gates::get ().open (slot_);
  slot_ = -1;
}

StreamGate &
StreamGate::operator= (StreamGate && other) noexcept
{
  if (this != &other) {
    open ();
    slot_ = other.slot_;
    held_ = other.held_;
    other.slot_ = -1;
  }
  return *this;
}

} // namespace gst_cs

/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "gstcsevent.hpp"

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <vector>

#include "gstcsdeviceguard.hpp"
#include "gstcserror-private.h"

namespace gst_cs {

// Free events of one device and kind, with their Event objects: a frame's
// record takes one and gives it back, neither a CUDA event nor a heap
// allocation made per frame. Each list has its own lock: elements on other
// devices, or taking the other kind, never contend.
struct Event::FreeList {
  std::mutex lock;
  std::vector<Event *> events;
};

namespace {

// The lists of the first devices (Event::kIndexedDevices) sit in an array
// indexed by device and kind, found without a look-up or a lock; further
// devices (rare) go through a map, whose nodes never move. Every event
// keeps a pointer to its list, so giving one back finds it at once. The
// pools live for the whole process: destroying events at exit races with
// the CUDA runtime's own teardown.
struct EventPool {
  Event::FreeList indexed[Event::kIndexedDevices][2];
  std::mutex others_lock;
  std::map<std::pair<int, Event::Waiter>, Event::FreeList> others;
};

EventPool &
pool ()
{
  static EventPool * p = new EventPool;
  return *p;
}

Event::FreeList &
free_list (int device, Event::Waiter waiter)
{
  auto & p = pool ();
  if (device >= 0 && device < Event::kIndexedDevices)
    return p.indexed[device][waiter == Event::Waiter::HOST ? 1 : 0];
  std::lock_guard<std::mutex> guard (p.others_lock);
  return p.others[{ device, waiter }];
}

} // namespace

Event *
Event::acquire (int device, Waiter waiter, GError ** error)
{
  FreeList & home = free_list (device, waiter);
  {
    std::lock_guard<std::mutex> guard (home.lock);
    if (!home.events.empty ()) {
      Event * e = home.events.back ();
      home.events.pop_back ();
      e->refs_.store (1, std::memory_order_relaxed);
      e->stream_ = nullptr;
      e->seq_ = 0;
      return e;
    }
  }
  // An event belongs to the device current when it is created.
  gst_cs::DeviceGuard guard (device, error);
  if (!guard.ok ())
    return nullptr;
  const unsigned flags =
      cudaEventDisableTiming | (waiter == Waiter::HOST ? cudaEventBlockingSync : 0u);
  cudaEvent_t e = nullptr;
  if (!GST_CS_CHECK (cudaEventCreateWithFlags (&e, flags), error))
    return nullptr;
  return new Event (device, &home, e);
}

void
Event::unref ()
{
  if (refs_.fetch_sub (1, std::memory_order_acq_rel) != 1)
    return;
  std::lock_guard<std::mutex> guard (home_->lock);
  home_->events.push_back (this);
}

bool
Event::record (cudaStream_t stream, GError ** error)
{
  /* A number and its record are taken under one lock, so that two threads
   * recording on one stream get numbers in the stream's order. Only records
   * of one stream handle are ever compared by number (MemorySync's readers;
   * the per-caller handles too name one handle), so the lock is the
   * handle's stripe: elements on other streams seldom contend. The counter
   * itself is atomic, as several stripes take numbers at once: each number
   * is still given once. */
  static std::mutex stripes[16];
  static std::atomic<guint64> last{ 0 };
  /* CUDA takes the device of a legacy or per-thread stream handle (0, 1,
   * 2: an application's) from the calling thread, whatever device is
   * current there; the event's device is the one meant. Any other stream
   * names its own device, and an event records on it whatever device is
   * current (tests/fakecuda/cuda_rules.cpp, measured on two H200s): no
   * device query per frame there. */
  const bool per_caller =
      stream == nullptr || stream == cudaStreamLegacy || stream == cudaStreamPerThread;
  std::optional<gst_cs::DeviceGuard> device;
  if (per_caller) {
    device.emplace (device_, error);
    if (!device->ok ())
      return false;
  }
  const auto handle = reinterpret_cast<std::uintptr_t> (stream);
  std::lock_guard<std::mutex> guard (stripes[(handle ^ (handle >> 6)) % 16]);
  stream_ = stream;
  seq_ = last.fetch_add (1, std::memory_order_relaxed) + 1;
  return GST_CS_CHECK (cudaEventRecord (event_, stream), error);
}

} // namespace gst_cs

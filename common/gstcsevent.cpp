/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "gstcsevent.hpp"

#include <map>
#include <mutex>
#include <optional>
#include <vector>

#include "gstcsdeviceguard.hpp"
#include "gstcserror-private.h"

namespace gst_cs {
namespace {

// Free events per device and kind, with their Event objects: a frame's
// record takes one and gives it back, neither a CUDA event nor a heap
// allocation made per frame. The pools live for the whole process:
// destroying events at exit races with the CUDA runtime's own teardown.
struct EventPool {
  std::mutex lock;
  std::map<std::pair<int, Event::Waiter>, std::vector<Event *>> free;
};

EventPool &
pool ()
{
  static EventPool * p = new EventPool;
  return *p;
}

} // namespace

Event *
Event::acquire (int device, Waiter waiter, GError ** error)
{
  {
    auto & p = pool ();
    std::lock_guard<std::mutex> guard (p.lock);
    auto & list = p.free[{ device, waiter }];
    if (!list.empty ()) {
      Event * e = list.back ();
      list.pop_back ();
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
  return new Event (device, waiter, e);
}

void
Event::unref ()
{
  if (refs_.fetch_sub (1, std::memory_order_acq_rel) != 1)
    return;
  auto & p = pool ();
  std::lock_guard<std::mutex> guard (p.lock);
  p.free[{ device_, waiter_ }].push_back (this);
}

bool
Event::record (cudaStream_t stream, GError ** error)
{
  /* The number is taken with the record under one lock: two threads that
   * record on one stream get numbers in the stream's order. */
  static std::mutex lock;
  static guint64 last = 0;
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
  std::lock_guard<std::mutex> guard (lock);
  stream_ = stream;
  seq_ = ++last;
  return GST_CS_CHECK (cudaEventRecord (event_, stream), error);
}

} // namespace gst_cs

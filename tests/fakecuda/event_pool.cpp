/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The CUDA event pool (common/gstcsevent.cpp) on devices past its indexed
 * ones (Event::kIndexedDevices), whose free lists sit in a map: on the
 * stand-in with that many devices and more (FAKECUDA_DEVICES, set where
 * tests/fakecuda/meson.build registers this test). An event of such a
 * device is made on it (it records on the device's streams), goes back to
 * its own device's and kind's list alone, and the next acquire takes it
 * again: events taken and given back over and over are not made anew (no
 * leak), from several threads at once too, and the last indexed device
 * behaves the same. */
#include <gst/check/gstcheck.h>

#include <set>
#include <thread>
#include <vector>

#include "gstcsevent.hpp"

using gst_cs::Event;

#define CUDA_OK(call) fail_unless_equals_int ((call), cudaSuccess)

namespace {

/* Devices this test uses: the last indexed one, the first mapped one and
 * one further on (the threads take the first mapped one's neighbour too). */
constexpr int kLastIndexed = Event::kIndexedDevices - 1;
constexpr int kFirstMapped = Event::kIndexedDevices;
constexpr int kLastMapped = Event::kIndexedDevices + 3;

void
require_devices ()
{
  int n = 0;
  CUDA_OK (cudaGetDeviceCount (&n));
  fail_unless (n > kLastMapped, "%d devices: run with FAKECUDA_DEVICES=%d or more", n,
      kLastMapped + 1);
}

cudaStream_t
stream_on (int device)
{
  cudaStream_t s = nullptr;
  CUDA_OK (cudaSetDevice (device));
  CUDA_OK (cudaStreamCreateWithFlags (&s, cudaStreamNonBlocking));
  return s;
}

Event *
take (int device, Event::Waiter waiter)
{
  GError * err = nullptr;
  Event * e = Event::acquire (device, waiter, &err);
  fail_unless (e != nullptr, "no event of device %d: %s", device,
      err ? err->message : "(no error)");
  fail_unless_equals_int (e->device (), device);
  return e;
}

/* Records `e` on `stream` and waits for it: the stand-in refuses a record
 * of one device's event on another device's stream, as CUDA does. */
void
record_and_wait (Event * e, cudaStream_t stream)
{
  GError * err = nullptr;
  fail_unless (e->record (stream, &err), "device %d: %s", e->device (),
      err ? err->message : "(no error)");
  fail_unless (e->seq () != 0 && e->stream () == stream);
  CUDA_OK (cudaStreamSynchronize (stream));
  fail_unless (e->done ());
}

} // namespace

/* Each device's events, one at a time: the one given back is the one taken
 * next, with its CUDA event, and comes back fresh (no record yet). */
GST_START_TEST (test_event_taken_again)
{
  require_devices ();
  for (int device : { kLastIndexed, kFirstMapped, kLastMapped }) {
    cudaStream_t s = stream_on (device);
    Event * first = take (device, Event::Waiter::GPU);
    const cudaEvent_t handle = first->handle ();
    record_and_wait (first, s);
    guint64 last_seq = first->seq ();
    first->unref ();
    for (int i = 0; i < 100; i++) {
      Event * e = take (device, Event::Waiter::GPU);
      fail_unless (e == first && e->handle () == handle,
          "device %d, round %d: a new event, not the one given back", device, i);
      fail_unless (e->seq () == 0 && e->stream () == nullptr,
          "device %d: an event taken again keeps its last record", device);
      record_and_wait (e, s);
      fail_unless (e->seq () > last_seq);
      last_seq = e->seq ();
      e->unref ();
    }
    CUDA_OK (cudaStreamDestroy (s));
  }
}
GST_END_TEST;

/* Several held at once: as many events as were held, no more, however
 * often they are taken and given back; in any order. */
GST_START_TEST (test_events_held_together)
{
  require_devices ();
  for (int device : { kLastIndexed, kFirstMapped, kLastMapped }) {
    cudaStream_t s = stream_on (device);
    constexpr int kHeld = 4;
    std::set<Event *> seen;
    for (int round = 0; round < 50; round++) {
      std::vector<Event *> held;
      for (int i = 0; i < kHeld; i++) {
        held.push_back (take (device, Event::Waiter::GPU));
        record_and_wait (held.back (), s);
        seen.insert (held.back ());
      }
      /* given back in another order each round */
      for (int i = 0; i < kHeld; i++)
        held[(i + round) % kHeld]->unref ();
    }
    fail_unless_equals_int (seen.size (), kHeld);
    CUDA_OK (cudaStreamDestroy (s));
  }
}
GST_END_TEST;

/* Each device and kind has its own list: an event given back is never
 * taken for another device (where its records would fail) or for the
 * other kind (a host wait on a plain event spins). */
GST_START_TEST (test_lists_apart)
{
  require_devices ();
  const int devices[] = { kLastIndexed, kFirstMapped, kLastMapped };
  const Event::Waiter waiters[] = { Event::Waiter::GPU, Event::Waiter::HOST };
  std::vector<Event *> given;
  for (int d : devices)
    for (Event::Waiter w : waiters)
      given.push_back (take (d, w));
  for (Event * e : given)
    e->unref ();
  /* Taken again in the other order: each list gives back its own. */
  int k = (int)given.size ();
  for (int i = G_N_ELEMENTS (devices) - 1; i >= 0; i--) {
    for (int j = G_N_ELEMENTS (waiters) - 1; j >= 0; j--) {
      Event * e = take (devices[i], waiters[j]);
      fail_unless (e == given[--k], "device %d, %s: not its own event", devices[i],
          j ? "host waiter" : "GPU waiter");
      e->unref ();
    }
  }
}
GST_END_TEST;

/* A record on a legacy stream handle (an application's) from a thread
 * whose current device is another: the event's device is the one it
 * records on, and the thread's own device is left as it was. */
GST_START_TEST (test_mapped_legacy_record)
{
  require_devices ();
  CUDA_OK (cudaSetDevice (0));
  Event * e = take (kFirstMapped, Event::Waiter::HOST);
  GError * err = nullptr;
  fail_unless (e->record (nullptr, &err), "%s", err ? err->message : "(no error)");
  int current = -1;
  CUDA_OK (cudaGetDevice (&current));
  fail_unless_equals_int (current, 0);
  CUDA_OK (cudaSetDevice (kFirstMapped));
  CUDA_OK (cudaDeviceSynchronize ());
  fail_unless (e->done ());
  e->unref ();
}
GST_END_TEST;

/* Threads on mapped devices at once, two of them on one device: the map's
 * lists made and used concurrently. Each thread holds one event at a time,
 * so a device ends with no more events than threads that used it. */
GST_START_TEST (test_mapped_threads)
{
  require_devices ();
  const int devices[] = { kFirstMapped, kFirstMapped, kFirstMapped + 1, kLastMapped };
  std::vector<std::set<Event *>> seen (G_N_ELEMENTS (devices));
  std::vector<int> failed (G_N_ELEMENTS (devices), 0);
  std::vector<std::thread> threads;
  for (guint t = 0; t < G_N_ELEMENTS (devices); t++) {
    threads.emplace_back ([&, t] {
      /* No gst-check here: a failure off the test's thread cannot stop it. */
      const int device = devices[t];
      cudaStream_t s = nullptr;
      if (cudaSetDevice (device) != cudaSuccess ||
          cudaStreamCreateWithFlags (&s, cudaStreamNonBlocking) != cudaSuccess) {
        failed[t]++;
        return;
      }
      for (int i = 0; i < 2000; i++) {
        Event * e = Event::acquire (device, Event::Waiter::GPU, nullptr);
        if (!e || e->device () != device || !e->record (s, nullptr)) {
          failed[t]++;
          break;
        }
        seen[t].insert (e);
        e->unref ();
      }
      if (cudaStreamSynchronize (s) != cudaSuccess ||
          cudaStreamDestroy (s) != cudaSuccess)
        failed[t]++;
    });
  }
  for (std::thread & t : threads)
    t.join ();
  std::set<Event *> of_first;
  for (guint t = 0; t < G_N_ELEMENTS (devices); t++) {
    fail_unless (failed[t] == 0, "thread %u on device %d failed", t, devices[t]);
    if (devices[t] == kFirstMapped)
      of_first.insert (seen[t].begin (), seen[t].end ());
    else
      fail_unless (seen[t].size () == 1, "device %d: %zu events for one thread",
          devices[t], seen[t].size ());
  }
  fail_unless (of_first.size () >= 1 && of_first.size () <= 2,
      "device %d: %zu events for two threads", kFirstMapped, of_first.size ());
}
GST_END_TEST;

static Suite *
event_pool_suite (void)
{
  Suite * s = suite_create ("event_pool");
  TCase * tc = tcase_create ("general");
  tcase_add_test (tc, test_event_taken_again);
  tcase_add_test (tc, test_events_held_together);
  tcase_add_test (tc, test_lists_apart);
  tcase_add_test (tc, test_mapped_legacy_record);
  tcase_add_test (tc, test_mapped_threads);
  suite_add_tcase (s, tc);
  return s;
}

GST_CHECK_MAIN (event_pool);

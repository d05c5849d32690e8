/* SPDX-License-Identifier: LGPL-2.1-or-later */
// The IPC elements' own interprocess events (plugins/ipc/gstcsipcevents):
// a slot is handed out to be recorded again only once its last record has
// completed; else another event is made, up to the set's limit. Both sides
// record through it: cudastreamsipcsink its write events, cudastreamsipcsrc
// its read events (which it once recorded in a ring, each again 64 releases
// later whether or not its last record had completed). On a GPU a host
// function holds the stream back; on the stand-in streams run lazily anyway.
#include <gst/check/gstcheck.h>

#include <dlfcn.h>

#include <atomic>

#include "fakecuda.h"
#include "ipc/gstcsipcevents.hpp"
#include "streamgate.hpp"
#include "testutil.h"

using gst_cs::ipc::OwnEvents;

namespace {

guint32
take (OwnEvents & ev, bool * is_new)
{
  guint32 slot = G_MAXUINT32;
  GError * err = NULL;
  fail_unless (ev.take (&slot, &err, is_new), "%s", err ? err->message : "");
  return slot;
}

unsigned long long
early_rerecords ()
{
  return fakecuda_present () ? fakecuda_ipc_early_rerecords () : 0;
}

} // namespace

/* Slots whose record is pending are not handed out again: new events are
 * made instead, up to the limit; past it the oldest is (the GPU is that far
 * behind). Once the records complete, the slots come back, without another
 * event. No event is ever recorded again while its last record is pending
 * (counted on the stand-in), but for the one handed out past the limit. */
GST_START_TEST (test_pending_slots_wait)
{
  fail_unless_equals_int (cudaSetDevice (0), cudaSuccess);
  cudaStream_t s;
  fail_unless_equals_int (
      cudaStreamCreateWithFlags (&s, cudaStreamNonBlocking), cudaSuccess);
  const unsigned long long early = early_rerecords ();
  StreamGate gate;
  gate.close (s);
  {
    OwnEvents ev (0, 3);
    guint32 used[3];
    for (guint32 i = 0; i < 3; i++) {
      bool is_new = false;
      used[i] = take (ev, &is_new);
      fail_unless (is_new, "record %u got slot %u, whose record is pending", i, used[i]);
      fail_unless_equals_int (used[i], i);
      fail_unless_equals_int (cudaEventRecord (ev.event (used[i]), s), cudaSuccess);
      ev.put_back (used[i]);
    }
    fail_unless_equals_uint64 (early_rerecords (), early);
    /* At the limit, all pending: the oldest. */
    bool is_new = true;
    fail_unless_equals_int (take (ev, &is_new), used[0]);
    fail_unless (!is_new);
    fail_unless_equals_int (ev.size (), 3);
    ev.put_back (used[0]);

    gate.open ();
    fail_unless_equals_int (cudaStreamSynchronize (s), cudaSuccess);
    for (guint32 i = 0; i < 3; i++) {
      const guint32 slot = take (ev, &is_new);
      fail_unless (
          !is_new && slot < 3, "a new event (slot %u) where slots were free", slot);
      fail_unless_equals_int (cudaEventRecord (ev.event (slot), s), cudaSuccess);
    }
    fail_unless_equals_uint64 (early_rerecords (), early);
    fail_unless_equals_int (cudaStreamSynchronize (s), cudaSuccess);
  }
  fail_unless_equals_int (cudaStreamDestroy (s), cudaSuccess);
}
GST_END_TEST;

/* Without a limit (the sink's write events) a set grows as long as every
 * slot is pending. */
GST_START_TEST (test_no_limit_grows)
{
  fail_unless_equals_int (cudaSetDevice (0), cudaSuccess);
  cudaStream_t s;
  fail_unless_equals_int (
      cudaStreamCreateWithFlags (&s, cudaStreamNonBlocking), cudaSuccess);
  StreamGate gate;
  gate.close (s);
  {
    OwnEvents ev (0);
    for (guint32 i = 0; i < 100; i++) {
      bool is_new = false;
      const guint32 slot = take (ev, &is_new);
      fail_unless (is_new && slot == i, "record %u got slot %u", i, slot);
      fail_unless_equals_int (cudaEventRecord (ev.event (slot), s), cudaSuccess);
      ev.put_back (slot);
    }
    gate.open ();
    fail_unless_equals_int (cudaStreamSynchronize (s), cudaSuccess);
  }
  fail_unless_equals_int (cudaStreamDestroy (s), cudaSuccess);
}
GST_END_TEST;

/* A set whose slots come back in the order of their records on one stream
 * (the src's read events) looks no further than the first still pending;
 * another set looks at each. Here the second record is on a stream of its
 * own, and completes while the first is pending. */
GST_START_TEST (test_in_order_stops_at_pending)
{
  fail_unless_equals_int (cudaSetDevice (0), cudaSuccess);
  cudaStream_t held, later;
  fail_unless_equals_int (
      cudaStreamCreateWithFlags (&held, cudaStreamNonBlocking), cudaSuccess);
  fail_unless_equals_int (
      cudaStreamCreateWithFlags (&later, cudaStreamNonBlocking), cudaSuccess);
  StreamGate gate;
  gate.close (held);
  for (bool in_order : { true, false }) {
    OwnEvents ev (0, 0, in_order);
    bool is_new = false;
    const guint32 first = take (ev, &is_new);
    fail_unless_equals_int (cudaEventRecord (ev.event (first), held), cudaSuccess);
    ev.put_back (first);
    /* No gate on the second stream: CUDA runs host functions on one thread,
     * so a second gate's function would wait behind the first's for ever. */
    const guint32 second = take (ev, &is_new);
    fail_unless_equals_int (cudaEventRecord (ev.event (second), later), cudaSuccess);
    ev.put_back (second);
    fail_unless_equals_int (cudaStreamSynchronize (later), cudaSuccess);
    const guint32 third = take (ev, &is_new);
    if (in_order)
      fail_unless (is_new && third == 2, "in order: slot %u", third);
    else
      fail_unless (!is_new && third == second, "any order: slot %u", third);
  }
  gate.open ();
  fail_unless_equals_int (cudaStreamSynchronize (held), cudaSuccess);
  fail_unless_equals_int (cudaStreamDestroy (held), cudaSuccess);
  fail_unless_equals_int (cudaStreamDestroy (later), cudaSuccess);
}
GST_END_TEST;

static Suite *
ipc_events_gpu_suite (void)
{
  Suite * s = suite_create ("ipc_events_gpu");
  TCase * tc = tcase_create ("events");
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_pending_slots_wait);
  tcase_add_test (tc, test_no_limit_grows);
  tcase_add_test (tc, test_in_order_stops_at_pending);
  return s;
}

TESTUTIL_GPU_CHECK_MAIN (ipc_events_gpu)

/* SPDX-License-Identifier: LGPL-2.1-or-later */
// The tracer's stream gate (plugins/tracer/gstcsstreamgate): it holds its
// stream until opened, is always opened (by its owner, when dropped, by
// any host wait before it blocks, or by its watchdog after 2 ms), and stays open where the device cannot
// use stream memory operations. The stand-in runs it again with those
// refused (FAKECUDA_NO_STREAM_MEM_OPS=1).
#include <gst/check/gstcheck.h>

#include <cstdlib>

#include "gstcshostwait-private.h"
#include "testutil.h"
#include "tracer/gstcsstreamgate.hpp"

namespace {

struct Stream {
  cudaStream_t s = nullptr;
  cudaEvent_t after = nullptr; // recorded behind the gate
  Stream ()
  {
    fail_unless_equals_int (cudaSetDevice (0), cudaSuccess);
    fail_unless_equals_int (
        cudaStreamCreateWithFlags (&s, cudaStreamNonBlocking), cudaSuccess);
    fail_unless_equals_int (
        cudaEventCreateWithFlags (&after, cudaEventDisableTiming), cudaSuccess);
  }
  ~Stream ()
  {
    cudaEventDestroy (after);
    cudaStreamDestroy (s);
  }
  // A gate on the stream, and `after` recorded behind it.
  gst_cs::StreamGate gate_then_record ()
  {
    gst_cs::StreamGate gate = gst_cs::StreamGate::close (0, s);
    fail_unless_equals_int (cudaEventRecord (after, s), cudaSuccess);
    return gate;
  }
};

/* What this run expects: the stand-in's second run refuses the operations
 * when one is enqueued. */
bool
gates_expected ()
{
  const char * refused = std::getenv ("FAKECUDA_NO_STREAM_MEM_OPS");
  return !(refused && *refused && *refused != '0');
}

} // namespace

GST_START_TEST (test_gate_holds_until_opened)
{
  Stream st;
  /* The driver has the call (a refusing device says no when a wait is
   * enqueued: then no gate closes). */
  fail_unless (gst_cs::stream_gates_supported (0));
  gst_cs::StreamGate gate = st.gate_then_record ();
  fail_unless_equals_int (gate.closed (), gates_expected ());
  if (gate.closed ()) /* a GPU cannot pass it; the stand-in runs nothing yet */
    fail_unless_equals_int (cudaEventQuery (st.after), cudaErrorNotReady);
  gate.open ();
  fail_if (gate.closed ());
  fail_unless_equals_int (gate.held (), gates_expected ());
  fail_unless (gst_cs_host_wait_event (st.after, NULL, NULL));
}
GST_END_TEST;

/* An owner that leaves early (an error before its work ended) still opens
 * it: the wait below would never end otherwise. */
GST_START_TEST (test_dropped_gate_opens)
{
  Stream st;
  {
    gst_cs::StreamGate gate = st.gate_then_record ();
    gst_cs::StreamGate moved = std::move (gate);
    fail_if (gate.closed ());
    fail_unless_equals_int (moved.closed (), gates_expected ());
  }
  fail_unless (gst_cs_host_wait_event (st.after, NULL, NULL));
}
GST_END_TEST;

/* A host wait for work behind a closed gate, by its owner's thread: the
 * gate opens first, and says it did not hold to the end. */
GST_START_TEST (test_host_wait_opens_gates)
{
  Stream st;
  gst_cs::StreamGate gate = st.gate_then_record ();
  fail_unless (gst_cs_host_wait_event (st.after, NULL, NULL));
  gate.open ();
  fail_if (gate.held ());
}
GST_END_TEST;

/* More gates than words: the rest come back open, and every word is free
 * again once they are opened. */
GST_START_TEST (test_gates_run_out_and_come_back)
{
  Stream st;
  std::vector<gst_cs::StreamGate> gates;
  for (int i = 0; i < 300; i++)
    gates.push_back (gst_cs::StreamGate::close (0, st.s));
  int closed = 0;
  for (const gst_cs::StreamGate & g : gates)
    closed += g.closed () ? 1 : 0;
  fail_unless (
      gates_expected () ? closed > 0 && closed < 300 : closed == 0, "%d", closed);
  gates.clear ();
  fail_unless_equals_int (cudaEventRecord (st.after, st.s), cudaSuccess);
  fail_unless (gst_cs_host_wait_event (st.after, NULL, NULL));
  gst_cs::StreamGate again = gst_cs::StreamGate::close (0, st.s);
  fail_unless_equals_int (again.closed (), gates_expected ());
}
GST_END_TEST;

/* An owner stuck longer than the watchdog's bound (in a CUDA call behind
 * another thread's device-wide wait, say): the watchdog opens its gate,
 * and the gate says it did not hold to the end. No host wait here: that
 * would open it first. */
GST_START_TEST (test_watchdog_opens_stuck_gate)
{
  Stream st;
  gst_cs::StreamGate gate = st.gate_then_record ();
  if (!gate.closed ())
    return; /* the run without stream memory operations */
  fail_unless_equals_int (cudaEventQuery (st.after), cudaErrorNotReady);
  /* 100 times the watchdog's 2 ms: on a loaded 2-core CI machine its
   * thread waited past 20 ms once in 30 runs. */
  g_usleep (200000);
  /* Opened meanwhile: not held to the end, and what is behind it runs. */
  gate.open ();
  fail_if (gate.held ());
  fail_unless (gst_cs_host_wait_event (st.after, NULL, NULL));
}
GST_END_TEST;

/* Gates opened by their owners before the watchdog, woken by their
 * closing, has looked: it finds none closed and sleeps again, and must
 * still be woken by the next gate. A close that cleared the watchdog's
 * idle flag for it left it asleep for good after such a wake-up (16
 * streams into cudabatch hung at their first frames on an H200): here the
 * stuck gate at the end then stayed closed. */
GST_START_TEST (test_watchdog_wakes_after_gates_opened_early)
{
  Stream st;
  for (int i = 0; i < 200; i++) {
    gst_cs::StreamGate quick = gst_cs::StreamGate::close (0, st.s);
    if (!quick.closed ())
      return; /* the run without stream memory operations */
    /* Held to here, unless this thread lost its core for 2 ms and the
     * watchdog opened it: either will do. */
    quick.open ();
    g_usleep (100); /* the watchdog wakes, finds no gate closed */
  }
  gst_cs::StreamGate gate = st.gate_then_record ();
  g_usleep (200000); /* as test_watchdog_opens_stuck_gate */
  gate.open ();
  fail_if (gate.held (), "the watchdog did not open a gate closed for 200 ms");
  fail_unless (gst_cs_host_wait_event (st.after, NULL, NULL));
}
GST_END_TEST;

static Suite *
stream_gate_gpu_suite (void)
{
  Suite * s = suite_create ("stream_gate_gpu");
  TCase * tc = tcase_create ("gpu");
  tcase_set_timeout (tc, 60);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_gate_holds_until_opened);
  tcase_add_test (tc, test_dropped_gate_opens);
  tcase_add_test (tc, test_host_wait_opens_gates);
  tcase_add_test (tc, test_gates_run_out_and_come_back);
  tcase_add_test (tc, test_watchdog_opens_stuck_gate);
  tcase_add_test (tc, test_watchdog_wakes_after_gates_opened_early);
  return s;
}

TESTUTIL_GPU_CHECK_MAIN (stream_gate_gpu);

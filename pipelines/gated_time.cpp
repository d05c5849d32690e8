/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "gated_time.hpp"

#include <glib.h>

#include <algorithm>
#include <cstdio>
#include <vector>

#include "tracer/gstcsstreamgate.hpp"

bool
check (cudaError_t e, const char * what)
{
  if (e == cudaSuccess)
    return true;
  std::fprintf (stderr, "%s: %s\n", what, cudaGetErrorString (e));
  return false;
}

namespace {

/* One piece between two events behind a gate; its time in µs. */
bool
time_one (int device, cudaStream_t stream, cudaEvent_t start, cudaEvent_t stop,
    const std::function<bool ()> & work, double * us, bool * held)
{
  /* GCS_TIME_UNGATED=1: no gate, as the tracer times by default (the
   * launch's latency in the span on both sides). */
  static const bool ungated = g_getenv ("GCS_TIME_UNGATED") != nullptr;
  gst_cs::StreamGate gate =
      ungated ? gst_cs::StreamGate () : gst_cs::StreamGate::close (device, stream);
  bool fine = check (cudaEventRecord (start, stream), "cudaEventRecord") && work () &&
              check (cudaEventRecord (stop, stream), "cudaEventRecord");
  gate.open ();
  *held = gate.held ();
  float ms = 0;
  fine = check (cudaEventSynchronize (stop), "cudaEventSynchronize") && fine &&
         check (cudaEventElapsedTime (&ms, start, stop), "cudaEventElapsedTime");
  *us = 1000.0 * ms;
  return fine;
}

} // namespace

bool
time_one_at_a_time (int device, cudaStream_t stream, int n,
    const std::function<bool ()> & work, GatedTime * out)
{
  cudaEvent_t start = nullptr, stop = nullptr;
  if (!check (cudaEventCreate (&start), "cudaEventCreate") ||
      !check (cudaEventCreate (&stop), "cudaEventCreate"))
    return false;
  std::vector<double> times;
  bool fine = true, all_held = true;
  for (int i = 0; i < n + 5 && fine; i++) {
    double us = 0;
    bool held = false;
    fine = time_one (device, stream, start, stop, work, &us, &held);
    if (i >= 5) {
      times.push_back (us);
      all_held = all_held && held;
    }
  }
  cudaEventDestroy (start);
  cudaEventDestroy (stop);
  if (!fine || times.empty ())
    return false;
  std::sort (times.begin (), times.end ());
  double sum = 0;
  for (double t : times)
    sum += t;
  out->median_us = times[times.size () / 2];
  out->mean_us = sum / times.size ();
  out->gated = all_held;
  return true;
}

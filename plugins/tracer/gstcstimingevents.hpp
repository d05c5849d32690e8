/* SPDX-License-Identifier: LGPL-2.1-or-later */
// CUDA events with timing, recycled per device, for the tracer only (the
// elements' own events carry no timing: timing costs on every record).
#pragma once

#include <mutex>
#include <vector>

#include <glib.h>
#include <cuda_runtime_api.h>

namespace gst_cs {

class TimingEventPool {
public:
  // An event of `device`, which must be current; nullptr with `error` set
  // when the driver cannot create one. Created only until the pool holds
  // as many as are in flight.
  cudaEvent_t take (int device, GError ** error);
  void give (int device, cudaEvent_t event);
  // Destroys the free events (those given back).
  void clear ();

private:
  std::mutex lock_;
  std::vector<std::vector<cudaEvent_t>> free_; // per device
};

} // namespace gst_cs

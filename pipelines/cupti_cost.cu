/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What the cudastreams tracer's two ways of timing a kernel give and cost
 * (issue 37; scripts/gpu-tracer.sh runs it):
 *  1. a kernel of known length (a clock spin of one block per SM), timed
 *     one launch at a time behind a stream gate between two events, as the
 *     tracer times a frame, beside the same launches' durations in CUPTI's
 *     activity records: how much of an event span is the GPU's dispatch of
 *     the launch and not the kernel;
 *  2. CUPTI's kernel records on a stream of launches: the CPU per launch
 *     and the GPU time per kernel, without records, with them always on,
 *     and switched on for one launch in 32 (the tracer's default sampling);
 *  3. whether an external correlation id pushed around a launch comes back
 *     without CUPTI's API records (what a tracer would need to tell its
 *     frames' kernels from the others without them).
 * One line per figure; `RESULT {json}` last.
 *   gcs-cupti-cost */
#include <cupti.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "gated_time.hpp"

namespace {

__global__ void
spin (long long cycles)
{
  const long long t0 = clock64 ();
  while (clock64 () - t0 < cycles) {
  }
}

__global__ void
empty ()
{}

bool
cupti_ok (CUptiResult r, const char * what)
{
  if (r == CUPTI_SUCCESS)
    return true;
  const char * s = nullptr;
  cuptiGetResultString (r, &s);
  std::fprintf (stderr, "%s: %s\n", what, s ? s : "?");
  return false;
}

/* The records delivered since the last take (). */
struct Records {
  std::mutex lock;
  std::vector<double> kernel_us;
  size_t external = 0;
} records;

void CUPTIAPI
buffer_requested (uint8_t ** buffer, size_t * size, size_t * max_records)
{
  constexpr size_t kBytes = 8u << 20;
  *buffer = static_cast<uint8_t *> (std::aligned_alloc (8, kBytes));
  *size = *buffer ? kBytes : 0;
  *max_records = 0;
}

void CUPTIAPI
buffer_completed (CUcontext, uint32_t, uint8_t * buffer, size_t, size_t valid)
{
  std::lock_guard<std::mutex> hold (records.lock);
  CUpti_Activity * r = nullptr;
  while (cuptiActivityGetNextRecord (buffer, valid, &r) == CUPTI_SUCCESS) {
    if (r->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) {
      auto * k = reinterpret_cast<CUpti_ActivityKernel10 *> (r);
      records.kernel_us.push_back ((k->end - k->start) / 1000.0);
    } else if (r->kind == CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION) {
      records.external++;
    }
  }
  std::free (buffer);
}

/* Flushes CUPTI and hands over what came: kernel durations, external ids. */
std::vector<double>
take (size_t * external)
{
  cuptiActivityFlushAll (1);
  std::lock_guard<std::mutex> hold (records.lock);
  std::vector<double> out;
  out.swap (records.kernel_us);
  if (external)
    *external = records.external;
  records.external = 0;
  return out;
}

double
median (std::vector<double> v)
{
  if (v.empty ())
    return -1;
  std::sort (v.begin (), v.end ());
  return v[v.size () / 2];
}

double
now_us ()
{
  return std::chrono::duration<double, std::micro> (
      std::chrono::steady_clock::now ().time_since_epoch ())
      .count ();
}

enum class Mode { kOff, kAlways, kOneIn32 };
const char * const kModeNames[] = { "no records", "records always on",
  "records on for one launch in 32" };

struct StreamCost {
  double cpu_us = 0, gpu_us = 0; /* per launch */
  size_t records = 0;
};

/* `n` launches on `stream` as fast as the host enqueues them: the CPU per
 * launch, and the time per launch to the last kernel's end (the GPU's, for
 * a spin longer than the host's launch). */
bool
stream_of_launches (
    Mode mode, bool busy, long long cycles, int n, cudaStream_t stream, StreamCost * out)
{
  auto on = [] (bool enable) {
    return cupti_ok (enable
                         ? cuptiActivityEnable (CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL)
                         : cuptiActivityDisable (CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL),
        "cuptiActivityEnable/Disable");
  };
  take (nullptr);
  if ((mode == Mode::kAlways && !on (true)) ||
      !check (cudaStreamSynchronize (stream), "cudaStreamSynchronize"))
    return false;
  const double t0 = now_us ();
  for (int i = 0; i < n; i++) {
    const bool sampled = mode == Mode::kOneIn32 && i % 32 == 0;
    if (sampled && !on (true))
      return false;
    if (busy)
      spin<<<1, 32, 0, stream>>> (cycles);
    else
      empty<<<1, 32, 0, stream>>> ();
    if (sampled && !on (false))
      return false;
  }
  const double t1 = now_us ();
  if (!check (cudaStreamSynchronize (stream), "cudaStreamSynchronize"))
    return false;
  const double t2 = now_us ();
  if (mode == Mode::kAlways && !on (false))
    return false;
  out->cpu_us = (t1 - t0) / n;
  out->gpu_us = (t2 - t0) / n;
  out->records = take (nullptr).size ();
  return true;
}

} // namespace

int
main ()
{
  const int device = 0;
  cudaStream_t stream = nullptr;
  int khz = 0, sms = 0;
  if (!check (cudaSetDevice (device), "cudaSetDevice") ||
      !check (cudaStreamCreateWithFlags (&stream, cudaStreamNonBlocking),
          "cudaStreamCreate") ||
      !check (
          cudaDeviceGetAttribute (&khz, cudaDevAttrClockRate, device), "clock rate") ||
      !check (
          cudaDeviceGetAttribute (&sms, cudaDevAttrMultiProcessorCount, device), "SMs") ||
      !cupti_ok (cuptiActivityRegisterCallbacks (buffer_requested, buffer_completed),
          "cuptiActivityRegisterCallbacks"))
    return 1;
  cudaDeviceProp prop{};
  cudaGetDeviceProperties (&prop, device);
  std::printf ("device: %s\n", prop.name);
  std::string json = "{";

  /* 1. Event spans against CUPTI's durations, one gated launch at a time. */
  json += "\"spans\":[";
  for (int target_us : { 10, 25, 50, 100 }) {
    const long long cycles = (long long)khz * target_us / 1000;
    auto work = [&] {
      spin<<<sms, 32, 0, stream>>> (cycles);
      return check (cudaGetLastError (), "launch");
    };
    GatedTime events;
    if (!time_one_at_a_time (device, stream, 200, work, &events))
      return 1;
    /* The same launches with CUPTI's records on (the events' figure is taken
     * without: records change the launch). */
    if (!cupti_ok (cuptiActivityEnable (CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL), "enable"))
      return 1;
    GatedTime unused;
    if (!time_one_at_a_time (device, stream, 200, work, &unused))
      return 1;
    cuptiActivityDisable (CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
    const double cupti = median (take (nullptr));
    std::printf ("span of a %d us spin, one gated launch at a time: events %.2f us (%s), "
                 "CUPTI %.2f us: the span adds %.2f us (%.1f%%)\n",
        target_us, events.median_us, events.gated ? "gated" : "NOT gated", cupti,
        events.median_us - cupti, 100.0 * (events.median_us - cupti) / cupti);
    char row[200];
    std::snprintf (row, sizeof row,
        "%s{\"spin_us\":%d,\"events_us\":%.3f,\"cupti_us\":%.3f}",
        target_us == 10 ? "" : ",", target_us, events.median_us, cupti);
    json += row;
  }
  json += "]";

  /* 2. What the records cost a stream of launches. */
  const long long cycles10 = (long long)khz * 10 / 1000;
  for (bool busy : { false, true }) {
    StreamCost off;
    for (Mode mode : { Mode::kOff, Mode::kAlways, Mode::kOneIn32 }) {
      StreamCost c;
      if (!stream_of_launches (mode, busy, cycles10, busy ? 3000 : 20000, stream, &c))
        return 1;
      if (mode == Mode::kOff)
        off = c;
      std::printf (
          "%s launches, %s: %.2f us CPU per launch (%+.1f%%), %.2f us per launch "
          "to the last end (%+.1f%%), %zu records\n",
          busy ? "10 us spin" : "empty kernel", kModeNames[(int)mode], c.cpu_us,
          100.0 * (c.cpu_us - off.cpu_us) / off.cpu_us, c.gpu_us,
          100.0 * (c.gpu_us - off.gpu_us) / off.gpu_us, c.records);
      char row[200];
      std::snprintf (row, sizeof row,
          ",\"%s_%s\":{\"cpu_us\":%.3f,\"gpu_us\":%.3f,\"records\":%zu}",
          busy ? "spin" : "empty",
          mode == Mode::kOff      ? "off"
          : mode == Mode::kAlways ? "always"
                                  : "one_in_32",
          c.cpu_us, c.gpu_us, c.records);
      json += row;
    }
  }

  /* 3. External correlation without API records. */
  size_t external = 0;
  if (!cupti_ok (
          cuptiActivityEnable (CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION), "enable") ||
      !cupti_ok (cuptiActivityEnable (CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL), "enable"))
    return 1;
  for (uint64_t id = 1; id <= 32; id++) {
    uint64_t popped = 0;
    cuptiActivityPushExternalCorrelationId (CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, id);
    empty<<<1, 32, 0, stream>>> ();
    cuptiActivityPopExternalCorrelationId (
        CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, &popped);
  }
  cudaStreamSynchronize (stream);
  const size_t kernels = take (&external).size ();
  std::printf ("external correlation ids pushed around 32 launches, without API records: "
               "%zu correlation records, %zu kernel records\n",
      external, kernels);
  std::printf ("RESULT %s,\"external_records\":%zu}\n", json.c_str (), external);
  return 0;
}

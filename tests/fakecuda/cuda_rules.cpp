/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What the CUDA runtime allows across two devices, as a table of calls and
 * the answers they get. The same source is built twice: against the real
 * runtime (suite gpu, on a machine with two GPUs) and against the stand-in
 * (suite fakecuda, FAKECUDA_DEVICES=2). Both must give the answers below,
 * so the stand-in refuses what CUDA refuses, and CI catches code that
 * records an event of one device on a stream of another, or uses a legacy
 * stream handle with the wrong device current, before a GPU with two
 * devices ever runs it.
 *
 *   cuda_rules            check every row (exit 77 with fewer than 2 devices)
 *   cuda_rules --print    print every row's answer without judging it
 *
 * A row that disagrees prints both answers; the exit code is 1. */
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>

namespace {

struct Objects {
  cudaStream_t stream[2] = {};
  cudaEvent_t event[2] = {};
  void * device_mem[2] = {};
  void * pinned = nullptr;
};

constexpr size_t kBytes = 4096;

bool
made (cudaError_t err, const char * what)
{
  if (err == cudaSuccess)
    return true;
  std::printf ("FAIL cuda_rules: setup: %s: %s\n", what, cudaGetErrorName (err));
  return false;
}

/* Streams, events and memory of each device, each made with its device
 * current; every event recorded once on its own device's stream. */
bool
make_objects (Objects & o)
{
  for (int d = 0; d < 2; d++) {
    if (!made (cudaSetDevice (d), "cudaSetDevice") ||
        !made (cudaStreamCreateWithFlags (&o.stream[d], cudaStreamNonBlocking),
            "cudaStreamCreateWithFlags") ||
        !made (cudaEventCreateWithFlags (&o.event[d], cudaEventDisableTiming),
            "cudaEventCreateWithFlags") ||
        !made (cudaMalloc (&o.device_mem[d], kBytes), "cudaMalloc") ||
        !made (cudaEventRecord (o.event[d], o.stream[d]), "cudaEventRecord"))
      return false;
  }
  return made (cudaSetDevice (0), "cudaSetDevice") &&
         made (cudaMallocHost (&o.pinned, kBytes), "cudaMallocHost");
}

struct Row {
  const char * what;
  int current; /* the device made current before the call */
  cudaError_t expected;
  std::function<cudaError_t (Objects &)> call;
};

/* The rows. Objects of the second device are used with the first current
 * wherever CUDA takes the device from the handle itself. */
std::vector<Row>
rows ()
{
  return {
    { "record an event of device 0 on a stream of device 1", 0,
        cudaErrorInvalidResourceHandle,
        [] (Objects & o) { return cudaEventRecord (o.event[0], o.stream[1]); } },
    { "record an event of device 0 on a stream of device 1", 1,
        cudaErrorInvalidResourceHandle,
        [] (Objects & o) { return cudaEventRecord (o.event[0], o.stream[1]); } },
    { "record an event of device 1 on a stream of device 1", 0, cudaSuccess,
        [] (Objects & o) { return cudaEventRecord (o.event[1], o.stream[1]); } },
    { "record an event of device 1 on the legacy stream (0)", 0,
        cudaErrorInvalidResourceHandle,
        [] (Objects & o) { return cudaEventRecord (o.event[1], nullptr); } },
    { "record an event of device 1 on cudaStreamLegacy (1)", 0,
        cudaErrorInvalidResourceHandle,
        [] (Objects & o) { return cudaEventRecord (o.event[1], cudaStreamLegacy); } },
    { "record an event of device 1 on cudaStreamPerThread (2)", 0,
        cudaErrorInvalidResourceHandle,
        [] (Objects & o) { return cudaEventRecord (o.event[1], cudaStreamPerThread); } },
    { "record an event of device 1 on cudaStreamPerThread (2)", 1, cudaSuccess,
        [] (Objects & o) { return cudaEventRecord (o.event[1], cudaStreamPerThread); } },
    { "a stream of device 1 waits for an event of device 0", 0, cudaSuccess,
        [] (Objects & o) { return cudaStreamWaitEvent (o.stream[1], o.event[0], 0); } },
    { "a stream of device 1 waits for an event of device 0", 1, cudaSuccess,
        [] (Objects & o) { return cudaStreamWaitEvent (o.stream[1], o.event[0], 0); } },
    { "a stream of device 1 waits for an event of device 1", 0, cudaSuccess,
        [] (Objects & o) { return cudaStreamWaitEvent (o.stream[1], o.event[1], 0); } },
    { "the legacy stream (0) waits for an event of device 1", 0, cudaSuccess,
        [] (Objects & o) { return cudaStreamWaitEvent (nullptr, o.event[1], 0); } },
    { "query an event of device 1", 0, cudaSuccess,
        [] (Objects & o) {
          cudaError_t e = cudaEventSynchronize (o.event[1]);
          return e != cudaSuccess ? e : cudaEventQuery (o.event[1]);
        } },
    { "synchronise a stream of device 1", 0, cudaSuccess,
        [] (Objects & o) { return cudaStreamSynchronize (o.stream[1]); } },
    { "copy device 0 memory into device 1 memory on a stream of device 1", 0, cudaSuccess,
        [] (Objects & o) {
          return cudaMemcpyAsync (
              o.device_mem[1], o.device_mem[0], kBytes, cudaMemcpyDefault, o.stream[1]);
        } },
    { "peer copy from device 0 to device 1 on a stream of device 1", 0, cudaSuccess,
        [] (Objects & o) {
          return cudaMemcpyPeerAsync (
              o.device_mem[1], 1, o.device_mem[0], 0, kBytes, o.stream[1]);
        } },
    { "peer copy from device 0 to device 1 on a stream of device 0", 1, cudaSuccess,
        [] (Objects & o) {
          return cudaMemcpyPeerAsync (
              o.device_mem[1], 1, o.device_mem[0], 0, kBytes, o.stream[0]);
        } },
    { "copy pinned memory into device 1 memory on a stream of device 1", 0, cudaSuccess,
        [] (Objects & o) {
          return cudaMemcpy2DAsync (o.device_mem[1], 256, o.pinned, 256, 256, 16,
              cudaMemcpyHostToDevice, o.stream[1]);
        } },
    { "peer copy from a device that does not exist", 0, cudaErrorInvalidDevice,
        [] (Objects & o) {
          return cudaMemcpyPeerAsync (
              o.device_mem[0], 0, o.device_mem[1], 7, kBytes, o.stream[0]);
        } },
    { "make a device that does not exist current", 0, cudaErrorInvalidDevice,
        [] (Objects &) { return cudaSetDevice (7); } },
    { "destroy an event of device 1", 0, cudaSuccess,
        [] (Objects & o) { return cudaEventDestroy (o.event[1]); } },
    { "destroy a stream of device 1", 0, cudaSuccess,
        [] (Objects & o) { return cudaStreamDestroy (o.stream[1]); } },
    { "free device 1 memory", 0, cudaSuccess,
        [] (Objects & o) { return cudaFree (o.device_mem[1]); } },
  };
}

} // namespace

int
main (int argc, char ** argv)
{
  const bool print = argc > 1 && std::strcmp (argv[1], "--print") == 0;
  int n = 0;
  if (cudaGetDeviceCount (&n) != cudaSuccess || n < 2) {
    std::printf ("SKIP cuda_rules: needs two CUDA devices, this machine has %d\n", n);
    return 77;
  }
  Objects o;
  if (!make_objects (o))
    return 1;
  int wrong = 0;
  for (const Row & r : rows ()) {
    (void)cudaSetDevice (r.current);
    const cudaError_t got = r.call (o);
    (void)cudaGetLastError (); /* each row on its own */
    const bool ok = got == r.expected;
    if (print)
      std::printf ("%-70s current %d: %s\n", r.what, r.current, cudaGetErrorName (got));
    else if (!ok)
      std::printf ("FAIL %s (device %d current): %s, expected %s\n", r.what, r.current,
          cudaGetErrorName (got), cudaGetErrorName (r.expected));
    wrong += !ok;
  }
  (void)cudaSetDevice (0);
  if (print)
    return 0;
  std::printf ("cuda_rules: %zu rows, %d disagree\n", rows ().size (), wrong);
  return wrong ? 1 : 0;
}

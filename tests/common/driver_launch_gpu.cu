/* SPDX-License-Identifier: LGPL-2.1-or-later */
// gpu/driver_launch.h on a GPU: a kernel's first launch in a context goes
// through the runtime, the next ones through the driver's cuLaunchKernel
// (the counts say so: a fall back to the runtime on every frame would
// otherwise go unseen), with their arguments, on their stream; a kernel
// handle (what run-time compiled kernels are) launches too; each device's
// function is its own; after a device reset the new context's function
// is found again, not the old one used; a launch the driver refuses is
// made again through the runtime, whose error the caller reads, and
// nothing runs. Exits 77 without a GPU.
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_runtime_api.h>

#include "driver_launch.h"

namespace {

namespace driver = gst_cs::gpu::driver;

int failures = 0;

#define EXPECT(cond, ...) \
  do { \
    if (!(cond)) { \
      std::fprintf (stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
      std::fprintf (stderr, __VA_ARGS__); \
      std::fprintf (stderr, "\n"); \
      failures++; \
    } \
  } while (0)

struct Pair {
  int add;
  int times;
};

/* Arguments of several kinds and sizes: a pointer, a struct, a scalar. */
__global__ void
scale_add (int * data, Pair p, int n)
{
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    data[i] = data[i] * p.times + p.add;
}

/* One launch of scale_add on `device`, built or as a kernel handle, on a
 * stream of its own; `by_driver`: whether the driver is to make it. */
void
launch_on (int device, bool handle, bool by_driver, const char * what)
{
  const int n = 1000;
  std::vector<int> host (n);
  for (int i = 0; i < n; i++)
    host[i] = i;
  cudaSetDevice (device);
  int * d = nullptr;
  cudaStream_t s = nullptr;
  if (cudaMalloc (&d, n * sizeof (int)) != cudaSuccess ||
      cudaStreamCreateWithFlags (&s, cudaStreamNonBlocking) != cudaSuccess) {
    EXPECT (false, "%s, device %d: no memory or stream", what, device);
    return;
  }
  cudaMemcpy (d, host.data (), n * sizeof (int), cudaMemcpyHostToDevice);
  const unsigned long long before = driver::launched ();
  const Pair p{ 7 + device, 3 };
  cudaError_t e;
  if (handle) {
    cudaKernel_t k = nullptr;
    EXPECT (cudaGetKernel (&k, scale_add) == cudaSuccess, "cudaGetKernel");
    int count = n;
    Pair pp = p;
    void * args[] = { &d, &pp, &count };
    e = driver::launch (
        k, driver::Kernel::HANDLE, dim3 ((n + 255) / 256), dim3 (256), 0, s, args);
  } else {
    e = driver::launch_built (
        scale_add, dim3 ((n + 255) / 256), dim3 (256), 0, s, d, p, n);
  }
  EXPECT (e == cudaSuccess, "%s, device %d: %s", what, device, cudaGetErrorName (e));
  EXPECT (cudaGetLastError () == cudaSuccess, "%s: no error after a good launch", what);
  EXPECT (driver::launched () == before + (by_driver ? 1 : 0),
      "%s, device %d: %s the driver (%llu launches by it before, %llu after)", what,
      device, by_driver ? "through" : "not through", before, driver::launched ());
  cudaStreamSynchronize (s);
  cudaMemcpy (host.data (), d, n * sizeof (int), cudaMemcpyDeviceToHost);
  cudaFree (d);
  cudaStreamDestroy (s);
  int wrong = 0;
  for (int i = 0; i < n; i++)
    wrong += host[i] != i * 3 + 7 + device;
  EXPECT (wrong == 0, "%s, device %d: %d of %d values wrong", what, device, wrong, n);
}

} // namespace

int
main ()
{
  int devices = 0;
  if (cudaGetDeviceCount (&devices) != cudaSuccess || devices == 0) {
    std::printf ("SKIP: no CUDA device\n");
    return 77;
  }
  for (int dev = 0; dev < devices && dev < 2; dev++) {
    launch_on (dev, false, false, "a built kernel's first launch in a context");
    launch_on (dev, false, true, "a built kernel again");
    launch_on (dev, false, true, "a built kernel a third time");
    launch_on (dev, true, false, "a kernel handle's first launch in a context");
    launch_on (dev, true, true, "a kernel handle again");
  }
  if (devices < 2)
    std::printf ("one device: each device's own function not checked\n");

  /* A launch the driver refuses (more threads a block than any GPU
   * takes): made again through the runtime, whose error the caller reads,
   * and nothing runs. */
  cudaSetDevice (0);
  int * d = nullptr;
  cudaMalloc (&d, sizeof (int));
  cudaMemset (d, 0, sizeof (int));
  const unsigned long long made = driver::launched (), refused = driver::refused ();
  const cudaError_t e = driver::launch_built (
      scale_add, dim3 (1), dim3 (4096), 0, nullptr, d, Pair{ 1, 1 }, 1);
  const cudaError_t last = cudaGetLastError ();
  EXPECT (e != cudaSuccess && last == e,
      "the runtime's error after a refused launch: %s, then %s", cudaGetErrorName (e),
      cudaGetErrorName (last));
  EXPECT (driver::launched () == made && driver::refused () == refused + 1,
      "a refused launch is counted as one (%llu made, %llu refused before; %llu, %llu "
      "after)",
      made, refused, driver::launched (), driver::refused ());
  int value = -1;
  cudaMemcpy (&value, d, sizeof value, cudaMemcpyDeviceToHost);
  EXPECT (value == 0, "nothing ran (%d)", value);
  EXPECT (cudaGetLastError () == cudaSuccess, "the error was not sticky");
  cudaFree (d);

  /* A device reset ends its context, and its functions: the next launch
   * is a first one again, in the new context, not the old function. */
  EXPECT (cudaDeviceReset () == cudaSuccess, "cudaDeviceReset");
  launch_on (0, false, false, "a built kernel's first launch after a reset");
  launch_on (0, false, true, "a built kernel again after a reset");
  EXPECT (driver::refused () == refused + 1, "no launch refused after the reset (%llu)",
      driver::refused ());

  std::printf ("%s: %llu launches through the driver, %llu refused by it\n",
      failures ? "FAILED" : "OK", driver::launched (), driver::refused ());
  return failures ? 1 : 0;
}

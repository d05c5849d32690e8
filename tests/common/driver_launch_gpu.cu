/* SPDX-License-Identifier: LGPL-2.1-or-later */
// gpu/driver_launch.h on a GPU: kernels go through the driver's
// cuLaunchKernel there (the count says so), on the stream they are given,
// with their arguments as <<<>>> passes them; a launch the driver refuses
// is made again through the runtime, whose error the caller reads, as
// before; a kernel handle (what run-time compiled kernels are) launches
// too; and each device's function is its own. Exits 77 without a GPU.
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_runtime_api.h>

#include "driver_launch.h"

namespace {

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

std::vector<int>
run_on (int device, bool handle)
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
    EXPECT (false, "device %d: no memory or stream", device);
    return {};
  }
  cudaMemcpy (d, host.data (), n * sizeof (int), cudaMemcpyHostToDevice);
  const unsigned long long before = gst_cs::gpu::driver::launched ();
  const Pair p{ 7 + device, 3 };
  if (handle) {
    cudaKernel_t k = nullptr;
    EXPECT (cudaGetKernel (&k, scale_add) == cudaSuccess, "cudaGetKernel");
    int count = n;
    Pair pp = p;
    void * args[] = { &d, &pp, &count };
    EXPECT (gst_cs::gpu::driver::launch (k, gst_cs::gpu::driver::Kernel::HANDLE,
                dim3 ((n + 255) / 256), dim3 (256), 0, s, args) == cudaSuccess,
        "a kernel handle through the driver, device %d", device);
  } else {
    gst_cs::gpu::driver::start (
        scale_add, dim3 ((n + 255) / 256), dim3 (256), 0, s, d, p, n);
    EXPECT (cudaGetLastError () == cudaSuccess, "no error after a good launch");
  }
  EXPECT (gst_cs::gpu::driver::launched () == before + 1,
      "device %d: the launch went through the driver (%llu launches before, %llu after)",
      device, before, gst_cs::gpu::driver::launched ());
  cudaStreamSynchronize (s);
  cudaMemcpy (host.data (), d, n * sizeof (int), cudaMemcpyDeviceToHost);
  cudaFree (d);
  cudaStreamDestroy (s);
  return host;
}

void
check (const std::vector<int> & out, int device, const char * how)
{
  int wrong = 0;
  for (int i = 0; i < (int)out.size (); i++)
    wrong += out[i] != i * 3 + 7 + device;
  EXPECT (!out.empty () && wrong == 0, "%s on device %d: %d of %zu values wrong", how,
      device, wrong, out.size ());
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
    /* Twice a device, the second from the caches. */
    check (run_on (dev, false), dev, "a built kernel");
    check (run_on (dev, false), dev, "a built kernel, again");
    check (run_on (dev, true), dev, "a kernel handle");
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
  const unsigned long long before = gst_cs::gpu::driver::launched ();
  gst_cs::gpu::driver::start (
      scale_add, dim3 (1), dim3 (4096), 0, nullptr, d, Pair{ 1, 1 }, 1);
  const cudaError_t e = cudaGetLastError ();
  EXPECT (e == cudaErrorInvalidConfiguration,
      "the runtime's error after a refused launch: %s", cudaGetErrorName (e));
  EXPECT (gst_cs::gpu::driver::launched () == before, "a refused launch is not counted");
  int value = -1;
  cudaMemcpy (&value, d, sizeof value, cudaMemcpyDeviceToHost);
  EXPECT (value == 0, "nothing ran (%d)", value);
  EXPECT (cudaGetLastError () == cudaSuccess, "the error was not sticky");
  cudaFree (d);
  std::printf ("%s: %llu launches through the driver\n", failures ? "FAILED" : "OK",
      gst_cs::gpu::driver::launched ());
  return failures ? 1 : 0;
}

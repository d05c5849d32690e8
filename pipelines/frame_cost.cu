/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gcs-frame-cost: what one frame's CUDA commands cost, on the host and on
 * the GPU, beside a bare kernel launch. A GPU element's frame is a launch,
 * an event recorded after it (the producer rule) and, where the input comes
 * from another stream, a wait on the input's event (the consumer rule). The
 * floor under any converter's frames/s where its kernel is short is what
 * these commands cost; this tool measures them:
 *
 *   host   the CPU time of one call, enqueued in bursts the GPU keeps up
 *          with (median of bursts): a launch with kernel parameters of 16
 *          to 2048 bytes (the converter's description is 1016, which
 *          its compiled kernels take too; 168 are its addresses alone), through the driver too, an event
 *          record, a wait on a complete event of another stream, an event
 *          query, the device guard's get/set;
 *   gpu    the GPU's time per frame of a stream of frames, enqueued far
 *          ahead (wall time over many frames: the GPU bounds it), for a
 *          kernel of about `--kernel-us` alone, with an event recorded
 *          after each, and with a wait on another stream's complete event
 *          before each as well.
 *
 * Prints one line per figure ("FRAME-COST <json>") and a table. */
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <string>
#include <vector>

#include <cuda.h>
#include <cuda_runtime.h>

#include "cuda_check.h"
#include "driver_launch.h"

namespace {

template <int N> struct Params {
  unsigned char bytes[N];
};

/* Copies `n` words, the same work a short resampling kernel does: read
 * some, write some, across every SM. */
template <int N>
__global__ void
copy_kernel (
    const uint4 * __restrict__ in, uint4 * __restrict__ out, size_t n, Params<N> p)
{
  const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i];
  if (i == 0 && p.bytes[N - 1] == 0xfe)
    out[0].x = 0; /* keeps the parameters used */
}

using Clock = std::chrono::steady_clock;

double
us_since (Clock::time_point t0)
{
  return std::chrono::duration<double, std::micro> (Clock::now () - t0).count ();
}

double
median (std::vector<double> v)
{
  std::sort (v.begin (), v.end ());
  return v[v.size () / 2];
}

void
report (const char * what, const char * kind, double us, const std::string & extra = "")
{
  std::printf ("FRAME-COST {\"what\":\"%s\",\"kind\":\"%s\",\"us\":%.3f%s}\n", what, kind,
      us, extra.c_str ());
}

struct Bufs {
  uint4 * in = nullptr;
  uint4 * out = nullptr;
  size_t words = 0;
};

template <int N>
cudaError_t
launch (const Bufs & b, cudaStream_t s, int blocks)
{
  Params<N> p;
  std::memset (&p, 0, sizeof p);
  copy_kernel<N><<<blocks, 256, 0, s>>> (b.in, b.out, b.words, p);
  return cudaGetLastError ();
}

/* The same launch through the two other doors a converter can use: the
 * runtime's cudaLaunchKernel on a cudaKernel_t (what a kernel loaded with
 * cudaLibraryLoadData, the run-time compiled ones, is), and the driver's
 * cuLaunchKernel on the CUfunction of the current context (what nvcodec
 * does). The runtime resolves a kernel handle to the context's function
 * on every launch; the driver call takes it resolved. */
using LaunchFn = CUresult (*) (CUfunction, unsigned, unsigned, unsigned, unsigned,
    unsigned, unsigned, unsigned, CUstream, void **, void **);

template <int N>
cudaError_t
launch_kernel_handle (cudaKernel_t k, const Bufs & b, cudaStream_t s, int blocks)
{
  Params<N> p;
  std::memset (&p, 0, sizeof p);
  size_t words = b.words;
  void * args[] = { (void *)&b.in, (void *)&b.out, &words, &p };
  return cudaLaunchKernel ((const void *)k, dim3 (blocks), dim3 (256), args, 0, s);
}

template <int N>
CUresult
launch_driver (LaunchFn fn, CUfunction f, const Bufs & b, cudaStream_t s, int blocks)
{
  Params<N> p;
  std::memset (&p, 0, sizeof p);
  size_t words = b.words;
  void * args[] = { (void *)&b.in, (void *)&b.out, &words, &p };
  return fn (f, blocks, 1, 1, 256, 1, 1, 0, (CUstream)s, args, nullptr);
}

/* The host cost of `call`, per call: bursts of `burst` calls, each burst
 * timed, the GPU drained between bursts (untimed). */
template <class Call>
double
host_cost (Call call, int burst = 64, int bursts = 60)
{
  std::vector<double> per;
  for (int r = 0; r < bursts + 5; r++) {
    const auto t0 = Clock::now ();
    for (int i = 0; i < burst; i++)
      call ();
    const double us = us_since (t0) / burst;
    cudaDeviceSynchronize ();
    if (r >= 5)
      per.push_back (us);
  }
  return median (per);
}

} // namespace

int
main (int argc, char ** argv)
{
  double kernel_us_wanted = 4.0;
  int frames = 20000;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp (argv[i], "--kernel-us"))
      kernel_us_wanted = std::atof (argv[i + 1]);
    else if (!std::strcmp (argv[i], "--frames"))
      frames = std::atoi (argv[i + 1]);
  }
  CHECK (cudaSetDevice (0));
  cudaStream_t s, other;
  CHECK (cudaStreamCreateWithFlags (&s, cudaStreamNonBlocking));
  CHECK (cudaStreamCreateWithFlags (&other, cudaStreamNonBlocking));
  cudaEvent_t done_elsewhere;
  CHECK (cudaEventCreateWithFlags (&done_elsewhere, cudaEventDisableTiming));
  CHECK (cudaEventRecord (done_elsewhere, other));
  std::vector<cudaEvent_t> ring (64);
  for (auto & e : ring)
    CHECK (cudaEventCreateWithFlags (&e, cudaEventDisableTiming));

  /* A kernel of about the wanted time: words copied, grown until the
   * stream of them takes that long a launch. */
  Bufs b;
  const size_t max_words = (size_t)64 << 20 >> 4; /* 64 MB */
  CHECK (cudaMalloc (&b.in, max_words * 16));
  CHECK (cudaMalloc (&b.out, max_words * 16));
  CHECK (cudaMemset (b.in, 1, max_words * 16));
  auto gpu_per_frame = [&] (auto launch_one, int n) {
    for (int i = 0; i < 200; i++)
      launch_one (i);
    cudaStreamSynchronize (s);
    const auto t0 = Clock::now ();
    for (int i = 0; i < n; i++)
      launch_one (i);
    cudaStreamSynchronize (s);
    return us_since (t0) / n;
  };
  int blocks = 0;
  double alone = 0;
  for (b.words = 1 << 16; b.words <= max_words; b.words *= 2) {
    blocks = (int)((b.words + 255) / 256);
    alone = gpu_per_frame ([&] (int) { launch<16> (b, s, blocks); }, 2000);
    if (alone >= kernel_us_wanted)
      break;
  }
  CHECK (cudaGetLastError ());
  std::printf (
      "kernel: %zu bytes copied, %d blocks of 256 threads\n", b.words * 16, blocks);

  /* ---- host cost of each call ---- */
  struct Row {
    const char * what;
    double us;
  };
  std::vector<Row> host;
  host.push_back (
      { "launch, 16-byte parameters", host_cost ([&] { launch<16> (b, s, 1); }) });
  host.push_back (
      { "launch, 256-byte parameters", host_cost ([&] { launch<256> (b, s, 1); }) });
  host.push_back (
      { "launch, 816-byte parameters", host_cost ([&] { launch<816> (b, s, 1); }) });
  host.push_back (
      { "launch, 2048-byte parameters", host_cost ([&] { launch<2048> (b, s, 1); }) });
  {
    cudaKernel_t handle = nullptr;
    cudaFunction_t fn = nullptr;
    void * entry = nullptr;
    cudaDriverEntryPointQueryResult found;
    CHECK (cudaGetKernel (&handle, copy_kernel<816>));
    CHECK (cudaGetFuncBySymbol (&fn, (const void *)copy_kernel<816>));
    CHECK (cudaGetDriverEntryPointByVersion (
        "cuLaunchKernel", &entry, 12000, cudaEnableDefault, &found));
    if (found != cudaDriverEntryPointSuccess || !entry) {
      std::fprintf (stderr, "no cuLaunchKernel in the driver\n");
      return 1;
    }
    const auto drv = reinterpret_cast<LaunchFn> (entry);
    CHECK (launch_kernel_handle<816> (handle, b, s, 1));
    CHECK (launch_driver<816> (drv, reinterpret_cast<CUfunction> (fn), b, s, 1) ==
                   CUDA_SUCCESS
               ? cudaSuccess
               : cudaErrorLaunchFailure);
    CHECK (cudaStreamSynchronize (s));
    host.push_back ({ "launch 816, cudaLaunchKernel (cudaKernel_t)",
        host_cost ([&] { launch_kernel_handle<816> (handle, b, s, 1); }) });
    host.push_back ({ "launch 816, cuLaunchKernel (CUfunction)", host_cost ([&] {
                       launch_driver<816> (
                           drv, reinterpret_cast<CUfunction> (fn), b, s, 1);
                     }) });
    /* The project's own door (gpu/driver_launch.h), its lookups included. */
    Params<816> p816;
    std::memset (&p816, 0, sizeof p816);
    host.push_back ({ "launch 816, driver::launch_built (ours)", host_cost ([&] {
                       (void)gst_cs::gpu::driver::launch_built (copy_kernel<816>,
                           dim3 (1), dim3 (256), 0, s, b.in, b.out, b.words, p816);
                     }) });
    host.push_back (
        { "launch 816, <<<>>> again", host_cost ([&] { launch<816> (b, s, 1); }) });
    /* Through the driver, the converter's description (1016 bytes) and
     * its 21 addresses alone (168): whether passing a compiled kernel only
     * its addresses would save the host anything (on the H200 it did not,
     * docs/cudaconvertscale.md); 816 through the driver above is between
     * them. */
    cudaFunction_t f168 = nullptr, f1016 = nullptr;
    CHECK (launch<168> (b, s, 1)); /* loaded into the context first */
    CHECK (launch<1016> (b, s, 1));
    CHECK (cudaGetFuncBySymbol (&f168, (const void *)copy_kernel<168>));
    CHECK (cudaGetFuncBySymbol (&f1016, (const void *)copy_kernel<1016>));
    CHECK (cudaStreamSynchronize (s));
    host.push_back ({ "launch 168, cuLaunchKernel (CUfunction)", host_cost ([&] {
                       launch_driver<168> (
                           drv, reinterpret_cast<CUfunction> (f168), b, s, 1);
                     }) });
    host.push_back ({ "launch 1016, cuLaunchKernel (CUfunction)", host_cost ([&] {
                       launch_driver<1016> (
                           drv, reinterpret_cast<CUfunction> (f1016), b, s, 1);
                     }) });
  }
  int k = 0;
  host.push_back ({ "cudaEventRecord",
      host_cost ([&] { cudaEventRecord (ring[k++ % ring.size ()], s); }) });
  host.push_back ({ "cudaStreamWaitEvent (complete, other stream)",
      host_cost ([&] { cudaStreamWaitEvent (s, done_elsewhere, 0); }) });
  host.push_back ({ "cudaEventQuery (complete)",
      host_cost ([&] { (void)cudaEventQuery (done_elsewhere); }) });
  int dev = 0;
  host.push_back ({ "cudaGetDevice", host_cost ([&] { cudaGetDevice (&dev); }) });
  host.push_back (
      { "cudaSetDevice (the current one)", host_cost ([&] { cudaSetDevice (0); }) });
  host.push_back ({ "frame: wait + launch 816 + record", host_cost ([&] {
                     cudaStreamWaitEvent (s, done_elsewhere, 0);
                     launch<816> (b, s, 1);
                     cudaEventRecord (ring[k++ % ring.size ()], s);
                   }) });
  host.push_back ({ "frame: launch 816 + record", host_cost ([&] {
                     launch<816> (b, s, 1);
                     cudaEventRecord (ring[k++ % ring.size ()], s);
                   }) });
  for (auto & r : host)
    report (r.what, "host", r.us);

  /* ---- GPU time per frame ---- */
  std::vector<Row> gpu;
  gpu.push_back (
      { "kernel", gpu_per_frame ([&] (int) { launch<816> (b, s, blocks); }, frames) });
  gpu.push_back ({ "kernel + record", gpu_per_frame (
                                          [&] (int i) {
                                            launch<816> (b, s, blocks);
                                            cudaEventRecord (ring[i % ring.size ()], s);
                                          },
                                          frames) });
  gpu.push_back (
      { "wait + kernel + record", gpu_per_frame (
                                      [&] (int i) {
                                        cudaStreamWaitEvent (s, done_elsewhere, 0);
                                        launch<816> (b, s, blocks);
                                        cudaEventRecord (ring[i % ring.size ()], s);
                                      },
                                      frames) });
  gpu.push_back ({ "wait + kernel", gpu_per_frame (
                                        [&] (int) {
                                          cudaStreamWaitEvent (s, done_elsewhere, 0);
                                          launch<816> (b, s, blocks);
                                        },
                                        frames) });
  gpu.push_back ({ "kernel, 16-byte parameters",
      gpu_per_frame ([&] (int) { launch<16> (b, s, blocks); }, frames) });
  CHECK (cudaGetLastError ());
  for (auto & r : gpu)
    report (r.what, "gpu", r.us);

  std::printf ("\n%-48s %8s\n", "host: one call", "us");
  for (auto & r : host)
    std::printf ("%-48s %8.2f\n", r.what, r.us);
  std::printf ("\n%-48s %8s %8s\n", "gpu: one frame, enqueued ahead", "us", "fps");
  for (auto & r : gpu)
    std::printf ("%-48s %8.2f %8.0f\n", r.what, r.us, 1e6 / r.us);
  return 0;
}

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gcs-ipc-signal-cost: what the IPC elements' per-frame signals cost, and
 * what a cheaper one would, measured before the release path is changed
 * (docs/ipc.md, "What a frame's signals cost").
 *
 * Today a frame crosses with interprocess events: the producer records one
 * after its write, the consumer's stream waits on it; the consumer records
 * one of its own after its last read, the producer queries it. The
 * alternative measured here is a stream memory operation on a page of
 * host memory both processes map (a memfd, registered with CUDA in each):
 * the GPU writes a frame's number there after the work before it
 * (cuStreamWriteValue32, which fences the writes before it), and the
 * other side reads it with the CPU (no CUDA call) or makes its stream
 * wait for it (cuStreamWaitValue32). A page whose writer died never gets
 * its value, but the waiting process can write the value itself, from the
 * CPU, and its stream goes on: an event of a killed process stays not
 * ready for ever, and a stream waiting on it is stuck (pipelines/ipc_probe.cu).
 *
 * Measured, in a producer process and a consumer process it starts:
 *   host   CPU µs of one call (median of bursts of 200 calls): a plain and
 *          an interprocess event record, a stream's wait on an interprocess
 *          event (its own; the other process's, opened by handle), a query
 *          of it, cuStreamWriteValue32 and cuStreamWaitValue32 on the
 *          shared page;
 *   order  2,000 frames: the producer's kernel fills an exported buffer
 *          with the frame's number then writes the number to the page; the
 *          consumer's stream waits for the page's value, its kernel counts
 *          the buffer's words that are not the frame's number (0 expected);
 *   seen   latency from the producer's enqueue of a frame (a short kernel
 *          and its signal) to the consumer's CPU seeing the signal: the
 *          page's value by a CPU read, or the event by cudaEventQuery;
 *   stuck  the consumer's stream waits for a value the producer never
 *          writes; the consumer writes it from the CPU: how soon its
 *          stream goes on.
 * Prints "IPC-SIGNAL <json>" lines and a table; no GStreamer. */
#include <cuda.h>
#include <cuda_runtime.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "cuda_check.h"

extern char ** environ;

namespace {

#define CHECK_CU(call) \
  do { \
    CUresult r_ = (call); \
    if (r_ != CUDA_SUCCESS) { \
      std::fprintf ( \
          stderr, "%s:%d %s: driver error %d\n", __FILE__, __LINE__, #call, (int)r_); \
      std::exit (2); \
    } \
  } while (0)

using WriteValueFn = CUresult (*) (CUstream, CUdeviceptr, cuuint32_t, unsigned int);
using WaitValueFn = CUresult (*) (CUstream, CUdeviceptr, cuuint32_t, unsigned int);
WriteValueFn write_value32;
WaitValueFn wait_value32;

void
load_entry_points ()
{
  cudaDriverEntryPointQueryResult q;
  void * p = nullptr;
  CHECK_OR_EXIT (cudaGetDriverEntryPointByVersion (
      "cuStreamWriteValue32", &p, 12000, cudaEnableDefault, &q));
  write_value32 = reinterpret_cast<WriteValueFn> (p);
  CHECK_OR_EXIT (cudaGetDriverEntryPointByVersion (
      "cuStreamWaitValue32", &p, 12000, cudaEnableDefault, &q));
  wait_value32 = reinterpret_cast<WaitValueFn> (p);
  if (!write_value32 || !wait_value32) {
    std::fprintf (stderr, "no stream memory operations in this driver\n");
    std::exit (2);
  }
}

double
now_us ()
{
  return std::chrono::duration<double, std::micro> (
      std::chrono::steady_clock::now ().time_since_epoch ())
      .count ();
}

constexpr int kWords = 1 << 18; /* 1 MiB of frame */
constexpr int kFrames = 2000;

/* The page both processes map: [0] the producer's frame signal, [1] the
 * consumer's release signal, [2] the stuck test's value, times at 8.. */
struct Page {
  volatile unsigned signal[4];
  volatile double enqueued_us[kFrames];
};

__global__ void
fill (unsigned * buf, unsigned v)
{
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < kWords;
       i += gridDim.x * blockDim.x)
    buf[i] = v;
}

/* A frame's work where only its signal matters: one word. */
__global__ void
touch (unsigned * p, unsigned v)
{
  *p = v;
}

__global__ void
count_wrong (const unsigned * buf, unsigned v, unsigned * wrong)
{
  unsigned n = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < kWords;
       i += gridDim.x * blockDim.x)
    n += buf[i] != v;
  if (n)
    atomicAdd (wrong, n);
}

void
report (const char * what, double us)
{
  std::printf ("IPC-SIGNAL {\"what\":\"%s\",\"us\":%.3f}\n", what, us);
  std::fflush (stdout);
}

/* Median over bursts of the CPU µs of one call of `fn`. */
template <class Fn>
double
host_us (cudaStream_t s, Fn fn)
{
  std::vector<double> per;
  for (int b = 0; b < 15; b++) {
    const double t0 = now_us ();
    for (int i = 0; i < 200; i++)
      fn ();
    per.push_back ((now_us () - t0) / 200);
    CHECK_OR_EXIT (cudaStreamSynchronize (s)); /* the GPU keeps up */
  }
  std::sort (per.begin (), per.end ());
  return per[per.size () / 2];
}

double
percentile (std::vector<double> v, double p)
{
  std::sort (v.begin (), v.end ());
  return v[std::min (v.size () - 1, (size_t)(p * (double)v.size ()))];
}

struct Shared {
  Page * page = nullptr;
  CUdeviceptr device = 0; /* the page as the GPU addresses it */
};

Shared
map_page (int fd)
{
  Shared s;
  void * p = mmap (nullptr, sizeof (Page), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED)
    std::exit (3);
  s.page = static_cast<Page *> (p);
  CHECK_OR_EXIT (cudaHostRegister (p, sizeof (Page), cudaHostRegisterMapped));
  void * d = nullptr;
  CHECK_OR_EXIT (cudaHostGetDevicePointer (&d, p, 0));
  s.device = reinterpret_cast<CUdeviceptr> (d);
  return s;
}

CUdeviceptr
word (const Shared & s, int i)
{
  return s.device + (CUdeviceptr)(i * sizeof (unsigned));
}

struct Handles {
  cudaIpcMemHandle_t mem;
  cudaIpcEventHandle_t event;
};

/* The consumer process: argv page fd, pipe fds. */
int
consumer (int page_fd, int from, int to)
{
  CHECK_OR_EXIT (cudaSetDevice (0));
  load_entry_points ();
  Shared sh = map_page (page_fd);
  Handles h;
  if (read (from, &h, sizeof h) != (ssize_t)sizeof h)
    return 4;
  void * mem = nullptr;
  CHECK_OR_EXIT (cudaIpcOpenMemHandle (&mem, h.mem, cudaIpcMemLazyEnablePeerAccess));
  cudaEvent_t theirs;
  CHECK_OR_EXIT (cudaIpcOpenEventHandle (&theirs, h.event));
  cudaStream_t s;
  CHECK_OR_EXIT (cudaStreamCreateWithFlags (&s, cudaStreamNonBlocking));
  unsigned * wrong = nullptr;
  CHECK_OR_EXIT (cudaMalloc (&wrong, 4));
  CHECK_OR_EXIT (cudaMemset (wrong, 0, 4));
  char go;
  if (read (from, &go, 1) != 1) /* the producer's event recorded once */
    return 4;
  CHECK_OR_EXIT (cudaEventSynchronize (theirs));
  report ("consumer: wait on the producer's interprocess event",
      host_us (s, [&] { CHECK_OR_EXIT (cudaStreamWaitEvent (s, theirs, 0)); }));
  report ("consumer: query of the producer's interprocess event",
      host_us (s, [&] { (void)cudaEventQuery (theirs); }));
  report (
      "consumer: cuStreamWaitValue32 on the shared page (satisfied)", host_us (s, [&] {
        CHECK_CU (wait_value32 (s, word (sh, 3), 0, CU_STREAM_WAIT_VALUE_GEQ));
      }));
  report ("consumer: cuStreamWriteValue32 to the shared page", host_us (s, [&] {
    CHECK_CU (write_value32 (s, word (sh, 1), 0, CU_STREAM_WRITE_VALUE_DEFAULT));
  }));
  char ready = 'R';
  if (write (to, &ready, 1) != 1)
    return 4;

  /* order: the stream waits for each frame's value, then checks its words. */
  for (unsigned f = 1; f <= kFrames; f++) {
    CHECK_CU (wait_value32 (s, word (sh, 0), f, CU_STREAM_WAIT_VALUE_GEQ));
    count_wrong<<<132, 256, 0, s>>> (static_cast<const unsigned *> (mem), f, wrong);
    CHECK_CU (write_value32 (s, word (sh, 1), f, CU_STREAM_WRITE_VALUE_DEFAULT));
  }
  CHECK_OR_EXIT (cudaStreamSynchronize (s));
  unsigned n_wrong = 0;
  CHECK_OR_EXIT (cudaMemcpy (&n_wrong, wrong, 4, cudaMemcpyDeviceToHost));
  std::printf (
      "IPC-SIGNAL {\"what\":\"order: words not yet written, over %d frames of %d "
      "words\",\"count\":%u}\n",
      kFrames, kWords, n_wrong);

  /* seen: the page's value by CPU reads, then the event by queries. */
  std::vector<double> by_page, by_event;
  if (read (from, &go, 1) != 1)
    return 4;
  for (unsigned f = kFrames + 1; f <= 2 * kFrames; f++) {
    while (sh.page->signal[0] < f) {
    }
    by_page.push_back (now_us () - sh.page->enqueued_us[f - kFrames - 1]);
  }
  if (read (from, &go, 1) != 1)
    return 4;
  for (int f = 0; f < kFrames / 4; f++) {
    /* the producer records its event once a frame and says when */
    double t;
    if (read (from, &t, sizeof t) != (ssize_t)sizeof t)
      return 4;
    while (cudaEventQuery (theirs) != cudaSuccess) {
    }
    by_event.push_back (now_us () - t);
    if (write (to, &ready, 1) != 1)
      return 4;
  }
  report ("seen: the page's value by the CPU, p50", percentile (by_page, 0.5));
  report ("seen: the page's value by the CPU, p99", percentile (by_page, 0.99));
  report ("seen: the event by cudaEventQuery, p50", percentile (by_event, 0.5));
  report ("seen: the event by cudaEventQuery, p99", percentile (by_event, 0.99));

  /* stuck: a value never written by the producer, written here. */
  CHECK_CU (wait_value32 (s, word (sh, 2), 1, CU_STREAM_WAIT_VALUE_GEQ));
  CHECK_CU (write_value32 (s, word (sh, 3), 7, CU_STREAM_WRITE_VALUE_DEFAULT));
  usleep (200000);
  const bool waited = cudaStreamQuery (s) == cudaErrorNotReady;
  const double t0 = now_us ();
  __atomic_store_n (&sh.page->signal[2], 1u, __ATOMIC_SEQ_CST);
  CHECK_OR_EXIT (cudaStreamSynchronize (s));
  std::printf ("IPC-SIGNAL {\"what\":\"stuck: the stream waited 200 ms for a value, then "
               "went on after the CPU wrote it\",\"waited\":%s,\"us\":%.1f}\n",
      waited ? "true" : "false", now_us () - t0);
  return 0;
}

int
producer (const char * self)
{
  CHECK_OR_EXIT (cudaSetDevice (0));
  load_entry_points ();
  const int page_fd = memfd_create ("gcs-ipc-signal", 0);
  if (page_fd < 0 || ftruncate (page_fd, sizeof (Page)))
    return 3;
  Shared sh = map_page (page_fd);
  int down[2], up[2];
  if (pipe (down) || pipe (up))
    return 3;
  const std::string a1 = std::to_string (page_fd), a2 = std::to_string (down[0]),
                    a3 = std::to_string (up[1]);
  char * argv[] = { const_cast<char *> (self), const_cast<char *> ("consumer"),
    const_cast<char *> (a1.c_str ()), const_cast<char *> (a2.c_str ()),
    const_cast<char *> (a3.c_str ()), nullptr };
  pid_t pid;
  if (posix_spawn (&pid, self, nullptr, nullptr, argv, environ))
    return 3;
  close (down[0]);
  close (up[1]);

  unsigned * buf = nullptr;
  CHECK_OR_EXIT (cudaMalloc (&buf, 2 << 20));
  cudaEvent_t plain, ipc;
  CHECK_OR_EXIT (cudaEventCreateWithFlags (&plain, cudaEventDisableTiming));
  CHECK_OR_EXIT (
      cudaEventCreateWithFlags (&ipc, cudaEventDisableTiming | cudaEventInterprocess));
  cudaStream_t s;
  CHECK_OR_EXIT (cudaStreamCreateWithFlags (&s, cudaStreamNonBlocking));
  Handles h;
  CHECK_OR_EXIT (cudaIpcGetMemHandle (&h.mem, buf));
  CHECK_OR_EXIT (cudaIpcGetEventHandle (&h.event, ipc));
  if (write (down[1], &h, sizeof h) != (ssize_t)sizeof h)
    return 4;
  CHECK_OR_EXIT (cudaEventRecord (ipc, s));
  CHECK_OR_EXIT (cudaStreamSynchronize (s));
  char c = 'G';
  if (write (down[1], &c, 1) != 1)
    return 4;

  report ("producer: plain event record",
      host_us (s, [&] { CHECK_OR_EXIT (cudaEventRecord (plain, s)); }));
  report ("producer: interprocess event record",
      host_us (s, [&] { CHECK_OR_EXIT (cudaEventRecord (ipc, s)); }));
  report ("producer: wait on its own interprocess event",
      host_us (s, [&] { CHECK_OR_EXIT (cudaStreamWaitEvent (s, ipc, 0)); }));
  report ("producer: wait on a plain event",
      host_us (s, [&] { CHECK_OR_EXIT (cudaStreamWaitEvent (s, plain, 0)); }));
  report ("producer: query of its interprocess event (complete)",
      host_us (s, [&] { (void)cudaEventQuery (ipc); }));
  report ("producer: cuStreamWriteValue32 to the shared page", host_us (s, [&] {
    CHECK_CU (write_value32 (s, word (sh, 3), 0, CU_STREAM_WRITE_VALUE_DEFAULT));
  }));
  report (
      "producer: cuStreamWaitValue32 on the shared page (satisfied)", host_us (s, [&] {
        CHECK_CU (wait_value32 (s, word (sh, 3), 0, CU_STREAM_WAIT_VALUE_GEQ));
      }));
  report ("producer: a launch (for scale)",
      host_us (s, [&] { touch<<<1, 1, 0, s>>> (buf + kWords, 0); }));
  if (read (up[0], &c, 1) != 1) /* the consumer's host figures done */
    return 4;

  /* order: each frame's words, then its value; the next frame's fill waits
   * for the consumer's release of the last (a CPU read of the page here:
   * this probe measures ordering, not throughput). */
  for (unsigned f = 1; f <= kFrames; f++) {
    while (sh.page->signal[1] < f - 1) {
    }
    fill<<<132, 256, 0, s>>> (buf, f);
    CHECK_CU (write_value32 (s, word (sh, 0), f, CU_STREAM_WRITE_VALUE_DEFAULT));
  }
  CHECK_OR_EXIT (cudaStreamSynchronize (s));

  /* seen, by the page: a frame every 200 µs. */
  if (write (down[1], &c, 1) != 1)
    return 4;
  for (unsigned f = kFrames + 1; f <= 2 * kFrames; f++) {
    sh.page->enqueued_us[f - kFrames - 1] = now_us ();
    touch<<<1, 1, 0, s>>> (buf + kWords, f);
    CHECK_CU (write_value32 (s, word (sh, 0), f, CU_STREAM_WRITE_VALUE_DEFAULT));
    const double t = now_us ();
    while (now_us () - t < 200) {
    }
  }
  CHECK_OR_EXIT (cudaStreamSynchronize (s));
  /* seen, by the event: one frame at a time (a record of an event the
   * other process queries must not overtake its query). */
  if (write (down[1], &c, 1) != 1)
    return 4;
  for (int f = 0; f < kFrames / 4; f++) {
    const double t = now_us ();
    touch<<<1, 1, 0, s>>> (buf + kWords, (unsigned)f);
    CHECK_OR_EXIT (cudaEventRecord (ipc, s));
    if (write (down[1], &t, sizeof t) != (ssize_t)sizeof t || read (up[0], &c, 1) != 1)
      return 4;
  }
  int status = 0;
  waitpid (pid, &status, 0);
  return WIFEXITED (status) ? WEXITSTATUS (status) : 5;
}

} // namespace

int
main (int argc, char ** argv)
{
  if (argc == 5 && std::strcmp (argv[1], "consumer") == 0)
    return consumer (std::atoi (argv[2]), std::atoi (argv[3]), std::atoi (argv[4]));
  return producer (argv[0]);
}

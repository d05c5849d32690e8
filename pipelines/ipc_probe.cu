/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What CUDA does with interprocess events and memory when the other process
 * dies, measured before the IPC elements' release path is designed
 * (cudastreamsipcsink/src). A producer exports memory and an interprocess
 * event; a consumer process waits on the producer's event, reads on the GPU,
 * records its own interprocess event ("read done") and hands its handle
 * back; the producer's stream waits on that event before it writes the
 * memory again. Then the consumer is killed at chosen moments and the
 * producer watches whether its waiting work ever runs, and how soon.
 *
 *   nvcc -O2 -o /tmp/ipc_probe pipelines/ipc_probe.cu && /tmp/ipc_probe
 *   timeout 60 /tmp/ipc_probe teardown    (a process whose stream is stuck:
 *                                          which teardown calls return)
 *   timeout 60 /tmp/ipc_probe poll-only   (the producer only queries a dead
 *                                          consumer's event, then frees)
 *
 * Prints one line per scenario; no GStreamer. */
#include <cuda_runtime.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

extern char ** environ;

#define CHECK(call) \
  do { \
    cudaError_t e_ = (call); \
    if (e_ != cudaSuccess) { \
      fprintf ( \
          stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString (e_)); \
      exit (2); \
    } \
  } while (0)

static double
now_s ()
{
  return std::chrono::duration<double> (
      std::chrono::steady_clock::now ().time_since_epoch ())
      .count ();
}

__device__ static unsigned long long
global_ns ()
{
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

/* Reads the buffer for `ns` nanoseconds (a consumer's long read). */
__global__ void
spin_read (const unsigned * buf, unsigned long long ns, unsigned * sink)
{
  unsigned long long start = global_ns ();
  unsigned acc = 0;
  while (global_ns () - start < ns)
    acc += buf[threadIdx.x];
  if (acc == 0xdeadbeef)
    *sink = acc;
}

__global__ void
write_value (unsigned * buf, unsigned v)
{
  buf[threadIdx.x] = v;
}

struct Handles {
  cudaIpcMemHandle_t mem;
  cudaIpcEventHandle_t event;
};

static void
write_all (int fd, const void * p, size_t n)
{
  const char * c = static_cast<const char *> (p);
  while (n > 0) {
    ssize_t w = write (fd, c, n);
    if (w <= 0)
      exit (3);
    c += w;
    n -= static_cast<size_t> (w);
  }
}

static bool
read_all (int fd, void * p, size_t n)
{
  char * c = static_cast<char *> (p);
  while (n > 0) {
    ssize_t r = read (fd, c, n);
    if (r <= 0)
      return false;
    c += r;
    n -= static_cast<size_t> (r);
  }
  return true;
}

/* The consumer process: stdin gives the producer's handles, stdout takes
 * this process's event handle, then one byte when its read is enqueued
 * and its event recorded. mode: "record" records after a read of read_ms;
 * "norecord" never records; "exit" records after the read and exits when
 * the read is done. */
static int
consumer (const std::string & mode, unsigned long long read_ms)
{
  Handles h;
  if (!read_all (0, &h, sizeof h))
    return 4;
  CHECK (cudaSetDevice (0));
  void * mem = nullptr;
  CHECK (cudaIpcOpenMemHandle (&mem, h.mem, cudaIpcMemLazyEnablePeerAccess));
  cudaEvent_t produced, read_done;
  CHECK (cudaIpcOpenEventHandle (&produced, h.event));
  CHECK (cudaEventCreateWithFlags (
      &read_done, cudaEventDisableTiming | cudaEventInterprocess));
  cudaIpcEventHandle_t back;
  CHECK (cudaIpcGetEventHandle (&back, read_done));
  write_all (1, &back, sizeof back);
  cudaStream_t s;
  CHECK (cudaStreamCreateWithFlags (&s, cudaStreamNonBlocking));
  unsigned * sink = nullptr;
  CHECK (cudaMalloc (&sink, 4));
  CHECK (cudaStreamWaitEvent (s, produced, 0));
  spin_read<<<1, 32, 0, s>>> (static_cast<unsigned *> (mem), read_ms * 1000000ull, sink);
  CHECK (cudaGetLastError ());
  if (mode != "norecord")
    CHECK (cudaEventRecord (read_done, s));
  char ready = 'R';
  write_all (1, &ready, 1);
  if (mode == "exit") {
    CHECK (cudaStreamSynchronize (s));
    return 0;
  }
  pause (); /* until killed */
  return 0;
}

/* A producer process (roles swapped): writes for write_ms, records its
 * interprocess event, sends its memory and event handles, then one byte. */
static int
producer_child (unsigned long long write_ms)
{
  CHECK (cudaSetDevice (0));
  unsigned * buf = nullptr;
  CHECK (cudaMalloc (&buf, 2 << 20));
  cudaEvent_t produced;
  CHECK (cudaEventCreateWithFlags (
      &produced, cudaEventDisableTiming | cudaEventInterprocess));
  cudaStream_t s;
  CHECK (cudaStreamCreateWithFlags (&s, cudaStreamNonBlocking));
  unsigned * sink = nullptr;
  CHECK (cudaMalloc (&sink, 4));
  spin_read<<<1, 32, 0, s>>> (buf, write_ms * 1000000ull, sink);
  CHECK (cudaEventRecord (produced, s));
  Handles h;
  CHECK (cudaIpcGetMemHandle (&h.mem, buf));
  CHECK (cudaIpcGetEventHandle (&h.event, produced));
  write_all (1, &h, sizeof h);
  char ready = 'R';
  write_all (1, &ready, 1);
  pause ();
  return 0;
}

struct Child {
  pid_t pid = -1;
  int to = -1, from = -1;
};

static Child
spawn_role (
    const char * self, const char * role, const char * mode, unsigned long long read_ms)
{
  int in[2], out[2];
  if (pipe (in) || pipe (out))
    exit (5);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init (&fa);
  posix_spawn_file_actions_adddup2 (&fa, in[0], 0);
  posix_spawn_file_actions_adddup2 (&fa, out[1], 1);
  posix_spawn_file_actions_addclose (&fa, in[1]);
  posix_spawn_file_actions_addclose (&fa, out[0]);
  std::string ms = std::to_string (read_ms);
  char * argv[] = { const_cast<char *> (self), const_cast<char *> (role),
    const_cast<char *> (mode), const_cast<char *> (ms.c_str ()), nullptr };
  Child c;
  if (posix_spawn (&c.pid, self, &fa, nullptr, argv, environ))
    exit (6);
  close (in[0]);
  close (out[1]);
  c.to = in[1];
  c.from = out[0];
  return c;
}

struct Producer {
  unsigned * buf = nullptr;
  cudaEvent_t produced = nullptr;
  cudaStream_t stream = nullptr;
  Handles handles{};
};

static Producer
make_producer ()
{
  Producer p;
  CHECK (cudaMalloc (&p.buf, 2 << 20));
  CHECK (cudaEventCreateWithFlags (
      &p.produced, cudaEventDisableTiming | cudaEventInterprocess));
  CHECK (cudaStreamCreateWithFlags (&p.stream, cudaStreamNonBlocking));
  write_value<<<1, 32, 0, p.stream>>> (p.buf, 1);
  CHECK (cudaEventRecord (p.produced, p.stream));
  CHECK (cudaIpcGetMemHandle (&p.handles.mem, p.buf));
  CHECK (cudaIpcGetEventHandle (&p.handles.event, p.produced));
  return p;
}

/* One scenario: the consumer reads for read_ms; the producer's stream
 * waits on the consumer's event and writes; the consumer is killed
 * kill_after_ms after its read was enqueued (never, when negative). Prints
 * when the producer's write completed, measured from the kill (or from
 * the enqueue). */
static void
scenario (const char * self, const char * name, const char * mode,
    unsigned long long read_ms, double kill_after_ms)
{
  Producer p = make_producer ();
  Child c = spawn_role (self, "consumer", mode, read_ms);
  write_all (c.to, &p.handles, sizeof p.handles);
  cudaIpcEventHandle_t back;
  char ready;
  if (!read_all (c.from, &back, sizeof back) || !read_all (c.from, &ready, 1)) {
    printf ("%-34s consumer failed to start\n", name);
    return;
  }
  cudaEvent_t read_done;
  CHECK (cudaIpcOpenEventHandle (&read_done, back));
  cudaEvent_t written;
  CHECK (cudaEventCreateWithFlags (&written, cudaEventDisableTiming));
  const double t_enqueue = now_s ();
  CHECK (cudaStreamWaitEvent (p.stream, read_done, 0));
  write_value<<<1, 32, 0, p.stream>>> (p.buf, 2);
  CHECK (cudaEventRecord (written, p.stream));
  double t_kill = -1;
  if (kill_after_ms >= 0) {
    std::this_thread::sleep_for (
        std::chrono::duration<double, std::milli> (kill_after_ms));
    t_kill = now_s ();
    kill (c.pid, SIGKILL);
  }
  int status = 0;
  cudaError_t q = cudaErrorNotReady;
  double t_done = -1;
  const double limit = now_s () + 20.0;
  while (now_s () < limit) {
    q = cudaEventQuery (written);
    if (q != cudaErrorNotReady) {
      t_done = now_s ();
      break;
    }
    std::this_thread::sleep_for (std::chrono::microseconds (200));
  }
  cudaError_t q_theirs = cudaEventQuery (read_done);
  if (kill_after_ms < 0)
    kill (c.pid, SIGKILL);
  waitpid (c.pid, &status, 0);
  const double from = t_kill >= 0 ? t_kill : t_enqueue;
  if (t_done < 0)
    printf ("%-34s producer's write NOT done 20 s after %s (their event: %s)\n", name,
        t_kill >= 0 ? "the kill" : "the enqueue", cudaGetErrorName (q_theirs));
  else
    printf ("%-34s producer's write done %.1f ms after %s: %s (their event: %s)\n", name,
        (t_done - from) * 1e3, t_kill >= 0 ? "the kill" : "the enqueue",
        cudaGetErrorName (q), cudaGetErrorName (q_theirs));
  /* Is this process's CUDA still usable? */
  cudaStream_t other;
  CHECK (cudaStreamCreateWithFlags (&other, cudaStreamNonBlocking));
  write_value<<<1, 32, 0, other>>> (p.buf, 3);
  cudaError_t after = cudaStreamSynchronize (other);
  printf ("%-34s   producer's context afterwards: %s; the stuck stream: %s\n", name,
      cudaGetErrorName (after), cudaGetErrorName (cudaStreamQuery (p.stream)));
  fflush (stdout);
  close (c.to);
  close (c.from);
}

/* Host costs per call, interprocess events against plain ones. */
static void
costs ()
{
  cudaStream_t s;
  CHECK (cudaStreamCreateWithFlags (&s, cudaStreamNonBlocking));
  cudaEvent_t plain, ipc;
  CHECK (cudaEventCreateWithFlags (&plain, cudaEventDisableTiming));
  CHECK (cudaEventCreateWithFlags (&ipc, cudaEventDisableTiming | cudaEventInterprocess));
  const int n = 20000;
  for (cudaEvent_t e : { plain, ipc }) {
    CHECK (cudaStreamSynchronize (s));
    double t0 = now_s ();
    for (int i = 0; i < n; ++i) {
      CHECK (cudaEventRecord (e, s));
      CHECK (cudaStreamWaitEvent (s, e, 0));
    }
    double t1 = now_s ();
    CHECK (cudaStreamSynchronize (s));
    printf ("cost: record + wait, %s event: %.2f us\n",
        e == plain ? "plain" : "interprocess", (t1 - t0) * 1e6 / n);
  }
  cudaIpcEventHandle_t eh;
  double t0 = now_s ();
  for (int i = 0; i < 1000; ++i)
    CHECK (cudaIpcGetEventHandle (&eh, ipc));
  printf ("cost: cudaIpcGetEventHandle: %.2f us\n", (now_s () - t0) * 1e6 / 1000);
  void * m;
  CHECK (cudaMalloc (&m, 8 << 20));
  cudaIpcMemHandle_t mh;
  t0 = now_s ();
  for (int i = 0; i < 1000; ++i)
    CHECK (cudaIpcGetMemHandle (&mh, m));
  printf ("cost: cudaIpcGetMemHandle: %.2f us\n", (now_s () - t0) * 1e6 / 1000);
  /* Does a sub-allocation's handle name the whole allocation? */
  cudaIpcMemHandle_t sub;
  CHECK (cudaIpcGetMemHandle (&sub, static_cast<char *> (m) + (1 << 20)));
  printf ("fact: handle of base+1MiB %s the handle of base\n",
      memcmp (&sub, &mh, sizeof mh) == 0 ? "equals" : "differs from");
  CHECK (cudaFree (m));
}

/* The consumer's side when the producer dies mid-write: does the
 * consumer's stream waiting on the producer's event ever run? */
static void
producer_killed (const char * self)
{
  Child c = spawn_role (self, "producer", "-", 2000);
  Handles h;
  char ready;
  if (!read_all (c.from, &h, sizeof h) || !read_all (c.from, &ready, 1)) {
    printf ("producer killed mid-write: producer failed to start\n");
    return;
  }
  void * mem = nullptr;
  CHECK (cudaIpcOpenMemHandle (&mem, h.mem, cudaIpcMemLazyEnablePeerAccess));
  cudaEvent_t produced, read;
  CHECK (cudaIpcOpenEventHandle (&produced, h.event));
  CHECK (cudaEventCreateWithFlags (&read, cudaEventDisableTiming));
  cudaStream_t s;
  CHECK (cudaStreamCreateWithFlags (&s, cudaStreamNonBlocking));
  CHECK (cudaStreamWaitEvent (s, produced, 0));
  write_value<<<1, 32, 0, s>>> (static_cast<unsigned *> (mem) + 64, 5);
  CHECK (cudaEventRecord (read, s));
  std::this_thread::sleep_for (std::chrono::milliseconds (200));
  const double t_kill = now_s ();
  kill (c.pid, SIGKILL);
  int status;
  waitpid (c.pid, &status, 0);
  double t_done = -1;
  cudaError_t q = cudaErrorNotReady;
  while (now_s () < t_kill + 20.0) {
    q = cudaEventQuery (read);
    if (q != cudaErrorNotReady) {
      t_done = now_s ();
      break;
    }
    std::this_thread::sleep_for (std::chrono::microseconds (200));
  }
  if (t_done < 0)
    printf ("producer killed mid-write (2 s)    consumer's read NOT done 20 s after the "
            "kill\n");
  else
    printf ("producer killed mid-write (2 s)    consumer's read done %.1f ms after the "
            "kill: %s\n",
        (t_done - t_kill) * 1e3, cudaGetErrorName (q));
  printf ("producer killed mid-write          cudaIpcCloseMemHandle: %s\n",
      cudaGetErrorName (cudaIpcCloseMemHandle (mem)));
  fflush (stdout);
}

/* How long the host learns that a stream reached a point: a host
 * function's wake-up against polling an event, and the cost of a query. */
static void
completion_latency ()
{
  cudaStream_t s;
  CHECK (cudaStreamCreateWithFlags (&s, cudaStreamNonBlocking));
  cudaEvent_t e;
  CHECK (cudaEventCreateWithFlags (&e, cudaEventDisableTiming));
  unsigned *buf = nullptr, *sink = nullptr;
  CHECK (cudaMalloc (&buf, 4096));
  CHECK (cudaMalloc (&sink, 4));
  static std::atomic<double> in_func{ 0 };
  double lat_sum = 0;
  const int n = 200;
  for (int i = 0; i < n; ++i) {
    in_func = 0;
    spin_read<<<1, 32, 0, s>>> (buf, 1000000ull, sink);
    CHECK (cudaEventRecord (e, s));
    CHECK (cudaLaunchHostFunc (
        s, [] (void *) { in_func = now_s (); }, nullptr));
    double polled = 0;
    while (cudaEventQuery (e) == cudaErrorNotReady) {
    }
    polled = now_s ();
    while (in_func.load () == 0) {
    }
    lat_sum += in_func.load () - polled;
  }
  printf ("latency: host function runs %.1f us after a busy poll sees the event (mean of "
          "%d)\n",
      lat_sum / n * 1e6, n);
  CHECK (cudaStreamSynchronize (s));
  const double t0 = now_s ();
  for (int i = 0; i < 100000; ++i)
    (void)cudaEventQuery (e);
  printf ("cost: cudaEventQuery of a completed event: %.3f us\n",
      (now_s () - t0) * 1e6 / 100000);
  fflush (stdout);
}

/* A process with a stream stuck on a dead peer's event: which teardown
 * calls return? Each line is printed as its step ends; the caller bounds
 * the whole with `timeout`. */
static int
teardown (const char * self)
{
  CHECK (cudaSetDevice (0));
  char path[4096];
  ssize_t n = readlink ("/proc/self/exe", path, sizeof path - 1);
  if (n > 0) {
    path[n] = 0;
    self = path;
  }
  Producer p = make_producer ();
  void * other = nullptr;
  CHECK (cudaMalloc (&other, 1 << 20));
  Child c = spawn_role (self, "consumer", "record", 10000);
  write_all (c.to, &p.handles, sizeof p.handles);
  cudaIpcEventHandle_t back;
  char ready;
  if (!read_all (c.from, &back, sizeof back) || !read_all (c.from, &ready, 1))
    return 7;
  cudaEvent_t read_done;
  CHECK (cudaIpcOpenEventHandle (&read_done, back));
  CHECK (cudaStreamWaitEvent (p.stream, read_done, 0));
  write_value<<<1, 32, 0, p.stream>>> (p.buf, 2);
  std::this_thread::sleep_for (std::chrono::milliseconds (200));
  kill (c.pid, SIGKILL);
  int status;
  waitpid (c.pid, &status, 0);
  std::this_thread::sleep_for (std::chrono::milliseconds (300));
  double t = now_s ();
  cudaError_t r = cudaEventDestroy (read_done);
  printf ("teardown: cudaEventDestroy(their event) %s in %.1f ms\n", cudaGetErrorName (r),
      (now_s () - t) * 1e3);
  fflush (stdout);
  t = now_s ();
  r = cudaStreamDestroy (p.stream);
  printf ("teardown: cudaStreamDestroy(stuck) %s in %.1f ms\n", cudaGetErrorName (r),
      (now_s () - t) * 1e3);
  fflush (stdout);
  t = now_s ();
  r = cudaFree (other);
  printf ("teardown: cudaFree(other memory) %s in %.1f ms\n", cudaGetErrorName (r),
      (now_s () - t) * 1e3);
  fflush (stdout);
  t = now_s ();
  r = cudaFree (p.buf);
  printf ("teardown: cudaFree(the stuck write's memory) %s in %.1f ms\n",
      cudaGetErrorName (r), (now_s () - t) * 1e3);
  fflush (stdout);
  printf ("teardown: exiting\n");
  fflush (stdout);
  return 0;
}

/* The release path without a GPU wait: the consumer is killed mid-read
 * and the producer only queries the consumer's event. Does the event ever
 * complete, and can the producer free and reuse the memory? */
static int
poll_only (const char * self)
{
  CHECK (cudaSetDevice (0));
  Producer p = make_producer ();
  void * other = nullptr;
  CHECK (cudaMalloc (&other, 1 << 20));
  Child c = spawn_role (self, "consumer", "record", 10000);
  write_all (c.to, &p.handles, sizeof p.handles);
  cudaIpcEventHandle_t back;
  char ready;
  if (!read_all (c.from, &back, sizeof back) || !read_all (c.from, &ready, 1))
    return 7;
  cudaEvent_t read_done;
  CHECK (cudaIpcOpenEventHandle (&read_done, back));
  std::this_thread::sleep_for (std::chrono::milliseconds (200));
  const double t_kill = now_s ();
  kill (c.pid, SIGKILL);
  int status;
  waitpid (c.pid, &status, 0);
  printf (
      "poll-only: consumer reaped %.1f ms after the kill\n", (now_s () - t_kill) * 1e3);
  double t_done = -1;
  while (now_s () < t_kill + 12.0) {
    if (cudaEventQuery (read_done) != cudaErrorNotReady) {
      t_done = now_s ();
      break;
    }
    std::this_thread::sleep_for (std::chrono::milliseconds (1));
  }
  if (t_done < 0)
    printf ("poll-only: their event still NotReady 12 s after the kill (their read was "
            "10 s)\n");
  else
    printf ("poll-only: their event complete %.1f ms after the kill\n",
        (t_done - t_kill) * 1e3);
  fflush (stdout);
  double t = now_s ();
  write_value<<<1, 32, 0, p.stream>>> (p.buf, 9);
  cudaError_t r = cudaStreamSynchronize (p.stream);
  printf ("poll-only: rewrite of the memory they read %s in %.1f ms\n",
      cudaGetErrorName (r), (now_s () - t) * 1e3);
  fflush (stdout);
  t = now_s ();
  r = cudaFree (other);
  printf ("poll-only: cudaFree(other) %s in %.1f ms\n", cudaGetErrorName (r),
      (now_s () - t) * 1e3);
  fflush (stdout);
  t = now_s ();
  r = cudaFree (p.buf);
  printf ("poll-only: cudaFree(the memory they read) %s in %.1f ms\n",
      cudaGetErrorName (r), (now_s () - t) * 1e3);
  fflush (stdout);
  return 0;
}

int
main (int argc, char ** argv)
{
  if (argc >= 4 && std::string (argv[1]) == "consumer")
    return consumer (argv[2], strtoull (argv[3], nullptr, 10));
  if (argc >= 4 && std::string (argv[1]) == "producer")
    return producer_child (strtoull (argv[3], nullptr, 10));
  if (argc >= 2 && std::string (argv[1]) == "teardown")
    return teardown (argv[0]);
  if (argc >= 2 && std::string (argv[1]) == "poll-only") {
    char path[4096];
    ssize_t n = readlink ("/proc/self/exe", path, sizeof path - 1);
    path[n > 0 ? n : 0] = 0;
    return poll_only (path);
  }
  CHECK (cudaSetDevice (0));
  cudaDeviceProp prop;
  CHECK (cudaGetDeviceProperties (&prop, 0));
  int drv = 0, rt = 0;
  cudaDriverGetVersion (&drv);
  cudaRuntimeGetVersion (&rt);
  printf ("device: %s, driver API %d, runtime %d\n", prop.name, drv, rt);
  const bool all = !(argc >= 2 && std::string (argv[1]) == "new");
  if (all)
    costs ();
  const char * self = "/proc/self/exe";
  char path[4096];
  ssize_t n = readlink (self, path, sizeof path - 1);
  if (n > 0) {
    path[n] = 0;
    self = path;
  }
  if (!all) {
    producer_killed (self);
    completion_latency ();
    return 0;
  }
  scenario (self, "alive, read 300 ms", "exit", 300, -1);
  scenario (self, "killed mid-read (2 s read, 200 ms)", "record", 2000, 200);
  scenario (self, "killed mid-read (10 s read, 200 ms)", "record", 10000, 200);
  scenario (self, "killed after its read (50 ms, 500)", "record", 50, 500);
  scenario (self, "never recorded, killed at 200 ms", "norecord", 50, 200);
  producer_killed (self);
  completion_latency ();
  return 0;
}

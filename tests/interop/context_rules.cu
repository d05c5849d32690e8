/* SPDX-License-Identifier: LGPL-2.1-or-later */
// Finds out what CUDA allows when two contexts of one device touch each
// other's memory: A is the runtime's primary context (this project's), B a
// context made by cuCtxCreate on the same device (what nvcodec 1.22's
// gst_cuda_context_new makes). Prints a table; exits 0 after printing, 77
// without a GPU, 1 when the control case (A's kernel on A's memory) fails,
// since then no row can be trusted.
//
// A kernel fault poisons its context for good, and CUDA cannot be used in a
// child forked after the parent initialised it, so the parent never touches
// CUDA: every case runs from scratch in its own forked child, which reports
// one line through a pipe.
//
// Driver functions come through the runtime (cudaGetDriverEntryPointByVersion,
// the CUDA 12.0 ABI of each), so the binary loads where there is no driver
// (and skips) instead of failing to find libcuda.
#include <cuda.h>
#include <cuda_runtime_api.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

namespace {

/* --- driver API through the runtime --------------------------------------- */

/* `version` picks the ABI: a name's newest variant at that CUDA version. */
template <typename F>
F
fn (const char * name, unsigned version = 12000)
{
  void * p = nullptr;
  cudaDriverEntryPointQueryResult st;
  if (cudaGetDriverEntryPointByVersion (name, &p, version, cudaEnableDefault, &st) !=
          cudaSuccess ||
      st != cudaDriverEntryPointSuccess) {
    std::printf ("RESULT n/a|driver entry point %s not found\n", name);
    std::exit (3);
  }
  return reinterpret_cast<F> (p);
}

struct Driver {
  CUresult (*DeviceGet) (CUdevice *, int);
  CUresult (*CtxCreate) (CUcontext *, unsigned, CUdevice); /* the v2 ABI nvcodec uses */
  CUresult (*CtxSetCurrent) (CUcontext);
  CUresult (*CtxGetCurrent) (CUcontext *);
  CUresult (*CtxSynchronize) ();
  CUresult (*CtxEnablePeerAccess) (CUcontext, unsigned);
  CUresult (*DeviceCanAccessPeer) (int *, CUdevice, CUdevice);
  CUresult (*MemAlloc) (CUdeviceptr *, size_t);
  CUresult (*MemcpyHtoD) (CUdeviceptr, const void *, size_t);
  CUresult (*MemcpyDtoH) (void *, CUdeviceptr, size_t);
  CUresult (*MemcpyAsync) (CUdeviceptr, CUdeviceptr, size_t, CUstream);
  CUresult (*MemcpyPeerAsync) (
      CUdeviceptr, CUcontext, CUdeviceptr, CUcontext, size_t, CUstream);
  CUresult (*StreamCreate) (CUstream *, unsigned);
  CUresult (*StreamSynchronize) (CUstream);
  CUresult (*StreamWaitEvent) (CUstream, CUevent, unsigned);
  CUresult (*EventCreate) (CUevent *, unsigned);
  CUresult (*EventRecord) (CUevent, CUstream);
  CUresult (*PointerGetAttribute) (void *, CUpointer_attribute, CUdeviceptr);
  CUresult (*GetErrorName) (CUresult, const char **);
};

Driver d;

void
load_driver ()
{
  d.DeviceGet = fn<decltype (d.DeviceGet)> ("cuDeviceGet");
  /* cuCtxCreate_v2 (flags, device), as nvcodec 1.22 calls it: CUDA 11.0's
   * variant (11.4 added _v3, 13.0 _v4, each with more arguments). */
  d.CtxCreate = fn<decltype (d.CtxCreate)> ("cuCtxCreate", 11000);
  d.CtxSetCurrent = fn<decltype (d.CtxSetCurrent)> ("cuCtxSetCurrent");
  d.CtxGetCurrent = fn<decltype (d.CtxGetCurrent)> ("cuCtxGetCurrent");
  d.CtxSynchronize = fn<decltype (d.CtxSynchronize)> ("cuCtxSynchronize");
  d.CtxEnablePeerAccess = fn<decltype (d.CtxEnablePeerAccess)> ("cuCtxEnablePeerAccess");
  d.DeviceCanAccessPeer = fn<decltype (d.DeviceCanAccessPeer)> ("cuDeviceCanAccessPeer");
  d.MemAlloc = fn<decltype (d.MemAlloc)> ("cuMemAlloc");
  d.MemcpyHtoD = fn<decltype (d.MemcpyHtoD)> ("cuMemcpyHtoD");
  d.MemcpyDtoH = fn<decltype (d.MemcpyDtoH)> ("cuMemcpyDtoH");
  d.MemcpyAsync = fn<decltype (d.MemcpyAsync)> ("cuMemcpyAsync");
  d.MemcpyPeerAsync = fn<decltype (d.MemcpyPeerAsync)> ("cuMemcpyPeerAsync");
  d.StreamCreate = fn<decltype (d.StreamCreate)> ("cuStreamCreate");
  d.StreamSynchronize = fn<decltype (d.StreamSynchronize)> ("cuStreamSynchronize");
  d.StreamWaitEvent = fn<decltype (d.StreamWaitEvent)> ("cuStreamWaitEvent");
  d.EventCreate = fn<decltype (d.EventCreate)> ("cuEventCreate");
  d.EventRecord = fn<decltype (d.EventRecord)> ("cuEventRecord");
  d.PointerGetAttribute = fn<decltype (d.PointerGetAttribute)> ("cuPointerGetAttribute");
  d.GetErrorName = fn<decltype (d.GetErrorName)> ("cuGetErrorName");
}

std::string
name (CUresult r)
{
  const char * s = nullptr;
  d.GetErrorName (r, &s);
  return s ? s : std::to_string ((int)r);
}

/* Ends the child with one table row. */
[[noreturn]] void
report (const char * status, const std::string & detail)
{
  std::printf ("RESULT %s|%s\n", status, detail.c_str ());
  std::fflush (stdout);
  std::_Exit (0);
}

/* A driver call that must succeed for the case to mean anything. */
void
need (CUresult r, const char * what)
{
  if (r != CUDA_SUCCESS)
    report ("setup failed", std::string (what) + ": " + name (r));
}

/* --- kernels ------------------------------------------------------------- */

__global__ void
add_one (unsigned * p, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    p[i] += 1;
}

/* Spins about `cycles` clocks, then writes `value`: slow enough that a
 * stream that does not wait for it reads the old value. */
__global__ void
late_write (unsigned * p, unsigned value, long long cycles)
{
  long long start = clock64 ();
  while (clock64 () - start < cycles) {
  }
  *p = value;
}

/* --- the two contexts ---------------------------------------------------- */

constexpr int N = 1024;

struct Setup {
  CUdevice dev;
  CUcontext a = nullptr, b = nullptr;
  CUdeviceptr xa = 0, yb = 0; /* allocated in A, in B */
};

void
fill (CUdeviceptr p, unsigned base)
{
  unsigned h[N];
  for (int i = 0; i < N; i++)
    h[i] = base + i;
  need (d.MemcpyHtoD (p, h, sizeof h), "cuMemcpyHtoD");
}

/* True when p holds base+i; otherwise says where not in `why`. */
bool
holds (CUdeviceptr p, unsigned base, std::string * why)
{
  unsigned h[N];
  CUresult r = d.MemcpyDtoH (h, p, sizeof h);
  if (r != CUDA_SUCCESS) {
    *why = "read back failed: " + name (r);
    return false;
  }
  for (int i = 0; i < N; i++)
    if (h[i] != base + i) {
      *why = "element " + std::to_string (i) + " is " + std::to_string (h[i]) +
             ", expected " + std::to_string (base + i);
      return false;
    }
  return true;
}

Setup
make_contexts ()
{
  load_driver ();
  Setup s;
  /* A: the primary context, as the runtime makes it current. */
  if (cudaSetDevice (0) != cudaSuccess || cudaFree (0) != cudaSuccess)
    report ("setup failed", "cudaSetDevice/cudaFree: no primary context");
  need (d.CtxGetCurrent (&s.a), "cuCtxGetCurrent");
  need (d.DeviceGet (&s.dev, 0), "cuDeviceGet");
  need (d.MemAlloc (&s.xa, N * sizeof (unsigned)), "cuMemAlloc in A");
  fill (s.xa, 1000);
  /* B: a second context of the same device, current after creation. */
  need (d.CtxCreate (&s.b, 0, s.dev), "cuCtxCreate");
  need (d.MemAlloc (&s.yb, N * sizeof (unsigned)), "cuMemAlloc in B");
  fill (s.yb, 5000);
  return s;
}

/* A runtime call's outcome: "" when it worked. */
std::string
rt (cudaError_t e)
{
  return e == cudaSuccess ? "" : cudaGetErrorName (e);
}

/* --- the cases (each runs in a child) ------------------------------------ */

void
case_control ()
{
  Setup s = make_contexts ();
  need (d.CtxSetCurrent (s.a), "cuCtxSetCurrent A");
  add_one<<<(N + 255) / 256, 256>>> ((unsigned *)s.xa, N);
  std::string e = rt (cudaGetLastError ());
  if (e.empty ())
    e = rt (cudaDeviceSynchronize ());
  std::string why;
  if (!e.empty ())
    report ("FAILS", "launch/sync: " + e);
  if (!holds (s.xa, 1001, &why))
    report ("FAILS", why);
  report ("works", "values read and written");
}

/* A kernel launched with B current on memory cuMemAlloc'd in A;
 * `peer` first asks for peer access to A. */
void
case_kernel_b_on_a (bool peer)
{
  Setup s = make_contexts ();
  need (d.CtxSetCurrent (s.b), "cuCtxSetCurrent B");
  std::string prefix;
  if (peer) {
    CUresult r = d.CtxEnablePeerAccess (s.a, 0);
    prefix = "cuCtxEnablePeerAccess: " + name (r) + "; ";
  }
  add_one<<<(N + 255) / 256, 256>>> ((unsigned *)s.xa, N);
  std::string e = rt (cudaGetLastError ());
  if (!e.empty ())
    report ("error", prefix + "launch: " + e);
  CUresult r = d.CtxSynchronize ();
  if (r != CUDA_SUCCESS)
    report ("error", prefix + "sync: " + name (r) + " (context B is lost)");
  std::string why;
  need (d.CtxSetCurrent (s.a), "cuCtxSetCurrent A");
  if (!holds (s.xa, 1001, &why))
    report ("wrong data", prefix + why);
  report ("works", prefix + "values read and written");
}

/* D2D copies on a stream of B between A's and B's memory. */
void
case_copy (int how)
{
  Setup s = make_contexts ();
  need (d.CtxSetCurrent (s.b), "cuCtxSetCurrent B");
  CUstream sb;
  need (d.StreamCreate (&sb, CU_STREAM_NON_BLOCKING), "cuStreamCreate in B");
  const size_t bytes = N * sizeof (unsigned);
  std::string what;
  std::string err;
  switch (how) {
    case 0:
      what = "cuMemcpyAsync A->B";
      err = name (d.MemcpyAsync (s.yb, s.xa, bytes, sb));
      break;
    case 1:
      what = "cudaMemcpyAsync(cudaMemcpyDefault) A->B";
      err = cudaGetErrorName (cudaMemcpyAsync (
          (void *)s.yb, (const void *)s.xa, bytes, cudaMemcpyDefault, (cudaStream_t)sb));
      break;
    default:
      what = "cuMemcpyPeerAsync A->B";
      err = name (d.MemcpyPeerAsync (s.yb, s.b, s.xa, s.a, bytes, sb));
  }
  if (err != "CUDA_SUCCESS" && err != "cudaSuccess")
    report ("error", what + ": " + err);
  CUresult r = d.StreamSynchronize (sb);
  if (r != CUDA_SUCCESS)
    report ("error", what + ": sync: " + name (r));
  std::string why;
  if (!holds (s.yb, 1000, &why))
    report ("wrong data", what + ": " + why);
  report ("works", what + ": values arrive");
}

/* A stream of B waits for an event recorded in A after a slow write; with
 * `wait` false, the control: does B see the old value without the wait? */
void
case_event (bool wait)
{
  Setup s = make_contexts ();
  const long long cycles = 400LL * 1000 * 1000; /* a few hundred ms */
  need (d.CtxSetCurrent (s.a), "cuCtxSetCurrent A");
  CUstream sa;
  CUevent ea;
  need (d.StreamCreate (&sa, CU_STREAM_NON_BLOCKING), "cuStreamCreate in A");
  need (d.EventCreate (&ea, CU_EVENT_DISABLE_TIMING), "cuEventCreate in A");
  late_write<<<1, 1, 0, (cudaStream_t)sa>>> ((unsigned *)s.xa, 4242u, cycles);
  need (d.EventRecord (ea, sa), "cuEventRecord in A");

  need (d.CtxSetCurrent (s.b), "cuCtxSetCurrent B");
  CUstream sb;
  need (d.StreamCreate (&sb, CU_STREAM_NON_BLOCKING), "cuStreamCreate in B");
  std::string prefix;
  if (wait) {
    CUresult r = d.StreamWaitEvent (sb, ea, 0);
    prefix = "cuStreamWaitEvent: " + name (r) + "; ";
    if (r != CUDA_SUCCESS)
      report ("error", prefix);
  }
  /* Read A's first element into B's memory on B's stream (a copy, which
   * case (2) shows works across the contexts). */
  need (d.MemcpyAsync (s.yb, s.xa, sizeof (unsigned), sb), "cuMemcpyAsync in B");
  need (d.StreamSynchronize (sb), "cuStreamSynchronize B");
  unsigned got = 0;
  need (d.MemcpyDtoH (&got, s.yb, sizeof got), "cuMemcpyDtoH");
  need (d.CtxSetCurrent (s.a), "cuCtxSetCurrent A");
  need (d.StreamSynchronize (sa), "cuStreamSynchronize A");
  if (got == 4242u)
    report (wait ? "works" : "ordered anyway",
        prefix + "B read the value written after the slow kernel");
  report (wait ? "NOT ordered" : "not ordered (expected)",
      prefix + "B read " + std::to_string (got) + " before the write of 4242");
}

void
case_pointer_context ()
{
  Setup s = make_contexts ();
  need (d.CtxSetCurrent (s.b), "cuCtxSetCurrent B");
  CUcontext owner = nullptr;
  CUresult r = d.PointerGetAttribute (&owner, CU_POINTER_ATTRIBUTE_CONTEXT, s.xa);
  if (r != CUDA_SUCCESS)
    report ("error", name (r));
  report ("works", std::string ("seen from B, A's pointer belongs to ") +
                       (owner == s.a      ? "A (its allocating context)"
                           : owner == s.b ? "B (the current context)"
                                          : "another context"));
}

void
case_peer_access ()
{
  Setup s = make_contexts ();
  int can = -1;
  CUresult rc = d.DeviceCanAccessPeer (&can, s.dev, s.dev);
  need (d.CtxSetCurrent (s.b), "cuCtxSetCurrent B");
  CUresult r = d.CtxEnablePeerAccess (s.a, 0);
  report (r == CUDA_SUCCESS ? "works" : "error",
      "cuDeviceCanAccessPeer(dev, same dev) = " +
          (rc == CUDA_SUCCESS ? std::to_string (can) : name (rc)) +
          "; cuCtxEnablePeerAccess(A) from B: " + name (r));
}

/* --- the parent ---------------------------------------------------------- */

struct Row {
  const char * label;
  void (*run) ();
};

/* Runs `f` in a child; its RESULT line, or how it died. */
std::string
in_child (void (*f) (), int * exit_code)
{
  int fds[2];
  if (pipe (fds) != 0)
    return "n/a|pipe failed";
  std::fflush (stdout);
  pid_t pid = fork ();
  if (pid == 0) {
    close (fds[0]);
    dup2 (fds[1], 1);
    alarm (120); /* a hang is a result too */
    f ();
    std::_Exit (2);
  }
  close (fds[1]);
  std::string out;
  char buf[512];
  ssize_t n;
  while ((n = read (fds[0], buf, sizeof buf)) > 0)
    out.append (buf, n);
  close (fds[0]);
  int status = 0;
  waitpid (pid, &status, 0);
  *exit_code = WIFEXITED (status) ? WEXITSTATUS (status) : -1;
  size_t at = out.rfind ("RESULT ");
  if (at != std::string::npos) {
    std::string line = out.substr (at + 7);
    return line.substr (0, line.find ('\n'));
  }
  if (WIFSIGNALED (status))
    return std::string ("crashed|signal ") + strsignal (WTERMSIG (status));
  return "n/a|child ended (exit " + std::to_string (*exit_code) + ") without a result";
}

void
probe_gpu ()
{
  int n = 0;
  cudaError_t e = cudaGetDeviceCount (&n);
  if (e != cudaSuccess || n == 0)
    report ("none", e != cudaSuccess ? cudaGetErrorString (e) : "no device");
  cudaDeviceProp p;
  cudaGetDeviceProperties (&p, 0);
  int drv = 0, rtv = 0;
  cudaDriverGetVersion (&drv);
  cudaRuntimeGetVersion (&rtv);
  report ("gpu", std::string (p.name) + ", driver API " + std::to_string (drv) +
                     ", runtime " + std::to_string (rtv) + ", " + std::to_string (n) +
                     " device(s)");
}

} // namespace

int
main ()
{
  int code = 0;
  std::string gpu = in_child (probe_gpu, &code);
  if (gpu.rfind ("gpu|", 0) != 0) {
    std::printf ("SKIP context_rules: no usable CUDA GPU (%s)\n",
        gpu.substr (gpu.find ('|') + 1).c_str ());
    return 77;
  }
  std::printf ("Two contexts of one device: A = primary (runtime), B = cuCtxCreate "
               "(as nvcodec 1.22's gst_cuda_context_new)\n%s\n\n",
      gpu.substr (4).c_str ());

  static const Row rows[] = {
    { "(0) control: kernel in A on A's memory", [] { case_control (); } },
    { "(1) kernel in B reads/writes A's cuMemAlloc memory",
        [] { case_kernel_b_on_a (false); } },
    { "(1b) same, after cuCtxEnablePeerAccess(A) from B",
        [] { case_kernel_b_on_a (true); } },
    { "(2) cuMemcpyAsync D2D on a B stream, A->B (UVA)", [] { case_copy (0); } },
    { "(2b) cudaMemcpyAsync(Default) on a B stream, A->B", [] { case_copy (1); } },
    { "(3) cuMemcpyPeerAsync A->B on a B stream", [] { case_copy (2); } },
    { "(4) cuStreamWaitEvent on B, event recorded in A", [] { case_event (true); } },
    { "(4c) control: no wait, B reads during A's write", [] { case_event (false); } },
    { "(5) cuPointerGetAttribute(CONTEXT) of A's pointer from B",
        [] { case_pointer_context (); } },
    { "(6) cuCtxEnablePeerAccess between A and B", [] { case_peer_access (); } },
  };
  std::printf ("| %-56s | %-22s | %s\n", "case", "outcome", "detail");
  std::printf ("|%s|%s|%s\n", std::string (58, '-').c_str (),
      std::string (24, '-').c_str (), std::string (40, '-').c_str ());
  bool control_ok = true;
  for (const Row & r : rows) {
    std::string res = in_child (r.run, &code);
    const size_t bar = res.find ('|');
    const std::string status = res.substr (0, bar);
    const std::string detail = bar == std::string::npos ? "" : res.substr (bar + 1);
    std::printf ("| %-56s | %-22s | %s\n", r.label, status.c_str (), detail.c_str ());
    if (r.run == rows[0].run && status != "works")
      control_ok = false;
  }
  std::fflush (stdout);
  if (!control_ok) {
    std::printf ("FAIL: the control case failed; the table cannot be trusted\n");
    return 1;
  }
  return 0;
}

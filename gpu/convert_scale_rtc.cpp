/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "convert_scale_rtc.h"
#include "driver_launch.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <string_view>
#include <thread>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include <cxxabi.h>
#include <dlfcn.h>
#include <sys/stat.h>
#include <unistd.h>

#include "convert_scale_addresses.h"
#include "convert_scale_rtc_sources.h"
#include "rtc_cache.h"
#include "run_apart.h"

namespace gst_cs::gpu::rtc {
namespace {

enum class Mode { OFF, BACKGROUND, WAIT };

Mode
mode ()
{
  static const Mode m = [] {
    const char * v = std::getenv ("GST_CS_CONVERT_RTC");
    if (v && std::strcmp (v, "0") == 0)
      return Mode::OFF;
    if (v && std::strcmp (v, "wait") == 0)
      return Mode::WAIT;
    return Mode::BACKGROUND;
  }();
  return m;
}

std::uint64_t
fnv (const void * data, std::size_t n, std::uint64_t h = 14695981039346656037ull)
{
  const auto * p = static_cast<const unsigned char *> (data);
  for (std::size_t i = 0; i < n; i++)
    h = (h ^ p[i]) * 1099511628211ull;
  return h;
}

/* A description without its addresses, the frames' and the table's: what
 * a compiled kernel is for, wherever an element's table lies (with it, each
 * element and each run would compile its own). Copied as bytes, so that its
 * padding is the description's: the frames of one resolved description
 * (moved, convert_scale_move) share it. */
using Description = std::array<unsigned char, sizeof (ConvertScale)>;

Description
description_of (const ConvertScale & op)
{
  ConvertScale d;
  std::memcpy (static_cast<void *> (&d), &op, sizeof d);
  each_address (d, [] (auto *& p, bool) { p = nullptr; });
  each_table_address_pair (d, d, [] (auto *& p, auto *&) { p = nullptr; });
  Description out;
  std::memcpy (out.data (), &d, sizeof d);
  return out;
}

struct Key {
  const void * built; /* the built instance's host stub */
  int arch;           /* 10 * major + minor */
  Description description;
  bool operator== (const Key & o) const
  {
    return built == o.built && arch == o.arch && description == o.description;
  }
};

struct KeyHash {
  std::size_t operator() (const Key & k) const
  {
    std::uint64_t h = fnv (&k.built, sizeof k.built);
    h = fnv (&k.arch, sizeof k.arch, h);
    return (std::size_t)fnv (k.description.data (), k.description.size (), h);
  }
};

/* kNone → kQueued (a launching thread: named, queued) → kCompiled (the
 * worker: code in `cubin`) → kReady (a launching thread: loaded), or
 * kFailed from any of them. */
enum State { kNone, kQueued, kCompiled, kReady, kFailed };

struct Entry {
  Key key;
  std::atomic<int> state{ kNone };
  std::atomic<int> seen{ 0 };
  std::string name;              /* the built instance's template-id; set when queued */
  std::vector<char> cubin;       /* set by the worker before kCompiled */
  std::string lowered;           /* the kernel's name in `cubin` */
  std::mutex load;               /* one launching thread loads it */
  cudaKernel_t kernel = nullptr; /* set before state becomes kReady */
};

struct Registry {
  std::mutex lock;
  std::condition_variable wake; /* the queue has work, or a compile ended */
  std::unordered_map<Key, std::unique_ptr<Entry>, KeyHash> entries;
  std::deque<Entry *> queue;
  bool worker = false;
  /* The process is exiting (set by an exit handler): the worker starts no
   * compile more, and one in progress is stopped: its compiler process
   * (run_apart.h) killed and reaped by the worker, which the handler waits
   * for, so that neither the compiler nor the worker's bookkeeping runs on
   * while exit tears the process down. The worker makes no CUDA call:
   * launching threads load what it compiled, in their own order of CUDA
   * calls. */
  std::atomic<bool> exiting{ false };
  bool parked = false; /* the worker has stopped for good (under lock) */
  int asked = 0;
  std::atomic<int> compiled{ 0 }, failed{ 0 }, declined{ 0 };
  std::atomic<long long> launches{ 0 };
  std::string last_error; /* under lock */
};

/* Never destroyed: the worker may still run at exit. */
Registry &
registry ()
{
  static Registry * r = new Registry;
  return *r;
}

int
arch_of (int device)
{
  static std::array<std::atomic<int>, 64> archs{};
  if (device < 0 || device >= (int)archs.size ())
    return 0;
  int a = archs[device].load (std::memory_order_relaxed);
  if (a)
    return a;
  int major = 0, minor = 0;
  if (cudaDeviceGetAttribute (&major, cudaDevAttrComputeCapabilityMajor, device) !=
          cudaSuccess ||
      cudaDeviceGetAttribute (&minor, cudaDevAttrComputeCapabilityMinor, device) !=
          cudaSuccess) {
    (void)cudaGetLastError ();
    return 0;
  }
  a = 10 * major + minor;
  archs[device].store (a, std::memory_order_relaxed);
  return a;
}

/* The template-id of a built kernel instance, from its host stub:
 * "gst_cs::gpu::kernels::convert_scale_block_kernel<...>". */
std::string
kernel_name (const void * built)
{
  const char * name = nullptr;
  if (cudaFuncGetName (&name, built) != cudaSuccess || !name) {
    (void)cudaGetLastError ();
    return {};
  }
  std::string s = name;
  if (s.rfind ("_Z", 0) == 0) {
    int status = 0;
    char * d = abi::__cxa_demangle (name, nullptr, nullptr, &status);
    if (!d)
      return {};
    s = d;
    std::free (d);
  }
  if (s.rfind ("void ", 0) == 0)
    s = s.substr (5);
  int depth = 0; /* the parameter list: the first '(' outside <> */
  for (std::size_t i = 0; i < s.size (); i++) {
    if (s[i] == '<')
      depth++;
    else if (s[i] == '>')
      depth--;
    else if (s[i] == '(' && depth == 0)
      return s.substr (0, i);
  }
  return s;
}

std::uint64_t
sources_digest ()
{
  static const std::uint64_t digest = [] {
    std::uint64_t h = fnv ("gcs-rtc 1", 9);
    for (int i = 0; i < kSourceCount; i++) {
      h = fnv (kSources[i].name, std::strlen (kSources[i].name), h);
      h = fnv (kSources[i].text, std::strlen (kSources[i].text), h);
    }
    return h;
  }();
  return digest;
}

/* The disk cache's file for a kernel, or "" where there is none. */
std::string
cache_path (const Entry & e, const std::string & name)
{
  std::string dir;
  if (const char * v = std::getenv ("GST_CS_CONVERT_RTC_CACHE")) {
    if (!*v)
      return {};
    dir = v;
  } else if (const char * x = std::getenv ("XDG_CACHE_HOME"); x && *x) {
    dir = std::string (x) + "/gst-cudastreams/convert";
  } else if (const char * home = std::getenv ("HOME"); home && *home) {
    dir = std::string (home) + "/.cache/gst-cudastreams/convert";
  } else {
    return {};
  }
  /* mkdir -p */
  for (std::size_t i = 1; i <= dir.size (); i++)
    if (i == dir.size () || dir[i] == '/')
      mkdir (dir.substr (0, i).c_str (), 0755);
  std::uint64_t h = sources_digest ();
  h = fnv (name.data (), name.size (), h);
  h = fnv (&e.key.arch, sizeof e.key.arch, h);
  h = fnv (e.key.description.data (), e.key.description.size (), h);
  char file[40];
  std::snprintf (file, sizeof file, "/%016llx.cubin", (unsigned long long)h);
  return dir + file;
}

/* The compiler process's program (gcs-rtc-compile, rtc_compiler_main.cpp),
 * or "" where none is found: GST_CS_CONVERT_RTC_COMPILER; else beside the
 * library or program this code is in (the installed plugin, in the build
 * tree too); else where the build made it (the benchmarks and tests). */
const std::string &
compiler ()
{
  static const std::string path = [] {
    std::vector<std::string> candidates;
    if (const char * v = std::getenv ("GST_CS_CONVERT_RTC_COMPILER"))
      candidates.push_back (v);
    Dl_info info{};
    if (dladdr (reinterpret_cast<const void *> (&compiler), &info) && info.dli_fname) {
      std::string here = info.dli_fname;
      const std::size_t slash = here.rfind ('/');
      if (slash != std::string::npos)
        candidates.push_back (here.substr (0, slash + 1) + "gcs-rtc-compile");
    }
#ifdef GCS_RTC_COMPILER_BUILT
    candidates.push_back (GCS_RTC_COMPILER_BUILT);
#endif
    for (const std::string & c : candidates)
      if (!c.empty () && c[0] == '/' && access (c.c_str (), X_OK) == 0)
        return c;
    return std::string ();
  }();
  return path;
}

/* `op`'s kernel compiled by NVRTC in the compiler process (run_apart.h
 * says why not here). */
bool
nvrtc_compile (const ConvertScale & op, const std::string & name,
    const std::string & arch, const std::string & cache, std::vector<char> * cubin,
    std::string * lowered, std::string * log, const std::atomic<bool> * stop = nullptr)
{
  if (compiler ().empty ()) {
    *log = "no compiler process: gcs-rtc-compile is not beside the plugin "
           "(GST_CS_CONVERT_RTC_COMPILER names it elsewhere)";
    return false;
  }
  std::string input, bytes, why;
  put (input, arch);
  put (input, name);
  put (input, cache);
  put (input, source_for (op));
  put (input, std::to_string (kSourceCount));
  /* The headers it includes, this build's (those the cache key hashes):
   * the compiler keeps none of its own, so a compiler of another build
   * compiles the same kernel. */
  for (int i = 0; i < kSourceCount; i++) {
    put (input, kSources[i].name);
    put (input, kSources[i].text);
  }
  /* Left to finish where this process exits meanwhile: it writes the
   * cache itself, for the next run. */
  if (!run_apart (compiler (), input, kMostCompileSeconds, &bytes, &why, stop,
          StopAction::LEAVE)) {
    *log = "the compiler process: " + why;
    return false;
  }
  std::string_view in (bytes), name_in_code, code, text;
  if (in.empty () || !(in.remove_prefix (1), take (in, &name_in_code)) ||
      !take (in, &code) || !take (in, &text)) {
    *log = "the compiler process: a result cut short";
    return false;
  }
  lowered->assign (name_in_code);
  cubin->assign (code.begin (), code.end ());
  log->assign (text);
  return bytes[0] == '1';
}

/* Compiles `e`'s kernel (or reads it from the disk cache), on the
 * worker's thread: the compiler process and files only. No CUDA call is
 * made here: a module load can wait for the GPU, which a stream gate may
 * hold for a launching thread, and CUDA calls at exit race the runtime's
 * teardown.
 * The launching thread that next sees kCompiled loads it (load ()). */
void
compile (Entry & e)
{
  Registry & r = registry ();
  std::string log;
  std::vector<char> cubin;
  std::string lowered;
  bool ok = true;
  int stack = -1;
  const std::string path = cache_path (e, e.name);
  if (path.empty () || !read_cache (path, &cubin, &lowered)) {
    ConvertScale op;
    std::memcpy (static_cast<void *> (&op), e.key.description.data (), sizeof op);
    char arch[16];
    std::snprintf (arch, sizeof arch, "sm_%d", e.key.arch);
    /* The compiler caches it where it is used (stack_bytes). */
    ok = nvrtc_compile (op, e.name, arch, path, &cubin, &lowered, &log, &r.exiting);
    stack = ok ? stack_bytes (log) : -1;
  }
  const bool declined = ok && stack >= kMostStackBytes;
  std::lock_guard<std::mutex> hold (r.lock);
  if (declined) {
    /* The description went to local memory, whole or in part: an index
     * into it known only at run time (select instead, as
     * fixed_point::Taps::of does). Slower than the built kernel. */
    r.last_error = e.name + ": kept the built kernel: the compiled one has " +
                   std::to_string (stack) + " bytes of stack";
    r.declined.fetch_add (1);
  } else if (!ok && r.exiting.load ()) {
    /* Stopped by the process's exit: no fault of the kernel's. */
  } else if (!ok) {
    r.last_error = e.name + ": " + (log.empty () ? "could not be compiled" : log);
    r.failed.fetch_add (1);
  } else {
    e.cubin = std::move (cubin);
    e.lowered = std::move (lowered);
  }
  e.state.store (ok && !declined ? kCompiled : kFailed, std::memory_order_release);
  r.wake.notify_all ();
}

/* Loads `e`'s compiled kernel, on a launching thread (kCompiled → kReady
 * or kFailed); once, whichever thread comes first. The kernel is also
 * loaded into the current context here (cudaFuncGetAttributes), not at
 * its first launch, which may be behind a stream gate. */
void
load (Entry & e)
{
  std::lock_guard<std::mutex> once (e.load);
  if (e.state.load (std::memory_order_acquire) != kCompiled)
    return;
  Registry & r = registry ();
  cudaLibrary_t library = nullptr;
  cudaKernel_t kernel = nullptr;
  bool ok = cudaLibraryLoadData (&library, e.cubin.data (), nullptr, nullptr, 0, nullptr,
                nullptr, 0) == cudaSuccess &&
            cudaLibraryGetKernel (&kernel, library, e.lowered.c_str ()) == cudaSuccess;
  cudaFuncAttributes attributes{};
  if (ok)
    ok = cudaFuncGetAttributes (&attributes, reinterpret_cast<const void *> (kernel)) ==
         cudaSuccess;
  if (!ok)
    (void)cudaGetLastError ();
  /* The stack again, as the GPU's loader reports it (a kernel read from
   * the cache was not checked by compile ()). */
  const bool declined = ok && (int)attributes.localSizeBytes >= kMostStackBytes;
  e.kernel = kernel;
  e.cubin = {};
  std::lock_guard<std::mutex> hold (r.lock);
  if (declined) {
    r.last_error = e.name + ": kept the built kernel: the loaded one has " +
                   std::to_string (attributes.localSizeBytes) + " bytes of stack";
    r.declined.fetch_add (1);
  } else {
    if (!ok)
      r.last_error = e.name + ": could not be loaded";
    (ok ? r.compiled : r.failed).fetch_add (1);
  }
  e.state.store (ok && !declined ? kReady : kFailed, std::memory_order_release);
}

/* The exit handler, registered with the worker's start: the worker stops
 * before exit tears the process down, wherever it is: waiting for the
 * compiler process (killed and reaped within run_apart's 50 ms slice) or
 * idle. Bounded, should the worker be held elsewhere. */
void
stop_worker ()
{
  Registry & r = registry ();
  std::unique_lock<std::mutex> lock (r.lock);
  r.exiting = true;
  r.wake.notify_all ();
  r.wake.wait_for (lock, std::chrono::seconds (5), [&] { return r.parked; });
}

void
worker ()
{
  Registry & r = registry ();
  for (;;) {
    Entry * e;
    {
      std::unique_lock<std::mutex> lock (r.lock);
      r.wake.wait (lock, [&] { return !r.queue.empty () || r.exiting; });
      if (r.exiting) {
        /* A thread that waits for one of them (mode "wait") goes on with
         * the built kernel. The worker then sleeps until the process
         * ends: a thread that returned now would run its thread-local
         * destructors while exit tears the libraries down. */
        for (Entry * q : r.queue)
          q->state.store (kFailed, std::memory_order_release);
        r.queue.clear ();
        r.parked = true;
        r.wake.notify_all ();
        r.wake.wait (lock, [] { return false; });
      }
      e = r.queue.front ();
      r.queue.pop_front ();
    }
    compile (*e);
  }
}

/* Queues `e` for the worker (under r.lock), at most kMostKernels; `name`:
 * the built instance's (kernel_name, asked by the launching thread before
 * it took the lock). */
bool
ask (Registry & r, Entry & e, const std::string & name)
{
  if (e.state.load () != kNone || r.asked >= kMostKernels)
    return false;
  r.asked++;
  e.name = name;
  if (e.name.empty ()) {
    r.last_error = "no name for a built kernel";
    r.failed.fetch_add (1);
    e.state.store (kFailed);
    return false;
  }
  e.state.store (kQueued);
  r.queue.push_back (&e);
  if (!r.worker) {
    r.worker = true;
    std::atexit (stop_worker);
    std::thread (worker).detach ();
  }
  r.wake.notify_all ();
  return true;
}

/* The entry of (built, op) for `arch`, made where new. */
Entry *
entry_of (const void * built, const ConvertScale & op, int arch)
{
  /* The same description as the last launch of this thread: no hashing. */
  thread_local Entry * last = nullptr;
  Key key{ built, arch, description_of (op) };
  if (last && last->key == key)
    return last;
  Registry & r = registry ();
  std::lock_guard<std::mutex> hold (r.lock);
  auto it = r.entries.find (key);
  if (it == r.entries.end ()) {
    if (r.entries.size () >= (std::size_t)kMostDescriptions) {
      /* Not counted: the built kernel, for good. */
      static Entry never;
      never.state.store (kFailed);
      return &never;
    }
    auto e = std::make_unique<Entry> ();
    e->key = key;
    it = r.entries.emplace (key, std::move (e)).first;
  }
  last = it->second.get ();
  return last;
}

/* entry_of, through `ticket` where it holds the entry (of `op`'s
 * description, which its holder vouches for) of `built` for `arch`:
 * no 1 KiB key to build and compare. */
Entry *
entry_by_ticket (
    const void * built, const ConvertScale & op, int arch, ConvertTicket * ticket)
{
  if (ticket) {
    auto * e = static_cast<Entry *> (const_cast<void *> (ticket->entry));
    if (e && e->key.built == built && e->key.arch == arch)
      return e;
  }
  Entry * e = entry_of (built, op, arch);
  if (ticket)
    ticket->entry = e;
  return e;
}

/* The GPU architecture of the current context (`context`, its id, where
 * known), asked of the runtime once a context on each thread: a
 * context's device never changes. 0 where it cannot be told. */
int
arch_here (std::optional<unsigned long long> context)
{
  thread_local unsigned long long last_context = 0;
  thread_local int last_arch = 0;
  if (context && last_arch && *context == last_context)
    return last_arch;
  int device = 0;
  if (cudaGetDevice (&device) != cudaSuccess) {
    (void)cudaGetLastError ();
    return 0;
  }
  const int arch = arch_of (device);
  if (context) {
    last_context = *context;
    last_arch = arch;
  }
  return arch;
}

} // namespace

std::string
source_for (const ConvertScale & op)
{
  const Description d = description_of (op);
  std::string s = "#include \"convert_scale_addresses.h\"\n"
                  "__device__ const unsigned char gcs_rtc_description[] = {";
  for (std::size_t i = 0; i < d.size (); i++)
    s += (i ? "," : "") + std::to_string (d[i]);
  s += "};\n"
       "__device__ __forceinline__ gst_cs::gpu::ConvertScale\n"
       "rtc_description (const gst_cs::gpu::ConvertScale & given)\n"
       "{\n"
       "  gst_cs::gpu::ConvertScale op;\n"
       "  memcpy (&op, gcs_rtc_description, sizeof op);\n"
       "  gst_cs::gpu::take_addresses (op, given);\n"
       "  return op;\n"
       "}\n"
       "#define GCS_RTC_DESCRIPTION\n"
       "#include \"convert_scale_kernels.cuh\"\n";
  return s;
}

bool
compiles (const ConvertScale & op, const std::string & kernel_name,
    const std::string & arch, std::string * log, int * stack, const std::string & cache)
{
  std::vector<char> cubin;
  std::string lowered, out;
  const bool ok = nvrtc_compile (op, kernel_name, arch, cache, &cubin, &lowered, &out);
  if (log)
    *log = out;
  if (stack)
    *stack = ok ? stack_bytes (out) : -1;
  return ok;
}

namespace {

/* GST_CS_CONVERT_RTC_REPORT: the process says at exit what was compiled
 * and launched (tests check it: tests/elements/rtc_report.py). */
void
report_at_exit ()
{
  static std::once_flag once;
  std::call_once (once, [] {
    if (std::getenv ("GST_CS_CONVERT_RTC_REPORT"))
      std::atexit ([] {
        const Stats s = stats ();
        std::fprintf (stderr,
            "convert rtc: %d compiled, %d failed, %d declined, %lld launches%s%s\n",
            s.compiled, s.failed, s.declined, s.launches,
            s.last_error.empty () ? "" : "; last error: ",
            s.last_error.substr (0, 2000).c_str ());
      });
  });
}

} // namespace

bool
launch (const void * kernel, const ConvertScale & op, dim3 grid, dim3 block,
    std::size_t shared_bytes, cudaStream_t stream,
    std::optional<unsigned long long> context, void ** args, ConvertTicket * ticket)
{
  /* NVRTC compiles in a process of its own, which the worker thread waits
   * for: a first frame does not wait for it. That thread makes no CUDA
   * call; the launching thread that first sees a kernel compiled loads
   * it. */
  const Mode m = mode ();
  if (m == Mode::OFF)
    return false;
  report_at_exit ();
  const int arch = arch_here (context);
  if (!arch)
    return false;
  Entry * e = entry_by_ticket (kernel, op, arch, ticket);
  int state = e->state.load (std::memory_order_acquire);
  if (state == kNone || state == kQueued) {
    const int seen = e->seen.fetch_add (1, std::memory_order_relaxed) + 1;
    const bool asking = state == kNone && (m == Mode::WAIT || seen >= kSeenBeforeCompile);
    /* Named outside the lock: a CUDA call. */
    const std::string name = asking ? kernel_name (kernel) : std::string ();
    Registry & r = registry ();
    std::unique_lock<std::mutex> lock (r.lock);
    if (asking)
      ask (r, *e, name);
    if (m == Mode::WAIT && e->state.load () == kQueued) /* not past kMostKernels */
      r.wake.wait (lock, [&] { return e->state.load () >= kCompiled; });
    state = e->state.load (std::memory_order_acquire);
  }
  if (state == kCompiled) {
    load (*e);
    state = e->state.load (std::memory_order_acquire);
  }
  if (state != kReady)
    return false;
  const void * compiled = reinterpret_cast<const void *> (e->kernel);
  const cudaError_t launched = driver::launch_in (
      context, compiled, driver::Kernel::HANDLE, grid, block, shared_bytes, stream, args);
  if (launched != cudaSuccess) {
    /* Not launched (a launch's error is not sticky): the built one runs,
     * and this one no more. */
    (void)cudaGetLastError ();
    e->state.store (kFailed);
    return false;
  }
  registry ().launches.fetch_add (1, std::memory_order_relaxed);
  return true;
}

Stats
stats ()
{
  Registry & r = registry ();
  Stats s;
  s.compiled = r.compiled.load ();
  s.failed = r.failed.load ();
  s.declined = r.declined.load ();
  s.launches = r.launches.load ();
  std::lock_guard<std::mutex> hold (r.lock);
  s.last_error = r.last_error;
  return s;
}

} // namespace gst_cs::gpu::rtc

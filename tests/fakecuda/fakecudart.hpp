/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Internal state of libfakecudart, shared by its source files (see
 * fakecuda.h for what the stand-in models and why).
 *
 * One recursive mutex guards everything: this is a test tool, and running
 * stream work under the lock keeps the model simple (a kernel twin calls
 * back into the runtime from inside its work, hence recursive). */
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <unordered_set>
#include <vector>

/* The library is built with hidden visibility: what leaves it are the
 * runtime's entry points, as the CUDA header declares them (so this header
 * must come before anything else that includes it), and the test API. */
#pragma GCC visibility push(default)
#include <cuda_runtime_api.h>
#pragma GCC visibility pop

namespace fakecuda {

/* A process, as another one names it: its pid and its start time (in
 * clock ticks since boot, /proc/PID/stat), so that a reused pid is not
 * taken for the process that died. */
struct Peer {
  int pid = 0;
  std::uint64_t start = 0;
};

/* An interprocess event's state, in memory shared by every process that
 * holds it (fakecudart_ipc.cpp): generations of its records. */
struct SharedEvent;

/* One operation queued on a stream. A record is only a position in the
 * stream (an event's record is complete once its stream has run past it);
 * a wait names the position of another stream that must be reached first. */
struct Stream;
struct Op {
  enum class Kind { kWork, kRecord, kWait };
  Kind kind = Kind::kWork;
  std::function<void ()> work; /* kWork */
  Stream * waited = nullptr;   /* kWait: run this stream ... */
  std::uint64_t until = 0;     /* ... up to here first */
  /* kWait on an event of another process: its record `gen` must have
   * completed there (fakecudart_ipc.cpp); kRecord of an interprocess
   * event: completing it completes record `gen` for every process. */
  SharedEvent * shared = nullptr;
  std::uint64_t gen = 0;
  Peer owner; /* kWait: the process that records the event */
  /* kRecord of a timing event: where the time it ran goes (the event's) */
  std::shared_ptr<double> ran_at;
};

struct Stream {
  int device = 0;
  unsigned flags = 0;
  int priority = 0;
  std::deque<Op> queue;  /* not yet run, oldest first */
  std::uint64_t ran = 0; /* operations run so far: positions below are done */
  bool running = false;  /* an operation of it is being run (run_until) */

  /* The position just after the last operation enqueued. */
  std::uint64_t end () const { return ran + queue.size (); }
};

/* An event remembers its latest record only: where it lies in which stream. */
struct Event {
  int device = 0;
  unsigned flags = 0;
  Stream * stream = nullptr; /* nullptr: never recorded */
  std::uint64_t at = 0;      /* complete once stream->ran >= at */
  std::uint64_t polls = 0;   /* consecutive not-ready answers for that record */
  /* Timing events: when the stream ran past the latest record, in ms of
   * the host's steady clock (the stand-in's "GPU clock"); NaN until then. */
  std::shared_ptr<double> ran_at;
  /* Interprocess events: the shared state (nullptr for others), and for
   * one opened from another process's handle, that process. An opened
   * event has no stream here: its records are made by its owner. */
  SharedEvent * shared = nullptr;
  bool imported = false;
  Peer owner;
};

enum class MemKind { kPageable, kDevice, kPinned };

struct Alloc {
  std::uintptr_t start = 0;
  std::size_t size = 0;
  MemKind kind = MemKind::kPageable;
  int device = 0;          /* device memory: its device; pinned: current at allocation */
  unsigned flags = 0;      /* cudaHostAlloc / cudaHostRegister flags */
  bool registered = false; /* cudaHostRegister'ed, not ours to free */
  /* Device memory in shared memory (a memfd mapped here), which another
   * process may map too: allocations of whole 2 MiB blocks, and mappings
   * of another process's (imported, opened `import_refs` times). */
  int fd = -1;
  std::uint64_t serial = 0; /* allocations of this process, numbered */
  bool imported = false;
  int import_refs = 0;
  Peer exporter; /* imported: whose memory */
};

/* What a pointer range is: pageable host memory when it lies in no
 * allocation; `overflow` when it starts in one and runs past its end. */
struct Where {
  MemKind kind = MemKind::kPageable;
  int device = -1;
  const Alloc * alloc = nullptr;
  bool overflow = false;
};

/* A driver context (fakecudart_driver.cpp): nvcodec's library makes its
 * own or wraps a device's primary one. The top of a thread's context stack
 * is its current device, as cudaSetDevice makes a primary context current. */
struct Context {
  int device = 0;
  bool primary = false;
  bool live = true;
};

struct State {
  std::recursive_mutex mutex;
  int n_devices = 1;
  std::uint64_t polls_before_progress = 100000;
  bool trace = false;

  /* Every stream ever made, destroyed ones included: their queued work
   * still runs when something forces it, and waits may point at them. */
  std::vector<std::unique_ptr<Stream>> streams;
  std::vector<Stream *> legacy; /* per device */
  std::unordered_set<const void *> live_streams, live_events;
  /* Events are never freed either, so a stale handle stays invalid instead
   * of naming a new event at the same address. */
  std::vector<std::unique_ptr<Event>> events;

  std::map<std::uintptr_t, Alloc> allocs;
  std::vector<std::size_t> device_bytes; /* per device, for the capacity */
  std::size_t pinned_bytes = 0;
  std::vector<std::vector<bool>> peer; /* peer[d][p]: d's kernels may touch p's memory */

  /* Every context ever made (never freed, so stale handles stay invalid),
   * and each device's primary one once retained. */
  std::vector<std::unique_ptr<Context>> contexts;
  std::vector<Context *> primary; /* per device */

  cudaError_t sticky = cudaSuccess;
  int launch_device = -1; /* the device of the kernel twin running now */
};

/* The process' state, made on first use from the environment. */
State & state ();

/* Fake device memory per device, and pinned memory in all: a request above
 * it fails with cudaErrorMemoryAllocation (as on a GPU) rather than asking
 * the host (or AddressSanitizer) for absurd sizes. */
constexpr std::size_t kDeviceMemoryBytes = std::size_t{ 8 } << 30;
constexpr std::size_t kPinnedMemoryBytes = std::size_t{ 8 } << 30;
/* Fresh allocations are filled with it, so reads of unwritten memory show. */
constexpr unsigned char kJunk = 0xCD;
/* Allocations of whole blocks of this size are in shared memory and may be
 * exported (cudaIpcGetMemHandle); CUDA may sub-allocate smaller ones from a
 * block it shares, so exporting one exposes its neighbours, and the
 * stand-in refuses to (CUDA's programming guide: share 2 MiB-aligned sizes). */
constexpr std::size_t kIpcBlock = std::size_t{ 2 } << 20;

/* ---- calls ---- */

/* Runs an entry point under the lock: the sticky error, if any, is
 * returned instead (a process is unusable after a kernel fault), and a
 * failing result becomes the thread's last error, as CUDA does. */
cudaError_t call (const std::function<cudaError_t ()> & body);
/* Records `err` as the calling thread's last error (not cudaErrorNotReady,
 * which CUDA does not treat as an error) and returns it. */
cudaError_t record_error (cudaError_t err);
int current_device ();
/* Also makes the device's primary context current where the thread has a
 * driver context current (cudaSetDevice replaces the top of the stack). */
void set_current_device (int device);
/* The calling thread's driver contexts, innermost last. */
std::vector<Context *> & context_stack ();
Context * primary_context (int device);
/* The calling thread's last runtime error, untouched by driver calls. */
cudaError_t last_runtime_error ();
void restore_runtime_error (cudaError_t err);
/* What the fake devices say of `attr` (cudaDeviceAttr numbering, which the
 * driver's CUdevice_attribute shares); 0 for anything not modelled. */
int device_attribute (int attr, int device);
bool valid_device (int device);

/* The calling thread blocks on the device in `call`: counted per thread and
 * in all (and named on stderr with FAKECUDA_TRACE=1). */
void count_host_block (const char * call);

/* ---- streams ---- */

/* The stream a handle names (nullptr and cudaStreamLegacy: the current
 * device's legacy stream; cudaStreamPerThread: this thread's stream on the
 * current device); nullptr for an invalid handle. */
Stream * resolve (cudaStream_t handle);
Stream * new_stream (int device, unsigned flags, int priority);
Event * resolve (cudaEvent_t handle);

void enqueue_work (Stream & s, std::function<void ()> work);
/* Runs `s` up to `position`; each wait met on the way first runs the stream
 * it waits on up to the awaited record. Stops at a kernel fault. */
void run_until (Stream & s, std::uint64_t position);
void run_all (Stream & s);
void run_device (int device);
bool record_done (const Event & e);
/* The driver's cuStreamWaitValue32 (GEQ on pinned host memory), the one
 * driver entry point the stand-in has: FAKECUDA_NO_STREAM_WAIT_VALUE=1 hides
 * it, as a driver without stream memory operations would. */
void * stream_wait_value32_entry ();
/* Runs what the event's latest record needs. */
void run_record (const Event & e);

/* ---- copies (fakecudart_copy.cpp) ---- */

struct Copy2D {
  void * dst;
  std::size_t dpitch;
  const void * src;
  std::size_t spitch;
  std::size_t width;
  std::size_t height;
};

/* A copy with CUDA's rules about when it blocks the host (see the file). */
cudaError_t copy (const char * call, const Copy2D & c, cudaMemcpyKind kind,
    cudaStream_t stream, bool synchronous);

/* ---- memory ---- */

Where classify (const void * ptr, std::size_t bytes);

/* ---- interprocess memory and events (fakecudart_ipc.cpp) ---- */

/* Device memory of `size` bytes in shared memory (a memfd), junk-filled;
 * nullptr when it cannot be had. `fd` gets the memfd. */
void * shared_alloc (std::size_t size, int * fd);
/* A new interprocess event's shared state (starts the process's service
 * of other processes' requests on first use). */
SharedEvent * new_shared_event ();
/* A record of interprocess event `e` was enqueued: its generation, for the
 * record operation to complete. */
std::uint64_t shared_record (Event & e);
/* The record operation ran: generation `gen` of `shared` is complete. */
void shared_complete (SharedEvent * shared, std::uint64_t gen);
/* Whether the latest record of an event opened from another process has
 * completed (never recorded: yes). */
bool imported_done (const Event & e);
/* The generation a wait on an imported event waits for (0: nothing). */
std::uint64_t imported_pending (const Event & e);
/* Runs a kWait on another process's record: asks that process to run it,
 * and waits until it has (see fakecudart_ipc.cpp for a dead owner). */
void remote_wait (const Op & op);
/* The same for a host wait (cudaEventSynchronize), called without the lock. */
void host_wait_remote (const Op & op);

} // namespace fakecuda

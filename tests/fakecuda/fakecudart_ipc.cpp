/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* libfakecudart: CUDA IPC across real processes.
 *
 * Memory. An allocation of whole 2 MiB blocks (kIpcBlock) lives in a memfd
 * mapped shared; its handle names the exporting process (pid and start
 * time), the memfd's descriptor there and the allocation's serial number.
 * cudaIpcOpenMemHandle opens /proc/PID/fd/FD (allowed between processes of
 * one user) and maps it: both processes then see the same bytes, as two
 * contexts see one allocation on a GPU. The stand-in refuses to export any
 * other allocation: CUDA may sub-allocate it from a block it shares with
 * others, and exporting it would expose them.
 *
 * Events. An interprocess event's state is a slot of a table in a memfd of
 * its creating process (the owner), which the others map: the generation of
 * its latest record, the highest generation completed and the highest one
 * another process waits for. Streams run lazily here, so the order of work
 * across processes is stated as follows:
 *   - a record of an interprocess event is lazy, as every record; its
 *     generation completes when the owner's stream runs past it;
 *   - another process that waits for it (a stream's wait when that stream
 *     runs, cudaEventQuery, cudaEventSynchronize) asks the owner to run it:
 *     the owner's service thread (one per process that owns such events,
 *     polling every 0.2 ms) runs the owner's stream up to the event's latest
 *     record, as a GPU would have by then. A query never waits: it asks and
 *     answers cudaErrorNotReady until the owner has run it.
 *   - only the owner records an interprocess event (cudaErrorNotSupported in
 *     another process; the project never does it).
 * A dead owner's record that had not completed never completes (measured
 * on an H200, pipelines/ipc_probe.cu): a query answers cudaErrorNotReady
 * for ever, and a host wait aborts the process after 20 s
 * (FAKECUDA_HANG_SECONDS) saying it would hang. A stream waiting for it on the GPU was measured both ways: a
 * consumer's stream waiting for a killed producer's write ran 64 ms after
 * the kill, and a producer's stream waiting for a killed consumer's read
 * was stuck for ever (and then every cudaFree of that process hung). By
 * default such a wait resolves (the first); FAKECUDA_DEAD_PEER_WAIT=stuck
 * makes it hang, which the stand-in turns into an abort after 20 s saying
 * so: tests run a producer that way, so that a producer which waited for a
 * consumer on the GPU fails. */
#include "fakecudart.hpp"
#include "fakecuda.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <tuple>

namespace fakecuda {

struct SharedEvent {
  std::atomic<std::uint64_t> recorded;  /* generation of the latest record */
  std::atomic<std::uint64_t> completed; /* highest generation run past */
  std::atomic<std::uint64_t> requested; /* highest one another process waits for */
  std::uint64_t reserved[5];
};
static_assert (sizeof (SharedEvent) == 64, "one cache line per event");

namespace {

constexpr std::uint32_t kMemMagic = 0x4d494346;   /* "FCIM" */
constexpr std::uint32_t kEventMagic = 0x45494346; /* "FCIE" */
constexpr std::size_t kSlots = 16384;             /* interprocess events per process */

struct MemHandle {
  std::uint32_t magic;
  std::int32_t pid;
  std::uint64_t start;
  std::int32_t fd;
  std::int32_t device;
  std::uint64_t size;
  std::uint64_t serial;
};
static_assert (sizeof (MemHandle) <= sizeof (cudaIpcMemHandle_t), "fits CUDA's handle");

struct EventHandle {
  std::uint32_t magic;
  std::int32_t pid;
  std::uint64_t start;
  std::int32_t fd;
  std::uint32_t slot;
};
static_assert (
    sizeof (EventHandle) <= sizeof (cudaIpcEventHandle_t), "fits CUDA's handle");

/* Field 22 of /proc/PID/stat (after the command, which may hold spaces and
 * parentheses), and the state letter; false when the process is gone. */
bool
read_stat (int pid, char * state, std::uint64_t * start)
{
  char path[64];
  std::snprintf (path, sizeof path, "/proc/%d/stat", pid);
  std::FILE * f = std::fopen (path, "r");
  if (!f)
    return false;
  char buf[1024];
  const std::size_t n = std::fread (buf, 1, sizeof buf - 1, f);
  std::fclose (f);
  buf[n] = '\0';
  const char * p = std::strrchr (buf, ')');
  if (!p)
    return false;
  /* ") S ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt
   * utime stime cutime cstime priority nice threads itrealvalue starttime" */
  unsigned long long st = 0;
  char s = 0;
  if (std::sscanf (p + 1,
          " %c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %*d %*d "
          "%llu",
          &s, &st) != 2)
    return false;
  *state = s;
  *start = st;
  return true;
}

Peer
self ()
{
  static thread_local Peer cached;
  if (cached.pid != getpid ()) {
    char s;
    cached.pid = getpid ();
    if (!read_stat (cached.pid, &s, &cached.start))
      cached.start = 0;
  }
  return cached;
}

/* Alive and the same process (not a zombie, not a new one with its pid). */
bool
alive (const Peer & p)
{
  char s = 0;
  std::uint64_t start = 0;
  return read_stat (p.pid, &s, &start) && s != 'Z' && s != 'X' && start == p.start;
}

/* This process's interprocess events: the table the others map, its
 * events, and the thread that runs their records when asked. Made again
 * in a forked child (another pid). */
struct Owner {
  int pid = 0;
  int fd = -1;
  SharedEvent * table = nullptr;
  std::size_t used = 0;
  std::vector<Event *> events;
};

Owner &
owner ()
{
  static Owner * o = new Owner; /* never freed: the service thread outlives main */
  return *o;
}

void serve (int pid);

/* Under the state's lock. */
bool
ensure_owner ()
{
  Owner & o = owner ();
  if (o.pid == getpid () && o.table)
    return true;
  o = Owner ();
  o.fd = memfd_create ("fakecuda-events", MFD_CLOEXEC);
  if (o.fd < 0 || ftruncate (o.fd, kSlots * sizeof (SharedEvent)) != 0)
    return false;
  void * p = mmap (nullptr, kSlots * sizeof (SharedEvent), PROT_READ | PROT_WRITE,
      MAP_SHARED, o.fd, 0);
  if (p == MAP_FAILED)
    return false;
  o.table = static_cast<SharedEvent *> (p);
  o.pid = getpid ();
  std::thread (serve, o.pid).detach ();
  return true;
}

/* The owner's side: runs the records other processes wait for. */
void
serve (int pid)
{
  for (;;) {
    std::this_thread::sleep_for (std::chrono::microseconds (200));
    State & st = state ();
    std::lock_guard<std::recursive_mutex> guard (st.mutex);
    Owner & o = owner ();
    if (o.pid != pid)
      return;
    for (Event * e : o.events) {
      SharedEvent * s = e->shared;
      if (e->stream && st.sticky == cudaSuccess &&
          s->requested.load (std::memory_order_acquire) >
              s->completed.load (std::memory_order_acquire))
        run_record (*e);
    }
  }
}

void
raise_to (std::atomic<std::uint64_t> & a, std::uint64_t v)
{
  std::uint64_t cur = a.load (std::memory_order_acquire);
  while (cur < v && !a.compare_exchange_weak (cur, v, std::memory_order_acq_rel)) {
  }
}

/* An open file of another process: /proc/PID/fd/FD, read and write. */
int
open_peer_fd (const Peer & p, int fd)
{
  if (!alive (p))
    return -1;
  char path[64];
  std::snprintf (path, sizeof path, "/proc/%d/fd/%d", p.pid, fd);
  return open (path, O_RDWR | O_CLOEXEC);
}

/* Event tables of other processes, mapped once each. */
SharedEvent *
peer_table (const Peer & p, int fd)
{
  static auto * tables = new std::map<std::tuple<int, std::uint64_t, int>, SharedEvent *>;
  auto key = std::make_tuple (p.pid, p.start, fd);
  auto it = tables->find (key);
  if (it != tables->end ())
    return it->second;
  int f = open_peer_fd (p, fd);
  if (f < 0)
    return nullptr;
  void * m = mmap (
      nullptr, kSlots * sizeof (SharedEvent), PROT_READ | PROT_WRITE, MAP_SHARED, f, 0);
  close (f);
  if (m == MAP_FAILED)
    return nullptr;
  return (*tables)[key] = static_cast<SharedEvent *> (m);
}

/* How long a wait that would hang on a GPU goes on before the process
 * aborts saying so (FAKECUDA_HANG_SECONDS, default 20). */
std::chrono::seconds
hang_bound ()
{
  const char * v = std::getenv ("FAKECUDA_HANG_SECONDS");
  const long n = v ? std::strtol (v, nullptr, 10) : 0;
  return std::chrono::seconds (n > 0 ? n : 20);
}

bool
stuck_mode ()
{
  const char * v = std::getenv ("FAKECUDA_DEAD_PEER_WAIT");
  return v && std::strcmp (v, "stuck") == 0;
}

} // namespace

void *
shared_alloc (std::size_t size, int * fd)
{
  int f = memfd_create ("fakecuda-device", MFD_CLOEXEC);
  if (f < 0)
    return nullptr;
  void * p = MAP_FAILED;
  if (ftruncate (f, (off_t)size) == 0)
    p = mmap (nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, f, 0);
  if (p == MAP_FAILED) {
    close (f);
    return nullptr;
  }
  std::memset (p, kJunk, size);
  *fd = f;
  return p;
}

SharedEvent *
new_shared_event ()
{
  if (!ensure_owner ())
    return nullptr;
  Owner & o = owner ();
  if (o.used == kSlots)
    return nullptr;
  return &o.table[o.used++];
}

std::atomic<unsigned long long> ipc_records{ 0 };
std::atomic<unsigned long long> ipc_early_rerecords{ 0 };
std::atomic<unsigned long long> ipc_mem_opens{ 0 };
std::atomic<unsigned long long> ipc_event_opens{ 0 };

std::uint64_t
shared_record (Event & e)
{
  Owner & o = owner ();
  if (std::find (o.events.begin (), o.events.end (), &e) == o.events.end ())
    o.events.push_back (&e);
  ipc_records.fetch_add (1, std::memory_order_relaxed);
  const std::uint64_t gen = e.shared->recorded.fetch_add (1, std::memory_order_acq_rel);
  if (e.shared->completed.load (std::memory_order_acquire) < gen)
    ipc_early_rerecords.fetch_add (1, std::memory_order_relaxed);
  return gen + 1;
}

void
shared_complete (SharedEvent * shared, std::uint64_t gen)
{
  raise_to (shared->completed, gen);
}

std::uint64_t
imported_pending (const Event & e)
{
  const std::uint64_t gen = e.shared->recorded.load (std::memory_order_acquire);
  if (gen == 0 || e.shared->completed.load (std::memory_order_acquire) >= gen)
    return 0;
  return gen;
}

bool
imported_done (const Event & e)
{
  const std::uint64_t gen = imported_pending (e);
  if (gen)
    raise_to (e.shared->requested, gen);
  return gen == 0;
}

/* Waits for generation op.gen of another process's event: on the GPU (a
 * stream that runs past a wait, `gpu`) or on the host. */
static void
wait_remote (const Op & op, bool gpu)
{
  SharedEvent * s = op.shared;
  raise_to (s->requested, op.gen);
  const auto begin = std::chrono::steady_clock::now ();
  auto next_look = begin;
  bool dead = false;
  while (s->completed.load (std::memory_order_acquire) < op.gen) {
    const auto now = std::chrono::steady_clock::now ();
    if (!dead && now >= next_look) {
      dead = !alive (op.owner);
      next_look = now + std::chrono::milliseconds (5);
      if (dead && gpu && !stuck_mode ()) {
        std::fprintf (stderr,
            "fakecuda: a stream waited for an event of process %d, which died before "
            "completing it: the wait resolves (as measured for a killed producer)\n",
            op.owner.pid);
        return;
      }
    }
    if (now - begin > hang_bound ()) {
      std::fprintf (stderr,
          "fakecuda: %s waits for ever for an interprocess event of process %d (%s): on "
          "a "
          "GPU this hangs%s\n",
          gpu ? "a stream" : "a host wait", op.owner.pid,
          dead ? "dead before it completed" : "alive, not completing it",
          gpu && dead ? ", and so does every later cudaFree of this process" : "");
      std::abort ();
    }
    std::this_thread::sleep_for (std::chrono::microseconds (20));
  }
}

void
remote_wait (const Op & op)
{
  wait_remote (op, true);
}

void
host_wait_remote (const Op & op)
{
  wait_remote (op, false);
}

} // namespace fakecuda

using namespace fakecuda;

/* ---- the test API (fakecuda.h) ---- */

unsigned long long
fakecuda_ipc_records (void)
{
  return ipc_records.load (std::memory_order_relaxed);
}

unsigned long long
fakecuda_ipc_early_rerecords (void)
{
  return ipc_early_rerecords.load (std::memory_order_relaxed);
}

unsigned long long
fakecuda_ipc_mem_opens (void)
{
  return ipc_mem_opens.load (std::memory_order_relaxed);
}

unsigned long long
fakecuda_ipc_event_opens (void)
{
  return ipc_event_opens.load (std::memory_order_relaxed);
}

/* ---- events ---- */

cudaError_t
cudaIpcGetEventHandle (cudaIpcEventHandle_t * handle, cudaEvent_t event)
{
  return call ([&] {
    Event * e = resolve (event);
    if (!e || e->imported || !e->shared)
      return cudaErrorInvalidResourceHandle;
    if (!handle)
      return cudaErrorInvalidValue;
    Owner & o = owner ();
    EventHandle h{};
    h.magic = kEventMagic;
    h.pid = self ().pid;
    h.start = self ().start;
    h.fd = o.fd;
    h.slot = (std::uint32_t) (e->shared - o.table);
    std::memset (handle, 0, sizeof *handle);
    std::memcpy (handle, &h, sizeof h);
    return cudaSuccess;
  });
}

cudaError_t
cudaIpcOpenEventHandle (cudaEvent_t * event, cudaIpcEventHandle_t handle)
{
  return call ([&] {
    EventHandle h;
    std::memcpy (&h, &handle, sizeof h);
    if (!event || h.magic != kEventMagic || h.slot >= kSlots)
      return cudaErrorInvalidValue;
    if (h.pid == self ().pid)
      return cudaErrorInvalidValue; /* a handle is for other processes */
    if (!valid_device (current_device ()))
      return cudaErrorInvalidDevice;
    Peer p{ h.pid, h.start };
    SharedEvent * table = peer_table (p, h.fd);
    if (!table)
      return cudaErrorMapBufferObjectFailed;
    State & st = state ();
    st.events.push_back (std::make_unique<Event> ());
    Event * e = st.events.back ().get ();
    e->device = current_device ();
    e->flags = cudaEventDisableTiming | cudaEventInterprocess;
    e->shared = &table[h.slot];
    e->imported = true;
    e->owner = p;
    st.live_events.insert (e);
    *event = reinterpret_cast<cudaEvent_t> (e);
    ipc_event_opens.fetch_add (1, std::memory_order_relaxed);
    return cudaSuccess;
  });
}

/* ---- memory ---- */

cudaError_t
cudaIpcGetMemHandle (cudaIpcMemHandle_t * handle, void * devPtr)
{
  return call ([&] {
    if (!handle)
      return cudaErrorInvalidValue;
    Where w = classify (devPtr, 1);
    if (w.kind != MemKind::kDevice || w.alloc->imported)
      return cudaErrorInvalidValue;
    if (w.alloc->fd < 0) {
      std::fprintf (stderr,
          "fakecuda: refusing to export %zu bytes at %p: not whole 2 MiB blocks, which "
          "CUDA may share with other allocations\n",
          w.alloc->size, (void *)w.alloc->start);
      return cudaErrorInvalidValue;
    }
    /* The whole allocation, whichever address in it is given (measured). */
    MemHandle h{};
    h.magic = kMemMagic;
    h.pid = self ().pid;
    h.start = self ().start;
    h.fd = w.alloc->fd;
    h.device = w.alloc->device;
    h.size = w.alloc->size;
    h.serial = w.alloc->serial;
    std::memset (handle, 0, sizeof *handle);
    std::memcpy (handle, &h, sizeof h);
    return cudaSuccess;
  });
}

cudaError_t
cudaIpcOpenMemHandle (void ** devPtr, cudaIpcMemHandle_t handle, unsigned int flags)
{
  return call ([&] {
    MemHandle h;
    std::memcpy (&h, &handle, sizeof h);
    if (!devPtr || h.magic != kMemMagic || flags != cudaIpcMemLazyEnablePeerAccess ||
        h.size == 0 || h.size % kIpcBlock != 0)
      return cudaErrorInvalidValue;
    if (h.pid == self ().pid)
      return cudaErrorInvalidValue; /* a handle is for other processes */
    if (!valid_device (h.device) || !valid_device (current_device ()))
      return cudaErrorInvalidDevice;
    State & st = state ();
    /* Opened before by this process: one more reference, the same address. */
    for (auto & [start, a] : st.allocs) {
      if (a.imported && a.exporter.pid == h.pid && a.exporter.start == h.start &&
          a.serial == h.serial) {
        a.import_refs++;
        *devPtr = reinterpret_cast<void *> (start);
        ipc_mem_opens.fetch_add (1, std::memory_order_relaxed);
        return cudaSuccess;
      }
    }
    Peer p{ h.pid, h.start };
    int fd = open_peer_fd (p, h.fd);
    if (fd < 0)
      return cudaErrorMapBufferObjectFailed;
    struct stat sb;
    void * m = MAP_FAILED;
    if (fstat (fd, &sb) == 0 && (std::uint64_t)sb.st_size == h.size)
      m = mmap (nullptr, h.size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (m == MAP_FAILED) {
      close (fd);
      return cudaErrorMapBufferObjectFailed;
    }
    Alloc a;
    a.start = reinterpret_cast<std::uintptr_t> (m);
    a.size = h.size;
    a.kind = MemKind::kDevice;
    a.device = h.device;
    a.fd = fd;
    a.serial = h.serial;
    a.imported = true;
    a.import_refs = 1;
    a.exporter = p;
    st.allocs[a.start] = a;
    /* cudaIpcMemLazyEnablePeerAccess: mapped into another device's
     * context, its kernels may touch it. */
    if (h.device != current_device ())
      st.peer[current_device ()][h.device] = true;
    *devPtr = m;
    ipc_mem_opens.fetch_add (1, std::memory_order_relaxed);
    return cudaSuccess;
  });
}

/* Waits for the device as cudaFree does, then unmaps at the last close. */
cudaError_t
cudaIpcCloseMemHandle (void * devPtr)
{
  return call ([&] {
    State & st = state ();
    auto it = st.allocs.find (reinterpret_cast<std::uintptr_t> (devPtr));
    if (it == st.allocs.end () || !it->second.imported)
      return cudaErrorInvalidValue;
    count_host_block ("cudaIpcCloseMemHandle");
    run_device (it->second.device);
    if (valid_device (current_device ()))
      run_device (current_device ());
    it = st.allocs.find (reinterpret_cast<std::uintptr_t> (devPtr));
    if (it == st.allocs.end () || --it->second.import_refs > 0)
      return cudaSuccess;
    munmap (devPtr, it->second.size);
    close (it->second.fd);
    st.allocs.erase (it);
    return cudaSuccess;
  });
}

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gcs-ipc-sink-floor: the least CPU a producer's thread can spend a frame
 * on what cudastreamsipcsink's protocol asks of it, with no GStreamer and
 * none of the element's bookkeeping, on the host where the element is
 * measured (docs/ipc.md, "The sink's floor"). Issue 52 asks for the
 * sink's CPU at most 20 µs a frame at 1,000 frames a second; where this
 * floor is near that on a host, the target is beyond what the protocol
 * allows there, whatever the element does.
 *
 * A frame, as the sink does it (each step the one the element takes, in
 * its cheapest form):
 *   gpu      the stream waits for the frame's writer (a plain event,
 *            recorded once, as imagefreeze's frame in the benchmark), then
 *            an interprocess event is recorded after it (one of 16, used
 *            again once every consumer gave its frame back);
 *   records  a 200-byte record (a FRAME with a few metas) written into
 *            each consumer's ring in shared memory;
 *   wake     one futex word all consumers sleep on, counted up and woken
 *            where one sleeps;
 *   back     each consumer's releases read from its ring, and the read
 *            event each names queried (opened once, by handle).
 * The consumers are processes of their own (spawned, so that each has its
 * CUDA context): each sleeps on the word, reads its record, makes its
 * stream wait for the producer's event, records an interprocess read
 * event of its own and puts the release in its ring.
 *
 * Timed by the producer thread's CPU clock, as the element's tracer
 * times the sink: the whole frame (two clock readings), and in a second
 * pass each step (five readings a frame). Frames GAP_US apart (1,000: the
 * issue's rate; the thread sleeps between them as the sink's does) and
 * back to back (0), with 1 and 4 consumers; other gaps by FLOOR_GAPS_US
 * ("33333 1000": 30 and 1,000 a second). Prints "SINK-FLOOR <json>"
 * lines and a table.
 *   gcs-ipc-sink-floor [FRAMES]          (default 3000; the first 300 are
 *                                         not counted) */
#include <cuda_runtime.h>
#include <linux/futex.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <vector>

#include "cuda_check.h"

extern char ** environ;

namespace {

constexpr int kMaxConsumers = 8;
constexpr int kRing = 64;  /* records and releases a consumer's ring holds */
constexpr int kSlots = 16; /* interprocess events each side records in turn */
constexpr int kRecordBytes = 200;
constexpr int kSkipped = 300; /* frames not counted: the start */

struct Record {
  std::atomic<uint64_t> seq;
  uint32_t slot;
  char bytes[kRecordBytes];
};

struct Release {
  uint64_t seq;
  uint32_t slot;
};

struct ConsumerArea {
  Record records[kRing];
  Release releases[kRing];
  std::atomic<uint64_t> released; /* releases written */
  std::atomic<int> sleeping;
  std::atomic<int> ready; /* its read events' handles are there */
  cudaIpcEventHandle_t read_events[kSlots];
};

struct Shared {
  std::atomic<int> bell; /* the futex word: counted up a frame */
  std::atomic<int> stop;
  cudaIpcEventHandle_t write_events[kSlots];
  ConsumerArea c[kMaxConsumers];
};

static_assert (std::atomic<uint64_t>::is_always_lock_free, "shared atomics");
static_assert (std::atomic<int>::is_always_lock_free, "shared atomics");

long
futex (std::atomic<int> * word, int op, int val)
{
  return syscall (
      SYS_futex, reinterpret_cast<int *> (word), op, val, nullptr, nullptr, 0);
}

uint64_t
thread_cpu_ns ()
{
  timespec t;
  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &t);
  return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

Shared *
map_shared (int fd)
{
  void * p = mmap (nullptr, sizeof (Shared), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) {
    std::perror ("mmap");
    std::exit (3);
  }
  return static_cast<Shared *> (p);
}

/* A consumer process: sleeps on the bell, reads its records, waits on the
 * GPU, gives each frame back with a read event of its own. */
int
consumer (int fd, int index)
{
  Shared * sh = map_shared (fd);
  ConsumerArea & me = sh->c[index];
  CHECK_OR_EXIT (cudaSetDevice (0));
  cudaStream_t stream;
  CHECK_OR_EXIT (cudaStreamCreateWithFlags (&stream, cudaStreamNonBlocking));
  cudaEvent_t reads[kSlots], writes[kSlots];
  for (int i = 0; i < kSlots; i++) {
    CHECK_OR_EXIT (cudaEventCreateWithFlags (
        &reads[i], cudaEventDisableTiming | cudaEventInterprocess));
    CHECK_OR_EXIT (cudaIpcGetEventHandle (&me.read_events[i], reads[i]));
    CHECK_OR_EXIT (cudaIpcOpenEventHandle (&writes[i], sh->write_events[i]));
  }
  me.ready.store (1);
  uint64_t next = 1, n = 0;
  while (!sh->stop.load ()) {
    Record & r = me.records[next % kRing];
    const int bell = sh->bell.load ();
    if (r.seq.load () != next) {
      me.sleeping.store (1);
      if (r.seq.load () != next && !sh->stop.load ()) {
        timespec limit{ 0, 100 * 1000 * 1000 }; /* the stop flag, now and then */
        syscall (SYS_futex, reinterpret_cast<int *> (&sh->bell), FUTEX_WAIT, bell, &limit,
            nullptr, 0);
      }
      me.sleeping.store (0);
      continue;
    }
    const uint32_t slot = r.slot % kSlots;
    const uint32_t mine = (uint32_t)(n % kSlots);
    /* Recorded again only once its last record has completed (the element
     * keeps its read events so too). */
    CHECK_OR_EXIT (cudaEventSynchronize (reads[mine]));
    CHECK_OR_EXIT (cudaStreamWaitEvent (stream, writes[slot], 0));
    CHECK_OR_EXIT (cudaEventRecord (reads[mine], stream));
    Release & out = me.releases[n % kRing];
    out.seq = next;
    out.slot = mine;
    me.released.store (++n);
    next++;
  }
  CHECK_OR_EXIT (cudaStreamSynchronize (stream));
  return 0;
}

struct Parts {
  std::vector<double> total, gpu, records, wake, back;
};

double
quantile (std::vector<double> v, double q)
{
  if (v.empty ())
    return 0;
  std::sort (v.begin (), v.end ());
  return v[std::min (v.size () - 1, (size_t)(q * (double)v.size ()))];
}

double
mean (const std::vector<double> & v)
{
  double s = 0;
  for (double x : v)
    s += x;
  return v.empty () ? 0 : s / (double)v.size ();
}

/* One configuration: `consumers` processes, `frames` frames `gap_us`
 * apart; `parts`: each step timed apart (five clock readings a frame),
 * else the frame as a whole (two). */
Parts
run (const char * self, int consumers, int gap_us, int frames, bool parts)
{
  const int fd = memfd_create ("gcs-ipc-sink-floor", 0);
  if (fd < 0 || ftruncate (fd, sizeof (Shared))) {
    std::perror ("memfd");
    std::exit (3);
  }
  Shared * sh = map_shared (fd);
  new (sh) Shared ();
  cudaStream_t stream;
  CHECK_OR_EXIT (cudaStreamCreateWithFlags (&stream, cudaStreamNonBlocking));
  cudaEvent_t upstream, writes[kSlots];
  CHECK_OR_EXIT (cudaEventCreateWithFlags (&upstream, cudaEventDisableTiming));
  CHECK_OR_EXIT (cudaEventRecord (upstream, stream));
  for (int i = 0; i < kSlots; i++) {
    CHECK_OR_EXIT (cudaEventCreateWithFlags (
        &writes[i], cudaEventDisableTiming | cudaEventInterprocess));
    CHECK_OR_EXIT (cudaIpcGetEventHandle (&sh->write_events[i], writes[i]));
  }
  std::vector<pid_t> pids;
  const std::string fd_arg = std::to_string (fd);
  for (int c = 0; c < consumers; c++) {
    const std::string index = std::to_string (c);
    char * argv[] = { const_cast<char *> (self), const_cast<char *> ("consumer"),
      const_cast<char *> (fd_arg.c_str ()), const_cast<char *> (index.c_str ()),
      nullptr };
    pid_t pid;
    if (posix_spawn (&pid, self, nullptr, nullptr, argv, environ)) {
      std::perror ("posix_spawn");
      std::exit (3);
    }
    pids.push_back (pid);
  }
  std::vector<cudaEvent_t> reads (consumers * kSlots);
  for (int c = 0; c < consumers; c++) {
    while (!sh->c[c].ready.load ())
      usleep (1000);
    for (int i = 0; i < kSlots; i++)
      CHECK_OR_EXIT (
          cudaIpcOpenEventHandle (&reads[c * kSlots + i], sh->c[c].read_events[i]));
  }
  std::vector<uint64_t> taken (consumers, 0);
  char frame_record[kRecordBytes];
  std::memset (frame_record, 7, sizeof frame_record);
  Parts out;
  timespec due;
  clock_gettime (CLOCK_MONOTONIC, &due);
  for (int f = 1; f <= frames; f++) {
    /* An event slot is used again once every consumer gave back the frame
     * that last used it; a full ring waits too (back to back only). */
    for (int c = 0; c < consumers; c++)
      while (sh->c[c].released.load () + kSlots / 2 < (uint64_t)f)
        sched_yield ();
    if (gap_us > 0) {
      due.tv_nsec += gap_us * 1000L;
      while (due.tv_nsec >= 1000000000L) {
        due.tv_nsec -= 1000000000L;
        due.tv_sec++;
      }
      clock_nanosleep (CLOCK_MONOTONIC, TIMER_ABSTIME, &due, nullptr);
    }
    const uint64_t t0 = thread_cpu_ns ();
    const int slot = f % kSlots;
    CHECK_OR_EXIT (cudaStreamWaitEvent (stream, upstream, 0));
    CHECK_OR_EXIT (cudaEventRecord (writes[slot], stream));
    const uint64_t t1 = parts ? thread_cpu_ns () : 0;
    for (int c = 0; c < consumers; c++) {
      Record & r = sh->c[c].records[f % kRing];
      std::memcpy (r.bytes, frame_record, sizeof r.bytes);
      std::memcpy (r.bytes, &f, sizeof f);
      r.slot = (uint32_t)slot;
      r.seq.store ((uint64_t)f);
    }
    const uint64_t t2 = parts ? thread_cpu_ns () : 0;
    sh->bell.fetch_add (1);
    bool asleep = false;
    for (int c = 0; c < consumers; c++)
      asleep |= sh->c[c].sleeping.load () != 0;
    if (asleep)
      futex (&sh->bell, FUTEX_WAKE, INT_MAX);
    const uint64_t t3 = parts ? thread_cpu_ns () : 0;
    for (int c = 0; c < consumers; c++) {
      const uint64_t released = sh->c[c].released.load ();
      for (; taken[c] < released; taken[c]++) {
        const Release & r = sh->c[c].releases[taken[c] % kRing];
        (void)cudaEventQuery (reads[c * kSlots + r.slot % kSlots]);
      }
    }
    const uint64_t t4 = thread_cpu_ns ();
    if (f <= kSkipped)
      continue;
    out.total.push_back ((double)(t4 - t0) / 1e3);
    if (parts) {
      out.gpu.push_back ((double)(t1 - t0) / 1e3);
      out.records.push_back ((double)(t2 - t1) / 1e3);
      out.wake.push_back ((double)(t3 - t2) / 1e3);
      out.back.push_back ((double)(t4 - t3) / 1e3);
    }
  }
  sh->stop.store (1);
  futex (&sh->bell, FUTEX_WAKE, INT_MAX);
  int failed = 0;
  for (pid_t pid : pids) {
    int status = 0;
    waitpid (pid, &status, 0);
    failed |= !WIFEXITED (status) || WEXITSTATUS (status) != 0;
  }
  if (failed) {
    std::fprintf (stderr, "a consumer failed\n");
    std::exit (4);
  }
  CHECK_OR_EXIT (cudaStreamSynchronize (stream));
  for (cudaEvent_t e : reads)
    CHECK_OR_EXIT (cudaEventDestroy (e));
  for (cudaEvent_t e : writes)
    CHECK_OR_EXIT (cudaEventDestroy (e));
  CHECK_OR_EXIT (cudaEventDestroy (upstream));
  CHECK_OR_EXIT (cudaStreamDestroy (stream));
  munmap (sh, sizeof (Shared));
  close (fd);
  return out;
}

void
report (int consumers, int gap_us, const Parts & whole, const Parts & split)
{
  std::printf ("SINK-FLOOR {\"consumers\":%d,\"gap_us\":%d,\"frames\":%zu,"
               "\"p50_us\":%.2f,\"mean_us\":%.2f,\"p90_us\":%.2f,"
               "\"parts_p50_us\":{\"gpu\":%.2f,\"records\":%.2f,\"wake\":%.2f,"
               "\"back\":%.2f},\"parts_total_p50_us\":%.2f}\n",
      consumers, gap_us, whole.total.size (), quantile (whole.total, 0.5),
      mean (whole.total), quantile (whole.total, 0.9), quantile (split.gpu, 0.5),
      quantile (split.records, 0.5), quantile (split.wake, 0.5),
      quantile (split.back, 0.5), quantile (split.total, 0.5));
  std::fflush (stdout);
}

} // namespace

int
main (int argc, char ** argv)
{
  if (argc == 4 && std::strcmp (argv[1], "consumer") == 0)
    return consumer (std::atoi (argv[2]), std::atoi (argv[3]));
  const int frames = argc > 1 ? std::atoi (argv[1]) : 3000;
  if (frames <= kSkipped) {
    std::fprintf (stderr, "usage: %s [FRAMES > %d]\n", argv[0], kSkipped);
    return 2;
  }
  /* FLOOR_GAPS_US: the gaps to run, e.g. "33333 1000" (30 a second and
   * the issue's 1,000); default 1,000 and back to back. */
  std::vector<int> gaps;
  if (const char * list = std::getenv ("FLOOR_GAPS_US")) {
    for (char * end; *list; list = end) {
      const long g = std::strtol (list, &end, 10);
      if (end == list || g < 0 || g > 1000000) {
        std::fprintf (
            stderr, "FLOOR_GAPS_US: gaps in µs, 0 to 1000000, apart by spaces\n");
        return 2;
      }
      gaps.push_back ((int)g);
      while (*end == ' ' || *end == ',')
        end++;
    }
  }
  if (gaps.empty ())
    gaps = { 1000, 0 };
  CHECK_OR_EXIT (cudaSetDevice (0));
  CHECK_OR_EXIT (cudaFree (nullptr));
  std::printf ("%-10s %-8s %9s %9s %9s   %s\n", "consumers", "gap µs", "p50 µs",
      "mean µs", "p90 µs", "p50 of each step, timed apart: gpu / records / wake / back");
  for (int gap : gaps) {
    for (int consumers : { 1, 4 }) {
      const Parts whole = run (argv[0], consumers, gap, frames, false);
      const Parts split = run (argv[0], consumers, gap, frames, true);
      report (consumers, gap, whole, split);
      std::printf ("%-10d %-8d %9.2f %9.2f %9.2f   %.2f / %.2f / %.2f / %.2f\n",
          consumers, gap, quantile (whole.total, 0.5), mean (whole.total),
          quantile (whole.total, 0.9), quantile (split.gpu, 0.5),
          quantile (split.records, 0.5), quantile (split.wake, 0.5),
          quantile (split.back, 0.5));
      std::fflush (stdout);
    }
  }
  return 0;
}

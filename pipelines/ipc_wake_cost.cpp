/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gcs-ipc-wake-cost: what it costs a producer's thread to tell readers in
 * other processes, asleep, that something is there (docs/ipc.md, "What it
 * costs"). cudastreamsipcsink sends each consumer a FRAME record of about
 * 200 bytes on a unix socket; the alternatives are a record in shared
 * memory plus a wake-up by eventfd or futex. Each way is timed by the
 * sender's thread CPU clock (not the wall clock: what the producer's
 * render spends), with the readers asleep each time, as at 1,000 frames a
 * second:
 *   - one reader: sendmsg of 200 bytes, an eventfd write, a FUTEX_WAKE;
 *   - READERS readers (default 4): a sendmsg to each, against one
 *     FUTEX_WAKE of all of them on one word they share.
 * No GPU, no GStreamer.
 *   gcs-ipc-wake-cost [GAP_US [READERS [SENDS]]]   (defaults 1000 4 2000)
 */
#include <linux/futex.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
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
#include <new>
#include <vector>

namespace {

enum class Way { SEND, EVENTFD, FUTEX };

constexpr size_t kRecordBytes = 200; /* a FRAME record with a few metas */

double
thread_cpu_ns ()
{
  timespec t;
  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &t);
  return t.tv_sec * 1e9 + t.tv_nsec;
}

void
sleep_us (int us)
{
  timespec t{ us / 1000000, (us % 1000000) * 1000L };
  nanosleep (&t, nullptr);
}

long
futex (std::atomic<int> * word, int op, int val)
{
  return syscall (
      SYS_futex, reinterpret_cast<int *> (word), op, val, nullptr, nullptr, 0);
}

/* A reader process: takes `sends` notifications the given way, sleeping
 * between them, and exits. */
void
read_all (Way way, int sock, int efd, std::atomic<int> * word, int sends)
{
  char buf[4096];
  for (int i = 0; i < sends; i++) {
    if (way == Way::SEND) {
      pollfd p{ sock, POLLIN, 0 };
      if (poll (&p, 1, -1) < 0 || recv (sock, buf, sizeof buf, 0) < 0)
        _exit (1);
    } else if (way == Way::EVENTFD) {
      pollfd p{ efd, POLLIN, 0 };
      uint64_t v;
      if (poll (&p, 1, -1) < 0 || read (efd, &v, sizeof v) != sizeof v)
        _exit (1);
    } else {
      int seen;
      while ((seen = word->load ()) <= i)
        futex (word, FUTEX_WAIT, seen);
    }
  }
  _exit (0);
}

/* Starts `readers` processes reading `way`, then times `notify` `sends`
 * times, `gap_us` apart; prints p50 and p90 of the sender's CPU. */
void
measure (const char * name, Way way, int readers, int gap_us, int sends)
{
  auto * word = static_cast<std::atomic<int> *> (
      mmap (nullptr, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0));
  if (word == MAP_FAILED) {
    perror ("mmap");
    exit (1);
  }
  new (word) std::atomic<int> (0);
  const int efd = eventfd (0, EFD_NONBLOCK);
  std::vector<int> socks;
  std::vector<pid_t> pids;
  for (int r = 0; r < readers; r++) {
    int sv[2];
    if (socketpair (AF_UNIX, SOCK_SEQPACKET, 0, sv) != 0) {
      perror ("socketpair");
      exit (1);
    }
    const pid_t pid = fork ();
    if (pid == 0)
      read_all (way, sv[1], efd, word, sends);
    close (sv[1]);
    socks.push_back (sv[0]);
    pids.push_back (pid);
  }
  char record[kRecordBytes] = {};
  std::vector<double> ns;
  for (int i = 0; i < sends; i++) {
    sleep_us (gap_us);
    const double t0 = thread_cpu_ns ();
    if (way == Way::SEND) {
      for (int s : socks)
        (void)!send (s, record, sizeof record, 0);
    } else if (way == Way::EVENTFD) {
      const uint64_t one = 1;
      (void)!write (efd, &one, sizeof one);
    } else {
      word->fetch_add (1);
      futex (word, FUTEX_WAKE, INT_MAX);
    }
    ns.push_back (thread_cpu_ns () - t0);
  }
  for (pid_t pid : pids)
    waitpid (pid, nullptr, 0);
  for (int s : socks)
    close (s);
  close (efd);
  munmap (word, 4096);
  std::sort (ns.begin (), ns.end ());
  printf ("%-24s readers %d, %d us apart: p50 %.2f us, p90 %.2f us\n", name, readers,
      gap_us, ns[ns.size () / 2] / 1e3, ns[ns.size () * 9 / 10] / 1e3);
}

} // namespace

int
main (int argc, char ** argv)
{
  const int gap_us = argc > 1 ? atoi (argv[1]) : 1000;
  const int readers = argc > 2 ? atoi (argv[2]) : 4;
  const int sends = argc > 3 ? atoi (argv[3]) : 2000;
  if (gap_us < 0 || readers < 1 || sends < 10) {
    fprintf (stderr, "usage: %s [GAP_US [READERS [SENDS>=10]]]\n", argv[0]);
    return 2;
  }
  measure ("sendmsg of a record", Way::SEND, 1, gap_us, sends);
  measure ("eventfd write", Way::EVENTFD, 1, gap_us, sends);
  measure ("futex wake", Way::FUTEX, 1, gap_us, sends);
  measure ("sendmsg to each reader", Way::SEND, readers, gap_us, sends);
  measure ("futex wake of all", Way::FUTEX, readers, gap_us, sends);
  return 0;
}

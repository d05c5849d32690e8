/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "run_apart.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstring>

#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

namespace gst_cs::gpu {
namespace {

/* The result is followed by its length, so that a child that died
 * half-way is told from one that finished: its exit status alone may be
 * taken by another waitpid in the process (an application's SIGCHLD
 * handler) or lost (SIGCHLD ignored). */
constexpr char kEnd[] = "gcs-run-apart-end";

bool
write_all (int fd, const char * p, std::size_t left)
{
  while (left) {
    const ssize_t n = write (fd, p, left);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return false;
    p += n;
    left -= (std::size_t)n;
  }
  return true;
}

[[noreturn]] void
child (int fd, pid_t parent, const std::function<std::string ()> & job)
{
  /* Killed with its parent (the forking thread, which never returns):
   * a compile outliving the process is of no use. */
  prctl (PR_SET_PDEATHSIG, SIGKILL);
  if (getppid () != parent)
    _exit (1);
  std::string out = job ();
  const std::uint64_t size = out.size ();
  out.append (reinterpret_cast<const char *> (&size), sizeof size);
  out.append (kEnd, sizeof kEnd);
  _exit (write_all (fd, out.data (), out.size ()) ? 0 : 1);
}

} // namespace

bool
run_apart (const std::function<std::string ()> & job, int most_seconds,
    std::string * result, std::string * why, const std::atomic<bool> * stop)
{
  result->clear ();
  if (stop && stop->load ()) {
    *why = "stopped";
    return false;
  }
  int fds[2];
  if (pipe2 (fds, O_CLOEXEC) != 0) {
    *why = std::string ("pipe: ") + std::strerror (errno);
    return false;
  }
  const pid_t parent = getpid ();
  const pid_t pid = fork ();
  if (pid < 0) {
    *why = std::string ("fork: ") + std::strerror (errno);
    close (fds[0]);
    close (fds[1]);
    return false;
  }
  if (pid == 0) {
    close (fds[0]);
    child (fds[1], parent, job);
  }
  close (fds[1]);
  const auto deadline =
      std::chrono::steady_clock::now () + std::chrono::seconds (most_seconds);
  bool timed_out = false, read_error = false, stopped = false;
  const int slice_ms = stop ? 50 : 1000;
  char buffer[1 << 16];
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds> (
        deadline - std::chrono::steady_clock::now ())
                          .count ();
    if (left <= 0) {
      timed_out = true;
      break;
    }
    if (stop && stop->load ()) {
      stopped = true;
      break;
    }
    pollfd p{ fds[0], POLLIN, 0 };
    const int ready = poll (&p, 1, (int)std::min<long long> (left, slice_ms));
    if (ready < 0 && errno != EINTR) {
      read_error = true;
      break;
    }
    if (ready <= 0)
      continue;
    const ssize_t n = read (fds[0], buffer, sizeof buffer);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0) {
      read_error = true;
      break;
    }
    if (n == 0)
      break;
    result->append (buffer, (std::size_t)n);
  }
  close (fds[0]);
  if (timed_out || read_error || stopped)
    kill (pid, SIGKILL);
  int status = 0;
  while (waitpid (pid, &status, 0) < 0 && errno == EINTR) {
  }
  const std::size_t trailer = sizeof (std::uint64_t) + sizeof kEnd;
  std::uint64_t size = 0;
  const bool whole =
      result->size () >= trailer &&
      std::memcmp (result->data () + result->size () - sizeof kEnd, kEnd, sizeof kEnd) ==
          0 &&
      (std::memcpy (&size, result->data () + result->size () - trailer, sizeof size),
          size == result->size () - trailer);
  if (whole) {
    result->resize ((std::size_t)size);
    return true;
  }
  result->clear ();
  if (stopped)
    *why = "stopped";
  else if (timed_out)
    *why = "stopped after " + std::to_string (most_seconds) + " s";
  else if (read_error)
    *why = std::string ("reading its result: ") + std::strerror (errno);
  else if (WIFSIGNALED (status))
    *why = std::string ("ended by signal ") + strsignal (WTERMSIG (status));
  else
    *why = "ended before its result was written";
  return false;
}

} // namespace gst_cs::gpu

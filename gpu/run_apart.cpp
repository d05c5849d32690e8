/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "run_apart.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

extern char ** environ;

namespace gst_cs::gpu {
namespace {

/* The result is followed by its length and this mark, so that a program
 * that died half-way is told from one that finished: its exit status
 * alone may be taken by another waitpid in the process (an application's
 * SIGCHLD handler) or lost (SIGCHLD ignored). */
constexpr char kEnd[] = "gcs-run-apart-end";

/* A socket, not a pipe: a program that ended before it read its input
 * makes the send fail (MSG_NOSIGNAL), where a pipe's write would raise
 * SIGPIPE in the application. Anything else (the program's stdout, run
 * by hand) is written to. */
bool
send_all (int fd, const char * p, std::size_t left)
{
  bool socket = true;
  while (left) {
    ssize_t n = socket ? send (fd, p, left, MSG_NOSIGNAL) : write (fd, p, left);
    if (n < 0 && socket && errno == ENOTSOCK) {
      socket = false;
      continue;
    }
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return false;
    p += n;
    left -= (std::size_t)n;
  }
  return true;
}

/* posix_spawn, its stdin and stdout the socket `fd`, no other descriptor
 * of this process kept open in it. `quiet`: its stderr /dev/null, not
 * ours (a program that may outlive this process would hold our stderr
 * open after it, and whoever reads it, a test runner, would wait). */
pid_t
spawn (const std::string & program, int fd, bool quiet, std::string * why)
{
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init (&actions);
  posix_spawn_file_actions_adddup2 (&actions, fd, 0);
  posix_spawn_file_actions_adddup2 (&actions, fd, 1);
  if (quiet)
    posix_spawn_file_actions_addopen (&actions, 2, "/dev/null", O_WRONLY, 0);
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
  posix_spawn_file_actions_addclosefrom_np (&actions, 3);
#endif
  const std::string parent = std::to_string ((long)getpid ());
  char * argv[] = { const_cast<char *> (program.c_str ()),
    const_cast<char *> (parent.c_str ()), nullptr };
  pid_t pid = -1;
  const int rc = posix_spawn (&pid, program.c_str (), &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy (&actions);
  if (rc != 0) {
    *why = program + ": " + std::strerror (rc);
    return -1;
  }
  return pid;
}

} // namespace

bool
run_apart (const std::string & program, const std::string & input, int most_seconds,
    std::string * result, std::string * why, const std::atomic<bool> * stop,
    StopAction on_stop)
{
  result->clear ();
  if (stop && stop->load ()) {
    *why = "stopped";
    return false;
  }
  int fds[2];
  if (socketpair (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) {
    *why = std::string ("socketpair: ") + std::strerror (errno);
    return false;
  }
  const bool leave = stop && on_stop == StopAction::LEAVE;
  const pid_t pid = spawn (program, fds[1], leave, why);
  close (fds[1]);
  if (pid < 0) {
    close (fds[0]);
    return false;
  }
  bool sent = send_all (fds[0], input.data (), input.size ());
  shutdown (fds[0], SHUT_WR); /* the end of its input */
  const auto deadline =
      std::chrono::steady_clock::now () + std::chrono::seconds (most_seconds);
  bool timed_out = false, read_error = false, stopped = false;
  const int slice_ms = stop ? 50 : 1000;
  char buffer[1 << 16];
  while (sent) {
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
  if (stopped && leave) {
    *why = "stopped";
    result->clear ();
    return false;
  }
  if (!sent || timed_out || read_error || stopped)
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
  else if (!sent)
    *why = "it did not take its input";
  else if (read_error)
    *why = std::string ("reading its result: ") + std::strerror (errno);
  else if (WIFSIGNALED (status))
    *why = std::string ("ended by signal ") + strsignal (WTERMSIG (status));
  else
    *why = "ended before its result was written";
  return false;
}

bool
asked (int argc, char ** argv, std::string * input, bool outlive, int most_seconds)
{
  /* Killed when the asking process ends, where an answer is its only use;
   * else bounded by an alarm of its own (SIGALRM ends it). The asking
   * process's id as given tells whether it ended before this line. */
  if (outlive) {
    if (most_seconds > 0)
      alarm ((unsigned)most_seconds);
  } else {
    prctl (PR_SET_PDEATHSIG, SIGKILL);
  }
  if (argc < 2 || std::strtol (argv[1], nullptr, 10) != (long)getppid ())
    return false;
  char buffer[1 << 16];
  for (;;) {
    const ssize_t n = read (0, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      return false;
    if (n == 0)
      return true;
    input->append (buffer, (std::size_t)n);
  }
}

bool
answer (std::string result)
{
  const std::uint64_t size = result.size ();
  result.append (reinterpret_cast<const char *> (&size), sizeof size);
  result.append (kEnd, sizeof kEnd);
  return send_all (1, result.data (), result.size ());
}

void
put (std::string & out, std::string_view bytes)
{
  const std::uint64_t size = bytes.size ();
  out.append (reinterpret_cast<const char *> (&size), sizeof size);
  out.append (bytes);
}

bool
take (std::string_view & in, std::string_view * bytes)
{
  std::uint64_t size = 0;
  if (in.size () < sizeof size)
    return false;
  std::memcpy (&size, in.data (), sizeof size);
  in.remove_prefix (sizeof size);
  if (in.size () < size)
    return false;
  *bytes = in.substr (0, (std::size_t)size);
  in.remove_prefix ((std::size_t)size);
  return true;
}

} // namespace gst_cs::gpu

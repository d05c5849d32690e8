/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "ipc/gstcsipcsocket.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "gstcserror.h"

namespace gst_cs {
namespace ipc {

static bool
fill_address (const char * path, sockaddr_un * addr)
{
  std::memset (addr, 0, sizeof *addr);
  addr->sun_family = AF_UNIX;
  if (!path || !*path || strlen (path) >= sizeof addr->sun_path)
    return false;
  std::strcpy (addr->sun_path, path);
  return true;
}

/* A socket file nobody serves (its producer died) may be replaced; one
 * that answers belongs to a live producer. */
static bool
stale_socket (const char * path, GError ** error)
{
  struct stat st;
  if (lstat (path, &st) != 0)
    return errno == ENOENT ? true : false;
  if (!S_ISSOCK (st.st_mode)) {
    g_set_error (error, GST_CS_ERROR, GST_CS_ERROR_INVALID,
        "socket-path \"%s\" exists and is not a socket", path);
    return false;
  }
  int fd = connect_to (path);
  if (fd >= 0) {
    close (fd);
    g_set_error (error, GST_CS_ERROR, GST_CS_ERROR_INVALID,
        "socket-path \"%s\" is served by another producer", path);
    return false;
  }
  if (unlink (path) != 0 && errno != ENOENT) {
    g_set_error (error, GST_CS_ERROR, GST_CS_ERROR_INVALID,
        "Cannot replace the stale socket \"%s\": %s", path, g_strerror (errno));
    return false;
  }
  return true;
}

int
listen_at (const char * path, bool group, GError ** error)
{
  sockaddr_un addr;
  if (!fill_address (path, &addr)) {
    g_set_error (error, GST_CS_ERROR, GST_CS_ERROR_INVALID,
        "socket-path must be set, and at most %zu bytes long", sizeof addr.sun_path - 1);
    return -1;
  }
  if (!stale_socket (path, error)) {
    if (error && !*error)
      g_set_error (error, GST_CS_ERROR, GST_CS_ERROR_INVALID,
          "Cannot use socket-path \"%s\": %s", path, g_strerror (errno));
    return -1;
  }
  int fd = socket (AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  const char * step = "socket";
  if (fd >= 0 && (step = "bind", bind (fd, (sockaddr *)&addr, sizeof addr) == 0) &&
      (step = "chmod", chmod (path, group ? 0660 : 0600) == 0) &&
      (step = "listen", listen (fd, 16) == 0)) {
    grow_queues (fd);
    return fd;
  }
  const int err = errno;
  if (fd >= 0) {
    close (fd);
    if (std::strcmp (step, "bind") != 0)
      unlink (path);
  }
  g_set_error (error, GST_CS_ERROR, GST_CS_ERROR_INVALID,
      "Cannot listen on socket-path \"%s\" (%s): %s", path, step, g_strerror (err));
  return -1;
}

int
connect_to (const char * path)
{
  sockaddr_un addr;
  if (!fill_address (path, &addr)) {
    errno = ENAMETOOLONG;
    return -1;
  }
  int fd;
  for (;;) {
    fd = socket (AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
    if (fd < 0)
      return -1;
    if (connect (fd, (sockaddr *)&addr, sizeof addr) == 0)
      break;
    const int err = errno;
    close (fd);
    errno = err;
    /* Cut short by a signal: a socket of its own for the next try (one
     * whose connect was interrupted may connect later by itself). */
    if (err != EINTR)
      return -1;
  }
  fcntl (fd, F_SETFL, fcntl (fd, F_GETFL) | O_NONBLOCK);
  grow_queues (fd);
  return fd;
}

bool
poll_in (int fd, int timeout_ms)
{
  const gint64 deadline = g_get_monotonic_time () + (gint64)timeout_ms * 1000;
  for (;;) {
    pollfd p = { fd, POLLIN, 0 };
    const gint64 left_us = deadline - g_get_monotonic_time ();
    const int n = poll (&p, 1, (int)CLAMP ((left_us + 999) / 1000, 0, timeout_ms));
    if (n >= 0 || errno != EINTR)
      return n > 0;
  }
}

bool
peer_cred (int fd, PeerCred * cred)
{
  struct ucred uc;
  socklen_t len = sizeof uc;
  if (getsockopt (fd, SOL_SOCKET, SO_PEERCRED, &uc, &len) != 0)
    return false;
  cred->pid = uc.pid;
  cred->uid = uc.uid;
  cred->gid = uc.gid;
  return true;
}

bool
peer_allowed (const PeerCred & cred, bool group, std::string * why)
{
  if (cred.uid == geteuid ())
    return true;
  if (group && cred.gid == getegid ())
    return true;
  *why = "process " + std::to_string (cred.pid) + " of user " +
         std::to_string (cred.uid) + " (group " + std::to_string (cred.gid) +
         ") is not " + (group ? "of this user or group" : "this user");
  return false;
}

void
grow_queues (int fd)
{
  int size = 1 << 20;
  setsockopt (fd, SOL_SOCKET, SO_SNDBUF, &size, sizeof size);
  setsockopt (fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof size);
}

} // namespace ipc
} // namespace gst_cs

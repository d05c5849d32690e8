/* SPDX-License-Identifier: LGPL-2.1-or-later */
// The unix socket of the IPC elements (internal): SOCK_SEQPACKET, so that
// one send is one record, owner-only unless opened to the owner's group,
// and every peer's credentials (SO_PEERCRED) checked against that.
#pragma once

#include <sys/types.h>

#include <string>

#include <glib.h>

namespace gst_cs {
namespace ipc {

// Who is at the other end of a connection.
struct PeerCred {
  pid_t pid = 0;
  uid_t uid = 0;
  gid_t gid = 0;
};

// Listens on `path`: a socket file left by a producer that is gone is
// replaced; one that a live producer serves, or a file that is not a
// socket, is an error. Mode 0600, or 0660 with `group`. Non-blocking.
// -1 with `error` set.
int listen_at (const char * path, bool group, GError ** error);

// Connects to `path` (non-blocking from then on). -1 with errno set
// (ENOENT, ECONNREFUSED: no producer yet).
int connect_to (const char * path);

// Whether `fd` has something to read within `timeout_ms`: a signal that
// cuts the wait short (EINTR) does not end it.
bool poll_in (int fd, int timeout_ms);

// The peer's credentials; false when they cannot be read.
bool peer_cred (int fd, PeerCred * cred);

// Whether a peer may use our socket: the same user, or with `group` a
// member of our group (its primary group, which SO_PEERCRED gives). Where
// not, `why` says so.
bool peer_allowed (const PeerCred & cred, bool group, std::string * why);

// Larger socket queues than the default (frames, several in flight, never
// wait for room in steady state).
void grow_queues (int fd);

} // namespace ipc
} // namespace gst_cs

/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "ipc/gstcsipcpages.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

namespace gst_cs {
namespace ipc {

void *
make_shared_page (const char * name, gsize bytes, int * fd, std::string * why)
{
  *fd = memfd_create (name, MFD_CLOEXEC | MFD_ALLOW_SEALING);
  void * p = MAP_FAILED;
  if (*fd >= 0 && ftruncate (*fd, (off_t)bytes) == 0 &&
      fcntl (*fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) == 0)
    p = mmap (NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, *fd, 0);
  if (p != MAP_FAILED)
    return p;
  *why = std::string ("cannot make the page of ") + name + ": " + g_strerror (errno);
  if (*fd >= 0)
    close (*fd);
  *fd = -1;
  return nullptr;
}

void *
map_shared_page (int fd, gsize bytes, const char * what, std::string * why)
{
  struct stat st;
  if (fstat (fd, &st) != 0 || st.st_size != (off_t)bytes) {
    *why =
        std::string ("the producer's ") + what + " is not of the size this side expects";
    return nullptr;
  }
  const int seals = fcntl (fd, F_GET_SEALS);
  if (seals < 0 || !(seals & F_SEAL_SHRINK)) {
    *why = std::string ("the producer's ") + what + " is not sealed against shrinking";
    return nullptr;
  }
  void * p = mmap (NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (p != MAP_FAILED)
    return p;
  *why = std::string ("cannot map the producer's ") + what + ": " + g_strerror (errno);
  return nullptr;
}

} // namespace ipc
} // namespace gst_cs

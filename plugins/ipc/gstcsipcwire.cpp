/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "ipc/gstcsipcwire.hpp"

#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>

namespace gst_cs {
namespace ipc {

static_assert (G_BYTE_ORDER == G_LITTLE_ENDIAN,
    "the wire is little-endian: a big-endian host would need to swap");

const char *
msg_name (Msg type)
{
  switch (type) {
    case Msg::HELLO:
      return "HELLO";
    case Msg::WELCOME:
      return "WELCOME";
    case Msg::CAPS:
      return "CAPS";
    case Msg::SEGMENT:
      return "SEGMENT";
    case Msg::EXPORT:
      return "EXPORT";
    case Msg::FORGET:
      return "FORGET";
    case Msg::FORGOTTEN:
      return "FORGOTTEN";
    case Msg::EVENT:
      return "EVENT";
    case Msg::FRAME:
      return "FRAME";
    case Msg::EOS:
      return "EOS";
    case Msg::FLUSH_START:
      return "FLUSH_START";
    case Msg::FLUSH_STOP:
      return "FLUSH_STOP";
    case Msg::BYE:
      return "BYE";
    case Msg::DRAIN:
      return "DRAIN";
    case Msg::SLOTS:
      return "SLOTS";
    case Msg::PING:
      return "PING";
    case Msg::PONG:
      return "PONG";
    case Msg::DOORBELL:
      return "DOORBELL";
  }
  return "unknown";
}

void
Writer::begin (Msg type)
{
  if (buf_.size () < kHeaderSize)
    grow (kHeaderSize);
  size_ = kHeaderSize;
  const guint32 magic = kMagic;
  const guint16 version = kVersion, t = static_cast<guint16> (type);
  std::memcpy (buf_.data (), &magic, 4);
  std::memcpy (buf_.data () + 4, &version, 2);
  std::memcpy (buf_.data () + 6, &t, 2);
  std::memset (buf_.data () + 8, 0, 8);
}

void
Writer::put (const void * p, gsize n)
{
  if (buf_.size () - size_ < n)
    grow (n);
  if (n)
    std::memcpy (buf_.data () + size_, p, n);
  size_ += n;
}

/* Room for `n` bytes more: at least twice the room there was. */
void
Writer::grow (gsize n)
{
  buf_.resize (MAX (size_ + n, MAX (buf_.size () * 2, (gsize)256)));
}

void
Writer::str (const char * s)
{
  const gsize n = s ? strlen (s) : 0;
  u32 ((guint32)n);
  put (s, n);
}

gsize
Writer::reserve32 ()
{
  const gsize at = size_;
  u32 (0);
  return at;
}

bool
Writer::finish ()
{
  if (size_ > kMaxMessage)
    return false;
  fill32 (8, (guint32)size_);
  return true;
}

bool
Reader::bytes (void * out, gsize n)
{
  if (!ok_ || n_ - pos_ < n) {
    ok_ = false;
    return false;
  }
  std::memcpy (out, p_ + pos_, n);
  pos_ += n;
  return true;
}

std::string
Reader::str (gsize max)
{
  return std::string (view (max));
}

std::string_view
Reader::view (gsize max)
{
  const guint32 n = u32 ();
  if (!ok_ || n > max || n_ - pos_ < n) {
    ok_ = false;
    return std::string_view ();
  }
  std::string_view s (reinterpret_cast<const char *> (p_ + pos_), n);
  pos_ += n;
  if (s.find ('\0') != std::string_view::npos) {
    ok_ = false;
    return std::string_view ();
  }
  return s;
}

Reader
Reader::sub (gsize n)
{
  if (!ok_ || n_ - pos_ < n) {
    ok_ = false;
    return Reader (p_, 0);
  }
  Reader r (p_ + pos_, n);
  pos_ += n;
  return r;
}

bool
parse_header (const guint8 * p, gsize n, Msg * type, Reader * body, std::string * why)
{
  if (n < kHeaderSize) {
    *why = "a record shorter than the header (" + std::to_string (n) + " bytes)";
    return false;
  }
  Reader h (p, kHeaderSize);
  const guint32 magic = h.u32 ();
  const guint16 version = h.u16 (), t = h.u16 ();
  const guint32 size = h.u32 ();
  if (magic != kMagic) {
    *why = "not a cudastreams IPC record (bad magic)";
    return false;
  }
  if (version != kVersion) {
    *why = "protocol version " + std::to_string (version) + ", this side speaks " +
           std::to_string (kVersion);
    return false;
  }
  if (t == 0 || t > kLastMsg) {
    *why = "unknown record type " + std::to_string (t);
    return false;
  }
  if (size != n) {
    *why = "a record that says it has " + std::to_string (size) + " bytes and has " +
           std::to_string (n);
    return false;
  }
  *type = static_cast<Msg> (t);
  *body = Reader (p + kHeaderSize, n - kHeaderSize);
  return true;
}

int
send_record (int fd, const Writer & w, const int * pass, int n_pass)
{
  iovec iov = { const_cast<guint8 *> (w.data ()), w.size () };
  msghdr m = {};
  m.msg_iov = &iov;
  m.msg_iovlen = 1;
  alignas (cmsghdr) char control[CMSG_SPACE (kMaxPassed * sizeof (int))] = {};
  if (n_pass > 0 && n_pass <= kMaxPassed) {
    m.msg_control = control;
    m.msg_controllen = CMSG_SPACE (n_pass * sizeof (int));
    cmsghdr * c = CMSG_FIRSTHDR (&m);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN (n_pass * sizeof (int));
    std::memcpy (CMSG_DATA (c), pass, n_pass * sizeof (int));
  }
  ssize_t n;
  do
    n = sendmsg (fd, &m, MSG_NOSIGNAL | MSG_DONTWAIT);
  while (n < 0 && errno == EINTR);
  if (n == (ssize_t)w.size ())
    return 0;
  return n < 0 ? errno : EMSGSIZE;
}

gssize
recv_record (int fd, guint8 * buf, int flags, int * passed, int n_passed)
{
  iovec iov = { buf, kMaxMessage };
  msghdr m = {};
  m.msg_iov = &iov;
  m.msg_iovlen = 1;
  /* Room for more than we take: a peer that sends others gets them closed. */
  alignas (cmsghdr) char control[CMSG_SPACE ((kMaxPassed + 4) * sizeof (int))];
  m.msg_control = control;
  m.msg_controllen = sizeof control;
  ssize_t n;
  do
    n = recvmsg (fd, &m, flags | MSG_TRUNC | MSG_CMSG_CLOEXEC);
  while (n < 0 && errno == EINTR);
  std::vector<int> got;
  for (cmsghdr * c = n >= 0 ? CMSG_FIRSTHDR (&m) : nullptr; c; c = CMSG_NXTHDR (&m, c)) {
    if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
      continue;
    const gsize count = (c->cmsg_len - CMSG_LEN (0)) / sizeof (int);
    for (gsize i = 0; i < count; i++) {
      int one;
      std::memcpy (&one, CMSG_DATA (c) + i * sizeof (int), sizeof (int));
      got.push_back (one);
    }
  }
  const bool keep =
      passed && n >= 0 && n <= (ssize_t)kMaxMessage && got.size () == (gsize)n_passed;
  for (int i = 0; passed && i < n_passed; i++)
    passed[i] = keep ? got[i] : -1;
  if (!keep)
    for (int one : got)
      close (one);
  if (n > (ssize_t)kMaxMessage) {
    n = -1;
    errno = EMSGSIZE;
  }
  return n;
}

RecvBatch::RecvBatch ()
{
  for (guint i = 0; i < kMax; i++) {
    bufs_[i] = static_cast<guint8 *> (g_malloc (kMaxMessage));
    iov_[i] = { bufs_[i], kMaxMessage };
    msgs_[i] = {};
    msgs_[i].msg_hdr.msg_iov = &iov_[i];
    msgs_[i].msg_hdr.msg_iovlen = 1;
  }
}

RecvBatch::~RecvBatch ()
{
  for (guint8 * b : bufs_)
    g_free (b);
}

int
RecvBatch::receive (int fd)
{
  mmsghdr * msgs = msgs_;
  int n;
  do
    n = recvmmsg (fd, msgs, kMax, MSG_DONTWAIT | MSG_TRUNC, NULL);
  while (n < 0 && errno == EINTR);
  if (n < 0)
    return (errno == EAGAIN || errno == EWOULDBLOCK) ? 0 : -1;
  for (int i = 0; i < n; i++) {
    const bool truncated =
        msgs[i].msg_len > kMaxMessage || (msgs[i].msg_hdr.msg_flags & MSG_TRUNC) != 0;
    sizes_[i] = truncated ? kMaxMessage + 1 : msgs[i].msg_len;
  }
  return n;
}

} // namespace ipc
} // namespace gst_cs

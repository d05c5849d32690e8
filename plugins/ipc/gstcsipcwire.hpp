/* SPDX-License-Identifier: LGPL-2.1-or-later */
// The messages cudastreamsipcsink and cudastreamsipcsrc exchange (internal):
// over their unix socket, and from the producer after WELCOME through the
// consumer's record ring (gstcsipcrecords.hpp). One message is one
// SOCK_SEQPACKET record, or one record of the ring: a
// 16-byte header (magic, version, type, the record's whole size) and
// fields of explicit sizes, little-endian. A reader checks every field
// against the record's end: a malformed, truncated or oversized record is
// refused as a whole, never half read.
#pragma once

#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include <glib.h>
#include <sys/socket.h>

namespace gst_cs {
namespace ipc {

constexpr guint32 kMagic = 0x50494347; /* "GCIP" */
constexpr guint16 kVersion = 4;
constexpr gsize kHeaderSize = 16;
/* The largest record either side sends or takes: a frame with its metas
 * (a batch of up to kMaxSlots slots), caps. Larger ones are refused. */
constexpr gsize kMaxMessage = 128 * 1024;
constexpr guint32 kMaxSlots = 1024;
constexpr guint32 kNoSlot = 0xffffffffu;
/* The size of CUDA's IPC handles (cudaIpcMemHandle_t, cudaIpcEventHandle_t). */
constexpr gsize kHandleSize = 64;

enum class Msg : guint16 {
  HELLO = 1,   // consumer -> producer: u32 pid
  WELCOME,     // producer -> consumer: u32 pid, bytes16 device uuid, i32 device;
               // with it (SCM_RIGHTS) the fds of the release page
               // (ReleaseRing), the record ring (RecordRing) and the bell
               // (Bell). Every record from the producer after it comes
               // through the record ring, not the socket.
  CAPS,        // producer -> consumer: string
  SEGMENT,     // producer -> consumer: a GstSegment's fields
  EXPORT,      // producer -> consumer: u32 id, handle, u64 allocation size
  FORGET,      // producer -> consumer: u32 id (the memory is about to be freed)
  FORGOTTEN,   // consumer -> producer: u32 id (closed: free it)
  EVENT,       // producer -> consumer: u32 slot, handle (a write event)
  FRAME,       // producer -> consumer: see FrameHeader, then metas
  EOS,         // producer -> consumer
  FLUSH_START, // producer -> consumer
  FLUSH_STOP,  // producer -> consumer: u8 reset time
  BYE,         // either way: string reason; the sender closes next
  DRAIN,       // consumer -> producer: no more frames (its pipeline stopped;
               // it releases those it holds, then says BYE)
  PING,        // producer -> consumer: u64 token (is its process running?)
  PONG,        // consumer -> producer: u64 token, at once (its reader thread)
  DOORBELL,    // consumer -> producer: releases wait in the ring (it asked)
  SLOTS,       // producer -> consumer: a batch's slots as its sources set them
               // (write_slots); the FRAMEs after it that carry a batch use them
};
constexpr guint16 kLastMsg = static_cast<guint16> (Msg::SLOTS);

const char * msg_name (Msg type);

// Builds one record. Reused from message to message: its buffer is kept
// (no allocation once it has grown to its largest), and a field is a copy
// of a few bytes into room already there (a batch's record has some 200
// fields, written once a frame).
class Writer {
public:
  void begin (Msg type);
  void u8 (guint8 v) { scalar (v); }
  void u16 (guint16 v) { scalar (v); }
  void u32 (guint32 v) { scalar (v); }
  void i32 (gint32 v) { scalar (v); }
  void u64 (guint64 v) { scalar (v); }
  void i64 (gint64 v) { scalar (v); }
  void f64 (gdouble v) { scalar (v); }
  void bytes (const void * p, gsize n) { put (p, n); }
  void str (const char * s);
  // Where a field of 4 bytes will go, to be filled in later (a length).
  gsize reserve32 ();
  void fill32 (gsize at, guint32 v) { std::memcpy (buf_.data () + at, &v, 4); }
  gsize size () const { return size_; }
  // The record, its header completed; false when it is larger than
  // kMaxMessage.
  bool finish ();
  const guint8 * data () const { return buf_.data (); }

private:
  template <typename T> void scalar (T v)
  {
    if (G_UNLIKELY (buf_.size () - size_ < sizeof v))
      grow (sizeof v);
    std::memcpy (buf_.data () + size_, &v, sizeof v);
    size_ += sizeof v;
  }
  void put (const void * p, gsize n);
  void grow (gsize n);
  std::vector<guint8> buf_; /* its size: the room; size_ of it written */
  gsize size_ = 0;
};

// Reads one record's fields; any read past its end makes ok() false and
// returns zeros from then on.
class Reader {
public:
  Reader (const guint8 * p, gsize n) : p_ (p), n_ (n) {}
  guint8 u8 () { return get<guint8> (); }
  guint16 u16 () { return get<guint16> (); }
  guint32 u32 () { return get<guint32> (); }
  gint32 i32 () { return get<gint32> (); }
  guint64 u64 () { return get<guint64> (); }
  gint64 i64 () { return get<gint64> (); }
  gdouble f64 () { return get<gdouble> (); }
  bool bytes (void * out, gsize n);
  // A string of at most `max` bytes, without NUL bytes in it.
  std::string str (gsize max = 64 * 1024);
  // The same, its bytes where they are in the record (valid as long as it).
  std::string_view view (gsize max = 64 * 1024);
  // A sub-reader of the next `n` bytes (an encoded meta).
  Reader sub (gsize n);
  bool ok () const { return ok_; }
  // Every byte read and none too many.
  bool done () const { return ok_ && pos_ == n_; }
  gsize left () const { return ok_ ? n_ - pos_ : 0; }

private:
  template <typename T> T get ()
  {
    T v{};
    if (!ok_ || n_ - pos_ < sizeof (T)) {
      ok_ = false;
      return v;
    }
    std::memcpy (&v, p_ + pos_, sizeof (T));
    pos_ += sizeof (T);
    return v;
  }
  const guint8 * p_;
  gsize n_;
  gsize pos_ = 0;
  bool ok_ = true;
};

// Checks a received record's header: the magic, the version, a known type
// and the size it states against the bytes received. Where it passes,
// `type` is its type and `body` reads the fields after the header;
// otherwise `why` says what is wrong.
bool parse_header (
    const guint8 * p, gsize n, Msg * type, Reader * body, std::string * why);

// The most file descriptors one record carries (WELCOME's pages).
constexpr int kMaxPassed = 3;

// Sends a finished record on a SOCK_SEQPACKET socket without blocking (and
// without SIGPIPE), with the `n_pass` file descriptors of `pass` (at most
// kMaxPassed). 0 when sent; else the errno (EAGAIN: the peer's queue is
// full).
int send_record (int fd, const Writer & w, const int * pass = nullptr, int n_pass = 0);

// Receives one record into `buf` (kMaxMessage bytes): its size, 0 at the
// end of the connection, -1 with errno set; a record larger than the
// buffer gives -1 and EMSGSIZE. With `passed`, the `n_passed` file
// descriptors that came with it (close-on-exec), each -1 unless exactly
// that many came; any others are closed.
gssize recv_record (
    int fd, guint8 * buf, int flags, int * passed = nullptr, int n_passed = 0);

// The records waiting on a socket, received at once (one recvmmsg, never
// blocking) into buffers kept from one batch to the next.
class RecvBatch {
public:
  RecvBatch ();
  ~RecvBatch ();
  RecvBatch (const RecvBatch &) = delete;
  RecvBatch & operator= (const RecvBatch &) = delete;

  // How many records came (0: none was waiting), or -1 with errno set (the
  // records before a failure come first). A record of size 0 is the end of
  // the connection; one larger than kMaxMessage has size kMaxMessage + 1.
  int receive (int fd);
  const guint8 * data (guint i) const { return bufs_[i]; }
  gsize size (guint i) const { return sizes_[i]; }

  static constexpr guint kMax = 64;

private:
  guint8 * bufs_[kMax]; /* kMaxMessage bytes each, touched only where written */
  gsize sizes_[kMax];
  iovec iov_[kMax];
  mmsghdr msgs_[kMax];
};

} // namespace ipc
} // namespace gst_cs

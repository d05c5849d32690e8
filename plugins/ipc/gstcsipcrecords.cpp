/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "ipc/gstcsipcrecords.hpp"

#include <linux/futex.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <climits>
#include <cstring>
#include <new>

#include "ipc/gstcsipcpages.hpp"

namespace gst_cs {
namespace ipc {

static_assert (std::atomic<guint32>::is_always_lock_free &&
                   std::atomic<guint64>::is_always_lock_free,
    "the record ring needs lock-free atomics between processes");

namespace {

/* Not FUTEX_PRIVATE_FLAG: the word is shared between processes. */
long
futex (std::atomic<guint32> * word, int op, guint32 val)
{
  return syscall (
      SYS_futex, reinterpret_cast<guint32 *> (word), op, val, nullptr, nullptr, 0);
}

constexpr gsize kBellBytes = 4096;

} // namespace

/* ---- Bell ---- */

std::unique_ptr<Bell>
Bell::create (int * fd, std::string * why)
{
  void * p = make_shared_page ("cudastreams-ipc-bell", kBellBytes, fd, why);
  if (!p)
    return nullptr;
  return std::unique_ptr<Bell> (new Bell (new (p) std::atomic<guint32>{ 0 }));
}

std::unique_ptr<Bell>
Bell::map (int fd, std::string * why)
{
  void * p = map_shared_page (fd, kBellBytes, "bell page", why);
  if (!p)
    return nullptr;
  return std::unique_ptr<Bell> (new Bell (static_cast<std::atomic<guint32> *> (p)));
}

Bell::~Bell ()
{
  munmap (word_, kBellBytes);
}

guint32
Bell::value () const
{
  return word_->load (std::memory_order_seq_cst);
}

void
Bell::ring ()
{
  word_->fetch_add (1, std::memory_order_seq_cst);
  (void)futex (word_, FUTEX_WAKE, INT_MAX);
}

void
Bell::wait (guint32 seen)
{
  /* EAGAIN (the word moved), EINTR (a signal): the caller looks again. */
  (void)futex (word_, FUTEX_WAIT, seen);
}

/* ---- RecordRing ---- */

/* Each side's position on a cache line of its own: the producer writes
 * `tail` and the bytes, the consumer `head` and `sleeping`. Each record:
 * its size (4 bytes), 4 bytes of padding, its bytes, padded to 8. */
struct RecordRing::Page {
  alignas (64) std::atomic<guint64> tail;
  alignas (64) std::atomic<guint64> head;
  std::atomic<guint32> sleeping;
  alignas (64) guint8 bytes[kBytes];
};

static constexpr guint64 kRecordHeader = 8;

/* Its page: the counters' lines, then the bytes. */
static constexpr gsize kRingPageBytes = 3 * 64 + RecordRing::kBytes;

static guint64
padded (guint64 n)
{
  return (n + 7) & ~G_GUINT64_CONSTANT (7);
}

std::unique_ptr<RecordRing>
RecordRing::create (int * fd, std::string * why)
{
  static_assert (sizeof (Page) <= kRingPageBytes, "the record ring outgrew its page");
  void * p = make_shared_page ("cudastreams-ipc-records", kRingPageBytes, fd, why);
  if (!p)
    return nullptr;
  /* Only the counters are written: the bytes stay unbacked until used. */
  auto * page = static_cast<Page *> (p);
  new (&page->tail) std::atomic<guint64>{ 0 };
  new (&page->head) std::atomic<guint64>{ 0 };
  new (&page->sleeping) std::atomic<guint32>{ 0 };
  return std::unique_ptr<RecordRing> (new RecordRing (page));
}

std::unique_ptr<RecordRing>
RecordRing::map (int fd, std::string * why)
{
  void * p = map_shared_page (fd, kRingPageBytes, "record ring", why);
  if (!p)
    return nullptr;
  return std::unique_ptr<RecordRing> (new RecordRing (static_cast<Page *> (p)));
}

RecordRing::~RecordRing ()
{
  munmap (page_, kRingPageBytes);
}

bool
RecordRing::put (const Writer & w)
{
  const guint64 n = w.size ();
  const guint64 need = kRecordHeader + padded (n);
  /* A head ahead of our tail, or further behind than the ring holds, is
   * the consumer's mistake: no room. */
  const guint64 head = page_->head.load (std::memory_order_acquire);
  const guint64 used = next_ - head;
  if (head > next_ || used > kBytes || kBytes - used < need)
    return false;
  /* The size never wraps (8-aligned in a ring of a multiple of 8), the
   * bytes may. */
  const guint32 size = (guint32)n;
  std::memcpy (page_->bytes + next_ % kBytes, &size, 4);
  const guint64 from = (next_ + kRecordHeader) % kBytes;
  const guint64 first = MIN (n, kBytes - from);
  std::memcpy (page_->bytes + from, w.data (), first);
  std::memcpy (page_->bytes, w.data () + first, n - first);
  next_ += need;
  /* seq_cst against set_sleeping () then pending () on the other side. */
  page_->tail.store (next_, std::memory_order_seq_cst);
  return true;
}

bool
RecordRing::sleeping () const
{
  return page_->sleeping.load (std::memory_order_seq_cst) != 0;
}

bool
RecordRing::take (std::vector<guint8> * out, std::string * why)
{
  const guint64 tail = page_->tail.load (std::memory_order_acquire);
  if (tail == next_)
    return false;
  const guint64 avail = tail - next_;
  guint32 size = 0;
  const guint64 off = next_ % kBytes;
  /* Headers are 8-aligned and the ring a multiple of 8: never split. */
  if (avail <= kBytes && avail >= kRecordHeader)
    std::memcpy (&size, page_->bytes + off, 4);
  if (avail > kBytes || avail < kRecordHeader || size < kHeaderSize ||
      size > kMaxMessage || kRecordHeader + padded (size) > avail) {
    *why = "the producer's record ring does not add up";
    return false;
  }
  out->resize (size);
  const guint64 from = (next_ + kRecordHeader) % kBytes;
  const guint64 first = MIN ((guint64)size, kBytes - from);
  std::memcpy (out->data (), page_->bytes + from, first);
  std::memcpy (out->data () + first, page_->bytes, size - first);
  next_ += kRecordHeader + padded (size);
  page_->head.store (next_, std::memory_order_release);
  return true;
}

void
RecordRing::set_sleeping (bool on)
{
  page_->sleeping.store (on ? 1 : 0, std::memory_order_seq_cst);
}

bool
RecordRing::pending () const
{
  return page_->tail.load (std::memory_order_seq_cst) != next_;
}

/* ---- RingBatch ---- */

int
RingBatch::take (RecordRing & ring, std::string * why)
{
  count_ = 0;
  while (count_ < kMax && ring.take (&bufs_[count_], why))
    count_++;
  return why->empty () ? (int)count_ : -1;
}

} // namespace ipc
} // namespace gst_cs

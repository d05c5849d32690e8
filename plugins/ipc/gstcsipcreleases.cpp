/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "ipc/gstcsipcreleases.hpp"

#include <sys/mman.h>

#include <cstring>
#include <new>

#include "ipc/gstcsipcpages.hpp"

namespace gst_cs {
namespace ipc {

namespace {

struct Entry {
  guint64 seq;
  guint32 slot;
  guint32 has_handle; /* 0 or 1 */
  guint8 handle[64];
};

} // namespace

/* Each side's counter on a cache line of its own: the consumer writes
 * `tail` and the records, the producer `head`; `armed` is set by the
 * producer and cleared by the consumer that rings. Atomics of 4 bytes are
 * lock-free, so they work between processes that map the same page. */
struct ReleaseRing::Page {
  alignas (64) std::atomic<guint32> tail;
  alignas (64) std::atomic<guint32> head;
  std::atomic<guint32> armed;
  alignas (64) Entry entries[kCapacity];
};

static_assert (std::atomic<guint32>::is_always_lock_free,
    "the release ring needs lock-free atomics between processes");
static constexpr gsize kPageBytes = 8192;

std::unique_ptr<ReleaseRing>
ReleaseRing::create (int * fd, std::string * why)
{
  static_assert (sizeof (Page) <= kPageBytes, "the release ring outgrew its page");
  void * p = make_shared_page ("cudastreams-ipc-releases", kPageBytes, fd, why);
  if (!p)
    return nullptr;
  return std::unique_ptr<ReleaseRing> (new ReleaseRing (new (p) Page{}));
}

std::unique_ptr<ReleaseRing>
ReleaseRing::map (int fd, std::string * why)
{
  void * p = map_shared_page (fd, kPageBytes, "release page", why);
  if (!p)
    return nullptr;
  return std::unique_ptr<ReleaseRing> (new ReleaseRing (static_cast<Page *> (p)));
}

ReleaseRing::~ReleaseRing ()
{
  munmap (page_, kPageBytes);
}

ReleaseRing::Put
ReleaseRing::put (const ReleaseRecord & r)
{
  /* A head ahead of us (a producer's mistake) reads as full, too. */
  if (next_ - page_->head.load (std::memory_order_acquire) >= kCapacity)
    return Put::FULL;
  Entry & e = page_->entries[next_ % kCapacity];
  e.seq = r.seq;
  e.slot = r.slot;
  e.has_handle = r.has_handle ? 1 : 0;
  std::memcpy (e.handle, r.handle, sizeof e.handle);
  page_->tail.store (++next_, std::memory_order_release);
  /* Against arm (): the producer stores `armed` then reads `tail`, we
   * store `tail` then read `armed`; with a full fence on both sides at
   * least one sees the other's store, so a release is never left unseen
   * while the producer sleeps. */
  std::atomic_thread_fence (std::memory_order_seq_cst);
  if (page_->armed.load (std::memory_order_relaxed) && page_->armed.exchange (0))
    return Put::RING;
  return Put::OK;
}

bool
ReleaseRing::take (ReleaseRecord * r, std::string * why)
{
  const guint32 tail = page_->tail.load (std::memory_order_acquire);
  if (tail == next_)
    return false;
  if (tail - next_ > kCapacity) {
    *why = "its release ring says " + std::to_string (tail - next_) +
           " records wait, more than it holds";
    return false;
  }
  /* A copy first: the consumer could change the record while we look. */
  Entry e;
  std::memcpy (&e, &page_->entries[next_ % kCapacity], sizeof e);
  if (e.has_handle > 1) {
    *why = "it wrote a malformed release record";
    return false;
  }
  r->seq = e.seq;
  r->slot = e.slot;
  r->has_handle = e.has_handle;
  std::memcpy (r->handle, e.handle, sizeof r->handle);
  page_->head.store (++next_, std::memory_order_release);
  return true;
}

bool
ReleaseRing::arm ()
{
  armed_ = true;
  page_->armed.store (1, std::memory_order_relaxed);
  std::atomic_thread_fence (std::memory_order_seq_cst);
  return page_->tail.load (std::memory_order_relaxed) != next_;
}

void
ReleaseRing::disarm ()
{
  if (armed_)
    page_->armed.store (0, std::memory_order_relaxed);
  armed_ = false;
}

} // namespace ipc
} // namespace gst_cs

/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "gstcscopyworkers.hpp"

#include <cuda_runtime_api.h>

namespace gst_cs {

guint
auto_copy_threads ()
{
  return CLAMP (g_get_num_processors () / 2, 1u, 8u);
}

void
CopyWorkers::ensure (guint threads, int device)
{
  threads = MAX (threads, 1u);
  if (threads == this->threads () && device == device_)
    return;
  stop ();
  std::lock_guard<std::mutex> g (lock_);
  quit_ = false;
  device_ = device;
  for (guint i = 1; i < threads; i++)
    pool_.emplace_back (&CopyWorkers::loop, this, device, generation_);
}

void
CopyWorkers::stop ()
{
  {
    std::lock_guard<std::mutex> g (lock_);
    quit_ = true;
  }
  wake_.notify_all ();
  for (std::thread & t : pool_)
    t.join ();
  pool_.clear ();
}

void
CopyWorkers::take_pieces ()
{
  for (guint i; !failed_.load (std::memory_order_relaxed) && (i = next_++) < count_;)
    if (!(*piece_) (i))
      failed_ = true;
}

void
CopyWorkers::loop (int device, guint64 seen)
{
  /* A thread's current device is its own: set once, for every piece. */
  if (cudaSetDevice (device) != cudaSuccess)
    (void)cudaGetLastError (); /* the piece's own CUDA call reports it */
  /* `seen`: the last job before this thread was made, not one of its. */
  std::unique_lock<std::mutex> g (lock_);
  for (;;) {
    wake_.wait (g, [&] { return quit_ || generation_ != seen; });
    if (quit_)
      return;
    seen = generation_;
    g.unlock ();
    take_pieces ();
    g.lock ();
    if (--busy_ == 0)
      done_.notify_one ();
  }
}

bool
CopyWorkers::run (guint count, const std::function<bool (guint)> & piece)
{
  if (count <= 1 || pool_.empty ()) {
    /* Waking threads costs more than a single piece. */
    for (guint i = 0; i < count; i++)
      if (!piece (i))
        return false;
    return true;
  }
  std::unique_lock<std::mutex> g (lock_);
  piece_ = &piece;
  count_ = count;
  next_ = 0;
  failed_ = false;
  busy_ = (guint)pool_.size ();
  generation_++;
  g.unlock ();
  wake_.notify_all ();
  take_pieces ();
  g.lock ();
  /* Every thread takes part in every job, even one it finds finished: then
   * no thread can still look at this job's pieces when run() returns. */
  done_.wait (g, [&] { return busy_ == 0; });
  piece_ = nullptr;
  return !failed_;
}

} // namespace gst_cs

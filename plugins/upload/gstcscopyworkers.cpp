/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "upload/gstcscopyworkers.hpp"

#include <algorithm>

#include <cuda_runtime_api.h>

namespace gst_cs {

guint
auto_copy_threads ()
{
  /* Read once: each g_get_num_processors () opens and reads
   * /sys/devices/system/cpu/online, and the staged copy asks every frame
   * (CLAMP evaluated it three times: nine syscalls a frame). */
  static const guint threads = [] {
    const guint half = g_get_num_processors () / 2;
    return CLAMP (half, 1u, 8u);
  }();
  return threads;
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
  for (guint i = 0; i < threads; i++)
    pool_.emplace_back (&CopyWorkers::loop, this, device);
}

void
CopyWorkers::finish_to (guint most)
{
  std::unique_lock<std::mutex> g (lock_);
  idle_.wait (g, [&] { return pending_ <= most; });
}

void
CopyWorkers::stop ()
{
  finish ();
  {
    std::lock_guard<std::mutex> g (lock_);
    quit_ = true;
  }
  wake_.notify_all ();
  for (std::thread & t : pool_)
    t.join ();
  pool_.clear ();
}

/* Under lock_: the next piece of `job`, if any is left; a job leaves the
 * queue with its last piece. */
bool
CopyWorkers::take (const JobPtr & job, guint * piece)
{
  if (job->failed || job->next >= job->count)
    return false;
  *piece = job->next++;
  if (job->next == job->count) {
    auto it = std::find (queue_.begin (), queue_.end (), job);
    if (it != queue_.end ())
      queue_.erase (it);
  }
  return true;
}

/* Runs one piece without the lock; the last piece of a job runs `done`. */
void
CopyWorkers::run_piece (std::unique_lock<std::mutex> & g, const JobPtr & job, guint piece)
{
  g.unlock ();
  const bool ok = job->piece (piece);
  g.lock ();
  if (!ok && !job->failed) {
    job->failed = true;
    /* Pieces never taken will not run: count them finished. */
    job->left -= job->count - job->next;
    job->next = job->count;
    auto it = std::find (queue_.begin (), queue_.end (), job);
    if (it != queue_.end ())
      queue_.erase (it);
  }
  if (--job->left > 0)
    return;
  if (job->done) {
    g.unlock ();
    job->done ();
    g.lock ();
  }
  pending_--;
  idle_.notify_all ();
}

void
CopyWorkers::loop (int device)
{
  bool device_set = false;
  std::unique_lock<std::mutex> g (lock_);
  for (;;) {
    wake_.wait (g, [&] { return quit_ || !queue_.empty (); });
    if (queue_.empty ())
      return; /* quit, and every job taken */
    JobPtr job = queue_.front ();
    guint piece;
    if (!take (job, &piece))
      continue;
    /* A thread's current device is its own: set once, before the first
     * piece that calls CUDA (pieces of posted jobs never do). */
    if (job->cuda && !device_set) {
      if (cudaSetDevice (device) != cudaSuccess)
        (void)cudaGetLastError (); /* the piece's own CUDA call reports it */
      device_set = true;
    }
    run_piece (g, job, piece);
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
  auto job = std::make_shared<Job> ();
  job->count = job->left = count;
  job->piece = piece;
  job->cuda = true;
  std::unique_lock<std::mutex> g (lock_);
  queue_.push_back (job);
  pending_++;
  wake_.notify_all ();
  guint i;
  while (take (job, &i))
    run_piece (g, job, i);
  idle_.wait (g, [&] { return job->left == 0; });
  return !job->failed;
}

void
CopyWorkers::post (guint count, std::function<bool (guint)> piece,
    std::function<void ()> done, guint max_pending)
{
  auto job = std::make_shared<Job> ();
  job->count = job->left = MAX (count, 1u);
  job->piece = count ? std::move (piece) : [] (guint) { return true; };
  job->done = std::move (done);
  std::unique_lock<std::mutex> g (lock_);
  idle_.wait (g, [&] { return pending_ < MAX (max_pending, 1u); });
  queue_.push_back (job);
  pending_++;
  wake_.notify_all ();
}

} // namespace gst_cs

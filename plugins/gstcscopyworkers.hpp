/* SPDX-License-Identifier: LGPL-2.1-or-later */
// A few threads that share the pieces of one job with the calling thread
// (internal).
#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include <glib.h>

namespace gst_cs {

// Threads made once (at the first job after a change of size or device),
// never per job: a job's pieces are taken in order by whichever thread is
// free, the caller included, and run() returns when all have run. Each
// thread keeps `device` current, so a piece may enqueue CUDA work. One job
// at a time (the element's streaming thread).
class CopyWorkers {
public:
  CopyWorkers () = default;
  ~CopyWorkers () { stop (); }
  CopyWorkers (const CopyWorkers &) = delete;
  CopyWorkers & operator= (const CopyWorkers &) = delete;

  // `threads` in all, the caller counted: `threads` - 1 are started.
  void ensure (guint threads, int device);
  guint threads () const { return (guint)pool_.size () + 1; }

  // Runs piece (i) for every i below `count`; a piece that returns false
  // stops the others taking more, and run() returns false.
  bool run (guint count, const std::function<bool (guint)> & piece);

  void stop ();

private:
  void loop (int device, guint64 seen);
  void take_pieces ();

  std::mutex lock_;
  std::condition_variable wake_;
  std::condition_variable done_;
  std::vector<std::thread> pool_;
  int device_ = -1;
  bool quit_ = false;
  guint64 generation_ = 0;
  guint busy_ = 0; // threads still on the current job
  const std::function<bool (guint)> * piece_ = nullptr;
  guint count_ = 0;
  std::atomic<guint> next_{ 0 };
  std::atomic<bool> failed_{ false };
};

// The share of the cores copy-threads=0 picks: half of them (memory
// bandwidth, not cores, bounds a copy), at least 1, at most 8.
guint auto_copy_threads ();

} // namespace gst_cs

/* SPDX-License-Identifier: LGPL-2.1-or-later */
// A few threads that run the pieces of copy jobs (internal).
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include <glib.h>

namespace gst_cs {

// Threads made once (at the first job after a change of count or device),
// never per job. A job is cut into pieces; whichever thread is free takes
// the next piece of the oldest job. The pieces of run() may enqueue CUDA
// work on `device`; those of post() must not call CUDA at all (they run
// while the GPU may wait for them). Jobs come from one thread (the
// element's streaming thread).
class CopyWorkers {
public:
  CopyWorkers () = default;
  ~CopyWorkers () { stop (); }
  CopyWorkers (const CopyWorkers &) = delete;
  CopyWorkers & operator= (const CopyWorkers &) = delete;

  void ensure (guint threads, int device);
  guint threads () const { return (guint)pool_.size (); }

  // Runs piece (i) for every i below `count`, the caller taking pieces too,
  // and returns when all have run; a piece that returns false stops the
  // others taking more, and run() returns false.
  bool run (guint count, const std::function<bool (guint)> & piece);

  // Queues a job and returns: its pieces run on the threads, then `done`
  // runs on the thread that finished the last one. With `max_pending` jobs
  // not yet done it first waits for the oldest (the copy is the bottleneck:
  // the caller must not run further ahead).
  void post (guint count, std::function<bool (guint)> piece, std::function<void ()> done,
      guint max_pending);

  // Waits until at most `most` jobs posted have not run.
  void finish_to (guint most);
  // Waits until every job posted has run.
  void finish () { finish_to (0); }

  // finish(), then the threads end.
  void stop ();

private:
  struct Job {
    guint count = 0;
    std::function<bool (guint)> piece;
    std::function<void ()> done;
    guint next = 0; // the next piece to take (under lock_)
    guint left = 0; // pieces not yet finished (under lock_)
    bool failed = false;
    bool cuda = false; // its pieces call CUDA (run()'s may, post()'s never)
  };
  using JobPtr = std::shared_ptr<Job>;

  void loop (int device);
  bool take (const JobPtr & job, guint * piece);
  void run_piece (std::unique_lock<std::mutex> & g, const JobPtr & job, guint piece);

  std::mutex lock_;
  std::condition_variable wake_; // a job was queued, or quit
  std::condition_variable idle_; // a job was done
  std::deque<JobPtr> queue_;     // jobs with pieces not yet taken, oldest first
  guint pending_ = 0;            // jobs not yet done
  std::vector<std::thread> pool_;
  int device_ = -1;
  bool quit_ = false;
};

// The share of the cores copy-threads=0 picks: half of them (memory
// bandwidth, not cores, bounds a copy), at least 1, at most 8.
guint auto_copy_threads ();

} // namespace gst_cs

/* SPDX-License-Identifier: LGPL-2.1-or-later */
// Work done in a child process, forked from the calling thread, whose
// result comes back as bytes: for a library that a process cannot tear
// down under a call in progress, nor stop. NVRTC is one: a process that
// exited while a thread compiled crashed in nvrtcCompileProgram (its
// state, made during the compile, destroyed by exit before the thread
// was done; H200, 2026-11-30). A child that is compiling when its parent
// ends is killed; the parent never waits for it at exit.
//
// The child runs only `job`: no CUDA call (a forked child cannot use the
// parent's contexts), nothing that another thread of the parent might
// have held locked when it forked. It ends with _exit: no exit handler
// and no destructor of the parent's runs in it.
#pragma once

#include <atomic>
#include <functional>
#include <string>

namespace gst_cs::gpu {

// Runs `job` in a child and sets `result` to what it returned. False, with
// `why` set, where no child could be made, or it ended before it had
// written all of its result (a crash, a signal), or `most_seconds` passed,
// or `stop` (optional) was set (the child is then killed, within 50 ms of
// `stop`; none is made once it is set). The calling thread alone kills and
// reaps its child: no other thread can kill a pid reused meanwhile.
bool run_apart (const std::function<std::string ()> & job, int most_seconds,
    std::string * result, std::string * why, const std::atomic<bool> * stop = nullptr);

} // namespace gst_cs::gpu

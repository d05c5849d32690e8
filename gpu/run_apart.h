/* SPDX-License-Identifier: LGPL-2.1-or-later */
// A program run in a process of its own, its input given on its stdin and
// its result read from its stdout: for work that a process cannot tear
// down under a call in progress, nor stop. NVRTC is such work
// (rtc_nvrtc.h): compiled in a thread of the plugin's process, or in a
// child forked from it, a process that exited during a compile crashed or
// hung (H200, 2026-11-30). The program is started by posix_spawn, which
// copies nothing of this process (no CUDA state, no locks another thread
// holds). It is killed when this process stops waiting for it, or left to
// finish where its work is of use without an answer (StopAction::LEAVE).
#pragma once

#include <atomic>
#include <string>
#include <string_view>

namespace gst_cs::gpu {

// What run_apart does with a program still running when `stop` is set:
// KILL it, or LEAVE it to finish unwatched (its answer goes nowhere; it is
// not reaped: for a `stop` set as this process exits, whose children then
// go to init; the program bounds its own time, see asked).
enum class StopAction { KILL, LEAVE };

// Runs `program` (an absolute path; its first argument this process's id,
// see asked) with `input` on its stdin and sets `result` to what it
// answered. False, with `why` set, where it could not be started, or it
// ended before it had answered whole (a crash, a signal), or
// `most_seconds` passed (the program is killed), or `stop` (optional) was
// set (within 50 ms of it the program is killed or left, `on_stop`; none
// is started once it is set). The calling thread alone kills and reaps
// it: no other thread can kill a pid reused meanwhile.
bool run_apart (const std::string & program, const std::string & input, int most_seconds,
    std::string * result, std::string * why, const std::atomic<bool> * stop = nullptr,
    StopAction on_stop = StopAction::KILL);

// The program's side. asked: its input, all of its stdin; false where the
// process that started it (its first argument) has gone already (nothing
// to answer) or the input could not be read. It is killed should that
// process end later, unless `outlive`: a program that is of use without
// an answer (StopAction::LEAVE) then ends itself after `most_seconds`.
// answer: writes `result` to stdout, with the mark that tells a whole
// answer from one cut short; false where none reads it.
bool asked (int argc, char ** argv, std::string * input, bool outlive = false,
    int most_seconds = 0);
bool answer (std::string result);

// Fields of an input or a result: each its length (8 bytes, host order),
// then its bytes. take: false where `in` is cut short.
void put (std::string & out, std::string_view bytes);
bool take (std::string_view & in, std::string_view * bytes);

} // namespace gst_cs::gpu

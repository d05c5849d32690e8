/* SPDX-License-Identifier: LGPL-2.1-or-later */
// The program convert_rtc_compile's test_run_apart runs with
// gpu/run_apart.h: its input a command and a payload. "echo" answers the
// payload, "abort" crashes, "cut" ends without an answer, "sleep" answers
// after 30 s, "later" writes "done" into the file the payload names after
// 1 s, then answers. RUN_APART_PEER_OUTLIVE set: it outlives the process
// that started it (asked's `outlive`), for 20 s at most.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <thread>

#include "run_apart.h"

int
main (int argc, char ** argv)
{
  namespace gpu = gst_cs::gpu;
  std::string input;
  if (!gpu::asked (
          argc, argv, &input, std::getenv ("RUN_APART_PEER_OUTLIVE") != nullptr, 20))
    return 1;
  std::string_view in (input), command, payload;
  if (!gpu::take (in, &command) || !gpu::take (in, &payload))
    return 1;
  if (command == "abort")
    std::abort ();
  if (command == "cut")
    return 0;
  if (command == "sleep")
    std::this_thread::sleep_for (std::chrono::seconds (30));
  if (command == "later") {
    std::this_thread::sleep_for (std::chrono::seconds (1));
    if (FILE * f = std::fopen (std::string (payload).c_str (), "w")) {
      std::fputs ("done", f);
      std::fclose (f);
    }
  }
  return gpu::answer (std::string (payload)) ? 0 : 1;
}

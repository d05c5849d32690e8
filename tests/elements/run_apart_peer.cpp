/* SPDX-License-Identifier: LGPL-2.1-or-later */
// The program convert_rtc_compile's test_run_apart runs with
// gpu/run_apart.h: its input a command and a payload. "echo" answers the
// payload, "abort" crashes, "cut" ends without an answer, "sleep" answers
// after 30 s.
#include <chrono>
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
  if (!gpu::asked (argc, argv, &input))
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
  return gpu::answer (std::string (payload)) ? 0 : 1;
}

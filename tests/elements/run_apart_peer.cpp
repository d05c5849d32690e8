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

#include <unistd.h>

#include "run_apart.h"

int
main (int argc, char ** argv)
{
  namespace gpu = gst_cs::gpu;
  if (!gpu::asked_by (argc, argv))
    return 1;
  std::string input;
  char buffer[4096];
  ssize_t n;
  while ((n = read (0, buffer, sizeof buffer)) > 0)
    input.append (buffer, (std::size_t)n);
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

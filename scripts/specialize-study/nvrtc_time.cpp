/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* nvrtc_time SOURCE [NVRTC OPTIONS...]: compiles SOURCE with NVRTC, as a
 * converter that compiles its kernel at run time would, and prints how
 * long it took and what came out (PTX and CUBIN bytes). Compiling needs no
 * GPU. */
#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nvrtc.h>

int
main (int argc, char ** argv)
{
  if (argc < 2) {
    std::fprintf (stderr, "nvrtc_time SOURCE [OPTIONS...]\n");
    return 2;
  }
  std::ifstream in (argv[1]);
  std::stringstream text;
  text << in.rdbuf ();
  const std::string source = text.str ();
  std::vector<const char *> options (argv + 2, argv + argc);
  const auto t0 = std::chrono::steady_clock::now ();
  nvrtcProgram program;
  nvrtcCreateProgram (&program, source.c_str (), argv[1], 0, nullptr, nullptr);
  const nvrtcResult r =
      nvrtcCompileProgram (program, (int)options.size (), options.data ());
  const double ms =
      std::chrono::duration<double, std::milli> (std::chrono::steady_clock::now () - t0)
          .count ();
  if (r != NVRTC_SUCCESS) {
    size_t n = 0;
    nvrtcGetProgramLogSize (program, &n);
    std::string log (n, '\0');
    nvrtcGetProgramLog (program, &log[0]);
    std::printf ("NVRTC failed (%s):\n%s\n", nvrtcGetErrorString (r),
        log.substr (0, 4000).c_str ());
    return 1;
  }
  size_t ptx = 0, cubin = 0;
  nvrtcGetPTXSize (program, &ptx);
  nvrtcGetCUBINSize (program, &cubin);
  std::printf ("%.0f ms, PTX %zu bytes, CUBIN %zu bytes\n", ms, ptx, cubin);
  nvrtcDestroyProgram (&program);
  return 0;
}

/* SPDX-License-Identifier: LGPL-2.1-or-later */
// gcs-rtc-compile: the converter's compiler process (convert_scale_rtc.h).
// The plugin starts it for one kernel (run_apart.h), beside itself where
// installed: its stdin the GPU architecture, the kernel's name, the disk
// cache's file for it ("": none), its source, how many headers that
// includes and the headers, each a name and a text (run_apart.h's
// fields); its stdout whether NVRTC compiled it, the kernel's name in the
// code, the code and NVRTC's log. It writes the cache file itself, so
// that a compile goes on to be of use where the plugin's process exits
// before it ends (it is not killed with that process: StopAction::LEAVE).
// Not for people.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include <unistd.h>

#include "rtc_cache.h"
#include "rtc_nvrtc.h"
#include "run_apart.h"

int
main (int argc, char ** argv)
{
  using namespace gst_cs::gpu;
  if (isatty (0)) {
    std::fprintf (stderr,
        "gcs-rtc-compile compiles gst-cudastreams' converter kernels for the plugin, "
        "which starts it; it is not run by hand.\n");
    return 2;
  }
  std::string input;
  if (!asked (argc, argv, &input, true, rtc::kMostCompileSeconds))
    return 1;
  /* Nothing is compiled, nor cached, from an input cut short (the plugin's
   * process ended while it sent it): the count of headers, and nothing
   * after them. */
  std::string_view in (input), arch, name, cache, source, count;
  if (!take (in, &arch) || !take (in, &name) || !take (in, &cache) ||
      !take (in, &source) || !take (in, &count))
    return 1;
  const long n = std::strtol (std::string (count).c_str (), nullptr, 10);
  std::vector<rtc::Header> headers;
  for (long i = 0; i < n; i++) {
    std::string_view h, text;
    if (!take (in, &h) || !take (in, &text))
      return 1;
    headers.push_back (rtc::Header{ std::string (h), std::string (text) });
  }
  if (n < 0 || !in.empty ())
    return 1;
  rtc::Compiled c;
  const bool ok = rtc::nvrtc_compile_here (
      std::string (source), headers, std::string (name), std::string (arch), &c);
  /* Cached only where the plugin uses it. */
  if (ok && !cache.empty () && rtc::stack_bytes (c.log) < rtc::kMostStackBytes)
    rtc::write_cache (std::string (cache), c.cubin, c.lowered);
  std::string out (1, ok ? '1' : '0');
  put (out, c.lowered);
  put (out, std::string_view (c.cubin.data (), c.cubin.size ()));
  put (out, c.log);
  return answer (std::move (out)) ? 0 : 1;
}

/* SPDX-License-Identifier: LGPL-2.1-or-later */
// gcs-rtc-compile: the converter's compiler process (convert_scale_rtc.h).
// The plugin starts it for one kernel (run_apart.h), beside itself where
// installed: its stdin the GPU architecture, the kernel's name, its
// source and the headers that includes, each a name and a text
// (run_apart.h's fields); its stdout whether NVRTC compiled it, the
// kernel's name in the code, the code and NVRTC's log. Not for people.
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include <unistd.h>

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
  if (!asked (argc, argv, &input))
    return 1;
  std::string_view in (input), arch, name, source;
  if (!take (in, &arch) || !take (in, &name) || !take (in, &source))
    return 1;
  std::vector<rtc::Header> headers;
  for (std::string_view h, text; !in.empty ();) {
    if (!take (in, &h) || !take (in, &text))
      return 1;
    headers.push_back (rtc::Header{ std::string (h), std::string (text) });
  }
  rtc::Compiled c;
  const bool ok = rtc::nvrtc_compile_here (
      std::string (source), headers, std::string (name), std::string (arch), &c);
  std::string out (1, ok ? '1' : '0');
  put (out, c.lowered);
  put (out, std::string_view (c.cubin.data (), c.cubin.size ()));
  put (out, c.log);
  return answer (std::move (out)) ? 0 : 1;
}

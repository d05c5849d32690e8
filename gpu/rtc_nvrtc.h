/* SPDX-License-Identifier: LGPL-2.1-or-later */
// One compile with NVRTC (libnvrtc, loaded at run time): what the compiler
// process runs (rtc_compiler_main.cpp), never the plugin's own process. A
// process that has NVRTC loaded, or forks to compile, tears it down at
// exit under a compile in progress: such processes crashed in
// nvrtcCompileProgram, or hung or crashed at exit (H200, 2026-11-30).
#pragma once

#include <string>
#include <vector>

namespace gst_cs::gpu::rtc {

struct Compiled {
  std::vector<char> cubin;
  std::string lowered; // the kernel's name in `cubin`
  std::string log;     // NVRTC's (ptxas's -v account included)
};

// A header `source` includes, by the name it includes it by.
struct Header {
  std::string name, text;
};

// Compiles `source` (its includes `headers`) for `arch` (as "sm_90"), with
// `kernel_name` (a template-id) as its name expression. False, with
// out->log saying why, where NVRTC cannot be loaded or fails.
bool nvrtc_compile_here (const std::string & source, const std::vector<Header> & headers,
    const std::string & kernel_name, const std::string & arch, Compiled * out);

} // namespace gst_cs::gpu::rtc

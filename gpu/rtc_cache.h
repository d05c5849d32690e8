/* SPDX-License-Identifier: LGPL-2.1-or-later */
// The disk cache of converter kernels compiled at run time
// (convert_scale_rtc.h), shared by the plugin, which reads it, and the
// compiler process (rtc_compiler_main.cpp), which writes it: a compile
// that outlives the process that asked for it (a run shorter than the
// compile) still leaves its kernel for the next run.
#pragma once

#include <string>
#include <vector>

namespace gst_cs::gpu::rtc {

// A compiled kernel with this much stack a thread or more is not used:
// its description went to local memory (a run-time index into it), which
// makes it slower than the built kernel (a fixed-point kernel measured
// 99 us against 11.5 on an H200 that way). The kernels' own arrays take
// at most 48 bytes.
constexpr int kMostStackBytes = 256;

// A compile of the longest: NVRTC takes 0.2-1.6 s for one on two cores,
// more under a sanitizer. The plugin stops waiting after it; a compiler
// left running by an exited process ends itself after it.
constexpr int kMostCompileSeconds = 300;

// The largest stack frame ptxas reports in NVRTC's `log` ("N bytes stack
// frame"), or -1 where it reports none.
int stack_bytes (const std::string & log);

// A cache file: the kernel's name in the code on its first line, then the
// CUBIN. read_cache: false where there is none, or it is not whole.
bool read_cache (
    const std::string & path, std::vector<char> * cubin, std::string * lowered);
// Written aside and renamed: another process may read it meanwhile.
void write_cache (const std::string & path, const std::vector<char> & cubin,
    const std::string & lowered);

} // namespace gst_cs::gpu::rtc

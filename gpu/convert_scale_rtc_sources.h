/* SPDX-License-Identifier: LGPL-2.1-or-later */
// The kernels' headers, as text, for NVRTC (gpu/embed_sources.py writes
// them into the build; convert_scale_rtc.cpp gives them to NVRTC by name).
#pragma once

namespace gst_cs::gpu::rtc {

struct SourceFile {
  const char * name; // as the sources include it
  const char * text;
};

extern const SourceFile kSources[];
extern const int kSourceCount;

} // namespace gst_cs::gpu::rtc

/* SPDX-License-Identifier: LGPL-2.1-or-later */
// The trace file: Chrome/Perfetto trace-event JSON. One track per CUDA
// stream (process "GPU <device>"), one per streaming thread (process
// "CPU"); waits on the GPU are flows from the producer's span to the
// consumer's. Times in µs of GStreamer's clock (gst_util_get_timestamp).
#pragma once

#include <map>
#include <mutex>
#include <string>
#include <vector>

#include <gst/gst.h>
#include <cuda_runtime_api.h>

namespace gst_cs {

class TraceJson {
public:
  // Only collects where enabled (a file was asked for).
  void enable (bool on) { on_ = on; }
  bool enabled () const { return on_; }
  // A GPU span on `stream`; `flow_from_stream` and `flow_from_us` give the
  // producer's span end it waited for (flow_from_stream nullptr: none).
  void gpu_span (const gchar * element, int device, cudaStream_t stream, double begin_us,
      double start_us, double end_us, GstClockTime pts, cudaStream_t flow_from_stream,
      double flow_from_us);
  // A chain call on the calling thread (nested ones inside it).
  void thread_span (
      const gchar * element, const gchar * pad, double ts_us, double dur_us);
  // Writes everything so far to `path`.
  bool write (const std::string & path, GError ** error);

private:
  int stream_track (int device, cudaStream_t stream);
  int thread_track ();
  void add (std::string && event);

  bool on_ = false;
  std::mutex lock_;
  std::vector<std::string> events_;
  std::vector<std::string> names_; // track name events
  std::map<std::pair<int, cudaStream_t>, int> streams_;
  guint64 flows_ = 0;
  bool full_ = false;
};

} // namespace gst_cs

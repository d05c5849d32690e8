/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "tracer/gstcstracejson.hpp"

#include <atomic>
#include <cstdio>

#include <glib/gstdio.h>
#include <pthread.h>

GST_DEBUG_CATEGORY_EXTERN (gst_cs_tracer_debug);
#define GST_CAT_DEFAULT gst_cs_tracer_debug

namespace gst_cs {
namespace {
/* A long run must not take the process' memory: past this many events the
 * file holds the start of the run (a warning says so). */
constexpr size_t kMaxEvents = 2'000'000;
constexpr int kCpuPid = 1;
constexpr int kGpuPid = 100; /* + device */

std::string
quoted (const gchar * text)
{
  std::string out = "\"";
  for (const gchar * c = text; c && *c; c++) {
    if (*c == '"' || *c == '\\')
      out += '\\';
    if ((guchar)*c < 0x20)
      continue;
    out += *c;
  }
  return out + "\"";
}

std::string printf_string (const gchar * format, ...) G_GNUC_PRINTF (1, 2);

std::string
printf_string (const gchar * format, ...)
{
  va_list args;
  va_start (args, format);
  gchar * s = g_strdup_vprintf (format, args);
  va_end (args);
  std::string out = s;
  g_free (s);
  return out;
}

std::atomic<int> next_thread{ 1 };
} // namespace

void
TraceJson::add (std::string && event)
{
  if (events_.size () >= kMaxEvents) {
    if (!full_)
      GST_WARNING ("trace file: more than %zu events, the rest is left out", kMaxEvents);
    full_ = true;
    return;
  }
  events_.push_back (std::move (event));
}

int
TraceJson::stream_track (int device, cudaStream_t stream)
{
  auto key = std::make_pair (device, stream);
  auto it = streams_.find (key);
  if (it != streams_.end ())
    return it->second;
  const int tid = (int)streams_.size () + 1;
  streams_[key] = tid;
  names_.push_back (printf_string ("{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%d,"
                                   "\"tid\":%d,\"args\":{\"name\":\"stream %p\"}}",
      kGpuPid + device, tid, (void *)stream));
  names_.push_back (printf_string ("{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%d,"
                                   "\"args\":{\"name\":\"GPU %d (CUDA streams)\"}}",
      kGpuPid + device, device));
  return tid;
}

/* Called with the lock held. */
int
TraceJson::thread_track ()
{
  thread_local int tid = 0;
  if (tid)
    return tid;
  tid = next_thread.fetch_add (1);
  char name[32] = "";
  pthread_getname_np (pthread_self (), name, sizeof name);
  names_.push_back (printf_string ("{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%d,"
                                   "\"tid\":%d,\"args\":{\"name\":%s}}",
      kCpuPid, tid, quoted (name).c_str ()));
  return tid;
}

void
TraceJson::gpu_span (const gchar * element, int device, cudaStream_t stream,
    double begin_us, double start_us, double end_us, GstClockTime pts,
    cudaStream_t flow_from_stream, double flow_from_us)
{
  if (!on_)
    return;
  std::lock_guard<std::mutex> hold (lock_);
  const int pid = kGpuPid + device, tid = stream_track (device, stream);
  const gint64 p = GST_CLOCK_TIME_IS_VALID (pts) ? (gint64)pts : -1;
  if (start_us > begin_us)
    add (printf_string (
        "{\"ph\":\"X\",\"cat\":\"gpu-wait\",\"name\":%s,\"pid\":%d,"
        "\"tid\":%d,\"ts\":%.3f,\"dur\":%.3f,\"args\":{\"pts\":%" G_GINT64_FORMAT "}}",
        quoted ((std::string ("wait: ") + element).c_str ()).c_str (), pid, tid, begin_us,
        start_us - begin_us, p));
  add (printf_string ("{\"ph\":\"X\",\"cat\":\"gpu\",\"name\":%s,\"pid\":%d,\"tid\":%d,"
                      "\"ts\":%.3f,\"dur\":%.3f,\"args\":{\"pts\":%" G_GINT64_FORMAT "}}",
      quoted (element).c_str (), pid, tid, start_us, end_us - start_us, p));
  if (!flow_from_stream)
    return;
  /* The flow leaves the producer's span just before its end (a flow binds
   * to the span that encloses its time) and enters the consumer's. */
  const guint64 id = ++flows_;
  add (printf_string (
      "{\"ph\":\"s\",\"cat\":\"flow\",\"name\":\"event\",\"id\":%" G_GUINT64_FORMAT
      ",\"pid\":%d,\"tid\":%d,\"ts\":%.3f}",
      id, pid, stream_track (device, flow_from_stream), flow_from_us - 0.001));
  add (printf_string ("{\"ph\":\"f\",\"bp\":\"e\",\"cat\":\"flow\",\"name\":\"event\","
                      "\"id\":%" G_GUINT64_FORMAT ",\"pid\":%d,\"tid\":%d,\"ts\":%.3f}",
      id, pid, tid, start_us));
}

void
TraceJson::thread_span (
    const gchar * element, const gchar * pad, double ts_us, double dur_us)
{
  if (!on_)
    return;
  std::lock_guard<std::mutex> hold (lock_);
  const int tid = thread_track ();
  add (printf_string ("{\"ph\":\"X\",\"cat\":\"cpu\",\"name\":%s,\"pid\":%d,\"tid\":%d,"
                      "\"ts\":%.3f,\"dur\":%.3f,\"args\":{\"pad\":%s}}",
      quoted (element).c_str (), kCpuPid, tid, ts_us, dur_us, quoted (pad).c_str ()));
}

bool
TraceJson::write (const std::string & path, GError ** error)
{
  std::lock_guard<std::mutex> hold (lock_);
  FILE * f = g_fopen (path.c_str (), "w");
  if (!f) {
    g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (errno),
        "cannot write the trace file %s: %s", path.c_str (), g_strerror (errno));
    return false;
  }
  std::fputs ("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n", f);
  std::fprintf (f,
      "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%d,\"args\":{\"name\":\"CPU "
      "(streaming threads)\"}}",
      kCpuPid);
  for (const auto * list : { &names_, &events_ })
    for (const std::string & e : *list) {
      std::fputs (",\n", f);
      std::fputs (e.c_str (), f);
    }
  std::fputs ("\n]}\n", f);
  const bool ok = std::fflush (f) == 0 && !std::ferror (f);
  const int saved = errno;
  std::fclose (f);
  if (!ok)
    g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved),
        "cannot write the trace file %s: %s", path.c_str (), g_strerror (saved));
  return ok;
}

} // namespace gst_cs

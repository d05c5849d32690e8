/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "tracer/gstcscputime.hpp"

#include <vector>

#include "tracer/gstcstracerecords.hpp"

namespace gst_cs {
namespace {
struct Call {
  GstPad * sinkpad;     // the peer the buffer went into (not reffed: in use)
  GstElement * element; // its element; nullptr for a bin's ghost pad
  guint64 start;        // ns
  guint64 nested = 0;   // time of the pushes it made, ns
};
/* Pushes nest on one thread only: a stack per thread. */
thread_local std::vector<Call> calls;

/* The element a pushed buffer enters: a bin's ghost pad forwards to the
 * element inside, whose own push is traced too, so the bin counts nothing. */
GstElement *
receiver (GstPad * sinkpad)
{
  GstObject * parent = sinkpad ? GST_OBJECT_PARENT (sinkpad) : NULL;
  if (!parent || !GST_IS_ELEMENT (parent) || GST_IS_BIN (parent))
    return NULL;
  return GST_ELEMENT_CAST (parent);
}
} // namespace

void
CpuTime::push_pre (guint64 ts, GstPad * srcpad)
{
  GstPad * peer = GST_PAD_PEER (srcpad);
  calls.push_back (Call{ peer, receiver (peer), ts });
  if (calls.back ().element)
    stats_.seen (calls.back ().element);
}

void
CpuTime::push_post (guint64 ts)
{
  if (calls.empty ())
    return; /* the tracer came after the push began */
  const Call c = calls.back ();
  calls.pop_back ();
  const guint64 total = ts > c.start ? ts - c.start : 0;
  if (!calls.empty ())
    calls.back ().nested += total;
  if (!c.element)
    return;
  const guint64 own = total > c.nested ? total - c.nested : 0;
  stats_.add_cpu (c.element, own / 1000.0);
  log_cpu_record (c.sinkpad, ts, own);
  json_.thread_span (GST_OBJECT_NAME (c.element), GST_OBJECT_NAME (c.sinkpad),
      c.start / 1000.0, total / 1000.0);
}

} // namespace gst_cs

/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "tracer/gstcscputime.hpp"

#include <array>
#include <vector>

#include "tracer/gstcstracerecords.hpp"

namespace gst_cs {
namespace {
struct Call {
  GstPad * sinkpad;     // the peer the buffer went into (not reffed: in use)
  GstElement * element; // its element; nullptr for a bin's ghost pad
  CpuSums * sums;       // the element's, where it has one
  guint64 start;        // ns
  guint64 nested = 0;   // time of the pushes it made, ns
};

/* What a sink pad leads to, as found under a stats epoch. */
struct Receiver {
  guint64 epoch = 0;
  GstPad * sinkpad = nullptr;
  GstElement * element = nullptr;
  CpuSums * sums = nullptr;
};

/* Per streaming thread: its pushes, which nest on one thread only, and the
 * pads it pushed into lately, so that a push costs no lock, no map lookup
 * and no type check once its pad is known (a thread pushes into a few). */
struct ThreadState {
  std::vector<Call> calls;
  std::array<Receiver, 8> receivers;
  unsigned next = 0; // the entry replaced next
};
thread_local ThreadState thread_state;

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
  ThreadState & t = thread_state;
  GstPad * peer = GST_PAD_PEER (srcpad);
  const guint64 epoch = stats_.epoch ();
  for (const Receiver & r : t.receivers)
    if (r.sinkpad == peer && r.epoch == epoch) {
      t.calls.push_back (Call{ peer, r.element, r.sums, ts });
      return;
    }
  /* New to this thread or to this run: marks the element seen, in order. */
  GstElement * element = receiver (peer);
  CpuSums * sums = element ? stats_.cpu_sums (element) : nullptr;
  t.receivers[t.next++ % t.receivers.size ()] = Receiver{ epoch, peer, element, sums };
  t.calls.push_back (Call{ peer, element, sums, ts });
}

void
CpuTime::push_post (guint64 ts)
{
  std::vector<Call> & calls = thread_state.calls;
  if (calls.empty ())
    return; /* the tracer came after the push began */
  const Call c = calls.back ();
  calls.pop_back ();
  const guint64 total = ts > c.start ? ts - c.start : 0;
  if (!calls.empty ())
    calls.back ().nested += total;
  if (!c.sums)
    return;
  const guint64 own = total > c.nested ? total - c.nested : 0;
  c.sums->frames.fetch_add (1, std::memory_order_relaxed);
  c.sums->ns.fetch_add (own, std::memory_order_relaxed);
  log_cpu_record (c.sinkpad, ts, own);
  json_.thread_span (GST_OBJECT_NAME (c.element), GST_OBJECT_NAME (c.sinkpad),
      c.start / 1000.0, total / 1000.0);
}

} // namespace gst_cs

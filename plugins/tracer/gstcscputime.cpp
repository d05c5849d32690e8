/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "tracer/gstcscputime.hpp"

#include <array>
#include <mutex>
#include <vector>

#include "base/gstcsbasetransform.h"
#include "batch/gstcsbatch.h"
#include "tracer/gstcstracerecords.hpp"

namespace gst_cs {

/* The probes' state of one element of another plugin: its element's qdata,
 * so it goes with the element (after its pads and their probes). */
struct CpuTime::Probed {
  CpuTime * owner;
  GstElement * element; // not reffed: this is its qdata
  CpuSums * sums;
  std::atomic<guint> hits{ 0 }, misses{ 0 };
  std::atomic<bool> off{ false }; // its probes go at their next buffer
};

namespace {
/* Pushes without an arrival before them on the same thread, and none with:
 * the element pushes from a thread of its own. */
constexpr guint kMissesBeforeOff = 32;

/* Element qdata: its Probed; bin qdata: its Watch. */
G_DEFINE_QUARK (gst_cs_tracer_probed, probed)
G_DEFINE_QUARK (gst_cs_tracer_watched, watched)

/* Per streaming thread: the buffers that arrived at probed elements and
 * whose push is still to come (a thread passes through a few elements). */
struct Arrival {
  CpuTime::Probed * probed = nullptr;
  GstPad * pad = nullptr; // the sink pad, for the record (alive: in use)
  GstClockTime at = 0;
};
struct ThreadArrivals {
  std::array<Arrival, 8> slots;
  unsigned next = 0;
};
thread_local ThreadArrivals arrivals;

GstPadProbeReturn
on_sink_buffer (GstPad * pad, GstPadProbeInfo *, gpointer data)
{
  auto * probed = static_cast<CpuTime::Probed *> (data);
  if (G_UNLIKELY (probed->off.load (std::memory_order_relaxed)))
    return GST_PAD_PROBE_REMOVE;
  probed->owner->arrived (probed, pad);
  return GST_PAD_PROBE_OK;
}

GstPadProbeReturn
on_src_buffer (GstPad *, GstPadProbeInfo *, gpointer data)
{
  auto * probed = static_cast<CpuTime::Probed *> (data);
  return probed->owner->pushed (probed) ? GST_PAD_PROBE_OK : GST_PAD_PROBE_REMOVE;
}

void
on_pad_added (GstElement *, GstPad * pad, gpointer data)
{
  auto * probed = static_cast<CpuTime::Probed *> (data);
  probed->owner->add_pad (probed, pad);
}

struct Watch {
  CpuTime * owner;
  GstElement * root;
};

void
on_deep_element_added (GstBin *, GstBin *, GstElement * element, gpointer data)
{
  auto * w = static_cast<Watch *> (data);
  if (!GST_IS_BIN (element))
    w->owner->add_element (element, w->root);
}

/* Whether the element's class has pads of both directions: a filter,
 * whose arrivals lead to its pushes. */
bool
is_filter (GstElement * element)
{
  bool sink = false, src = false;
  for (const GList * l =
           gst_element_class_get_pad_template_list (GST_ELEMENT_GET_CLASS (element));
       l; l = l->next) {
    const GstPadDirection d = GST_PAD_TEMPLATE_DIRECTION (l->data);
    sink = sink || d == GST_PAD_SINK;
    src = src || d == GST_PAD_SRC;
  }
  return sink && src;
}

std::mutex add_lock; /* elements come from the application's and the bins' threads */
} // namespace

void
CpuTime::watch (GstElement * root)
{
  if (!GST_IS_BIN (root)) {
    add_element (root, root);
    return;
  }
  /* Once per bin: it lives longer than any run. */
  if (!g_object_get_qdata (G_OBJECT (root), watched_quark ())) {
    auto * w = new Watch{ this, root };
    g_object_set_qdata_full (G_OBJECT (root), watched_quark (), w,
        [] (gpointer p) { delete static_cast<Watch *> (p); });
    g_signal_connect (root, "deep-element-added", G_CALLBACK (on_deep_element_added), w);
  }
  add_bin (GST_BIN (root), root);
}

/* Upstream first: a bin sorts its children sinks first. */
void
CpuTime::add_bin (GstBin * bin, GstElement * root)
{
  std::vector<GstElement *> children;
  GstIterator * it = gst_bin_iterate_sorted (bin);
  GValue v = G_VALUE_INIT;
  bool done = false;
  while (!done) {
    switch (gst_iterator_next (it, &v)) {
      case GST_ITERATOR_OK:
        children.push_back (GST_ELEMENT (g_value_dup_object (&v)));
        g_value_reset (&v);
        break;
      case GST_ITERATOR_RESYNC:
        for (GstElement * e : children)
          gst_object_unref (e);
        children.clear ();
        gst_iterator_resync (it);
        break;
      default:
        done = true;
    }
  }
  g_value_unset (&v);
  gst_iterator_free (it);
  for (auto e = children.rbegin (); e != children.rend (); ++e) {
    if (GST_IS_BIN (*e))
      add_bin (GST_BIN (*e), root);
    else
      add_element (*e, root);
    gst_object_unref (*e);
  }
}

void
CpuTime::add_element (GstElement * element, GstElement * root)
{
  std::lock_guard<std::mutex> hold (add_lock);
  /* Those that report to FrameObserver. */
  const bool ours = GST_IS_CS_BASE_TRANSFORM (element) || GST_IS_CS_BATCH (element);
  stats_.seen (element, root, ours);
  if (ours)
    return; /* it times itself */
  if (!is_filter (element)) {
    stats_.set_cpu_note (element, "a source or a sink, not timed");
    return;
  }
  /* Probed once: the probes last as long as its pads. */
  if (auto * probed = static_cast<Probed *> (
          g_object_get_qdata (G_OBJECT (element), probed_quark ()))) {
    if (probed->off.load ())
      stats_.set_cpu_note (element, "pushes from a thread of its own, not timed");
    return;
  }
  auto * probed = new Probed{ this, element, stats_.cpu_sums (element) };
  g_object_set_qdata_full (G_OBJECT (element), probed_quark (), probed,
      [] (gpointer p) { delete static_cast<Probed *> (p); });
  g_signal_connect (element, "pad-added", G_CALLBACK (on_pad_added), probed);
  GstIterator * it = gst_element_iterate_pads (element);
  GValue v = G_VALUE_INIT;
  while (gst_iterator_next (it, &v) == GST_ITERATOR_OK) {
    add_pad (probed, GST_PAD (g_value_get_object (&v)));
    g_value_reset (&v);
  }
  g_value_unset (&v);
  gst_iterator_free (it);
}

void
CpuTime::add_pad (Probed * probed, GstPad * pad)
{
  const auto types =
      (GstPadProbeType)(GST_PAD_PROBE_TYPE_BUFFER | GST_PAD_PROBE_TYPE_BUFFER_LIST);
  if (GST_PAD_IS_SINK (pad))
    gst_pad_add_probe (pad, types, on_sink_buffer, probed, NULL);
  else if (GST_PAD_IS_SRC (pad))
    gst_pad_add_probe (pad, types, on_src_buffer, probed, NULL);
}

void
CpuTime::arrived (Probed * probed, GstPad * pad)
{
  ThreadArrivals & t = arrivals;
  Arrival * slot = nullptr;
  for (Arrival & a : t.slots)
    if (a.probed == probed)
      slot = &a;
  if (!slot)
    slot = &t.slots[t.next++ % t.slots.size ()];
  *slot = Arrival{ probed, pad, gst_util_get_timestamp () };
}

bool
CpuTime::pushed (Probed * probed)
{
  for (Arrival & a : arrivals.slots)
    if (a.probed == probed && a.at) {
      const GstClockTime at = a.at;
      a.at = 0;
      probed->hits.fetch_add (1, std::memory_order_relaxed);
      record (probed->sums, probed->element, a.pad, at, gst_util_get_timestamp ());
      return true;
    }
  if (probed->off.load (std::memory_order_relaxed))
    return false;
  /* A second output of one input, or a push from another thread. */
  if (probed->hits.load (std::memory_order_relaxed) == 0 &&
      probed->misses.fetch_add (1, std::memory_order_relaxed) + 1 >= kMissesBeforeOff) {
    probed->off.store (true);
    stats_.set_cpu_note (probed->element, "pushes from a thread of its own, not timed");
    return false;
  }
  return true;
}

void
CpuTime::ours (CpuSums * sums, GstElement * element, GstPad * pad, GstClockTime begin,
    GstClockTime end)
{
  record (sums, element, pad, begin, end);
}

void
CpuTime::record (CpuSums * sums, GstElement * element, GstPad * pad, GstClockTime begin,
    GstClockTime end)
{
  const guint64 own = end > begin ? end - begin : 0;
  sums->frames.fetch_add (1, std::memory_order_relaxed);
  sums->ns.fetch_add (own, std::memory_order_relaxed);
  log_cpu_record (pad, end, own);
  if (json_.enabled ())
    json_.thread_span (
        GST_OBJECT_NAME (element), GST_OBJECT_NAME (pad), begin / 1000.0, own / 1000.0);
}

} // namespace gst_cs

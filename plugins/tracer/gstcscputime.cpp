/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "tracer/gstcscputime.hpp"

#include <array>
#include <mutex>
#include <string>
#include <vector>

#include "base/gstcsbasetransform.h"
#include "batch/gstcsbatch.h"
#include "tracer/gstcstracerecords.hpp"

namespace gst_cs {

/* The probes' state of one element of another plugin: held by the
 * element (qdata) and its probes, so it goes with the last of them. */
struct CpuTime::Probed {
  CpuTime * owner = nullptr;
  guint64 element = 0; // its TraceStats::key
  std::string name;
  std::shared_ptr<CpuSums> sums;
  /* What its arrivals carry in this run: a new one at each. */
  std::atomic<guint64> run{ 0 };
  std::atomic<guint> hits{ 0 }, misses{ 0 };
  std::atomic<bool> off{ false }; // its probes go at their next buffer
  std::mutex pads_lock;
  std::vector<std::string> sink_pads; // names, by the number arrivals carry
};

namespace {
/* Pushes without an arrival before them on the same thread, and none with:
 * the element pushes from a thread of its own. */
constexpr guint kMissesBeforeOff = 32;

/* Element qdata: its Probed; bin qdata: its Watch. */
G_DEFINE_QUARK (gst_cs_tracer_probed, probed)
G_DEFINE_QUARK (gst_cs_tracer_watched, watched)

/* Per streaming thread: the buffers that arrived at probed elements and
 * whose push is still to come (a thread passes through a few elements).
 * No pointer: an arrival an element never takes stays here past it. */
struct Arrival {
  guint64 run = 0; // Probed::run
  guint pad = 0;   // in Probed::sink_pads
  GstClockTime at = 0;
};
struct ThreadArrivals {
  std::array<Arrival, 8> slots;
  unsigned next = 0;
};
thread_local ThreadArrivals arrivals;

std::atomic<guint64> next_run{ 1 };

using ProbedRef = std::shared_ptr<CpuTime::Probed>;

void
unref_probed (gpointer p)
{
  delete static_cast<ProbedRef *> (p);
}

/* A sink pad's probe data. */
struct SinkProbe {
  ProbedRef probed;
  guint pad;
};

GstPadProbeReturn
on_sink_buffer (GstPad *, GstPadProbeInfo *, gpointer data)
{
  auto * sink = static_cast<SinkProbe *> (data);
  CpuTime::Probed & probed = *sink->probed;
  if (G_UNLIKELY (probed.off.load (std::memory_order_relaxed)))
    return GST_PAD_PROBE_REMOVE;
  probed.owner->arrived (probed, sink->pad);
  return GST_PAD_PROBE_OK;
}

GstPadProbeReturn
on_src_buffer (GstPad *, GstPadProbeInfo *, gpointer data)
{
  CpuTime::Probed & probed = **static_cast<ProbedRef *> (data);
  return probed.owner->pushed (probed) ? GST_PAD_PROBE_OK : GST_PAD_PROBE_REMOVE;
}

void
on_pad_added (GstElement * element, GstPad * pad, gpointer data)
{
  auto * held =
      static_cast<ProbedRef *> (g_object_get_qdata (G_OBJECT (element), probed_quark ()));
  if (held)
    static_cast<CpuTime *> (data)->add_pad (*held, pad);
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
  const guint64 key = stats_.key (element);
  if (!is_filter (element)) {
    stats_.set_cpu_note (key, GST_OBJECT_NAME (element), "a source or a sink, not timed");
    return;
  }
  /* Probed once: the probes last as long as its pads. A new run: the
   * arrivals of the last one are not this one's. */
  if (auto * held = static_cast<ProbedRef *> (
          g_object_get_qdata (G_OBJECT (element), probed_quark ()))) {
    (*held)->run.store (next_run.fetch_add (1));
    if ((*held)->off.load ())
      stats_.set_cpu_note (
          key, GST_OBJECT_NAME (element), "pushes from a thread of its own, not timed");
    return;
  }
  auto probed = std::make_shared<Probed> ();
  probed->owner = this;
  probed->element = key;
  probed->name = GST_OBJECT_NAME (element);
  probed->sums = stats_.cpu_sums (key);
  probed->run.store (next_run.fetch_add (1));
  g_object_set_qdata_full (
      G_OBJECT (element), probed_quark (), new ProbedRef (probed), unref_probed);
  g_signal_connect (element, "pad-added", G_CALLBACK (on_pad_added), this);
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
CpuTime::add_pad (const std::shared_ptr<Probed> & probed, GstPad * pad)
{
  const auto types =
      (GstPadProbeType)(GST_PAD_PROBE_TYPE_BUFFER | GST_PAD_PROBE_TYPE_BUFFER_LIST);
  if (GST_PAD_IS_SINK (pad)) {
    guint number;
    {
      std::lock_guard<std::mutex> hold (probed->pads_lock);
      number = probed->sink_pads.size ();
      probed->sink_pads.push_back (GST_OBJECT_NAME (pad));
    }
    gst_pad_add_probe (pad, types, on_sink_buffer, new SinkProbe{ probed, number },
        [] (gpointer p) { delete static_cast<SinkProbe *> (p); });
  } else if (GST_PAD_IS_SRC (pad)) {
    gst_pad_add_probe (pad, types, on_src_buffer, new ProbedRef (probed), unref_probed);
  }
}

void
CpuTime::arrived (Probed & probed, guint pad)
{
  const guint64 run = probed.run.load (std::memory_order_relaxed);
  ThreadArrivals & t = arrivals;
  Arrival * slot = nullptr;
  for (Arrival & a : t.slots)
    if (a.run == run)
      slot = &a;
  if (!slot)
    slot = &t.slots[t.next++ % t.slots.size ()];
  *slot = Arrival{ run, pad, gst_util_get_timestamp () };
}

bool
CpuTime::pushed (Probed & probed)
{
  const guint64 run = probed.run.load (std::memory_order_relaxed);
  for (Arrival & a : arrivals.slots)
    if (a.run == run && a.at) {
      const GstClockTime at = a.at;
      a.at = 0;
      probed.hits.fetch_add (1, std::memory_order_relaxed);
      std::lock_guard<std::mutex> hold (probed.pads_lock);
      record (probed.sums.get (), probed.name.c_str (),
          a.pad < probed.sink_pads.size () ? probed.sink_pads[a.pad].c_str () : "?", at,
          gst_util_get_timestamp ());
      return true;
    }
  if (probed.off.load (std::memory_order_relaxed))
    return false;
  /* A second output of one input, or a push from another thread. */
  if (probed.hits.load (std::memory_order_relaxed) == 0 &&
      probed.misses.fetch_add (1, std::memory_order_relaxed) + 1 >= kMissesBeforeOff) {
    probed.off.store (true);
    stats_.set_cpu_note (probed.element, probed.name.c_str (),
        "pushes from a thread of its own, not timed");
    return false;
  }
  return true;
}

void
CpuTime::ours (CpuSums * sums, GstElement * element, GstPad * pad, GstClockTime begin,
    GstClockTime end)
{
  record (sums, GST_OBJECT_NAME (element), GST_OBJECT_NAME (pad), begin, end);
}

void
CpuTime::record (CpuSums * sums, const gchar * element, const gchar * pad,
    GstClockTime begin, GstClockTime end)
{
  const guint64 own = end > begin ? end - begin : 0;
  sums->frames.fetch_add (1, std::memory_order_relaxed);
  sums->ns.fetch_add (own, std::memory_order_relaxed);
  log_cpu_record (element, pad, end, own);
  if (json_.enabled ())
    json_.thread_span (element, pad, begin / 1000.0, own / 1000.0);
}

} // namespace gst_cs

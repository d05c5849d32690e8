/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "tracer/gstcstraceobserver.hpp"

namespace gst_cs {

namespace {
GstElement *
top_of (GstElement * element)
{
  GstObject * o = GST_OBJECT_CAST (element);
  while (GST_OBJECT_PARENT (o))
    o = GST_OBJECT_PARENT (o);
  return GST_IS_ELEMENT (o) ? GST_ELEMENT_CAST (o) : element;
}
} // namespace

gpointer
TraceObserver::started (GstElement * element)
{
  GstElement * root = top_of (element);
  const guint64 key = stats_.key (element), root_key = stats_.key (root);
  bool first;
  {
    std::lock_guard<std::mutex> hold (lock_);
    root_of_[key] = root_key;
    first = running_[root_key]++ == 0;
  }
  if (first)
    cpu_.watch (root);
  /* Held by the stats while the element lives, so past its stop. */
  return stats_.cpu_sums (key).get ();
}

void
TraceObserver::stopped (GstElement * element)
{
  const guint64 key = stats_.key (element);
  guint64 root = 0;
  {
    std::lock_guard<std::mutex> hold (lock_);
    auto it = root_of_.find (key);
    if (it == root_of_.end ())
      return;
    root = it->second;
    root_of_.erase (it);
    if (--running_[root] > 0)
      return;
    running_.erase (root);
  }
  /* The most upstream of ours has stopped: those downstream did before. */
  summarize_ (root);
}

} // namespace gst_cs

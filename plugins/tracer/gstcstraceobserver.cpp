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
  bool first;
  {
    std::lock_guard<std::mutex> hold (lock_);
    root_of_[element] = root;
    first = running_[root]++ == 0;
  }
  if (first)
    cpu_.watch (root);
  return stats_.cpu_sums (element);
}

void
TraceObserver::stopped (GstElement * element)
{
  GstElement * root = nullptr;
  {
    std::lock_guard<std::mutex> hold (lock_);
    auto it = root_of_.find (element);
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

/* SPDX-License-Identifier: LGPL-2.1-or-later */
// CPU time per element from the pad-push hooks: a chain call's time, less
// the pushes it makes downstream (nested on the same thread), is the
// element's own. Works for every element, of any plugin.
#pragma once

#include <gst/gst.h>

#include "tracer/gstcstracejson.hpp"
#include "tracer/gstcstracestats.hpp"

namespace gst_cs {

class CpuTime {
public:
  CpuTime (TraceStats & stats, TraceJson & json) : stats_ (stats), json_ (json) {}
  // A buffer (or list) pushed from `srcpad` at `ts` (ns), and its return.
  void push_pre (guint64 ts, GstPad * srcpad);
  void push_post (guint64 ts);

private:
  TraceStats & stats_;
  TraceJson & json_;
};

} // namespace gst_cs

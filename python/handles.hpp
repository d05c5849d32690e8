/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Owning handles for the GStreamer objects the module holds, so every exit
 * path (Python exceptions included) gives them back. */
#pragma once

#include <memory>

#include <gst/gst.h>

namespace cspy {

struct ObjectUnref {
  void operator() (gpointer obj) const { gst_object_unref (obj); }
};
struct SampleUnref {
  void operator() (GstSample * s) const { gst_sample_unref (s); }
};
struct BufferUnref {
  void operator() (GstBuffer * b) const { gst_buffer_unref (b); }
};
struct CapsUnref {
  void operator() (GstCaps * c) const { gst_caps_unref (c); }
};
struct MessageUnref {
  void operator() (GstMessage * m) const { gst_message_unref (m); }
};
struct ContextUnref {
  void operator() (GstContext * c) const { gst_context_unref (c); }
};
struct ErrorFree {
  void operator() (GError * e) const { g_error_free (e); }
};

using ElementPtr = std::unique_ptr<GstElement, ObjectUnref>;
using BusPtr = std::unique_ptr<GstBus, ObjectUnref>;
using PadPtr = std::unique_ptr<GstPad, ObjectUnref>;
using SamplePtr = std::unique_ptr<GstSample, SampleUnref>;
using BufferPtr = std::unique_ptr<GstBuffer, BufferUnref>;
using CapsPtr = std::unique_ptr<GstCaps, CapsUnref>;
using MessagePtr = std::unique_ptr<GstMessage, MessageUnref>;
using ContextPtr = std::unique_ptr<GstContext, ContextUnref>;
using ErrorPtr = std::unique_ptr<GError, ErrorFree>;

} // namespace cspy

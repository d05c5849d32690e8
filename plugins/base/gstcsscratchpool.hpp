/* SPDX-License-Identifier: LGPL-2.1-or-later */
// Device memory an element needs for its own work (internal to the plugin).
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>

namespace gst_cs {

// A pool of device buffers of one kind, configured on first use and again
// when what is asked for changes: video frames of one layout (an
// intermediate frame, for a copy done in two steps), or one block of raw
// memory of one size (a copy of another device's memory). Memory is
// allocated once per buffer, never per frame. Used from the streaming thread.
class ScratchPool {
public:
  ScratchPool () = default;
  ~ScratchPool () { reset (); }
  ScratchPool (const ScratchPool &) = delete;
  ScratchPool & operator= (const ScratchPool &) = delete;

  // A frame of `info` on `device`, laid out as gst_cs_video_info_device_layout()
  // says, with its GstVideoMeta.
  GstBuffer * frame (gint device, const GstVideoInfo * info, GError ** error);
  // A buffer of `size` bytes of device memory on `device`, in one block.
  GstBuffer * bytes (gint device, gsize size, GError ** error);
  // Gives the memory back (at stop).
  void reset ();

private:
  // Takes `pool` (a new reference) and configures it.
  bool configure (GstBufferPool * pool, GstCaps * caps, gsize size, GError ** error);
  GstBuffer * acquire (GError ** error);

  GstBufferPool * pool_ = nullptr;
  gint device_ = -1;
  bool video_ = false;
  GstVideoInfo info_{};
  gsize size_ = 0;
};

} // namespace gst_cs

/* SPDX-License-Identifier: LGPL-2.1-or-later */
// Where a frame's planes are, and copying them between memories (internal).
#pragma once

#include <gst/video/video.h>
#include <cuda_runtime_api.h>

#include "crop/gstcscroprect.h"
#include "gstcshostwait-private.h"

namespace gst_cs {

// Plane addresses and strides of one frame in one memory.
struct Planes {
  guint n = 0;
  guint8 * data[GST_VIDEO_MAX_PLANES] = {};
  gsize stride[GST_VIDEO_MAX_PLANES] = {};
};

// The layout of `buffer` for frames described by `info`: offsets and strides
// from its GstVideoMeta when it has one, else the caps' defaults. Fails with
// a message naming the problem when a plane would read past the buffer's
// `size` bytes, a stride is shorter than a row, or the meta's format differs.
bool buffer_layout (GstBuffer * buffer, const GstVideoInfo * info, GstVideoInfo * layout,
    gsize size, GError ** error);

// Plane pointers of `layout` in memory starting at `base`.
Planes planes_at (guint8 * base, const GstVideoInfo * layout);

// A region of the picture a buffer holds: the frame, or in
// interlace-mode=alternate one field (the frame's width, half its height
// rounded up: GST_VIDEO_INFO_FIELD_HEIGHT), whose lines y and height count.
struct Region {
  guint x = 0, y = 0, width = 0, height = 0; // in the picture, crop meta included
  GstVideoInfo frame; // the whole frame in memory: size, plane offsets, strides
  GstCsCropPlane planes[GST_VIDEO_MAX_PLANES]; // the region in each plane
  bool offsets_only = true; // false: packed 4:2:2 at an odd column (a shift)
};

// Where a `width` x `height` region at (`x`, `y`) lies in `buffer` (of `size`
// bytes) for frames of `info`'s format: the frame is the one its
// GstVideoMeta describes (else `info`'s), and (`x`, `y`) count from the
// corner of its GstVideoCropMeta, if any, as a consumer of the crop meta
// must; all in lines of the buffer's picture (a field's, for alternate
// fields: crop metas on them count field lines). Rounded for subsampled
// planes as videocrop does. Fails with a message when the region does not
// fit in the picture, or starts where no byte offset reaches (IYU1 inside
// its groups of 4 pixels: gst_cs_crop_can_start_at).
bool locate_region (GstBuffer * buffer, const GstVideoInfo * info, gsize size, guint x,
    guint y, guint width, guint height, Region * region, GError ** error);

// The visible region of a buffer whose caps are `info`: all of its picture
// (a field's lines, for alternate fields), or what its crop meta marks.
bool locate_visible (GstBuffer * buffer, const GstVideoInfo * info, gsize size,
    Region * region, GError ** error);

// The same region of the same frame laid out as `layout` (another copy of it).
Region region_in (const Region & region, const GstVideoInfo * layout);

// locate_region, locate_visible and buffer_layout for the frames of one
// stream, remembered: a stream's frames share their layout and crop, so
// the next frame of the same layout costs a comparison of what the answer
// is computed from (the caps, the buffer's size, video meta and crop meta,
// the region asked for) instead of the plane arithmetic, about 1,800 of
// the 12,600 instructions of cudaconvertscale's own path a frame
// (callgrind on the stand-in). Only answers that succeeded are kept.
class LayoutMemo {
public:
  bool locate_region (GstBuffer * buffer, const GstVideoInfo * info, gsize size, guint x,
      guint y, guint width, guint height, Region * region, GError ** error);
  bool locate_visible (GstBuffer * buffer, const GstVideoInfo * info, gsize size,
      Region * region, GError ** error);
  bool buffer_layout (GstBuffer * buffer, const GstVideoInfo * info,
      GstVideoInfo * layout, gsize size, GError ** error);

private:
  // What the answers read besides the caps: a few fields, filled and
  // compared one by one (no memset, no padding to care about). The caps'
  // GstVideoInfo is kept beside it and compared in place, not copied into
  // every frame's key: it is the same bytes every frame.
  struct Key {
    int kind = 0; // 1: a region, 2: a layout
    gsize size = 0;
    guint x = 0, y = 0, width = 0, height = 0;
    bool has_video_meta = false;
    GstVideoFormat format = GST_VIDEO_FORMAT_UNKNOWN;
    guint n_planes = 0, frame_width = 0, frame_height = 0;
    gsize offset[GST_VIDEO_MAX_PLANES] = {};
    gint stride[GST_VIDEO_MAX_PLANES] = {};
    bool has_crop_meta = false;
    guint crop_x = 0, crop_y = 0;
    bool operator== (const Key & o) const;
  };
  static void key_of (Key * key, int kind, GstBuffer * buffer, gsize size, guint x,
      guint y, guint width, guint height);
  bool hit (const Key & key, const GstVideoInfo * info) const;
  void keep (const Key & key, const GstVideoInfo * info, const Region & region);

  Key key_;
  GstVideoInfo info_; // the caps of key_, compared as bytes
  Region region_;     // for a layout: its frame
  bool valid_ = false;
};

// The two memos of an element: of its input frames and of its output frames.
struct FrameLayouts {
  LayoutMemo input, output;
};

// Plane pointers of an offsets-only `region` in memory starting at `base`.
Planes region_planes (guint8 * base, const Region & region);

// Enqueues one cudaMemcpy2DAsync per plane of `geometry` (its rows and row
// bytes) from `src` to `dst`. Never blocks for pinned or device memory; with
// pageable host memory CUDA waits for the stream first, so each plane's copy
// is a host wait, counted in `pageable` (nullptr when no side is pageable).
bool copy_planes (const Planes & src, const Planes & dst, const GstVideoInfo * geometry,
    cudaMemcpyKind kind, cudaStream_t stream, GError ** error,
    GstCsWaitCounter * pageable = nullptr);

} // namespace gst_cs

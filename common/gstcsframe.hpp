// Where a frame's planes are, and copying them between memories (internal).
#pragma once

#include <gst/video/video.h>
#include <cuda_runtime_api.h>

namespace gcs {

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

// Enqueues one cudaMemcpy2DAsync per plane of `geometry` (its rows and row
// bytes) from `src` to `dst`. Never blocks for pinned or device memory.
bool copy_planes (const Planes & src, const Planes & dst, const GstVideoInfo * geometry,
    cudaMemcpyKind kind, cudaStream_t stream, GError ** error);

} // namespace gcs

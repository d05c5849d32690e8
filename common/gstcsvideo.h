/* Video layout helpers shared by the elements: formats, caps feature, plane
 * geometry and the pitched layout of frames in device memory. */
#pragma once

#include <gst/video/video.h>

#include "gstcsapi.h"

G_BEGIN_DECLS

/**
 * GST_CAPS_FEATURE_MEMORY_CS_DEVICE:
 *
 * Caps feature of video frames in the project's CUDA device memory
 * (#GstCsMemory, one pitched allocation per frame, planes described by a
 * #GstVideoMeta, a #GstCsSyncMeta saying when the pixels are ready). It is
 * distinct from nvcodec's "memory:CUDAMemory", whose memory is a different type.
 *
 * Since: 0.1
 */
#define GST_CAPS_FEATURE_MEMORY_CS_DEVICE "memory:CUDAStreamsMemory"

/**
 * GST_CS_VIDEO_FORMATS:
 *
 * The raw video formats the elements move between host and device.
 *
 * Since: 0.1
 */
#define GST_CS_VIDEO_FORMATS "{ RGBA, BGRA, RGBx, BGRx, ARGB, ABGR, RGB, BGR, " \
  "GRAY8, GRAY16_LE, NV12, NV21, I420, YV12, Y42B, Y444, P010_10LE, P016_LE, " \
  "YUY2, UYVY }"

/* Largest width/height accepted in caps: bounds a frame to a few GiB. */
#define GST_CS_VIDEO_MAX_SIZE 16384

/**
 * GST_CS_DEVICE_PITCH_ALIGN:
 *
 * Row pitch and plane offset alignment of frames in device memory, in bytes.
 *
 * Since: 0.1
 */
#define GST_CS_DEVICE_PITCH_ALIGN 256

/**
 * gst_cs_video_plane_row_bytes:
 * @info: a video info
 * @plane: a plane index
 *
 * Returns: the bytes of visible pixels in one row of @plane (no padding),
 * counting whole macro-pixels for formats such as YUY2.
 *
 * Since: 0.1
 */
GST_CS_API gsize    gst_cs_video_plane_row_bytes (const GstVideoInfo * info,
                                                  guint                plane);

/**
 * gst_cs_video_plane_rows:
 * @info: a video info
 * @plane: a plane index
 *
 * Returns: the number of rows of @plane.
 *
 * Since: 0.1
 */
GST_CS_API guint    gst_cs_video_plane_rows      (const GstVideoInfo * info,
                                                  guint                plane);

/**
 * gst_cs_video_info_device_layout:
 * @info: the frame as negotiated
 * @layout: (out): @info with strides and plane offsets aligned to
 *   %GST_CS_DEVICE_PITCH_ALIGN and the size of the whole allocation
 *
 * Since: 0.1
 */
GST_CS_API void     gst_cs_video_info_device_layout (const GstVideoInfo * info,
                                                     GstVideoInfo       * layout);

/**
 * gst_cs_video_caps_are_device:
 * @caps: fixed caps
 *
 * Returns: whether the first structure of @caps carries
 * %GST_CAPS_FEATURE_MEMORY_CS_DEVICE.
 *
 * Since: 0.1
 */
GST_CS_API gboolean gst_cs_video_caps_are_device (const GstCaps * caps);

G_END_DECLS

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
 * GST_CS_VIDEO_CAPS:
 * @features: a caps feature string, or "" for system memory
 *
 * Template caps of the elements: the formats above, 1 to 16384 pixels.
 *
 * Since: 0.1
 */
#define GST_CS_VIDEO_CAPS(features) "video/x-raw" features ", format = (string) " \
  GST_CS_VIDEO_FORMATS ", width = (int) [ 1, 16384 ], height = (int) [ 1, 16384 ], " \
  "framerate = (fraction) [ 0, max ]"
#define GST_CS_VIDEO_DEVICE_CAPS GST_CS_VIDEO_CAPS ("(" GST_CAPS_FEATURE_MEMORY_CS_DEVICE ")")
#define GST_CS_VIDEO_SYSTEM_CAPS GST_CS_VIDEO_CAPS ("")

/**
 * GST_CS_DEVICE_PITCH_ALIGN:
 *
 * Row pitch and plane offset alignment of frames in device memory, in bytes.
 * 64 keeps rows aligned for wide (16-byte) loads, and keeps common widths
 * (1920 bytes of NV12 luma, say) unpadded, so a frame's copy over PCIe is one
 * linear transfer instead of a pitched one (measured 4% faster at 1080p).
 * A zero-copy crop (cudacrop) moves plane offsets to any byte: consumers
 * read them from the #GstVideoMeta.
 *
 * Since: 0.1
 */
#define GST_CS_DEVICE_PITCH_ALIGN 64

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

/**
 * gst_cs_caps_with_memory:
 * @caps: caps
 * @device: %TRUE for %GST_CAPS_FEATURE_MEMORY_CS_DEVICE, %FALSE for system memory
 * @filter: (nullable): caps to intersect the result with (taking their order)
 *
 * Returns: (transfer full): @caps with every structure's feature replaced,
 * the caps transform of an element that only moves frames between memories
 *
 * Since: 0.1
 */
GST_CS_API GstCaps *gst_cs_caps_with_memory (GstCaps  * caps,
                                             gboolean   device,
                                             GstCaps  * filter);

/**
 * gst_cs_caps_any_memory:
 * @caps: caps
 * @filter: (nullable): caps to intersect the result with
 *
 * Returns: (transfer full): @caps in device memory, then in system memory
 * (device first: passthrough of device frames is preferred)
 *
 * Since: 0.1
 */
GST_CS_API GstCaps *gst_cs_caps_any_memory  (GstCaps  * caps,
                                             GstCaps  * filter);

/**
 * gst_cs_query_set_pool:
 * @query: an ALLOCATION query
 * @pool: the pool decided on
 * @size, @min, @max: its parameters
 *
 * Puts @pool first in @query, replacing the first pool downstream proposed.
 *
 * Since: 0.1
 */
GST_CS_API void     gst_cs_query_set_pool   (GstQuery      * query,
                                             GstBufferPool * pool,
                                             guint           size,
                                             guint           min,
                                             guint           max);

/**
 * gst_cs_query_propose_held:
 * @query: an ALLOCATION query an element answers for upstream
 * @held: how many of upstream's buffers the element may hold at once
 *
 * Tells upstream, through the pool entry's minimum, how many buffers it should
 * allocate for us: an element that keeps frames in flight holds that many
 * (a device pool too small for them makes the producer wait for the consumer).
 *
 * Since: 0.1
 */
GST_CS_API void     gst_cs_query_propose_held (GstQuery * query,
                                               guint      held);

G_END_DECLS

/* SPDX-License-Identifier: LGPL-2.1-or-later */
// Without a GPU: plane geometry, the device layout and CUDA error messages.
#include <gst/check/gstcheck.h>

#include "gstcserror-private.h"
#include "gstcsvideo-private.h"

static GstVideoInfo
info_of (GstVideoFormat f, gint w, gint h)
{
  GstVideoInfo info;
  fail_unless (gst_video_info_set_format (&info, f, w, h));
  return info;
}

GST_START_TEST (test_plane_geometry)
{
  GstVideoInfo i = info_of (GST_VIDEO_FORMAT_NV12, 63, 47);
  fail_unless_equals_int (gst_cs_video_plane_row_bytes (&i, 0), 63);
  fail_unless_equals_int (gst_cs_video_plane_rows (&i, 0), 47);
  fail_unless_equals_int (gst_cs_video_plane_row_bytes (&i, 1), 64); /* 32 UV pairs */
  fail_unless_equals_int (gst_cs_video_plane_rows (&i, 1), 24);

  i = info_of (GST_VIDEO_FORMAT_YUY2, 63, 5);
  fail_unless_equals_int (
      gst_cs_video_plane_row_bytes (&i, 0), 128); /* 32 macro-pixels */

  i = info_of (GST_VIDEO_FORMAT_I420, 5, 3);
  fail_unless_equals_int (gst_cs_video_plane_row_bytes (&i, 1), 3);
  fail_unless_equals_int (gst_cs_video_plane_rows (&i, 2), 2);

  i = info_of (GST_VIDEO_FORMAT_P010_10LE, 7, 3);
  fail_unless_equals_int (gst_cs_video_plane_row_bytes (&i, 0), 14);
  fail_unless_equals_int (gst_cs_video_plane_row_bytes (&i, 1), 16);

  i = info_of (GST_VIDEO_FORMAT_RGB, 3, 1);
  fail_unless_equals_int (gst_cs_video_plane_row_bytes (&i, 0), 9);

  /* 4:1:1 packed, 6 bytes for 4 pixels: no bytes per pixel to count */
  i = info_of (GST_VIDEO_FORMAT_IYU1, 13, 3);
  fail_unless_equals_int (gst_cs_video_plane_row_bytes (&i, 0), 24);
  fail_unless_equals_int (gst_cs_video_plane_rows (&i, 0), 3);

  /* the palette: 256 entries of 4 bytes, one a row, whatever the size */
  i = info_of (GST_VIDEO_FORMAT_RGB8P, 13, 3);
  fail_unless_equals_int (gst_cs_video_plane_row_bytes (&i, 0), 13);
  fail_unless_equals_int (gst_cs_video_plane_row_bytes (&i, 1), 4);
  fail_unless_equals_int (gst_cs_video_plane_rows (&i, 1), 256);

  /* 4x4 subsampled chroma */
  i = info_of (GST_VIDEO_FORMAT_YUV9, 13, 7);
  fail_unless_equals_int (gst_cs_video_plane_row_bytes (&i, 1), 4);
  fail_unless_equals_int (gst_cs_video_plane_rows (&i, 2), 2);
}
GST_END_TEST;

GST_START_TEST (test_device_layout)
{
  GstVideoInfo i = info_of (GST_VIDEO_FORMAT_I420, 1921, 1081), l;
  gst_cs_video_info_device_layout (&i, &l);
  gsize end = 0;
  for (guint p = 0; p < 3; p++) {
    fail_unless (l.stride[p] % GST_CS_DEVICE_PITCH_ALIGN == 0);
    fail_unless (l.offset[p] % GST_CS_DEVICE_PITCH_ALIGN == 0);
    fail_unless ((gsize)l.stride[p] >= gst_cs_video_plane_row_bytes (&i, p));
    fail_unless (l.offset[p] >= end, "planes overlap");
    end = l.offset[p] + (gsize)l.stride[p] * gst_cs_video_plane_rows (&i, p);
  }
  fail_unless (l.size >= end);

  /* A palette stays 1 KiB in one piece (GStreamer's unpack reads it so),
   * where it starts aligned. */
  i = info_of (GST_VIDEO_FORMAT_RGB8P, 13, 3);
  gst_cs_video_info_device_layout (&i, &l);
  fail_unless_equals_int (l.stride[1], 4);
  fail_unless (l.offset[1] % GST_CS_DEVICE_PITCH_ALIGN == 0);
  fail_unless (l.size >= l.offset[1] + 1024);
}
GST_END_TEST;

GST_START_TEST (test_cuda_error_message)
{
  GError * err = NULL;
  fail_unless (gst_cs_cuda_check (cudaSuccess, "cudaFree (p)", &err));
  fail_unless (err == NULL);
  fail_if (gst_cs_cuda_check (cudaErrorMemoryAllocation, "cudaMalloc (&p, n)", &err));
  fail_unless (g_error_matches (err, GST_CS_ERROR, GST_CS_ERROR_OUT_OF_MEMORY));
  fail_unless (
      g_str_has_prefix (err->message, "cudaMalloc failed: cudaErrorMemoryAllocation"),
      "%s", err->message);
  g_clear_error (&err);
  fail_if (gst_cs_cuda_check (cudaErrorNoDevice, "cudaSetDevice (0)", &err));
  fail_unless (g_error_matches (err, GST_CS_ERROR, GST_CS_ERROR_NO_DEVICE));
  g_clear_error (&err);
}
GST_END_TEST;

static Suite *
video_suite (void)
{
  Suite * s = suite_create ("video");
  TCase * tc = tcase_create ("general");
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_plane_geometry);
  tcase_add_test (tc, test_device_layout);
  tcase_add_test (tc, test_cuda_error_message);
  return s;
}

GST_CHECK_MAIN (video);

/* SPDX-License-Identifier: LGPL-2.1-or-later */
// The shapes the Python module exports (python/export_shape.cpp), from
// buffers with the video metas elements attach: planar RGB as one
// 3 x H x W tensor only where its planes are equally spaced, in order, with
// one pitch. No pipeline makes the other layouts, so they are built here.
#include <gst/check/gstcheck.h>

#include "export_shape.hpp"

using cspy::ExportShape;
using cspy::FrameLayout;

/* A frame of `format` w x h in a buffer of `size` bytes whose video meta
 * says `offsets` and `strides` (the default layout's when null), cropped
 * to `crop` (x, y, width, height) when given. */
static FrameLayout
layout_of (GstVideoFormat format, gint w, gint h, const gsize * offsets,
    const gint * strides, const gint * crop = nullptr)
{
  GstVideoInfo info;
  fail_unless (gst_video_info_set_format (&info, format, w, h));
  GstBuffer * buf = gst_buffer_new_allocate (nullptr, 16384, nullptr);
  gst_buffer_add_video_meta_full (buf, GST_VIDEO_FRAME_FLAG_NONE, format, w, h,
      GST_VIDEO_INFO_N_PLANES (&info),
      offsets ? const_cast<gsize *> (offsets) : info.offset,
      strides ? const_cast<gint *> (strides) : info.stride);
  if (crop) {
    GstVideoCropMeta * m = gst_buffer_add_video_crop_meta (buf);
    m->x = crop[0], m->y = crop[1], m->width = crop[2], m->height = crop[3];
  }
  FrameLayout l = cspy::frame_layout (buf, &info);
  gst_buffer_unref (buf);
  return l;
}

static void
assert_shape (const ExportShape & s, std::initializer_list<int64_t> shape,
    std::initializer_list<int64_t> elem_strides, gsize offset)
{
  fail_unless_equals_int (s.ndim, (int)shape.size ());
  int64_t strides[3];
  fail_unless (s.element_strides (strides));
  for (int i = 0; i < s.ndim; i++) {
    fail_unless_equals_int64 (s.shape[i], shape.begin ()[i]);
    fail_unless_equals_int64 (strides[i], elem_strides.begin ()[i]);
  }
  fail_unless_equals_uint64 (s.offset, offset);
}

GST_START_TEST (test_planar_rgb_stacked)
{
  for (GstVideoFormat f : { GST_VIDEO_FORMAT_RGBP, GST_VIDEO_FORMAT_BGRP }) {
    /* Odd size: rows padded to 20 bytes, planes 180 bytes apart. */
    FrameLayout l = layout_of (f, 17, 9, nullptr, nullptr);
    ExportShape s;
    std::string why;
    fail_unless (cspy::frame_export_shape (l, &s, &why), "%s", why.c_str ());
    assert_shape (s, { 3, 9, 17 }, { 180, 20, 1 }, 0);
    fail_unless_equals_uint64 (s.extent (), 2 * 180 + 8 * 20 + 17);

    /* A crop meta moves the start of every plane alike. */
    const gint crop[] = { 3, 2, 10, 5 };
    l = layout_of (f, 17, 9, nullptr, nullptr, crop);
    fail_unless (cspy::frame_export_shape (l, &s, &why), "%s", why.c_str ());
    assert_shape (s, { 3, 5, 10 }, { 180, 20, 1 }, 2 * 20 + 3);

    /* Planes padded apart, as a device pool aligns them. */
    const gsize spaced[] = { 512, 512 + 4096, 512 + 2 * 4096 };
    const gint pitch[] = { 256, 256, 256 };
    l = layout_of (f, 17, 9, spaced, pitch);
    fail_unless (cspy::frame_export_shape (l, &s, &why), "%s", why.c_str ());
    assert_shape (s, { 3, 9, 17 }, { 4096, 256, 1 }, 512);
  }
}
GST_END_TEST;

static void
assert_refused (const FrameLayout & l, const char * expect)
{
  ExportShape s;
  std::string why;
  fail_if (cspy::frame_export_shape (l, &s, &why), "%s exported as one tensor",
      l.format_name ());
  fail_unless (why.find (expect) != std::string::npos, "reason: %s", why.c_str ());
  fail_unless (why.find ("frame.planes[i]") != std::string::npos, "%s", why.c_str ());
}

GST_START_TEST (test_planar_rgb_refused)
{
  const gint pitch[] = { 20, 20, 20 };
  const gsize unequal[] = { 0, 180, 400 };
  assert_refused (
      layout_of (GST_VIDEO_FORMAT_RGBP, 17, 9, unequal, pitch), "not equally spaced");
  const gsize backwards[] = { 360, 180, 0 };
  assert_refused (
      layout_of (GST_VIDEO_FORMAT_BGRP, 17, 9, backwards, pitch), "not equally spaced");
  const gsize overlapping[] = { 0, 100, 200 }; /* a plane is 177 bytes */
  assert_refused (
      layout_of (GST_VIDEO_FORMAT_RGBP, 17, 9, overlapping, pitch), "not equally spaced");
  const gsize equal[] = { 0, 400, 800 };
  const gint pitches[] = { 20, 24, 20 };
  assert_refused (
      layout_of (GST_VIDEO_FORMAT_RGBP, 17, 9, equal, pitches), "not equally spaced");
  /* Other formats of several planes keep their message. */
  assert_refused (
      layout_of (GST_VIDEO_FORMAT_NV12, 16, 10, nullptr, nullptr), "NV12 has 2 planes");
  assert_refused (
      layout_of (GST_VIDEO_FORMAT_GBR, 16, 10, nullptr, nullptr), "GBR has 3 planes");
}
GST_END_TEST;

GST_START_TEST (test_single_plane)
{
  ExportShape s;
  std::string why;
  fail_unless (cspy::frame_export_shape (
      layout_of (GST_VIDEO_FORMAT_RGBA, 7, 3, nullptr, nullptr), &s, &why));
  assert_shape (s, { 3, 7, 4 }, { 28, 4, 1 }, 0);
  fail_unless_equals_uint64 (s.extent (), 2 * 28 + 28);

  /* A plane of the frame, planar or not: rows x columns x channels. */
  FrameLayout l = layout_of (GST_VIDEO_FORMAT_NV12, 16, 10, nullptr, nullptr);
  assert_shape (cspy::plane_export_shape (l.planes[1]), { 5, 8, 2 }, { 16, 2, 1 }, 160);

  /* 16 bits with an odd pitch: no strides in elements. */
  const gint odd[] = { 33 };
  const gsize start[] = { 0 };
  fail_unless (cspy::frame_export_shape (
      layout_of (GST_VIDEO_FORMAT_GRAY16_LE, 8, 4, start, odd), &s, &why));
  int64_t strides[3];
  fail_if (s.element_strides (strides));
}
GST_END_TEST;

static Suite *
export_shape_suite (void)
{
  Suite * s = suite_create ("export_shape");
  TCase * tc = tcase_create ("general");
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_planar_rgb_stacked);
  tcase_add_test (tc, test_planar_rgb_refused);
  tcase_add_test (tc, test_single_plane);
  return s;
}

GST_CHECK_MAIN (export_shape);

/* SPDX-License-Identifier: LGPL-2.1-or-later */
// Without a GPU: LayoutMemo (plugins/base/gstcsframe.hpp) gives, frame
// after frame, what locate_region and buffer_layout compute afresh, as a
// buffer's size, video meta and crop meta and the region asked for change.
#include <gst/check/gstcheck.h>

#include "base/gstcsframe.hpp"

namespace {

GstVideoInfo
info_of (GstVideoFormat f, gint w, gint h)
{
  GstVideoInfo info;
  fail_unless (gst_video_info_set_format (&info, f, w, h));
  return info;
}

void
same_region (const gst_cs::Region & a, const gst_cs::Region & b)
{
  fail_unless_equals_int (a.x, b.x);
  fail_unless_equals_int (a.y, b.y);
  fail_unless_equals_int (a.width, b.width);
  fail_unless_equals_int (a.height, b.height);
  fail_unless_equals_int (a.offsets_only, b.offsets_only);
  fail_unless_equals_int (a.frame.width, b.frame.width);
  fail_unless_equals_int (a.frame.height, b.frame.height);
  for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES (&a.frame); p++) {
    fail_unless_equals_uint64 (a.frame.offset[p], b.frame.offset[p]);
    fail_unless_equals_int (a.frame.stride[p], b.frame.stride[p]);
    fail_unless_equals_uint64 (a.planes[p].offset, b.planes[p].offset);
    fail_unless_equals_uint64 (a.planes[p].row_bytes, b.planes[p].row_bytes);
    fail_unless_equals_int (a.planes[p].rows, b.planes[p].rows);
  }
}

/* The memo's answer for `buffer` is the one computed afresh: both succeed
 * with the same region, or both fail. */
void
memo_agrees (gst_cs::LayoutMemo & memo, GstBuffer * buffer, const GstVideoInfo * info,
    guint x, guint y, guint w, guint h)
{
  gst_cs::Region fresh, remembered;
  GError *e1 = NULL, *e2 = NULL;
  const gsize size = gst_buffer_get_size (buffer);
  const bool ok = gst_cs::locate_region (buffer, info, size, x, y, w, h, &fresh, &e1);
  fail_unless_equals_int (
      memo.locate_region (buffer, info, size, x, y, w, h, &remembered, &e2), ok);
  if (ok)
    same_region (fresh, remembered);
  else
    fail_unless (e2 && g_str_equal (e1->message, e2->message));
  g_clear_error (&e1);
  g_clear_error (&e2);
}

} // namespace

GST_START_TEST (test_region_follows_the_buffer)
{
  GstVideoInfo info = info_of (GST_VIDEO_FORMAT_NV12, 64, 48);
  gst_cs::LayoutMemo memo;
  GstBuffer * buffer = gst_buffer_new_allocate (NULL, 16384, NULL);
  memo_agrees (memo, buffer, &info, 0, 0, 64, 48);
  memo_agrees (memo, buffer, &info, 0, 0, 64, 48); /* remembered */
  memo_agrees (memo, buffer, &info, 6, 4, 32, 24); /* other regions */
  memo_agrees (memo, buffer, &info, 8, 4, 32, 24);
  memo_agrees (memo, buffer, &info, 8, 6, 32, 24);
  memo_agrees (memo, buffer, &info, 8, 6, 16, 24);
  memo_agrees (memo, buffer, &info, 8, 6, 16, 8);

  /* The whole frame in a video meta, a crop meta on it, then the same crop
   * meta moved: the region moves along; out of the frame it is refused,
   * and nothing of that is remembered. */
  GstVideoMeta * vm = gst_buffer_add_video_meta_full (buffer, GST_VIDEO_FRAME_FLAG_NONE,
      GST_VIDEO_FORMAT_NV12, 64, 48, 2, info.offset, info.stride);
  GstVideoInfo cropped = info_of (GST_VIDEO_FORMAT_NV12, 32, 24);
  GstVideoCropMeta * cm = gst_buffer_add_video_crop_meta (buffer);
  cm->x = 8, cm->y = 4, cm->width = 32, cm->height = 24;
  memo_agrees (memo, buffer, &cropped, 0, 0, 32, 24);
  cm->x = 16;
  memo_agrees (memo, buffer, &cropped, 0, 0, 32, 24);
  cm->y = 10;
  memo_agrees (memo, buffer, &cropped, 0, 0, 32, 24);
  cm->x = 40;
  memo_agrees (memo, buffer, &cropped, 0, 0, 32, 24);
  cm->x = 16;
  memo_agrees (memo, buffer, &cropped, 0, 0, 32, 24);

  /* The video meta's strides and offsets change. */
  vm->stride[0] = vm->stride[1] = 128;
  vm->offset[1] = 128 * 48;
  memo_agrees (memo, buffer, &cropped, 0, 0, 32, 24);
  vm->offset[1] = 128 * 50;
  memo_agrees (memo, buffer, &cropped, 0, 0, 32, 24);
  vm->stride[0] = 32; /* shorter than a row: refused */
  memo_agrees (memo, buffer, &cropped, 0, 0, 32, 24);
  vm->stride[0] = 128;
  memo_agrees (memo, buffer, &cropped, 0, 0, 32, 24);
  gst_buffer_resize (buffer, 0, 9000); /* the last plane ends past it: refused */
  memo_agrees (memo, buffer, &cropped, 0, 0, 32, 24);
  gst_buffer_unref (buffer);

  /* The caps change in place (an element keeps its GstVideoInfo in one
   * place): the memo follows the bytes, not the pointer. */
  GstVideoInfo in_place = info_of (GST_VIDEO_FORMAT_NV12, 32, 24);
  buffer = gst_buffer_new_allocate (NULL, 16384, NULL);
  memo_agrees (memo, buffer, &in_place, 0, 0, 32, 24);
  in_place = info_of (GST_VIDEO_FORMAT_NV12, 64, 48);
  memo_agrees (memo, buffer, &in_place, 0, 0, 32, 24);
  GST_VIDEO_INFO_PLANE_OFFSET (&in_place, 1) += 64;
  memo_agrees (memo, buffer, &in_place, 0, 0, 32, 24);
  in_place.size = 20000; /* larger than the buffer: refused */
  memo_agrees (memo, buffer, &in_place, 0, 0, 32, 24);
  gst_buffer_unref (buffer);

  /* A buffer too small for its caps: refused. */
  buffer = gst_buffer_new_allocate (NULL, 1000, NULL);
  memo_agrees (memo, buffer, &info, 0, 0, 64, 48);
  gst_buffer_unref (buffer);
}
GST_END_TEST;

GST_START_TEST (test_layout_follows_the_buffer)
{
  GstVideoInfo info = info_of (GST_VIDEO_FORMAT_I420, 33, 17);
  gst_cs::LayoutMemo memo;
  GstBuffer * buffer = gst_buffer_new_allocate (NULL, 8192, NULL);
  for (int round = 0; round < 3; round++) {
    GstVideoInfo fresh, remembered;
    const gsize size = gst_buffer_get_size (buffer);
    fail_unless (gst_cs::buffer_layout (buffer, &info, &fresh, size, NULL));
    fail_unless (memo.buffer_layout (buffer, &info, &remembered, size, NULL));
    for (guint p = 0; p < 3; p++) {
      fail_unless_equals_uint64 (fresh.offset[p], remembered.offset[p]);
      fail_unless_equals_int (fresh.stride[p], remembered.stride[p]);
    }
    if (round == 0) {
      gsize offset[3] = { 0, 64 * 17, 64 * 17 + 32 * 9 };
      gint stride[3] = { 64, 32, 32 };
      gst_buffer_add_video_meta_full (buffer, GST_VIDEO_FRAME_FLAG_NONE,
          GST_VIDEO_FORMAT_I420, 33, 17, 3, offset, stride);
    } else {
      gst_buffer_get_video_meta (buffer)->stride[2] = 48;
      gst_buffer_get_video_meta (buffer)->offset[2] = 64 * 17 + 32 * 9 + 16;
    }
  }
  gst_buffer_unref (buffer);
}
GST_END_TEST;

static Suite *
frame_layouts_suite (void)
{
  Suite * s = suite_create ("frame_layouts");
  TCase * tc = tcase_create ("general");
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_region_follows_the_buffer);
  tcase_add_test (tc, test_layout_follows_the_buffer);
  return s;
}

GST_CHECK_MAIN (frame_layouts);

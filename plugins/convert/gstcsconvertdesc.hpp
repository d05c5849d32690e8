/* SPDX-License-Identifier: LGPL-2.1-or-later */
// What the convert-scale kernel needs to know of GStreamer's frames
// (internal): where each component lies, how codes map to colour, where
// the picture goes in the output.
#pragma once

#include <gst/video/video.h>

#include "convert_scale.h"

namespace gst_cs {

// A frame of `info`'s format and colorimetry, of `layout`'s size, plane
// offsets and strides, in memory starting at `base`; an `output` also has
// its padding bytes (RGBx: the x) to write. An alternate field (one field a
// buffer) is a picture of the frame's width and the field's lines
// (GST_VIDEO_INFO_FIELD_HEIGHT: half the frame's, rounded up).
gpu::Image convert_image (
    const GstVideoInfo * info, const GstVideoInfo * layout, guint8 * base, bool output);

// The affine map from `in`'s codes to `out`'s (through RGB, with each
// side's matrix and range), and the factor between their alpha codes.
void convert_matrix (const GstVideoInfo * in, const GstVideoInfo * out, float m[3][4],
    float * alpha_scale);

// `argb` (0xAARRGGBB, full-range RGB) in `out`'s codes.
void convert_border (const GstVideoInfo * out, guint32 argb, float border[4]);

// Where a picture of `in_w` x `in_h` pixels of aspect `in_par_n/in_par_d`
// goes in an `out`-sized frame keeping its display aspect ratio, centred
// (letterbox or pillarbox); the whole frame where the ratios agree.
void fit_picture (gint in_w, gint in_h, gint in_par_n, gint in_par_d,
    const GstVideoInfo * out, gint * x, gint * y, gint * w, gint * h);

// How a frame is converted, besides its caps: the element's properties.
struct ConvertSettings {
  gpu::Filter filter = gpu::Filter::BILINEAR;
  gpu::Orientation orientation = gpu::Orientation::IDENTITY;
  bool add_borders = true;
  guint32 border_argb = 0xff000000;
};

// Whether `o` turns the picture a quarter (the output's width is the
// input's height).
bool swaps_axes (gpu::Orientation o);

// Where a `w` x `h` region of `in` goes in `out` once turned by
// `settings.orientation`: all of it, or between borders (fit_picture).
void place_picture (const GstVideoInfo * in, const GstVideoInfo * out, gint w, gint h,
    const ConvertSettings & settings, gint * x, gint * y, gint * pw, gint * ph);

// Everything of `op` but the memory (op->in and op->out): the source
// rectangle (x, y, w, h of `in`'s picture: of an alternate field, in field
// lines), where the picture goes in `out` (borders from the frames' display
// aspect ratios, in an alternate field's lines), the filter, the
// orientation and the colour maps. The element and the tests' CPU
// reference describe a frame with this one function.
// The colours of a description (matrix, alpha scale, border codes): the
// same for every frame of one pair of caps and one border colour. An
// element keeps them from frame to frame (convert_matrix and
// convert_border cost as much host time as the rest of a description) and
// clears `valid` when its caps change.
struct ConvertColours {
  bool valid = false;
  guint32 border_argb = 0;
  float matrix[3][4] = {};
  float alpha_scale = 1.0f;
  float border[4] = {};
};

void describe_convert (const GstVideoInfo * in, const GstVideoInfo * out, gint x, gint y,
    gint w, gint h, const ConvertSettings & settings, gpu::ConvertScale * op);

// Where the point (`x`, `y`) of an output frame of `out` comes from in the
// input frame of `in` that `settings` turned and scaled into it, borders
// undone (a point on a border: the picture's nearest edge): a navigation
// event's pointer, from downstream's frame into upstream's.
void input_point (const GstVideoInfo * in, const GstVideoInfo * out,
    const ConvertSettings & settings, double x, double y, double * in_x, double * in_y);

// The same, taking the colours from `colours` where they are valid for
// settings.border_argb, else computing them into it.
void describe_convert (const GstVideoInfo * in, const GstVideoInfo * out, gint x, gint y,
    gint w, gint h, const ConvertSettings & settings, ConvertColours * colours,
    gpu::ConvertScale * op);

} // namespace gst_cs

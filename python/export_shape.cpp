/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "export_shape.hpp"

namespace cspy {

gsize
ExportShape::extent () const
{
  gsize last = 0;
  for (int i = 0; i < ndim; i++)
    last += (gsize)(shape[i] - 1) * (gsize)byte_strides[i];
  return last + itemsize;
}

bool
ExportShape::element_strides (int64_t out[kMaxExportDims]) const
{
  for (int i = 0; i < ndim; i++) {
    if (byte_strides[i] % itemsize != 0)
      return false;
    out[i] = byte_strides[i] / itemsize;
  }
  return true;
}

ExportShape
plane_export_shape (const PlaneShape & plane)
{
  ExportShape s;
  s.ndim = 3;
  s.shape[0] = plane.height;
  s.shape[1] = plane.width;
  s.shape[2] = plane.channels;
  s.byte_strides[0] = plane.pitch;
  s.byte_strides[1] = (int64_t)plane.channels * plane.itemsize;
  s.byte_strides[2] = plane.itemsize;
  s.itemsize = plane.itemsize;
  s.offset = plane.offset;
  return s;
}

/* Planar RGB whose plane order is its channel order (GBR's is not). */
static bool
is_stacked_format (GstVideoFormat format)
{
  return format == GST_VIDEO_FORMAT_RGBP || format == GST_VIDEO_FORMAT_BGRP;
}

static std::string
plane_list (const FrameLayout & l)
{
  std::string offsets, pitches;
  for (guint p = 0; p < l.n_planes; p++) {
    offsets += (p ? ", " : "") + std::to_string (l.planes[p].offset);
    pitches += (p ? ", " : "") + std::to_string (l.planes[p].pitch);
  }
  return "offsets " + offsets + "; pitches " + pitches;
}

/* One step from plane to plane, forwards, and rows of one pitch: otherwise
 * no strides describe the planes. The step must clear a whole plane, or
 * the channels of the tensor would overlap. */
static bool
equally_spaced (const FrameLayout & l)
{
  const PlaneShape & p0 = l.planes[0];
  const gsize plane_bytes = (gsize)(p0.height - 1) * p0.pitch + p0.row_bytes ();
  if (p0.channels != 1 || l.planes[1].offset < p0.offset + plane_bytes)
    return false;
  const gsize step = l.planes[1].offset - p0.offset;
  for (guint p = 1; p < l.n_planes; p++) {
    const PlaneShape & s = l.planes[p];
    if (s.offset != p0.offset + p * step || s.pitch != p0.pitch || s.channels != 1 ||
        s.width != p0.width || s.height != p0.height || s.itemsize != p0.itemsize)
      return false;
  }
  return true;
}

bool
frame_export_shape (const FrameLayout & l, ExportShape * out, std::string * why)
{
  if (!l.unsupported.empty ()) {
    *why = l.unsupported;
    return false;
  }
  if (l.n_planes == 1) {
    *out = plane_export_shape (l.planes[0]);
    return true;
  }
  const std::string name = l.format_name ();
  if (!is_stacked_format (l.format)) {
    *why = name + " has " + std::to_string (l.n_planes) + " planes: use frame.planes[i]";
    return false;
  }
  if (!equally_spaced (l)) {
    *why = name + "'s planes are not equally spaced in memory with one pitch (" +
           plane_list (l) + "): they cannot be one 3 x H x W tensor; use frame.planes[i]";
    return false;
  }
  const PlaneShape & p0 = l.planes[0];
  ExportShape s;
  s.ndim = 3;
  s.shape[0] = l.n_planes;
  s.shape[1] = p0.height;
  s.shape[2] = p0.width;
  s.byte_strides[0] = (int64_t)(l.planes[1].offset - p0.offset);
  s.byte_strides[1] = p0.pitch;
  s.byte_strides[2] = p0.itemsize;
  s.itemsize = p0.itemsize;
  s.offset = p0.offset;
  *out = s;
  return true;
}

} // namespace cspy

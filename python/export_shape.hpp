/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What an exported tensor looks like, worked out from a frame's layout
 * alone: one plane as H x W x C, or the three planes of planar RGB as one
 * 3 x H x W tensor when they lie equally spaced in memory; a batch is four
 * dimensions of floats or bytes (batch.hpp). Kept apart from the DLPack
 * plumbing so that the rules can be tested without Python. */
#pragma once

#include <cstdint>
#include <string>

#include "layout.hpp"

namespace cspy {

/* The most dimensions an export has: a batch's N x C x H x W. */
constexpr int kMaxExportDims = 4;

struct ExportShape {
  int ndim = 0;
  int64_t shape[kMaxExportDims] = {};
  int64_t byte_strides[kMaxExportDims] = {}; /* DLPack wants elements: element_strides */
  guint itemsize = 1;
  bool is_float = false; /* IEEE floats of itemsize bytes; else unsigned integers */
  gsize offset = 0;      /* from the start of the frame's memory to the first element */

  /* Bytes from the first element to just after the last one: how much of
   * the memory from `offset` on the tensor may read. */
  gsize extent () const;
  /* The strides in elements; false when one is not a whole number of them. */
  bool element_strides (int64_t out[kMaxExportDims]) const;
};

/* One plane: rows x columns x channels. */
ExportShape plane_export_shape (const PlaneShape & plane);

/* Frame.__dlpack__'s tensor: the one plane of a single-plane format, or the
 * planes of RGBP and BGRP (whose plane order is their channel order) as
 * 3 x H x W. False, with the reason for a TypeError in `why`, for anything
 * else: other formats of several planes, and planar RGB whose planes are
 * not equally spaced, in order, with one pitch. */
bool frame_export_shape (
    const FrameLayout & layout, ExportShape * out, std::string * why);

} // namespace cspy

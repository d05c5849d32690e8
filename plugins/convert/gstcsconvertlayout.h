/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Where each component of a raw video format lies, bit by bit, for the
 * converter's frame description: probed once per format from the format's
 * own pack function (GstVideoFormatInfo), one bit at a time. The info's
 * own offsets and shifts leave some formats out (r210, Y210, Y410,
 * RGB10A2_LE: offset 0 and shift 0 for every component); what the pack
 * function writes is the format, whatever the table says. */
#pragma once

#include <gst/video/video.h>

G_BEGIN_DECLS

/**
 * GstCsConvertComponent:
 * @plane: the plane the component lies on
 * @offset: bytes from a sample's pixel group to the word its code lies in
 * @step: bytes between horizontally neighbouring samples, or between pairs
 *   of samples where @pair_step is set
 * @pair_step: samples in pairs (IYU1's luma): bytes from a pair's first
 *   sample to its second; 0: evenly spaced
 * @word: the word's bytes: 1, 2 or 4
 * @shift: the code's lowest bit in the word
 * @depth: the code's bits
 * @big_endian: the word's first byte is its most significant one
 * @first: the first component of its word, which other components share
 *   (RGB16, r210): writing it clears the word's other bits
 * @w_sub: horizontal subsampling (log2)
 * @h_sub: vertical subsampling (log2)
 */
typedef struct {
  gint plane;
  gint offset;
  gint step;
  gint pair_step;
  gint word;
  gint shift;
  gint depth;
  gboolean big_endian;
  gboolean first;
  gint w_sub;
  gint h_sub;
} GstCsConvertComponent;

/**
 * GstCsConvertLayout:
 * @n_components: the format's components
 * @comp: each one's place (R, G, B, A of a palette's entries: @palette)
 * @palette: the samples are bytes indexing the 256 native-endian words
 *   0xAARRGGBB of plane 1 (RGB8P); each component's @shift is its place in
 *   such a word
 */
typedef struct {
  guint n_components;
  GstCsConvertComponent comp[4];
  gboolean palette;
} GstCsConvertLayout;

/**
 * gst_cs_convert_layout:
 * @format: a raw video format
 * @layout: (out) (optional): where its components lie
 *
 * Where @format's components lie, probed once per format (thread-safe).
 *
 * Returns: %NULL where @format is such words of bits (or a palette of
 * them), with @layout filled; else why the converter cannot read or write
 * it, for a user ("tiled", ...): a static string
 */
const gchar * gst_cs_convert_layout (GstVideoFormat format, GstCsConvertLayout * layout);

G_END_DECLS
